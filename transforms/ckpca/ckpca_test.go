package ckpca

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// randomData returns n×d standardised-ish data with decaying column scales,
// so that principal components are well separated.
func randomData(rng *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64()*math.Pow(0.7, float64(j)))
		}
	}
	return x
}

// absCos is |cos| of the angle between a and b.
func absCos(a, b []float64) float64 {
	return math.Abs(floats.Dot(a, b)) / math.Sqrt(floats.Dot(a, a)*floats.Dot(b, b))
}

func centred(v []float64) []float64 {
	var m float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x - m
	}
	return out
}

// TestNoControlIsKernelPCA checks that without control points the first
// component is kernel PCA's first principal component: the top eigenvector
// of the covariance for the linear kernel (primal), and for an RBF kernel
// (dual) the centred f equals √μ·β for the top eigenpair (μ, β) of HKH.
func TestNoControlIsKernelPCA(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n, d = 60, 5
	x := randomData(rng, n, d)
	o := DefaultOptions()
	o.Dims = 1

	// Linear, primal: u is the top eigenvector of the covariance.
	r, err := Fit(x, Control{}, o)
	if err != nil {
		t.Fatal(err)
	}
	var eig mat.EigenSym
	eig.Factorize(varianceMatrix(x), true)
	var v mat.Dense
	eig.VectorsTo(&v)
	if c := absCos(mat.Col(nil, 0, r.U), mat.Col(nil, d-1, &v)); c < 1-1e-10 {
		t.Errorf("linear: |cos(u, PC1)| = %.12f, want 1", c)
	}

	// RBF, dual.
	k, _ := resolve("rbf", x)
	km := gram(k, x, x)
	feat, err := KernelFeatures(km)
	if err != nil {
		t.Fatal(err)
	}
	r, err = Fit(feat.F, Control{}, o)
	if err != nil {
		t.Fatal(err)
	}
	h := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			v := -1.0 / n
			if i == j {
				v++
			}
			h.Set(i, j, v)
		}
	}
	var hkh mat.Dense
	hkh.Mul(h, km)
	hkh.Mul(&hkh, h)
	var e2 mat.EigenSym
	e2.Factorize(mat.NewSymDense(n, symmetrise(hkh.RawMatrix().Data, n)), true)
	mu := e2.Values(nil)[n-1]
	var bv mat.Dense
	e2.VectorsTo(&bv)
	want := mat.Col(nil, n-1, &bv)
	got := centred(mat.Col(nil, 0, r.Embedding))
	sign := math.Copysign(1, floats.Dot(got, want))
	for i := range n {
		if w := sign * math.Sqrt(mu) * want[i]; math.Abs(got[i]-w) > 1e-8 {
			t.Fatalf("rbf: centred f[%d] = %.10g, kernel PCA %.10g", i, got[i], w)
		}
	}
}

func symmetrise(a []float64, n int) []float64 {
	out := make([]float64, n*n)
	for i := range n {
		for j := range n {
			out[i*n+j] = 0.5 * (a[i*n+j] + a[j*n+i])
		}
	}
	return out
}

// fixture returns data, control rows at distinct random rows and targets
// small enough to be feasible.
func fixture(rng *rand.Rand, n, d, m, dims int, scale float64) (*mat.Dense, Control) {
	x := randomData(rng, n, d)
	rows := rng.Perm(n)[:m]
	y := make([]float64, m*dims)
	for k := range y {
		y[k] = scale * rng.NormFloat64()
	}
	return x, Control{Rows: rows, Targets: y}
}

// TestPrimalDualAgree fits the linear kernel through X (primal) and through
// the eigendecomposition of XXᵀ (dual, restricted to its rank D range).
func TestPrimalDualAgree(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, d, m int
	}{
		{"n > D", 50, 6, 3},
		{"n < D", 12, 20, 4},
		{"no control", 40, 5, 0},
	} {
		rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.d)))
		x, ctrl := fixture(rng, tc.n, tc.d, tc.m, 2, 0.02)
		o := DefaultOptions()
		primal, err := Fit(x, ctrl, o)
		if err != nil {
			t.Fatalf("%s: primal: %v", tc.name, err)
		}
		var k mat.Dense
		k.Mul(x, x.T())
		feat, err := KernelFeatures(&k)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if want := min(tc.n, tc.d); feat.Rank != want {
			t.Errorf("%s: kernel rank %d, want %d", tc.name, feat.Rank, want)
		}
		dual, err := Fit(feat.F, ctrl, o)
		if err != nil {
			t.Fatalf("%s: dual: %v", tc.name, err)
		}
		for s := range 2 {
			a, b := mat.Col(nil, s, primal.Embedding), mat.Col(nil, s, dual.Embedding)
			if tc.m == 0 && floats.Dot(a, b) < 0 { // no constraints: sign is a convention of each basis
				for i := range b {
					b[i] = -b[i]
				}
			}
			for i := range a {
				if math.Abs(a[i]-b[i]) > 1e-8 {
					t.Fatalf("%s: component %d row %d: primal %.10g, dual %.10g", tc.name, s+1, i, a[i], b[i])
				}
			}
		}
	}
}

// TestConstraintsAndOptimality checks that the control rows land on their
// targets, u has unit norm, and the objective is at least that of any of
// 3,000 random feasible points.
func TestConstraintsAndOptimality(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n, d, m    int
		kernel     string
		nu, target float64
	}{
		{"linear m=3", 40, 8, 3, "linear", 1, 0.2},
		{"linear m=5 nu=0", 40, 10, 5, "linear", 0, 0.1},
		{"rbf m=4", 35, 4, 4, "rbf", 1, 0.1},
		{"poly m=2", 30, 3, 2, "poly", 2, 0.02},
	} {
		rng := rand.New(rand.NewPCG(7, uint64(tc.n*tc.m)))
		x, ctrl := fixture(rng, tc.n, tc.d, tc.m, 2, tc.target)
		f := x
		if tc.kernel != "linear" {
			k, err := resolve(tc.kernel, x)
			if err != nil {
				t.Fatal(err)
			}
			feat, err := KernelFeatures(gram(k, x, x))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			f = feat.F
		}
		o := DefaultOptions()
		o.Nu = tc.nu
		r, err := Fit(f, ctrl, o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		_, p := f.Dims()
		var prev [][]float64
		for s := range 2 {
			u := mat.Col(nil, s, r.U)
			if nu := math.Sqrt(floats.Dot(u, u)); math.Abs(nu-1) > 1e-10 {
				t.Errorf("%s: ‖u_%d‖ = %.12f, want 1", tc.name, s+1, nu)
			}
			for k, row := range ctrl.Rows {
				if got, want := r.Embedding.At(row, s), ctrl.Targets[k*2+s]; math.Abs(got-want) > 1e-10 {
					t.Errorf("%s: component %d control row %d: f = %.12g, target %.12g", tc.name, s+1, row, got, want)
				}
			}
			w := varianceMatrix(f)
			obj := func(v []float64) float64 {
				vv := mat.NewVecDense(p, v)
				val := mat.Inner(vv, w, vv)
				for _, q := range prev {
					c := floats.Dot(q, v)
					val -= tc.nu / float64(s+1) * c * c
				}
				return val
			}
			best := objMultistart(rng, f, ctrl, s, u, obj, 3000)
			if got := obj(u); got < best-1e-9 {
				t.Errorf("%s: component %d objective %.10g below a random feasible point's %.10g", tc.name, s+1, got, best)
			}
			prev = append(prev, u)
		}
	}
}

// objMultistart returns the best objective over random feasible points:
// the fitted u's component in the row space of L (fixed by the constraints)
// plus random vectors of the right norm in its null space.
func objMultistart(rng *rand.Rand, f *mat.Dense, ctrl Control, s int, u []float64, obj func([]float64) float64, tries int) float64 {
	_, p := f.Dims()
	m := len(ctrl.Rows)
	l := mat.NewDense(m, p, nil)
	for k, r := range ctrl.Rows {
		l.SetRow(k, f.RawRowView(r))
	}
	// Projector onto the row space of L: Lᵀ(LLᵀ)⁻¹L.
	var llt, inv, li, proj mat.Dense
	llt.Mul(l, l.T())
	if err := inv.Inverse(&llt); err != nil {
		panic(err)
	}
	li.Mul(l.T(), &inv)
	proj.Mul(&li, l)
	fixed := mat.NewVecDense(p, nil)
	fixed.MulVec(&proj, mat.NewVecDense(p, u))
	t2 := 1 - mat.Dot(fixed, fixed)
	best := math.Inf(-1)
	v := mat.NewVecDense(p, nil)
	for range tries {
		for i := range p {
			v.SetVec(i, rng.NormFloat64())
		}
		var pv mat.VecDense
		pv.MulVec(&proj, v)
		v.SubVec(v, &pv)
		v.ScaleVec(math.Sqrt(t2)/mat.Norm(v, 2), v)
		v.AddVec(v, fixed)
		best = max(best, obj(v.RawVector().Data))
	}
	_ = s
	return best
}

func TestInfeasibleScaleSoft(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	x, ctrl := fixture(rng, 40, 6, 4, 2, 50)
	o := DefaultOptions()
	if _, err := Fit(x, ctrl, o); !errors.Is(err, ErrInfeasible) {
		t.Fatalf("targets ×50: error %v, want ErrInfeasible", err)
	}
	o.Scale = ScaleAuto
	r, err := Fit(x, ctrl, o)
	if err != nil {
		t.Fatal(err)
	}
	for k, row := range ctrl.Rows {
		for s := range 2 {
			if got, want := r.Embedding.At(row, s), ctrl.Targets[k*2+s]; math.Abs(got-want) > 1e-8*math.Abs(want) {
				t.Errorf("scale auto: row %d component %d: f = %g, target %g", row, s+1, got, want)
			}
		}
	}
	if !(r.TargetScale > 0 && r.TargetScale < 1) {
		t.Errorf("scale auto: target scale %g, want in (0, 1)", r.TargetScale)
	}
	// Soft: the residual on feasible targets falls as the weight grows.
	_, small := fixture(rand.New(rand.NewPCG(3, 3)), 40, 6, 4, 2, 0.1)
	prev := math.Inf(1)
	for _, w := range []float64{0.1, 10, 1000} {
		oo := DefaultOptions()
		oo.Soft = w
		r, err := Fit(x, small, oo)
		if err != nil {
			t.Fatal(err)
		}
		var res float64
		for k, row := range small.Rows {
			for s := range 2 {
				d := r.Embedding.At(row, s) - small.Targets[k*2+s]
				res += d * d
			}
		}
		if !(res < prev) {
			t.Errorf("soft %g: residual %g did not fall from %g", w, res, prev)
		}
		prev = res
	}
	if prev > 1e-4 {
		t.Errorf("soft 1000: residual %g, want near 0", prev)
	}
}

func TestFitErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	x, ctrl := fixture(rng, 20, 5, 2, 2, 0.1)
	dupRow := mat.DenseCopyOf(x)
	dupRow.SetRow(7, x.RawRowView(3))
	for _, tc := range []struct {
		name string
		x    *mat.Dense
		c    Control
		o    func(*Options)
		want error
		// option, when not "", is the option an *transforms.OptionError
		// names.
		option string
	}{
		{"repeated control row", x, Control{Rows: []int{3, 3}, Targets: []float64{0, 0, 0, 0}}, nil, ErrControl, ""},
		{"identical rows as control points", dupRow, Control{Rows: []int{3, 7}, Targets: []float64{0, 0, 0.1, 0.1}}, nil, ErrControl, ""},
		{"too many control points", x, Control{Rows: []int{0, 1, 2, 3, 4}, Targets: make([]float64, 10)}, nil, ErrControl, ""},
		{"NaN target", x, Control{Rows: []int{1}, Targets: []float64{math.NaN(), 0}}, nil, ErrControl, ""},
		{"row out of range", x, Control{Rows: []int{20}, Targets: []float64{0, 0}}, nil, ErrControl, ""},
		{"negative nu", x, ctrl, func(o *Options) { o.Nu = -1 }, transforms.ErrInvalidOption, "nu"},
		{"budget 1", x, ctrl, func(o *Options) { o.Scale, o.Budget = ScaleAuto, 1 }, transforms.ErrInvalidOption, "budget"},
		{"soft with scale auto", x, ctrl, func(o *Options) { o.Scale, o.Soft = ScaleAuto, 1 }, transforms.ErrInvalidOption, "soft"},
		{"targets not a multiple of the rows", x, Control{Rows: []int{1, 2}, Targets: []float64{0, 0, 0}}, nil, ErrControl, ""},
		{"dims against the targets", x, ctrl, func(o *Options) { o.Dims = 3 }, ErrControl, ""},
	} {
		o := DefaultOptions()
		if tc.o != nil {
			tc.o(&o)
		}
		_, err := Fit(tc.x, tc.c, o)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
		var oe *transforms.OptionError
		if tc.option != "" && (!errors.As(err, &oe) || oe.Option != tc.option) {
			t.Errorf("%s: error %v, want an OptionError naming %q", tc.name, err, tc.option)
		}
	}
}

func TestKernelFeaturesErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		k    []float64
	}{
		{"asymmetric", []float64{1, 0.5, 0.2, 1}},
		{"indefinite", []float64{1, 2, 2, 1}},
		{"NaN", []float64{1, math.NaN(), math.NaN(), 1}},
	} {
		if _, err := KernelFeatures(mat.NewDense(2, 2, tc.k)); !errors.Is(err, ErrKernel) {
			t.Errorf("%s: error %v, want ErrKernel", tc.name, err)
		}
	}
}

// TestNystromAllLandmarks checks that Nyström with every row as a landmark
// is the exact dual path.
func TestNystromAllLandmarks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	x, ctrl := fixture(rng, 30, 4, 3, 2, 0.1)
	k, _ := resolve("rbf", x)
	exact, err := KernelFeatures(gram(k, x, x))
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, 30)
	for i := range all {
		all[i] = i
	}
	ny, err := NystromFeatures(x, all, k)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	a, err := Fit(exact.F, ctrl, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Fit(ny.F, ctrl, o)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(a.Embedding, b.Embedding); d > 1e-8 {
		t.Errorf("Nyström with all landmarks differs from exact by %g", d)
	}
}

func maxDiff(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1))
}

// resolve is kernels.Kernel.Resolve on a gonum matrix.
func resolve(kind string, x *mat.Dense) (kernels.Kernel, error) {
	n, d := x.Dims()
	return kernels.Kernel{Kind: kind}.Resolve(x.RawMatrix().Data, n, d)
}
