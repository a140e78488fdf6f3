package linear

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/moments"
)

// statsData is n rows of D features in k classes (class means apart by
// sep, unequal spreads per feature, a common offset), standardised as the
// stages standardise, and the standardised statistics of the same rows
// computed in batches of 37 and merged.
func statsData(t *testing.T, n, D, k int, sep, offset float64, seed uint64) (*mat.Dense, []int, *moments.Moments) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 38))
	x := make([]float64, n*D)
	cls := make([]int, n)
	for i := range n {
		cls[i] = i % k
		for j := range D {
			x[i*D+j] = offset + sep*float64(cls[i])*float64(j%3) + rng.NormFloat64()*(1+float64(j)/2)
		}
	}
	names := make([]string, D)
	for j := range names {
		names[j] = fmt.Sprintf("f%d", j)
	}
	s, _ := transforms.FitScaling(x, n, D, names, true)
	z := mat.NewDense(n, D, nil)
	for i := range n {
		for j := range D {
			z.Set(i, j, (x[i*D+j]-s.Mean[j])/s.Scale[j])
		}
	}
	m := moments.New(D, k)
	for lo := 0; lo < n; lo += 37 {
		hi := min(lo+37, n)
		if err := m.Add(context.Background(), x[lo*D:hi*D], hi-lo, cls[lo:hi], 2); err != nil {
			t.Fatal(err)
		}
	}
	ms, _, err := m.Scaling(names, true)
	if err != nil {
		t.Fatal(err)
	}
	for j := range D {
		if d := math.Abs(ms.Mean[j]-s.Mean[j]) + math.Abs(ms.Scale[j]-s.Scale[j])/s.Scale[j]; d > 1e-12*(1+math.Abs(offset)) {
			t.Fatalf("feature %d: statistics give mean %v scale %v, FitScaling %v %v", j, ms.Mean[j], ms.Scale[j], s.Mean[j], s.Scale[j])
		}
	}
	return z, cls, m.Standardized(ms)
}

// sameAxes checks two projections axis by axis and origin by origin, to
// tol (the axes are unit vectors, the origins standardised coordinates).
func sameAxes(t *testing.T, name string, got, want Projection, tol float64) {
	t.Helper()
	D, d := want.Axes.Dims()
	for j := range d {
		for i := range D {
			if e := math.Abs(got.Axes.At(i, j) - want.Axes.At(i, j)); !(e <= tol) {
				t.Fatalf("%s: axis %d, component %d: %v from statistics, %v from rows", name, j, i, got.Axes.At(i, j), want.Axes.At(i, j))
			}
		}
	}
	for i := range D {
		if e := math.Abs(got.Origin[i] - want.Origin[i]); !(e <= tol) {
			t.Fatalf("%s: origin %d: %v from statistics, %v from rows", name, i, got.Origin[i], want.Origin[i])
		}
	}
}

func relClose(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(math.Abs(b), 1e-300) }

// TestFitsFromMoments: PCA and LDA from merged statistics equal the fits of
// the same standardised rows to 1e-12 (axes, origins, variances,
// eigenvalues), with discriminant axes only and with filled ones, and with
// a common offset of 1e3 in the raw data. (Both computations lose digits as
// offset/spread grows, each its own way: at 1e6 they agree to 1e-10.)
func TestFitsFromMoments(t *testing.T) {
	for _, tc := range []struct {
		name          string
		n, D, k, dims int
		sep, offset   float64
	}{
		{"3 classes, 6 features", 900, 6, 3, 2, 2, 0},
		{"2 classes, filled axis", 500, 5, 2, 3, 1.5, 0},
		{"4 classes, offset 1e3", 800, 7, 4, 2, 1, 1e3},
	} {
		z, cls, m := statsData(t, tc.n, tc.D, tc.k, tc.sep, tc.offset, uint64(tc.n))
		opts := DefaultLDAOptions()
		opts.Dims = tc.dims
		want, err := LDA(z, cls, tc.k, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := LDAMoments(m, opts)
		if err != nil {
			t.Fatal(err)
		}
		sameAxes(t, tc.name+" LDA", got.Projection, want.Projection, 1e-12)
		if got.Discriminants != want.Discriminants || !relClose(got.Shrinkage, want.Shrinkage, 1e-12) {
			t.Errorf("%s LDA: %d discriminants, shrinkage %v; from rows %d, %v", tc.name, got.Discriminants, got.Shrinkage, want.Discriminants, want.Shrinkage)
		}
		for j, l := range want.Eigenvalues {
			if !relClose(got.Eigenvalues[j], l, 1e-12) {
				t.Errorf("%s LDA: eigenvalue %d is %v, from rows %v", tc.name, j, got.Eigenvalues[j], l)
			}
		}
		// PCA sees one class: the pooled statistics.
		one := moments.New(m.D, 1)
		n, mean, m2 := m.Pooled()
		one.Count[0] = n
		copy(one.Mean, mean)
		copy(one.M2, m2)
		wp, err := PCA(z, tc.dims)
		if err != nil {
			t.Fatal(err)
		}
		gp, err := PCAMoments(one, tc.dims)
		if err != nil {
			t.Fatal(err)
		}
		sameAxes(t, tc.name+" PCA", gp.Projection, wp.Projection, 1e-12)
		for j := range wp.Variances {
			if !relClose(gp.Variances[j], wp.Variances[j], 1e-12) || !relClose(gp.VarianceRatio[j], wp.VarianceRatio[j], 1e-12) {
				t.Errorf("%s PCA: variance %d is %v (share %v), from rows %v (%v)", tc.name, j, gp.Variances[j], gp.VarianceRatio[j], wp.Variances[j], wp.VarianceRatio[j])
			}
		}
	}
}

// TestFitsFromMomentsRefuse: too few rows or classes, an empty class and
// too many dimensions are the errors of the fits of rows.
func TestFitsFromMomentsRefuse(t *testing.T) {
	one := moments.New(3, 1)
	one.Count[0] = 1
	if _, err := PCAMoments(one, 2); err == nil {
		t.Error("PCA of 1 row: no error")
	}
	empty := moments.New(3, 2)
	empty.Count[0] = 4
	opts := DefaultLDAOptions()
	if _, err := LDAMoments(empty, opts); err == nil {
		t.Error("LDA with an empty class: no error")
	}
	opts.Dims = 4
	if _, err := LDAMoments(moments.New(3, 2), opts); err == nil {
		t.Error("LDA with dims 4 of 3 features: no error")
	}
}
