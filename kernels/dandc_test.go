package kernels

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

type tridiagCase struct {
	name  string
	d, e  []float64
	exact []float64 // known eigenvalues, ascending, or nil
}

func tridiagCases() []tridiagCase {
	rng := rand.New(rand.NewPCG(16, 10))
	var cs []tridiagCase
	normal := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	for _, n := range []int{1, 2, 3, 32, 33, 64, 100, 257, 400} {
		cs = append(cs, tridiagCase{name: fmt.Sprintf("random n=%d", n), d: normal(n), e: normal(n - 1)})
	}
	{
		// The 1-2-1 Toeplitz matrix (d = 2, e = −1): λ_k = 2 − 2cos(kπ/(n+1)).
		n := 200
		d, e := make([]float64, n), make([]float64, n-1)
		exact := make([]float64, n)
		for i := range d {
			d[i] = 2
			exact[i] = 2 - 2*math.Cos(float64(i+1)*math.Pi/float64(n+1))
		}
		for i := range e {
			e[i] = -1
		}
		cs = append(cs, tridiagCase{name: "Toeplitz 1-2-1", d: d, e: e, exact: exact})
	}
	{
		d, e := wilkinson(21)
		cs = append(cs, tridiagCase{name: "Wilkinson W21+", d: d, e: e})
	}
	for _, scale := range []float64{1e300, 1e-300} {
		// Scaled by the divide and conquer to max-norm 1 and back; the
		// reference is Dsterf's on the unscaled matrix, times scale.
		n := 70
		d, e := normal(n), normal(n-1)
		exact := append([]float64(nil), d...)
		if !(gonum.Implementation{}).Dsterf(n, exact, append([]float64(nil), e...)) {
			panic("Dsterf failed")
		}
		for i := range d {
			d[i] *= scale
			exact[i] *= scale
		}
		for i := range e {
			e[i] *= scale
		}
		cs = append(cs, tridiagCase{name: fmt.Sprintf("random ×%g", scale), d: d, e: e, exact: exact})
	}
	for _, delta := range []float64{1e-14, 1e-7, 1e-3} {
		d, e := gluedWilkinson(20, delta)
		cs = append(cs, tridiagCase{name: fmt.Sprintf("glued Wilkinson δ=%g", delta), d: d, e: e})
	}
	{
		n := 150
		d, e := normal(n), normal(n-1)
		for i := 36; i < n-1; i += 37 {
			e[i] = 0
		}
		cs = append(cs, tridiagCase{name: "zero off-diagonals", d: d, e: e})
	}
	{
		n := 90
		d := normal(n)
		cs = append(cs, tridiagCase{name: "diagonal", d: d, e: make([]float64, n-1)})
	}
	{
		// Constant diagonal 0, tiny couplings that do not split: every
		// merge deflates most of z.
		n := 120
		e := normal(n - 1)
		for i := range e {
			e[i] *= 1e-30
		}
		e[60] = 1
		cs = append(cs, tridiagCase{name: "tiny couplings", d: make([]float64, n), e: e})
	}
	{
		// Identity plus a rank-one-like coupling: all diagonal entries
		// equal, so merges deflate by rotations.
		n := 100
		d, e := make([]float64, n), make([]float64, n-1)
		for i := range d {
			d[i] = 1
		}
		for i := range e {
			e[i] = 1e-9 * float64(1+i%3)
		}
		cs = append(cs, tridiagCase{name: "equal diagonal, small couplings", d: d, e: e})
	}
	{
		n := 120
		d, e := make([]float64, n), make([]float64, n-1)
		for i := range d {
			d[i] = math.Pow(10, -10+20*float64(i)/float64(n-1))
		}
		for i := range e {
			e[i] = math.Sqrt(d[i]*d[i+1]) * (0.5 + rng.Float64())
		}
		cs = append(cs, tridiagCase{name: "graded 1e-10..1e10", d: d, e: e})
	}
	return cs
}

func TestTridiagonalEigen(t *testing.T) {
	impl := gonum.Implementation{}
	for _, c := range tridiagCases() {
		n := len(c.d)
		d := append([]float64(nil), c.d...)
		e := append([]float64(nil), c.e...)
		z := make([]float64, n*n)
		if err := TridiagonalEigen(context.Background(), d, e, z, n, 2); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for k := 1; k < n; k++ {
			if d[k] < d[k-1] {
				t.Errorf("%s: eigenvalues not ascending at %d", c.name, k)
			}
		}
		res, orth := eigenQuality(tridiagMatrix(c.d, c.e), d, z, n)
		t.Logf("%s: n=%d residual %.3g orthogonality %.3g", c.name, n, res, orth)
		if !(res < eigenBound) {
			t.Errorf("%s: scaled residual %g ≥ %d", c.name, res, eigenBound)
		}
		if !(orth < eigenBound) {
			t.Errorf("%s: scaled orthogonality loss %g ≥ %d", c.name, orth, eigenBound)
		}
		want := c.exact
		if want == nil {
			want = append([]float64(nil), c.d...)
			we := append([]float64(nil), c.e...)
			if !impl.Dsterf(n, want, we) {
				t.Fatalf("%s: Dsterf failed", c.name)
			}
		}
		var norm float64
		for _, v := range want {
			norm = max(norm, math.Abs(v))
		}
		for k := range n {
			if dd := math.Abs(d[k]-want[k]) / (float64(n) * eigenTestEps * norm); !(dd <= 10) {
				t.Errorf("%s: eigenvalue %d = %.17g, want %.17g (%.3g·n·ε·‖T‖)", c.name, k, d[k], want[k], dd)
				break
			}
		}
	}
}

func TestTridiagonalEigenThreads(t *testing.T) {
	for _, c := range tridiagCases() {
		n := len(c.d)
		if n < 200 {
			continue
		}
		var ref []float64
		for _, th := range []int{1, 2, 5} {
			d := append([]float64(nil), c.d...)
			e := append([]float64(nil), c.e...)
			z := make([]float64, n*n)
			if err := TridiagonalEigen(context.Background(), d, e, z, n, th); err != nil {
				t.Fatalf("%s threads=%d: %v", c.name, th, err)
			}
			got := append(d, z...)
			if ref == nil {
				ref = got
				continue
			}
			for i := range ref {
				if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
					t.Fatalf("%s: threads=%d differs from threads=1 at %d", c.name, th, i)
				}
			}
		}
	}
}

func TestTridiagonalEigenErrors(t *testing.T) {
	n := 100
	d, e, z := make([]float64, n), make([]float64, n-1), make([]float64, n*n)
	for i := range e {
		e[i] = 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := TridiagonalEigen(ctx, d, e, z, n, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}
	d[17] = math.NaN()
	if err := TridiagonalEigen(context.Background(), d, e, z, n, 2); !errors.Is(err, ErrEigen) {
		t.Errorf("NaN diagonal: got %v, want ErrEigen", err)
	}
	d[17] = 0
	e[3] = math.Inf(1)
	if err := TridiagonalEigen(context.Background(), d, e, z, n, 2); !errors.Is(err, ErrEigen) {
		t.Errorf("Inf off-diagonal: got %v, want ErrEigen", err)
	}
}

// TestSecularRoot checks the roots of diag(dl) + ρ w wᵀ against gonum and
// the differences dl_j − λ_i it returns, with weights from 1 down to 1e-7
// (roots within 1e-14 of their poles).
func TestSecularRoot(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 11))
	for _, c := range []struct {
		name string
		k    int
		wmin float64
		rho  float64
	}{
		{"k=2", 2, 1, 1},
		{"k=10", 10, 1, 0.5},
		{"k=40 small weights", 40, 1e-7, 2},
		{"k=60 large rho", 60, 1e-3, 1e3},
	} {
		dl := make([]float64, c.k)
		w := make([]float64, c.k)
		x := 0.0
		for j := range dl {
			x += 0.01 + rng.Float64()
			dl[j] = x
			w[j] = math.Copysign(math.Pow(c.wmin, rng.Float64()), rng.NormFloat64())
		}
		sym := mat.NewSymDense(c.k, nil)
		for i := range c.k {
			for j := i; j < c.k; j++ {
				v := c.rho * w[i] * w[j]
				if i == j {
					v += dl[i]
				}
				sym.SetSym(i, j, v)
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(sym, false) {
			t.Fatalf("%s: gonum failed", c.name)
		}
		want := eig.Values(nil)
		z2 := make([]float64, c.k)
		for j, v := range w {
			z2[j] = v * v
		}
		norm := math.Max(math.Abs(want[0]), math.Abs(want[c.k-1]))
		delta := make([]float64, c.k)
		for i := range c.k {
			lam := secularRoot(i, dl, z2, c.rho, delta)
			if d := math.Abs(lam-want[i]) / (float64(c.k) * eigenTestEps * norm); !(d <= 10) {
				t.Errorf("%s: root %d = %.17g, gonum %.17g", c.name, i, lam, want[i])
			}
			if !(lam > dl[i]) || (i+1 < c.k && !(lam < dl[i+1])) {
				t.Errorf("%s: root %d = %.17g outside its interval", c.name, i, lam)
			}
			for j := range c.k {
				if diff := math.Abs(delta[j] - (dl[j] - lam)); diff > 4*eigenTestEps*math.Abs(dl[j]-lam)+2*eigenTestEps*math.Abs(lam) {
					t.Errorf("%s: root %d: delta[%d] = %g, dl_j − λ = %g", c.name, i, j, delta[j], dl[j]-lam)
				}
			}
		}
	}
}

// TestDandcMerge merges halves whose eigenvectors are the unit vectors, so
// that z has two nonzero entries and every other pole deflates; with
// equal poles at the tear the rotation deflates one more and one root is
// left.
func TestDandcMerge(t *testing.T) {
	for _, c := range []struct {
		name string
		d    []float64
		n1   int
		beta float64
	}{
		{"two roots", []float64{-1, 0.5, 2, -3, 1, 4}, 3, 0.7},
		{"one root (equal poles)", []float64{-1, 0.5, 2, 2, 3, 4}, 3, -0.7},
		{"all deflated (beta tiny)", []float64{-1, 0.5, 2, -3, 1, 4}, 3, 1e-300},
	} {
		m := len(c.d)
		d := append([]float64(nil), c.d...)
		q := make([]float64, m*m)
		for i := range m {
			q[i*m+i] = 1
		}
		if err := dandcMerge(context.Background(), d, q, m, c.n1, m, c.beta, 1); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// M = diag(d) + |β|·u uᵀ, u = e_{n1−1} + sign(β)·e_{n1}.
		a := make([]float64, m*m)
		for i, v := range c.d {
			a[i*m+i] = v
		}
		b := math.Abs(c.beta)
		a[(c.n1-1)*m+c.n1-1] += b
		a[c.n1*m+c.n1] += b
		a[c.n1*m+c.n1-1], a[(c.n1-1)*m+c.n1] = c.beta, c.beta
		for k := 1; k < m; k++ {
			if d[k] < d[k-1] {
				t.Errorf("%s: not ascending at %d", c.name, k)
			}
		}
		res, orth := eigenQuality(a, d, q, m)
		if !(res < eigenBound) || !(orth < eigenBound) {
			t.Errorf("%s: scaled residual %g, orthogonality %g", c.name, res, orth)
		}
	}
}
