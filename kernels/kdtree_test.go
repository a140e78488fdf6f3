package kernels

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The k-d tree search must return the exhaustive search's neighbours and
// distances bit for bit, ties (grid points, duplicates) included.
func TestKDTreeKNNMatchesExhaustive(t *testing.T) {
	grid := func(n, d, side int, seed uint64) []float64 {
		rng := rand.New(rand.NewPCG(seed, 5))
		x := make([]float64, n*d)
		for i := range x {
			x[i] = float64(rng.IntN(side))
		}
		return x
	}
	cases := []struct {
		name    string
		x       []float64
		n, d, k int
	}{
		{"gaussian d=1", randomPoints(rand.New(rand.NewPCG(1, 1)), 700, 1), 700, 1, 7},
		{"gaussian d=2", randomPoints(rand.New(rand.NewPCG(2, 1)), 3000, 2), 3000, 2, 15},
		{"gaussian d=3 k=1", randomPoints(rand.New(rand.NewPCG(3, 1)), 2500, 3), 2500, 3, 1},
		{"gaussian d=8", randomPoints(rand.New(rand.NewPCG(4, 1)), 2100, 8), 2100, 8, 30},
		{"mixture d=5", mixture(2600, 5, 6, 4, 7), 2600, 5, 40},
		{"grid ties d=2", grid(2200, 2, 12, 1), 2200, 2, 25},
		{"grid ties d=3", grid(1500, 3, 4, 2), 1500, 3, 50},
		{"all equal", make([]float64, 200*3), 200, 3, 17},
		{"k = n-1", randomPoints(rand.New(rand.NewPCG(5, 1)), 90, 2), 90, 2, 89},
		{"huge and tiny", scaled(randomPoints(rand.New(rand.NewPCG(6, 1)), 1000, 3), 1e150, 1e-150), 1000, 3, 9},
	}
	for _, c := range cases {
		wantIdx, wantD := make([]int32, c.n*c.k), make([]float64, c.n*c.k)
		if err := bruteKNN(context.Background(), wantIdx, wantD, c.x, c.n, c.d, c.k, 2, nil); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, threads := range []int{1, 2} {
			gotIdx, gotD := make([]int32, c.n*c.k), make([]float64, c.n*c.k)
			if err := kdKNN(context.Background(), gotIdx, gotD, c.x, c.n, c.d, c.k, threads, nil); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if i := firstDiff(gotIdx, wantIdx); i >= 0 {
				t.Errorf("%s, %d threads: row %d neighbour %d is %d, exhaustive search %d", c.name, threads, i/c.k, i%c.k, gotIdx[i], wantIdx[i])
			}
			if !slicesEqualBits(gotD, wantD) {
				t.Errorf("%s, %d threads: distances differ from the exhaustive search", c.name, threads)
			}
		}
	}
}

// scaled multiplies the first half of x by big and the rest by small, so
// that the boxes' bounds and the distances span the whole exponent range.
func scaled(x []float64, big, small float64) []float64 {
	for i := range x {
		if i < len(x)/2 {
			x[i] *= big
		} else {
			x[i] *= small
		}
	}
	return x
}

func firstDiff(a, b []int32) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// KNN must take the tree exactly where documented and give the same
// answer either way.
func TestKNNUsesTree(t *testing.T) {
	for _, d := range []int{KDTreeMaxDims, KDTreeMaxDims + 1} {
		const n, k = kdTreeMinRows, 5
		x := mixture(n, d, 3, 3, uint64(d))
		got, want := make([]int32, n*k), make([]int32, n*k)
		if err := KNN(context.Background(), got, nil, x, n, d, k, 2); err != nil {
			t.Fatal(err)
		}
		if err := bruteKNN(context.Background(), want, nil, x, n, d, k, 2, nil); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("d = %d: KNN differs from the exhaustive search", d)
		}
	}
}

// The median split must leave no larger key before the median and no
// smaller one after it, on keys with many repeats.
func TestSelectNth(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := range 200 {
		n := 1 + rng.IntN(60)
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(rng.IntN(1 + trial%7))
		}
		p := make([]int32, n)
		for i := range p {
			p[i] = int32(i)
		}
		m := rng.IntN(n)
		selectNth(p, m, x, 1, 0)
		sorted := slices.Clone(x)
		slices.Sort(sorted)
		if x[p[m]] != sorted[m] {
			t.Fatalf("trial %d: rank %d holds %v, want %v", trial, m, x[p[m]], sorted[m])
		}
		for i := range p {
			if (i < m && x[p[i]] > x[p[m]]) || (i > m && x[p[i]] < x[p[m]]) {
				t.Fatalf("trial %d: %v at %d on the wrong side of the median %v", trial, x[p[i]], i, x[p[m]])
			}
		}
	}
}

func TestKDTreeKNNCancel(t *testing.T) {
	const n, d, k = 5000, 3, 10
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := KNN(ctx, make([]int32, n*k), nil, randomPoints(rand.New(rand.NewPCG(1, 2)), n, d), n, d, k, 2)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// BenchmarkKNNTree compares the k-d tree with the exhaustive search on a
// Gaussian mixture and on one isotropic Gaussian (the tree's hardest case,
// no structure to prune on): the crossover that sets KDTreeMaxDims.
func BenchmarkKNNTree(b *testing.B) {
	const n, k = 20_000, 30
	for _, c := range []struct {
		data string
		d    int
	}{{"mixture", 3}, {"mixture", 8}, {"mixture", 16}, {"isotropic", 3}, {"isotropic", 8}, {"isotropic", 12}, {"isotropic", 16}} {
		d := c.d
		x := mixture(n, d, 10, 3, 1)
		if c.data == "isotropic" {
			x = randomPoints(rand.New(rand.NewPCG(1, 1)), n, d)
		}
		idx := make([]int32, n*k)
		for _, m := range []struct {
			name string
			fn   func(context.Context, []int32, []float64, []float64, int, int, int, int) error
		}{{"tree", func(ctx context.Context, idx []int32, dist, x []float64, n, d, k, threads int) error {
			return kdKNN(ctx, idx, dist, x, n, d, k, threads, nil)
		}}, {"exhaustive", func(ctx context.Context, idx []int32, dist, x []float64, n, d, k, threads int) error {
			return bruteKNN(ctx, idx, dist, x, n, d, k, threads, nil)
		}}} {
			b.Run(fmt.Sprintf("%s/d=%d/%s", c.data, d, m.name), func(b *testing.B) {
				for b.Loop() {
					if err := m.fn(context.Background(), idx, nil, x, n, d, k, 2); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
