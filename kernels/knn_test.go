package kernels

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// bruteNeighbors sorts all j ≠ i by (dmat[i][j], j) with a full stable sort.
func bruteNeighbors(dmat []float64, n, i int) []int32 {
	var js []int32
	for j := range n {
		if j != i {
			js = append(js, int32(j))
		}
	}
	slices.SortStableFunc(js, func(a, b int32) int {
		return cmp.Compare(dmat[i*n+int(a)], dmat[i*n+int(b)])
	})
	return js
}

func plainDistances(x []float64, n, d int) []float64 {
	dm := make([]float64, n*n)
	for i := range n {
		for j := range n {
			dm[i*n+j] = plainSqDist(x, d, i, j)
		}
	}
	return dm
}

func TestKNN(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	type tc struct {
		name    string
		n, d, k int
		x       []float64
	}
	var cases []tc
	for _, s := range []struct{ n, d int }{{2, 1}, {10, 2}, {50, 3}, {137, 2}, {60, 20}, {40, 37}} {
		for _, k := range []int{1, 5, s.n - 1} {
			if k > s.n-1 {
				continue
			}
			cases = append(cases,
				tc{fmt.Sprintf("random n=%d d=%d k=%d", s.n, s.d, k), s.n, s.d, k, randomPoints(rng, s.n, s.d)},
				tc{fmt.Sprintf("grid n=%d d=%d k=%d", s.n, s.d, k), s.n, s.d, k, gridPoints(rng, s.n, s.d, 3)})
		}
	}
	for _, c := range cases {
		dm := plainDistances(c.x, c.n, c.d)
		for _, threads := range threadCounts {
			idx := make([]int32, c.n*c.k)
			dist := make([]float64, c.n*c.k)
			if err := KNN(context.Background(), idx, dist, c.x, c.n, c.d, c.k, threads); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			idx2 := make([]int32, c.n*c.k)
			if err := KNN(context.Background(), idx2, nil, c.x, c.n, c.d, c.k, threads); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			idx3 := make([]int32, c.n*c.k)
			dist3 := make([]float64, c.n*c.k)
			if err := KNNFromDistances(context.Background(), idx3, dist3, dm, c.n, c.k, threads); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			for i := range c.n {
				want := bruteNeighbors(dm, c.n, i)[:c.k]
				for p, j := range want {
					q := i*c.k + p
					wd := dm[i*c.n+int(j)]
					if idx[q] != j || dist[q] != wd || idx2[q] != j || idx3[q] != j || dist3[q] != wd {
						t.Fatalf("%s threads=%d: row %d neighbour %d: KNN (%d, %v), nil dist %d, from distances (%d, %v); want (%d, %v)",
							c.name, threads, i, p, idx[q], dist[q], idx2[q], idx3[q], dist3[q], j, wd)
					}
				}
			}
		}
	}
}

// TestKNNFromDistancesAsymmetric uses a non-symmetric matrix with ties,
// negative values, −0 and +Inf.
func TestKNNFromDistancesAsymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 40
	values := []float64{-1, math.Copysign(0, -1), 0, 1, 2, math.Inf(1)}
	dm := make([]float64, n*n)
	for i := range dm {
		dm[i] = values[rng.IntN(len(values))]
	}
	for _, k := range []int{1, 7, n - 1} {
		idx := make([]int32, n*k)
		dist := make([]float64, n*k)
		if err := KNNFromDistances(context.Background(), idx, dist, dm, n, k, 2); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			want := bruteNeighbors(dm, n, i)[:k]
			if got := idx[i*k : (i+1)*k]; !slices.Equal(got, want) {
				t.Fatalf("k=%d row %d: got %v, want %v", k, i, got, want)
			}
		}
	}
}

// TestRowKNN reuses one RowKNN across rows and k (ties included) against
// the full stable sort, and checks its panics.
func TestRowKNN(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	const n = 40
	dm := make([]float64, n*n)
	for i := range dm {
		dm[i] = float64(rng.IntN(8))
	}
	var r RowKNN
	for _, k := range []int{3, 1, n - 1, 3} {
		idx, dist := make([]int32, k), make([]float64, k)
		for i := range n {
			r.Find(idx, dist, dm[i*n:(i+1)*n], i)
			want := bruteNeighbors(dm, n, i)[:k]
			for q := range k {
				if idx[q] != want[q] || dist[q] != dm[i*n+int(want[q])] {
					t.Fatalf("k=%d row %d: got %v %v, want %v", k, i, idx, dist, want)
				}
			}
		}
	}
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"k zero", func() { r.Find(nil, nil, dm[:5], 0) }},
		{"k = len(row)", func() { r.Find(make([]int32, 5), nil, dm[:5], 0) }},
		{"dist short", func() { r.Find(make([]int32, 2), make([]float64, 1), dm[:5], 0) }},
		{"self out of range", func() { r.Find(make([]int32, 2), nil, dm[:5], 5) }},
	} {
		if !panics(tc.f) {
			t.Errorf("%s: no panic", tc.name)
		}
	}
}

func TestKNNPanics(t *testing.T) {
	x := make([]float64, 10) // 5 points in 2-D
	dm := make([]float64, 25)
	bg := context.Background()
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"k zero", func() { _ = KNN(bg, nil, nil, x, 5, 2, 0, 1) }},
		{"k = n", func() { _ = KNN(bg, make([]int32, 25), nil, x, 5, 2, 5, 1) }},
		{"idx short", func() { _ = KNN(bg, make([]int32, 9), nil, x, 5, 2, 2, 1) }},
		{"dist short", func() { _ = KNN(bg, make([]int32, 10), make([]float64, 9), x, 5, 2, 2, 1) }},
		{"x ragged", func() { _ = KNN(bg, make([]int32, 10), nil, x[:9], 5, 2, 2, 1) }},
		{"dmat short", func() { _ = KNNFromDistances(bg, make([]int32, 10), nil, dm[:24], 5, 2, 1) }},
		{"dmat k", func() { _ = KNNFromDistances(bg, make([]int32, 25), nil, dm, 5, 5, 1) }},
	} {
		if !panics(tc.f) {
			t.Errorf("%s: no panic", tc.name)
		}
	}
}

func TestKNNCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x := make([]float64, 100)
	if err := KNN(ctx, make([]int32, 100), nil, x, 100, 1, 1, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("KNN: err = %v", err)
	}
	if err := KNNFromDistances(ctx, make([]int32, 100), nil, make([]float64, 100*100), 100, 1, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("KNNFromDistances: err = %v", err)
	}
}

func BenchmarkKNN(b *testing.B) {
	const k = 10
	for _, n := range []int{1000, 10000} {
		for _, d := range []int{2, 32} {
			b.Run(fmt.Sprintf("N=%d/D=%d", n, d), func(b *testing.B) {
				x := randomPoints(rand.New(rand.NewPCG(1, 1)), n, d)
				idx := make([]int32, n*k)
				dist := make([]float64, n*k)
				b.ResetTimer()
				for b.Loop() {
					if err := KNN(context.Background(), idx, dist, x, n, d, k, 0); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
