package ckpca

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/kernels"
)

// unlimitedTerms lets fit build every first sphere problem by updates,
// whatever its size.
func unlimitedTerms(int) int { return math.MaxInt }

// freshFit is the reference the low-rank path is tested against: every
// component's W_s formed densely and its sphere problem factorised afresh
// (no FᵀF structure, no updates).
func freshFit(t *testing.T, name string, f *mat.Dense, ctrl Control, o Options) *mat.Dense {
	t.Helper()
	_, p := f.Dims()
	m := len(ctrl.Rows)
	pr, err := newProblem(f, nil, ctrl.Rows, o.Soft)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c, err := pr.targetScale(ctrl.Targets, o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	wv := varianceMatrix(f)
	u := mat.NewDense(p, o.Dims, nil)
	var prev [][]float64
	for s := range o.Dims {
		w := mat.NewSymDense(p, nil)
		w.CopySym(wv)
		for _, q := range prev {
			w.SymRankOne(w, -o.Nu/float64(s+1), mat.NewVecDense(p, q))
		}
		pr.w = &covariance{dense: w}
		sq, err := pr.sphere(context.Background(), lowRankCheckTol)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		y := column(ctrl.Targets, m, o.Dims, s)
		for k := range y {
			y[k] *= c
		}
		us, _, err := pr.solve(sq, nil, 0, y)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		prev = append(prev, us)
		for k, v := range us {
			u.Set(k, s, v/c)
		}
	}
	return u
}

// rbfFeatures returns the exact RBF features of n random points.
func rbfFeatures(t *testing.T, rng *rand.Rand, n, d int, kind string) (*mat.Dense, *Features) {
	t.Helper()
	x := randomData(rng, n, d)
	k, err := resolve(kind, x)
	if err != nil {
		t.Fatal(err)
	}
	feat, err := KernelFeatures(gram(k, x, x))
	if err != nil {
		t.Fatal(err)
	}
	return x, feat
}

// TestFitFeaturesLowRank fits through rank-one updates of FᵀF's diagonal
// (FitFeatures) and through the dense covariance with updates between
// components (Fit), and compares both with fresh dense factorisations of
// every component.
func TestFitFeaturesLowRank(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, d, m int
		kernel  string
		dims    int
		nu      float64
		soft    float64
		scale   ScaleMode
		target  float64
	}{
		{"rbf, no control points", 70, 4, 0, "rbf", 3, 1, 0, ScaleNone, 0},
		{"rbf, 4 control points", 70, 4, 4, "rbf", 2, 1, 0, ScaleNone, 0.1},
		{"rbf, 1 control point, 3 dims, ν = 2", 60, 3, 1, "rbf", 3, 2, 0, ScaleNone, 0.1},
		{"rbf, 6 control points, scale auto", 80, 5, 6, "rbf", 2, 1, 0, ScaleAuto, 5},
		{"rbf, soft constraints", 70, 4, 5, "rbf", 2, 1, 3, ScaleNone, 0.5},
		{"rbf, ν = 0", 50, 4, 3, "rbf", 2, 0, 0, ScaleNone, 0.1},
		{"linear kernel, rank 5 < n", 40, 5, 2, "linear", 2, 1, 0, ScaleNone, 0.05},
		{"poly kernel, 3 control points, scale auto", 45, 3, 3, "poly", 2, 1, 0, ScaleAuto, 1},
		// More earlier components than lowRankMaxTerms allows (7 here):
		// FitFeatures forms the last problems and factorises them.
		{"rbf, no control points, 10 dims", 70, 4, 0, "rbf", 10, 1, 0, ScaleNone, 0},
		{"rbf, 2 control points, 9 dims, scale auto", 70, 5, 2, "rbf", 9, 0.5, 0, ScaleAuto, 1},
	} {
		rng := rand.New(rand.NewPCG(21, uint64(tc.n+tc.m)))
		_, feat := rbfFeatures(t, rng, tc.n, tc.d, tc.kernel)
		ctrl := Control{Rows: rng.Perm(tc.n)[:tc.m], Targets: make([]float64, tc.m*tc.dims)}
		for k := range ctrl.Targets {
			ctrl.Targets[k] = tc.target * rng.NormFloat64()
		}
		o := DefaultOptions()
		o.Dims, o.Nu, o.Soft, o.Scale = tc.dims, tc.nu, tc.soft, tc.scale
		if feat.Lambda == nil {
			t.Fatalf("%s: KernelFeatures left Lambda nil", tc.name)
		}
		want := freshFit(t, tc.name, feat.F, ctrl, o)
		low, err := fit(context.Background(), feat.F, feat.Lambda, ctrl, o, unlimitedTerms)
		if err != nil {
			t.Fatalf("%s: fit by updates: %v", tc.name, err)
		}
		// FitFeatures applies lowRankMaxTerms (7 terms at these sizes):
		// updates for the smaller spans, C₁ formed from Λ and μ for the
		// larger ones.
		byRule, err := FitFeatures(context.Background(), feat, ctrl, o)
		if err != nil {
			t.Fatalf("%s: FitFeatures: %v", tc.name, err)
		}
		dense, err := Fit(feat.F, ctrl, o)
		if err != nil {
			t.Fatalf("%s: Fit: %v", tc.name, err)
		}
		scale := mat.Norm(want, math.Inf(1))
		for _, got := range []struct {
			path string
			u    *mat.Dense
		}{{"rank-one updates of FᵀF's diagonal", low.U}, {"FitFeatures, C₁ formed from Λ and μ", byRule.U}, {"dense covariance, updates between components", dense.U}} {
			if d := maxDiff(got.u, want); d > 1e-9*scale {
				t.Errorf("%s: %s: U differs from fresh factorisations by %.3g (scale %.3g)", tc.name, got.path, d, scale)
			}
		}
		// The low-rank construction itself passed its check (no dense
		// fallback).
		pr, err := newProblem(feat.F, feat.Lambda, ctrl.Rows, tc.soft)
		if err != nil {
			t.Fatal(err)
		}
		pr.maxTerms = math.MaxInt
		if sq, err := pr.sphere(context.Background(), lowRankCheckTol); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		} else if _, ok := sq.eig.(*kernels.RankOneEigen); !ok {
			t.Errorf("%s: first sphere problem %T, want rank-one updates", tc.name, sq.eig)
		}
		for s, c := range low.Components {
			if c.HardCase != dense.Components[s].HardCase || math.Abs(c.Lambda-dense.Components[s].Lambda) > 1e-9*math.Abs(dense.Components[s].Lambda) {
				t.Errorf("%s: component %d: low-rank %+v, dense %+v", tc.name, s+1, c, dense.Components[s])
			}
		}
	}
}

// TestLowRankSphereCheck: the rank-one construction of C₁ equals the
// dense matrix; a span that misses part of E is caught by the check, and
// the sphere problem then falls back to the dense factorisation.
func TestLowRankSphereCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	_, feat := rbfFeatures(t, rng, 50, 3, "rbf")
	rows := []int{4, 17, 30}
	pr, err := newProblem(feat.F, feat.Lambda, rows, 0)
	if err != nil {
		t.Fatal(err)
	}
	pr.maxTerms = math.MaxInt
	cons := pr.cons
	dense := &problem{w: newCovariance(feat.F, nil), cons: cons, l: pr.l}
	ctx := context.Background()
	low, err := pr.sphere(ctx, lowRankCheckTol)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := low.eig.(*kernels.RankOneEigen); !ok {
		t.Fatalf("sphere: %T, want rank-one updates", low.eig)
	}
	fallback, err := pr.sphere(ctx, 0) // no construction passes a zero tolerance
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fallback.eig.(*kernels.SymEigen); !ok {
		t.Fatalf("sphere with tolerance 0: %T, want the dense factorisation", fallback.eig)
	}
	// More terms than maxTerms (2m + 1 = 7 here): dense, from Λ and μ.
	pr.maxTerms = 6
	formed, err := pr.sphere(ctx, lowRankCheckTol)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := formed.eig.(*kernels.SymEigen); !ok {
		t.Fatalf("sphere with maxTerms 6: %T, want the dense factorisation", formed.eig)
	}
	pr.maxTerms = math.MaxInt
	ref, err := NewSphereQuadratic(dense.denseC(nil, 0))
	if err != nil {
		t.Fatal(err)
	}
	k := low.Dim()
	for trial, name := range []string{"b random", "b = 0 (hard case)"} {
		b := make([]float64, k)
		if trial == 0 {
			for i := range b {
				b[i] = rng.NormFloat64() * 1e-3
			}
		}
		zr := make([]float64, k)
		lr, vr, err := ref.Maximize(zr, b, 0.8)
		if err != nil {
			t.Fatal(err)
		}
		for _, sq := range []*SphereQuadratic{low, fallback, formed} {
			z := make([]float64, k)
			lam, v, err := sq.Maximize(z, b, 0.8)
			if err != nil {
				t.Fatal(err)
			}
			var dz float64
			for i := range z {
				dz = max(dz, math.Abs(z[i]-zr[i]))
			}
			if dz > 1e-9 || math.Abs(lam-lr) > 1e-12*math.Abs(lr) || math.Abs(v-vr) > 1e-12*math.Abs(vr) {
				t.Errorf("%s (%T): z off by %.3g, μ %.17g vs %.17g, value %.17g vs %.17g", name, sq.eig, dz, lam, lr, v, vr)
			}
		}
	}

	// Leave Y₂ out of the span: E is then not represented.
	_, kk := pr.dims()
	span := [][]float64{pr.project(pr.w.mean)}
	_, err = lowRankSphere(ctx, pr.w.diag[cons.m:], span, pr.cmul, lowRankCheckTol)
	if !errors.Is(err, errLowRankCheck) {
		t.Errorf("incomplete span (k = %d): err = %v, want errLowRankCheck", kk, err)
	}
}

// TestSphereQuadraticUpdate: Update(ρ, v) solves the same problems as a
// factorisation of C + ρvvᵀ, for both signs of ρ, chained, and in the hard
// case.
func TestSphereQuadraticUpdate(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	for _, kind := range []string{"indefinite", "repeated"} {
		for _, k := range []int{1, 5, 40} {
			c := randSym(rng, k, kind)
			sq, err := NewSphereQuadratic(c)
			if err != nil {
				t.Fatal(err)
			}
			full := mat.NewSymDense(k, nil)
			full.CopySym(c)
			for step, rho := range []float64{-0.7, 0.3, -2} {
				v := make([]float64, k)
				for i := range v {
					v[i] = rng.NormFloat64()
				}
				if sq, err = sq.Update(rho, v); err != nil {
					t.Fatal(err)
				}
				full.SymRankOne(full, rho, mat.NewVecDense(k, v))
				ref, err := NewSphereQuadratic(full)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s k = %d, update %d", kind, k, step+1)
				if d := math.Abs(sq.MaxEigenvalue() - ref.MaxEigenvalue()); d > 1e-12*max(1, ref.norm) {
					t.Errorf("%s: λ₁ %.17g, fresh %.17g", name, sq.MaxEigenvalue(), ref.MaxEigenvalue())
				}
				for _, bscale := range []float64{1, 0} {
					b := make([]float64, k)
					for i := range b {
						b[i] = bscale * rng.NormFloat64()
					}
					z, zr := make([]float64, k), make([]float64, k)
					mu, v1, err1 := sq.Maximize(z, b, 1.5)
					_, v2, err2 := ref.Maximize(zr, b, 1.5)
					if err1 != nil || err2 != nil {
						t.Fatalf("%s: %v, %v", name, err1, err2)
					}
					if math.Abs(v1-v2) > 1e-10*max(1, math.Abs(v2)) {
						t.Errorf("%s, b scale %g: value %.15g, fresh %.15g", name, bscale, v1, v2)
					}
					checkSolution(t, name, full, b, z, 1.5, mu)
				}
			}
		}
	}
}
