package bvp

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/internal/synth"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/linear"
)

// TestSolversAgree fits SVD and RGD (two seeds) on the six ORCA data sets for
// d = 2 and d = rank(A), and checks that the subspaces agree, that RGD never
// reaches MaxIter, and that the axes agree one by one after the final
// rotation and the sign rules.
func TestSolversAgree(t *testing.T) {
	for _, name := range orcaSets {
		x, cl, k := loadOrdinal(t, name)
		_, D := x.Dims()
		ref, err := Fit(x, cl, k, fitOpts(1, SVD, 0))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		dims := []int{2}
		if r := ref.Rank; r != 2 && r <= D {
			dims = append(dims, r)
		}
		for _, d := range dims {
			svd, err := Fit(x, cl, k, fitOpts(d, SVD, 0))
			if err != nil {
				t.Fatalf("%s d=%d svd: %v", name, d, err)
			}
			for _, seed := range []uint64{1, 2} {
				rgd, err := Fit(x, cl, k, fitOpts(d, RGD, seed))
				if err != nil {
					t.Fatalf("%s d=%d rgd: %v", name, d, err)
				}
				angle := largestAngle(svd.Axes, rgd.Axes)
				t.Logf("%-14s D=%2d K=%d rank=%d d=%d seed=%d: largest principal angle %.2e; RGD iterations %v (max %d)",
					name, D, k, svd.Rank, d, seed, angle, rgd.Iterations, slices.Max(rgd.Iterations))
				if angle > 1e-4 {
					t.Errorf("%s d=%d seed=%d: largest principal angle %.3g, want < 1e-4", name, d, seed, angle)
				}
				if got, want := len(rgd.Iterations), D-d; got != want {
					t.Errorf("%s d=%d seed=%d: %d deflation steps, want %d", name, d, seed, got, want)
				}
				if m := slices.Max(rgd.Iterations); m >= DefaultOptions().MaxIter {
					t.Errorf("%s d=%d seed=%d: a step took %d iterations, want < %d", name, d, seed, m, DefaultOptions().MaxIter)
				}
				if len(rgd.Warnings) != 0 || len(svd.Warnings) != 0 {
					t.Errorf("%s d=%d seed=%d: unexpected warnings %q %q", name, d, seed, svd.Warnings, rgd.Warnings)
				}
				for j := range d {
					var dot float64
					for i := range D {
						dot += svd.Axes.At(i, j) * rgd.Axes.At(i, j)
					}
					if dot < 1-1e-6 {
						t.Errorf("%s d=%d seed=%d: axis %d of RGD and SVD have cosine %.9f, want ≈ 1", name, d, seed, j+1, dot)
					}
				}
			}
		}
	}
}

// TestSVDMatchesEigen checks the SVD solver against an independent oracle:
// the eigenvectors of AᵀA (mat.EigenSym) for the largest eigenvalues, with A
// built from centres computed here.
func TestSVDMatchesEigen(t *testing.T) {
	type set struct {
		name    string
		x       *mat.Dense
		classes []int
		k       int
	}
	var sets []set
	for _, name := range orcaSets {
		x, cl, k := loadOrdinal(t, name)
		sets = append(sets, set{name, x, cl, k})
	}
	gx, gc := synth.OrdinalGaussians(rand.New(rand.NewPCG(1, 1)), synth.GaussianPerClass)
	sets = append(sets, set{"gaussians", gx, gc, synth.GaussianClasses})
	for _, s := range sets {
		_, D := s.x.Dims()
		c := testCenters(s.x, s.classes, s.k)
		ata := mat.NewSymDense(D, nil)
		for r := 1; r < s.k; r++ {
			for i := range D {
				for j := i; j < D; j++ {
					ata.SetSym(i, j, ata.At(i, j)+(c[r][i]-c[r-1][i])*(c[r][j]-c[r-1][j]))
				}
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(ata, true) {
			t.Fatalf("%s: EigenSym failed", s.name)
		}
		vals := eig.Values(nil) // ascending
		var vecs mat.Dense
		eig.VectorsTo(&vecs)
		res, err := Fit(s.x, s.classes, s.k, fitOpts(2, SVD, 0))
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		for j := range 2 {
			lam := vals[D-1-j]
			if sv := res.SingularValues[j]; math.Abs(sv*sv-lam) > 1e-10*vals[D-1] {
				t.Errorf("%s: σ%d² = %.12g, eigenvalue %.12g", s.name, j+1, sv*sv, lam)
			}
			var dot float64
			for i := range D {
				dot += res.Axes.At(i, j) * vecs.At(i, D-1-j)
			}
			if math.Abs(dot) < 1-1e-9 {
				t.Errorf("%s: axis %d has |cos| %.12f with the eigenvector, want 1", s.name, j+1, math.Abs(dot))
			}
		}
	}
}

// TestDeflationProperty checks that G (Eq. 1) at the fitted axes equals the
// sum of the top-d squared singular values and beats random orthonormal
// frames.
func TestDeflationProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, name := range orcaSets {
		x, cl, k := loadOrdinal(t, name)
		_, D := x.Dims()
		c := testCenters(x, cl, k)
		for _, d := range []int{1, 2} {
			for _, solver := range []Solver{SVD, RGD} {
				res, err := Fit(x, cl, k, fitOpts(d, solver, 3))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var want float64
				for _, s := range res.SingularValues[:d] {
					want += s * s
				}
				got := bigG(c, res.Axes)
				if math.Abs(got-want) > 1e-8*want {
					t.Errorf("%s d=%d %v: G = %.12g, Σσ² = %.12g", name, d, solver, got, want)
				}
				for range 300 {
					q := randomFrame(rng, D, d)
					if g := bigG(c, q); g > got*(1+1e-12) {
						t.Fatalf("%s d=%d %v: a random frame has G = %.12g > %.12g", name, d, solver, g, got)
					}
				}
			}
		}
	}
}

// randomFrame returns a random D×d matrix with orthonormal columns.
func randomFrame(rng *rand.Rand, D, d int) *mat.Dense {
	g := mat.NewDense(D, d, nil)
	for i := range D {
		for j := range d {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	return mat.DenseCopyOf(q.Slice(0, D, 0, d))
}

// TestClassOrder checks that with d = k−1 = rank(A) the subspace does not
// depend on the class order, and that with k = 5 and d = 2 it does.
func TestClassOrder(t *testing.T) {
	for _, tc := range []struct {
		name    string
		d       int
		perm    []int
		changed bool
	}{
		{"contact-lenses", 2, []int{1, 2, 0}, false},
		{"newthyroid", 2, []int{2, 0, 1}, false},
		{"car", 3, []int{2, 0, 3, 1}, false},
		{"bondrate", 4, []int{3, 1, 4, 0, 2}, false},
		{"bondrate", 2, []int{3, 1, 4, 0, 2}, true},
		{"car", 2, []int{2, 0, 3, 1}, true},
	} {
		x, cl, k := loadOrdinal(t, tc.name)
		perm := make([]int, len(cl))
		for i, c := range cl {
			perm[i] = tc.perm[c]
		}
		a, err := Fit(x, cl, k, fitOpts(tc.d, SVD, 0))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b, err := Fit(x, perm, k, fitOpts(tc.d, SVD, 0))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		angle := largestAngle(a.Axes, b.Axes)
		t.Logf("%s d=%d perm=%v: largest principal angle %.3g", tc.name, tc.d, tc.perm, angle)
		if tc.changed && angle < 0.1 {
			t.Errorf("%s d=%d: permuting the classes left the subspace (angle %.3g), want a change", tc.name, tc.d, angle)
		}
		if !tc.changed && angle > 1e-7 {
			t.Errorf("%s d=%d: permuting the classes moved the subspace by %.3g, want 0", tc.name, tc.d, angle)
		}
	}
}

// twoClassData is two anisotropic Gaussian classes in 3-D whose centres
// differ along (1, 2, 0)/√5.
func twoClassData() (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(11, 12))
	const per = 80
	x := mat.NewDense(2*per, 3, nil)
	cl := make([]int, 2*per)
	for i := range 2 * per {
		c := i / per
		z := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		s := 1.5 * float64(c)
		x.SetRow(i, []float64{s/math.Sqrt(5) + 0.3*z[0] + 2*z[2], 2*s/math.Sqrt(5) + 0.5*z[1] - z[2], 3*z[2] + 0.4*z[0]})
		cl[i] = c
	}
	return x, cl
}

// TestNullFill checks the deterministic fill of axes beyond rank(A) against
// a brute-force search over the plane null(A) in 3-D.
func TestNullFill(t *testing.T) {
	x, cl := twoClassData()
	n, _ := x.Dims()
	res, err := Fit(x, cl, 2, fitOpts(2, SVD, 0))
	if err != nil {
		t.Fatal(err)
	}
	if res.Rank != 1 || res.NullFilled != 1 {
		t.Fatalf("Rank %d, NullFilled %d, want 1, 1", res.Rank, res.NullFilled)
	}
	const want = "2 classes give 1 informative BVP axis; axis 2 is the direction of largest data variance orthogonal to it"
	if len(res.Warnings) != 1 || res.Warnings[0] != want {
		t.Errorf("warnings %q, want [%q]", res.Warnings, want)
	}
	u1, u2 := mat.Col(nil, 0, res.Axes), mat.Col(nil, 1, res.Axes)
	if d := dot(u1, u2); math.Abs(d) > 1e-12 {
		t.Errorf("axes 1 and 2 have inner product %g", d)
	}
	// Axis 1 is the normalised centre difference.
	c := testCenters(x, cl, 2)
	diff := []float64{c[1][0] - c[0][0], c[1][1] - c[0][1], c[1][2] - c[0][2]}
	if cos := dot(u1, diff) / math.Sqrt(dot(diff, diff)); cos < 1-1e-12 {
		t.Errorf("axis 1 has cosine %.15f with c₂ − c₁", cos)
	}
	// Brute force: an orthonormal basis e1, e2 of diff^⊥ by cross products,
	// then the angle of largest variance by a grid and golden-section search.
	e1 := cross(diff, []float64{0, 0, 1})
	scale(e1, 1/math.Sqrt(dot(e1, e1)))
	e2 := cross(diff, e1)
	scale(e2, 1/math.Sqrt(dot(e2, e2)))
	variance := func(th float64) float64 {
		u := []float64{math.Cos(th)*e1[0] + math.Sin(th)*e2[0], math.Cos(th)*e1[1] + math.Sin(th)*e2[1], math.Cos(th)*e1[2] + math.Sin(th)*e2[2]}
		var s, ss float64
		for i := range n {
			p := dot(mat.Row(nil, i, x), u)
			s += p
			ss += p * p
		}
		return (ss - s*s/float64(n)) / float64(n-1)
	}
	best, bestV := 0.0, math.Inf(-1)
	const steps = 3600
	for i := range steps {
		th := math.Pi * float64(i) / steps
		if v := variance(th); v > bestV {
			best, bestV = th, v
		}
	}
	lo, hi := best-math.Pi/steps, best+math.Pi/steps
	for range 60 {
		m1, m2 := lo+(hi-lo)*0.382, lo+(hi-lo)*0.618
		if variance(m1) > variance(m2) {
			hi = m2
		} else {
			lo = m1
		}
	}
	th := (lo + hi) / 2
	u := []float64{math.Cos(th)*e1[0] + math.Sin(th)*e2[0], math.Cos(th)*e1[1] + math.Sin(th)*e2[1], math.Cos(th)*e1[2] + math.Sin(th)*e2[2]}
	if cos := math.Abs(dot(u, u2)); cos < 1-1e-9 {
		t.Errorf("axis 2 has |cos| %.12f with the brute-force direction of largest variance", cos)
	}
	// RGD with any seed gives the same axes.
	for _, seed := range []uint64{1, 2, 99} {
		rgd, err := Fit(x, cl, 2, fitOpts(2, RGD, seed))
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(rgd.Axes, res.Axes, 1e-8) || rgd.NullFilled != 1 || len(rgd.Warnings) != 1 {
			t.Errorf("seed %d: RGD axes %v (NullFilled %d, warnings %q) differ from SVD's %v",
				seed, mat.Formatted(rgd.Axes.T()), rgd.NullFilled, rgd.Warnings, mat.Formatted(res.Axes.T()))
		}
	}
	// d = 3 fills two axes, mutually orthogonal, in decreasing variance.
	res3, err := Fit(x, cl, 2, fitOpts(3, SVD, 0))
	if err != nil {
		t.Fatal(err)
	}
	var gram mat.Dense
	gram.Mul(res3.Axes.T(), res3.Axes)
	if res3.NullFilled != 2 || !mat.EqualApprox(&gram, identity(3), 1e-12) {
		t.Errorf("d=3: NullFilled %d, AᵀA = %v", res3.NullFilled, mat.Formatted(&gram))
	}
	if !strings.Contains(res3.Warnings[0], "axes 2–3 are the directions") {
		t.Errorf("d=3: warning %q", res3.Warnings[0])
	}
}

func cross(a, b []float64) []float64 {
	return []float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func scale(v []float64, f float64) {
	for i := range v {
		v[i] *= f
	}
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// TestCollinearCenters checks the rank tolerance and the warning when the
// centres of more than two classes lie on a line.
func TestCollinearCenters(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	const k, per = 4, 30
	x := mat.NewDense(k*per, 3, nil)
	cl := make([]int, k*per)
	for i := range k * per {
		c := i / per
		cl[i] = c
		x.SetRow(i, []float64{float64(c) + rng.NormFloat64(), rng.NormFloat64(), 2 * rng.NormFloat64()})
	}
	// Make the class means exactly collinear: subtract each class's mean in y and z.
	c := testCenters(x, cl, k)
	for i, ci := range cl {
		x.Set(i, 1, x.At(i, 1)-c[ci][1])
		x.Set(i, 2, x.At(i, 2)-c[ci][2])
	}
	res, err := Fit(x, cl, k, fitOpts(2, SVD, 0))
	if err != nil {
		t.Fatal(err)
	}
	const want = "the 4 class centres span only 1 dimension, so BVP has 1 informative axis; axis 2 is the direction of largest data variance orthogonal to it"
	if res.Rank != 1 || res.NullFilled != 1 || len(res.Warnings) != 1 || res.Warnings[0] != want {
		t.Errorf("Rank %d, NullFilled %d, warnings %q; want 1, 1, [%q]", res.Rank, res.NullFilled, res.Warnings, want)
	}
	// Largest variance orthogonal to x is z (sd 2 against 1).
	if v := res.Axes.At(2, 1); v < 1-1e-3 {
		t.Errorf("axis 2 = %v, want ≈ e_z", mat.Formatted(res.Axes.ColView(1).T()))
	}
}

// TestSigns checks the orientation rules, and that flipping the sign of the
// data flips axis 1 (whose rule follows the data) but no other axis.
func TestSigns(t *testing.T) {
	for _, name := range orcaSets {
		x, cl, k := loadOrdinal(t, name)
		n, D := x.Dims()
		d := min(3, D)
		res, err := Fit(x, cl, k, fitOpts(d, SVD, 0))
		if err != nil {
			t.Fatal(err)
		}
		c := testCenters(x, cl, k)
		pos := projectedCenters(c, res.Axes, 0)
		if pos[k-1] <= pos[0] {
			t.Errorf("%s: last centre at %g, first at %g along axis 1, want last > first", name, pos[k-1], pos[0])
		}
		checkLargestPositive(t, name, res.Axes, 1)
		neg := mat.NewDense(n, D, nil)
		neg.Scale(-1, x)
		resNeg, err := Fit(neg, cl, k, fitOpts(d, SVD, 0))
		if err != nil {
			t.Fatal(err)
		}
		for j := range d {
			f := 1.0
			if j == 0 {
				f = -1
			}
			for i := range D {
				if got, want := resNeg.Axes.At(i, j), f*res.Axes.At(i, j); math.Abs(got-want) > 1e-10 {
					t.Fatalf("%s: with −x, axis %d component %d = %g, want %g", name, j+1, i, got, want)
				}
			}
		}
		cNeg := testCenters(neg, cl, k)
		if p := projectedCenters(cNeg, resNeg.Axes, 0); p[k-1] <= p[0] {
			t.Errorf("%s: with −x the last centre is not on the positive side of axis 1", name)
		}
	}
}

// checkLargestPositive checks that every axis from `from` on has its
// largest-magnitude component positive.
func checkLargestPositive(t *testing.T, name string, axes *mat.Dense, from int) {
	t.Helper()
	D, d := axes.Dims()
	for j := from; j < d; j++ {
		best := 0
		for i := range D {
			if math.Abs(axes.At(i, j)) > math.Abs(axes.At(best, j))*(1+1e-9) {
				best = i
			}
		}
		if axes.At(best, j) <= 0 {
			t.Errorf("%s: axis %d has largest component %g < 0", name, j+1, axes.At(best, j))
		}
	}
}

// TestSyntheticOrder checks on the paper's synthetic data that BVP keeps the
// class centres in order along axis 1 (Spearman ρ = 1) for many seeds,
// whereas PCA does not on the Gaussian set, and that RGD converges there
// well within MaxIter.
func TestSyntheticOrder(t *testing.T) {
	pcaOrdered := 0
	const seeds = 20
	for seed := range uint64(seeds) {
		for _, set := range []struct {
			name string
			gen  func(*rand.Rand, int) (*mat.Dense, []int)
			per  int
		}{
			{"gaussians", synth.OrdinalGaussians, synth.GaussianPerClass},
			{"swissrolls", synth.SwissRolls, synth.SwissPerClass},
		} {
			x, cl := set.gen(rand.New(rand.NewPCG(seed, 42)), set.per)
			const k = 5
			c := testCenters(x, cl, k)
			for _, solver := range []Solver{SVD, RGD} {
				res, err := Fit(x, cl, k, fitOpts(2, solver, seed))
				if err != nil {
					t.Fatal(err)
				}
				if rho := spearman(projectedCenters(c, res.Axes, 0)); rho != 1 {
					t.Errorf("%s seed %d %v: Spearman ρ along BVP axis 1 = %g, want 1", set.name, seed, solver, rho)
				}
				if solver == RGD {
					if seed < 3 {
						t.Logf("%s seed %d: RGD iterations %v", set.name, seed, res.Iterations)
					}
					if m := slices.Max(res.Iterations); m >= DefaultOptions().MaxIter {
						t.Errorf("%s seed %d: RGD reached %d iterations", set.name, seed, m)
					}
				}
			}
			if set.name != "gaussians" {
				continue
			}
			pca, err := linear.PCA(x, 2)
			if err != nil {
				t.Fatal(err)
			}
			rho := spearman(projectedCenters(c, pca.Axes, 0))
			if seed == 0 && rho == 1 {
				t.Errorf("gaussians seed 0: PCA axis 1 keeps the class order (ρ = 1), want it lost")
			}
			if rho == 1 {
				pcaOrdered++
			}
		}
	}
	// PCA axis 1 is close to a, along which the centres differ only by
	// sampling noise: it kept the order for about 6 % of 2000 seeds.
	t.Logf("PCA axis 1 kept the class order for %d of %d seeds", pcaOrdered, seeds)
	if pcaOrdered > 4 {
		t.Errorf("PCA axis 1 kept the class order for %d of %d seeds, want ≤ 4", pcaOrdered, seeds)
	}
}

// TestErrors checks the sentinel errors and positions, and that options
// out of range are option errors naming the option.
func TestErrors(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{0, 0, 1, 0, 2, 1, 3, 1})
	cl := []int{0, 0, 1, 1}
	nan := mat.DenseCopyOf(x)
	nan.Set(2, 1, math.NaN())
	inf := mat.DenseCopyOf(x)
	inf.Set(3, 0, math.Inf(-1))
	for _, tc := range []struct {
		name     string
		x        *mat.Dense
		classes  []int
		k        int
		set      func(o *Options) // changes to DefaultOptions, or nil
		want     error
		row, col int    // for *arrowio.Error; row −1 when not positional, col −1 for classes
		option   string // for *transforms.OptionError, the option it names
	}{
		{"empty x", &mat.Dense{}, nil, 2, nil, ErrNoData, -1, 0, ""},
		{"one class", x, []int{0, 0, 0, 0}, 1, nil, ErrTooFewClasses, -1, 0, ""},
		{"empty class", x, []int{0, 0, 2, 2}, 3, nil, ErrEmptyClass, -1, 0, ""},
		{"class too big", x, []int{0, 1, 2, 1}, 2, nil, ErrClassRange, 2, -1, ""},
		{"negative class", x, []int{0, -1, 1, 1}, 2, nil, ErrClassRange, 1, -1, ""},
		{"length", x, []int{0, 1, 1}, 2, nil, ErrLength, -1, 0, ""},
		{"d < 1", x, cl, 2, func(o *Options) { o.Dims = -1 }, transforms.ErrInvalidOption, -1, 0, "dims"},
		{"d > D", x, cl, 2, func(o *Options) { o.Dims = 3 }, ErrDims, -1, 0, "dims"},
		{"NaN", nan, cl, 2, nil, ErrNonFinite, 2, 1, ""},
		{"Inf", inf, cl, 2, nil, ErrNonFinite, 3, 0, ""},
		{"solver", x, cl, 2, func(o *Options) { o.Solver = "RGD" }, transforms.ErrInvalidOption, -1, 0, "solver"},
		{"zero solver", x, cl, 2, func(o *Options) { o.Solver = "" }, transforms.ErrInvalidOption, -1, 0, "solver"},
		{"tol", x, cl, 2, func(o *Options) { o.Tol = -1 }, transforms.ErrInvalidOption, -1, 0, "tol"},
		{"step", x, cl, 2, func(o *Options) { o.Step0 = math.NaN() }, transforms.ErrInvalidOption, -1, 0, "step0"},
		{"maxiter", x, cl, 2, func(o *Options) { o.MaxIter = -5 }, transforms.ErrInvalidOption, -1, 0, "max-iter"},
	} {
		o := DefaultOptions()
		if tc.set != nil {
			tc.set(&o)
		}
		_, err := Fit(tc.x, tc.classes, tc.k, o)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
			continue
		}
		var oe *transforms.OptionError
		if got := errors.As(err, &oe); got != (tc.option != "") || (got && oe.Option != tc.option) {
			t.Errorf("%s: error %v, want an option error naming %q", tc.name, err, tc.option)
		}
		var ie *arrowio.Error
		if isPos := errors.As(err, &ie); isPos != (tc.row >= 0) {
			t.Errorf("%s: positional %v, want %v (%v)", tc.name, isPos, tc.row >= 0, err)
		} else if isPos {
			matrix, col := "classes", ""
			if tc.col >= 0 {
				matrix, col = "x", strconv.Itoa(tc.col)
			}
			if ie.Matrix != matrix || ie.Row != int64(tc.row) || ie.Column != col {
				t.Errorf("%s: position %q (%d, %q), want %q (%d, %q)", tc.name, ie.Matrix, ie.Row, ie.Column, matrix, tc.row, col)
			}
		}
	}
	if s, err := transforms.ParseEnum[Solver]("rgd"); err != nil || s != RGD {
		t.Errorf("ParseEnum(rgd) = %v, %v", s, err)
	}
}

// TestFitResult checks the defaults and the result's bookkeeping: d = 2,
// origin = mean of centres, Transform = (x − origin)·axes.
func TestFitResult(t *testing.T) {
	x, cl, k := loadOrdinal(t, "newthyroid")
	n, D := x.Dims()
	res, err := Fit(x, cl, k, fitOpts(2, SVD, 0))
	if err != nil {
		t.Fatal(err)
	}
	if r, d := res.Axes.Dims(); r != D || d != 2 || res.Iterations != nil || len(res.SingularValues) != min(k-1, D) {
		t.Fatalf("axes %d×%d, iterations %v, %d singular values", r, d, res.Iterations, len(res.SingularValues))
	}
	c := testCenters(x, cl, k)
	for j := range D {
		var m float64
		for _, ck := range c {
			m += ck[j] / float64(k)
		}
		if math.Abs(res.Origin[j]-m) > 1e-12 || math.Abs(res.Centers.At(k-1, j)-c[k-1][j]) > 1e-12 {
			t.Fatalf("origin or centres differ at column %d", j)
		}
	}
	y := res.Transform(nil, x)
	for _, i := range []int{0, n / 2, n - 1} {
		for j := range 2 {
			var want float64
			for f := range D {
				want += (x.At(i, f) - res.Origin[f]) * res.Axes.At(f, j)
			}
			if math.Abs(y.At(i, j)-want) > 1e-12 {
				t.Errorf("Transform row %d axis %d = %g, want %g", i, j, y.At(i, j), want)
			}
		}
	}
}

func BenchmarkFit(b *testing.B) {
	for _, name := range []string{"squash-stored", "car", "bondrate"} {
		x, cl, k := loadOrdinal(b, name)
		for _, solver := range []Solver{SVD, RGD} {
			b.Run(name+"/"+string(solver), func(b *testing.B) {
				for range b.N {
					if _, err := Fit(x, cl, k, fitOpts(2, solver, 1)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// fitOpts is DefaultOptions with d dimensions, the solver and the seed.
func fitOpts(d int, solver Solver, seed uint64) Options {
	o := DefaultOptions()
	o.Dims, o.Solver, o.Seed = d, solver, seed
	return o
}
