package moments

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// reference computes the statistics of every class directly: the mean as
// a sum over the class's rows, the co-moments of the rows centred on it.
func reference(x []float64, n, D, K int, classes []int) *Moments {
	r := New(D, K)
	for i := range n {
		c := classes[i]
		r.Count[c]++
		for j := range D {
			r.Mean[c*D+j] += x[i*D+j]
			r.Min[j], r.Max[j] = min(r.Min[j], x[i*D+j]), max(r.Max[j], x[i*D+j])
		}
	}
	for c := range K {
		for j := range D {
			if r.Count[c] > 0 {
				r.Mean[c*D+j] /= float64(r.Count[c])
			}
		}
	}
	for i := range n {
		c := classes[i]
		for a := range D {
			for b := range D {
				r.M2[c*D*D+a*D+b] += (x[i*D+a] - r.Mean[c*D+a]) * (x[i*D+b] - r.Mean[c*D+b])
			}
		}
	}
	return r
}

// near reports the largest difference of a and b relative to the largest
// |b| (the matrices' scale), and where.
func near(a, b []float64) (float64, int) {
	var big, worst float64
	at := -1
	for _, v := range b {
		big = max(big, math.Abs(v))
	}
	for i := range a {
		if d := math.Abs(a[i]-b[i]) / max(big, math.SmallestNonzeroFloat64); d > worst || math.IsNaN(d) {
			worst, at = d, i
		}
	}
	return worst, at
}

func compare(t *testing.T, name string, got, want *Moments, tol float64) {
	t.Helper()
	for c := range want.K {
		if got.Count[c] != want.Count[c] {
			t.Fatalf("%s: class %d has %d rows, want %d", name, c, got.Count[c], want.Count[c])
		}
	}
	D := want.D
	for c := range want.K {
		if e, at := near(got.Means()[c*D:(c+1)*D], want.Means()[c*D:(c+1)*D]); e > tol {
			t.Errorf("%s: class %d mean %d off by %.3g relative", name, c, at, e)
		}
		if e, at := near(got.M2[c*D*D:(c+1)*D*D], want.M2[c*D*D:(c+1)*D*D]); e > tol {
			t.Errorf("%s: class %d co-moment (%d,%d) off by %.3g relative", name, c, at/D, at%D, e)
		}
	}
	for j := range D {
		if got.Min[j] != want.Min[j] || got.Max[j] != want.Max[j] {
			t.Errorf("%s: feature %d ranges over [%v, %v], want [%v, %v]", name, j, got.Min[j], got.Max[j], want.Min[j], want.Max[j])
		}
	}
}

// TestMerge: statistics of any split of the rows, merged, equal the whole's
// direct ones to rounding: one batch, batches of 1, 7 and 100 rows merged
// in order, and halves merged as a tree. Data with a common offset of
// 1e8 (unit spread) keep their digits.
func TestMerge(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name        string
		n, D, K     int
		offset, tol float64
	}{
		{"3 classes", 500, 6, 3, 0, 1e-13},
		{"one class", 300, 4, 1, 0, 1e-13},
		{"offset 1e8", 400, 3, 2, 1e8, 1e-7},
		{"a class without rows", 200, 5, 4, 0, 1e-13},
	} {
		rng := rand.New(rand.NewPCG(uint64(tc.n), 38))
		x := make([]float64, tc.n*tc.D)
		cls := make([]int, tc.n)
		for i := range tc.n {
			cls[i] = rng.IntN(tc.K)
			if tc.name == "a class without rows" && cls[i] == 2 {
				cls[i] = 1
			}
			for j := range tc.D {
				x[i*tc.D+j] = tc.offset + float64(cls[i]+j) + rng.NormFloat64()*(1+float64(j))
			}
		}
		want := reference(x, tc.n, tc.D, tc.K, cls)
		for _, batch := range []int{tc.n, 1, 7, 100} {
			got := New(tc.D, tc.K)
			for lo := 0; lo < tc.n; lo += batch {
				hi := min(lo+batch, tc.n)
				if err := got.Add(ctx, x[lo*tc.D:hi*tc.D], hi-lo, cls[lo:hi], 2); err != nil {
					t.Fatal(err)
				}
			}
			compare(t, fmt.Sprintf("%s, batches of %d", tc.name, batch), got, want, tc.tol)
		}
		// A tree: halves (and a part with no rows) computed apart, merged.
		h := tc.n / 2
		a, b, empty := New(tc.D, tc.K), New(tc.D, tc.K), New(tc.D, tc.K)
		if err := a.Add(ctx, x[:h*tc.D], h, cls[:h], 1); err != nil {
			t.Fatal(err)
		}
		if err := b.Add(ctx, x[h*tc.D:], tc.n-h, cls[h:], 1); err != nil {
			t.Fatal(err)
		}
		for _, o := range []*Moments{empty, b} {
			if err := a.Merge(o); err != nil {
				t.Fatal(err)
			}
		}
		if err := empty.Merge(a); err != nil {
			t.Fatal(err)
		}
		compare(t, tc.name+", halves merged", empty, want, tc.tol)
		if tc.offset == 0 {
			continue
		}
		// The one-pass sums lose the spread under the offset: the test's
		// data are hard enough to tell the two apart.
		var s, s2 float64
		for i := range tc.n {
			s += x[i*tc.D]
			s2 += x[i*tc.D] * x[i*tc.D]
		}
		naive := s2 - s*s/float64(tc.n)
		pooled := reference(x, tc.n, tc.D, 1, make([]int, tc.n))
		if r := math.Abs(naive-pooled.M2[0]) / pooled.M2[0]; r < 1e-3 {
			t.Errorf("%s: the one-pass co-moment is off by only %.2g: the offset does not test stability", tc.name, r)
		}
	}
}

// TestPooled: the classes merged equal the statistics of all rows as one
// class.
func TestPooled(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(4, 38))
	const n, D, K = 240, 5, 3
	x := make([]float64, n*D)
	cls := make([]int, n)
	for i := range n {
		cls[i] = rng.IntN(K)
		for j := range D {
			x[i*D+j] = 3*float64(cls[i]) + rng.NormFloat64()
		}
	}
	m := New(D, K)
	if err := m.Add(ctx, x, n, cls, 2); err != nil {
		t.Fatal(err)
	}
	cnt, mean, m2 := m.Pooled()
	want := reference(x, n, D, 1, make([]int, n))
	if cnt != n || m.Rows() != n {
		t.Fatalf("pooled %d rows, Rows %d, want %d", cnt, m.Rows(), n)
	}
	if e, at := near(mean, want.Mean); e > 1e-13 {
		t.Errorf("pooled mean %d off by %.3g", at, e)
	}
	if e, at := near(m2, want.M2); e > 1e-13 {
		t.Errorf("pooled co-moment %d off by %.3g", at, e)
	}
}

func TestMergeShape(t *testing.T) {
	for _, o := range []*Moments{New(3, 2), New(2, 3)} {
		if err := New(2, 2).Merge(o); !errors.Is(err, ErrShape) {
			t.Errorf("merge of %d×%d into 2×2: err = %v, want ErrShape", o.D, o.K, err)
		}
	}
}

// BenchmarkAdd measures Add on batches of 65,536 rows × 32 features (one
// Parquet batch of the streamed fits), in one class and in four.
func BenchmarkAdd(b *testing.B) {
	const n, D = 65536, 32
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, n*D)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	four := make([]int, n)
	for i := range four {
		four[i] = rng.IntN(4)
	}
	for _, tc := range []struct {
		name    string
		K       int
		classes []int
	}{{"K=1", 1, nil}, {"K=4", 4, four}} {
		b.Run(tc.name, func(b *testing.B) {
			m := New(D, tc.K)
			b.SetBytes(int64(8 * n * D))
			for b.Loop() {
				if err := m.Add(context.Background(), x, n, tc.classes, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
