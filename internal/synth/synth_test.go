package synth

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

type generator func(*rand.Rand, int) (*mat.Dense, []int)

var generators = []struct {
	name     string
	gen      generator
	classes  int
	perClass int
}{
	{"OrdinalGaussians", OrdinalGaussians, GaussianClasses, GaussianPerClass},
	{"SwissRolls", SwissRolls, SwissClasses, SwissPerClass},
}

func TestShapesAndCounts(t *testing.T) {
	for _, g := range generators {
		for _, per := range []int{1, 7, g.perClass} {
			x, cl := g.gen(rand.New(rand.NewPCG(1, 2)), per)
			n, d := x.Dims()
			if n != g.classes*per || d != 3 || len(cl) != n {
				t.Errorf("%s(%d): x is %d×%d with %d classes, want %d×3", g.name, per, n, d, len(cl), g.classes*per)
				continue
			}
			counts := make([]int, g.classes)
			for i, c := range cl {
				if c < 0 || c >= g.classes {
					t.Fatalf("%s(%d): row %d has class %d", g.name, per, i, c)
				}
				if i > 0 && c < cl[i-1] {
					t.Errorf("%s(%d): rows not grouped by class at row %d", g.name, per, i)
				}
				counts[c]++
			}
			for c, nc := range counts {
				if nc != per {
					t.Errorf("%s(%d): class %d has %d rows, want %d", g.name, per, c, nc, per)
				}
			}
		}
	}
}

func TestDeterminism(t *testing.T) {
	for _, g := range generators {
		x1, c1 := g.gen(rand.New(rand.NewPCG(7, 8)), 50)
		x2, c2 := g.gen(rand.New(rand.NewPCG(7, 8)), 50)
		x3, _ := g.gen(rand.New(rand.NewPCG(9, 8)), 50)
		if !mat.Equal(x1, x2) {
			t.Errorf("%s: same seed gave different data", g.name)
		}
		for i := range c1 {
			if c1[i] != c2[i] {
				t.Fatalf("%s: same seed gave different classes at row %d", g.name, i)
			}
		}
		if mat.Equal(x1, x3) {
			t.Errorf("%s: different seeds gave the same data", g.name)
		}
	}
}

func TestPanicsOnBadSize(t *testing.T) {
	for _, g := range generators {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s(0) did not panic", g.name)
				}
			}()
			g.gen(rand.New(rand.NewPCG(1, 1)), 0)
		}()
	}
}

// TestGaussianGeometry checks the documented construction: the ordinal
// direction is the least-variance principal axis, and the class means sit
// 1.5 apart along it.
func TestGaussianGeometry(t *testing.T) {
	x, cl := OrdinalGaussians(rand.New(rand.NewPCG(3, 4)), GaussianPerClass)
	var pc stat.PC
	if !pc.PrincipalComponents(x, nil) {
		t.Fatal("PCA failed")
	}
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	vars := pc.VarsTo(nil)
	t.Logf("variances %.3g", vars)
	o := GaussianDirection()
	if c := math.Abs(mat.Dot(vecs.ColView(2), mat.NewVecDense(3, o))); c < 0.99 {
		t.Errorf("third principal axis has |cos| %.4f with o, want ≥ 0.99", c)
	}
	for i, want := range []float64{16, 9, 6.375} {
		if math.Abs(vars[i]-want) > 0.2*want {
			t.Errorf("variance %d = %.3g, want about %g", i, vars[i], want)
		}
	}
	means := classMeansAlong(x, cl, GaussianClasses, o)
	for k := 1; k < GaussianClasses; k++ {
		if gap := means[k] - means[k-1]; math.Abs(gap-GaussianSpacing) > 0.25 {
			t.Errorf("class means %d→%d are %.3f apart along o, want about %g", k-1, k, gap, GaussianSpacing)
		}
	}
}

// TestSwissGeometry checks that the classes occupy disjoint slabs along y in
// class order and that y is the least-variance principal axis.
func TestSwissGeometry(t *testing.T) {
	x, cl := SwissRolls(rand.New(rand.NewPCG(3, 4)), SwissPerClass)
	for i, c := range cl {
		y := x.At(i, 1)
		if lo := SwissOffset * float64(c); y < lo || y >= lo+SwissHeight {
			t.Fatalf("row %d (class %d) has y = %g outside [%g, %g)", i, c, y, lo, lo+SwissHeight)
		}
		if r := math.Hypot(x.At(i, 0), x.At(i, 2)); r < 1.5*math.Pi || r >= 3*math.Pi {
			t.Fatalf("row %d has radius %g outside [1.5π, 3π)", i, r)
		}
	}
	var pc stat.PC
	if !pc.PrincipalComponents(x, nil) {
		t.Fatal("PCA failed")
	}
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	vars := pc.VarsTo(nil)
	cov := mat.NewSymDense(3, nil)
	stat.CovarianceMatrix(cov, x, nil)
	t.Logf("principal variances %.3g; var x, y, z = %.3g, %.3g, %.3g", vars, cov.At(0, 0), cov.At(1, 1), cov.At(2, 2))
	if c := math.Abs(vecs.At(1, 2)); c < 0.99 {
		t.Errorf("third principal axis has |cos| %.4f with y, want ≥ 0.99", c)
	}
}

func classMeansAlong(x *mat.Dense, cl []int, k int, dir []float64) []float64 {
	sum := make([]float64, k)
	cnt := make([]float64, k)
	for i, c := range cl {
		for j, v := range dir {
			sum[c] += v * x.At(i, j)
		}
		cnt[c]++
	}
	for c := range sum {
		sum[c] /= cnt[c]
	}
	return sum
}
