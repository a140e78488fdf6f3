package bvp

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randomMatrix(rng *rand.Rand, r, c int) *mat.Dense {
	a := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	return a
}

// retract is Eq. 8: (v + η)/‖v + η‖.
func retract(v, eta []float64, t float64) []float64 {
	w := make([]float64, len(v))
	var n float64
	for i := range v {
		w[i] = v[i] + t*eta[i]
		n += w[i] * w[i]
	}
	scale(w, 1/math.Sqrt(n))
	return w
}

// TestGradientsFiniteDifference checks the Riemannian gradient against
// central differences of F along retracted curves t ↦ Retr_v(tξ) for
// tangent ξ, and the Euclidean gradient against ambient central differences.
func TestGradientsFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, size := range [][2]int{{1, 3}, {2, 3}, {4, 3}, {3, 7}, {6, 5}} {
		a := randomMatrix(rng, size[0], size[1])
		m := size[1]
		for trial := range 5 {
			v := randomUnit(rng, m)
			g, e := make([]float64, m), make([]float64, m)
			gradients(g, e, a, v)
			if d := dot(g, v); math.Abs(d) > 1e-12*math.Sqrt(dot(g, g)+1) {
				t.Errorf("%v trial %d: gradient not tangent, gᵀv = %g", size, trial, d)
			}
			const h = 1e-5
			for range 3 {
				xi := randomUnit(rng, m)
				c := dot(xi, v)
				for i := range xi {
					xi[i] -= c * v[i] // tangent direction
				}
				fd := (objective(a, retract(v, xi, h)) - objective(a, retract(v, xi, -h))) / (2 * h)
				if got := dot(g, xi); math.Abs(got-fd) > 1e-6*(1+math.Abs(fd)) {
					t.Errorf("%v trial %d: ⟨grad, ξ⟩ = %.10g, finite difference %.10g", size, trial, got, fd)
				}
				// Ambient: F(v + tξ) without normalisation.
				amb := randomUnit(rng, m)
				plus, minus := make([]float64, m), make([]float64, m)
				for i := range amb {
					plus[i], minus[i] = v[i]+h*amb[i], v[i]-h*amb[i]
				}
				fd = (objective(a, plus) - objective(a, minus)) / (2 * h)
				if got := dot(e, amb); math.Abs(got-fd) > 1e-6*(1+math.Abs(fd)) {
					t.Errorf("%v trial %d: ⟨∇F, ξ⟩ = %.10g, finite difference %.10g", size, trial, got, fd)
				}
			}
		}
	}
}

// TestMinimizeSphere checks that Algorithm 1 reaches the eigenvector of AᵀA
// with the smallest eigenvalue (A of full column rank).
func TestMinimizeSphere(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, size := range [][2]int{{3, 2}, {5, 3}, {8, 6}, {12, 10}} {
		a := randomMatrix(rng, size[0], size[1])
		m := size[1]
		var ata mat.SymDense
		ata.SymOuterK(1, a.T())
		var eig mat.EigenSym
		if !eig.Factorize(&ata, true) {
			t.Fatal("EigenSym failed")
		}
		vals := eig.Values(nil)
		var vecs mat.Dense
		eig.VectorsTo(&vecs)
		vmin := mat.Col(nil, 0, &vecs)
		for trial := range 5 {
			v, it, ok := minimizeSphere(a, randomUnit(rng, m), 5000, 1e-9, DefaultOptions().Step0)
			if !ok {
				t.Errorf("%v trial %d: no convergence in %d iterations", size, trial, it)
				continue
			}
			if c := math.Abs(dot(v, vmin)); c < 1-1e-8 {
				t.Errorf("%v trial %d: |cos| with v_min = %.12f after %d iterations (λ = %.3g)", size, trial, c, it, vals)
			}
			if f := objective(a, v); f > vals[0]*(1+1e-8)+1e-14 {
				t.Errorf("%v trial %d: F = %.12g, λ_min = %.12g", size, trial, f, vals[0])
			}
		}
	}
}

// TestComplementBasis checks that the Householder basis is orthonormal and
// orthogonal to v, including v = ±e₁.
func TestComplementBasis(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	vs := [][]float64{{1, 0, 0}, {-1, 0, 0}, {0, 1}, {0, 0, 0, -1}}
	for range 5 {
		vs = append(vs, randomUnit(rng, 2+rng.IntN(6)))
	}
	for _, v := range vs {
		m := len(v)
		p := complementBasis(v)
		var gram mat.Dense
		gram.Mul(p.T(), p)
		if !mat.EqualApprox(&gram, identity(m-1), 1e-14) {
			t.Errorf("v = %.3g: PᵀP ≠ I", v)
		}
		var pv mat.VecDense
		pv.MulVec(p.T(), mat.NewVecDense(m, v))
		if mat.Norm(&pv, 2) > 1e-14 {
			t.Errorf("v = %.3g: ‖Pᵀv‖ = %g", v, mat.Norm(&pv, 2))
		}
	}
}

// TestRGDManyStarts guards against the stall of the Barzilai–Borwein step:
// from 60 random starts RGD agrees with SVD on the data sets where the
// Riemannian reading of Eq. 7 stalled (to angles of about 1 rad). The bound
// 1e−3 leaves room for the accuracy the stopping angle 1e−5 allows.
func TestRGDManyStarts(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    int
	}{{"squash-stored", 2}, {"car", 2}, {"car", 3}, {"bondrate", 4}} {
		x, cl, k := loadOrdinal(t, tc.name)
		ref, err := Fit(x, cl, k, fitOpts(tc.d, SVD, 0))
		if err != nil {
			t.Fatal(err)
		}
		worst, most := 0.0, 0
		for seed := range uint64(60) {
			res, err := Fit(x, cl, k, fitOpts(tc.d, RGD, seed))
			if err != nil {
				t.Fatal(err)
			}
			worst = max(worst, largestAngle(ref.Axes, res.Axes))
			most = max(most, slices.Max(res.Iterations))
		}
		t.Logf("%s d=%d: over 60 seeds, largest principal angle %.2e, most iterations %d", tc.name, tc.d, worst, most)
		if worst > 1e-3 || most >= DefaultOptions().MaxIter {
			t.Errorf("%s d=%d: largest principal angle %.3g, most iterations %d", tc.name, tc.d, worst, most)
		}
	}
}

// TestRGDOptions checks MaxIter, the stall warning and determinism per seed.
func TestRGDOptions(t *testing.T) {
	x, cl, k := loadOrdinal(t, "newthyroid")
	o := fitOpts(2, RGD, 0)
	o.MaxIter, o.Tol = 2, 1e-12
	res, err := Fit(x, cl, k, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "RGD reached max-iter = 2") ||
		!strings.Contains(res.Warnings[0], "deflation steps 1, 2, 3 of 3") {
		t.Errorf("warnings %q", res.Warnings)
	}
	if !slices.Equal(res.Iterations, []int{2, 2, 2}) {
		t.Errorf("iterations %v, want [2 2 2]", res.Iterations)
	}
	a, _ := Fit(x, cl, k, fitOpts(2, RGD, 9))
	b, _ := Fit(x, cl, k, fitOpts(2, RGD, 9))
	c, _ := Fit(x, cl, k, fitOpts(2, RGD, 10))
	if !mat.Equal(a.Axes, b.Axes) || !slices.Equal(a.Iterations, b.Iterations) {
		t.Error("same seed gave different results")
	}
	if mat.Equal(a.Axes, c.Axes) {
		t.Error("different seeds gave bit-identical axes; the seed is not used")
	}
}
