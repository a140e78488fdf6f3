package kernels

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// eigenTestEps is the unit roundoff the scaled bounds divide by.
const eigenTestEps = 0x1p-53

// eigenBound is the largest scaled residual and orthogonality loss
// accepted (LAPACK's test threshold).
const eigenBound = 30

// symFromLower returns the full symmetric matrix whose lower triangle is
// a's, and its spectral-norm stand-in max|λ| from gonum.
func gonumEigen(t *testing.T, name string, a []float64, n int) (vals []float64, vecs *mat.Dense) {
	t.Helper()
	sym := mat.NewSymDense(n, nil)
	for i := range n {
		for j := 0; j <= i; j++ {
			sym.SetSym(i, j, a[i*n+j])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		t.Fatalf("%s: gonum EigenSym failed", name)
	}
	vecs = new(mat.Dense)
	eig.VectorsTo(vecs)
	return eig.Values(nil), vecs
}

// eigenQuality returns the scaled residual ‖AV − VΛ‖_max/(n·ε·‖A‖) and
// orthogonality loss ‖VᵀV − I‖_max/(n·ε), with ‖A‖ = max|λ| (1 for the
// zero matrix). Only a's lower triangle is used.
func eigenQuality(a, vals, vecs []float64, n int) (res, orth float64) {
	full := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			full[i*n+j], full[j*n+i] = a[i*n+j], a[i*n+j]
		}
	}
	var norm float64
	for _, l := range vals {
		norm = max(norm, math.Abs(l))
	}
	if norm == 0 {
		norm = 1
	}
	A := mat.NewDense(n, n, full)
	V := mat.NewDense(n, n, vecs)
	var av, vtv mat.Dense
	av.Mul(A, V)
	vtv.Mul(V.T(), V)
	for i := range n {
		for k := range n {
			res = max(res, math.Abs(av.At(i, k)-vecs[i*n+k]*vals[k]))
			want := 0.0
			if i == k {
				want = 1
			}
			orth = max(orth, math.Abs(vtv.At(i, k)-want))
		}
	}
	return res / (float64(n) * eigenTestEps * norm), orth / (float64(n) * eigenTestEps)
}

// randomOrthogonal returns a random n×n orthogonal matrix (row-major), the
// Q of a QR factorisation of a Gaussian matrix.
func randomOrthogonal(rng *rand.Rand, n int) []float64 {
	g := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	return q.RawMatrix().Data
}

// withSpectrum returns Q·diag(lam)·Qᵀ for a random orthogonal Q.
func withSpectrum(rng *rand.Rand, lam []float64) []float64 {
	a, _ := withSpectrumQ(rng, lam)
	return a
}

// withSpectrumQ is withSpectrum that also returns Q (row-major n×n).
func withSpectrumQ(rng *rand.Rand, lam []float64) (a, q []float64) {
	n := len(lam)
	q = randomOrthogonal(rng, n)
	a = make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			var s float64
			for k, l := range lam {
				s += q[i*n+k] * l * q[j*n+k]
			}
			a[i*n+j], a[j*n+i] = s, s
		}
	}
	return a, q
}

func randomSym(rng *rand.Rand, n int) []float64 {
	a := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			v := 2*rng.Float64() - 1
			a[i*n+j], a[j*n+i] = v, v
		}
	}
	return a
}

// tridiagMatrix returns the full matrix of the tridiagonal (d, e).
func tridiagMatrix(d, e []float64) []float64 {
	n := len(d)
	a := make([]float64, n*n)
	for i, v := range d {
		a[i*n+i] = v
	}
	for i, v := range e {
		a[(i+1)*n+i], a[i*n+i+1] = v, v
	}
	return a
}

// wilkinson returns W_m⁺ (m odd): diagonal |(m−1)/2 − i|, off-diagonal 1.
func wilkinson(m int) (d, e []float64) {
	d = make([]float64, m)
	e = make([]float64, m-1)
	for i := range d {
		d[i] = math.Abs(float64((m-1)/2 - i))
	}
	for i := range e {
		e[i] = 1
	}
	return d, e
}

// gluedWilkinson returns copies W21⁺ glued by off-diagonal entries delta.
func gluedWilkinson(copies int, delta float64) (d, e []float64) {
	for c := range copies {
		wd, we := wilkinson(21)
		d = append(d, wd...)
		if c > 0 {
			e = append(e, delta)
		}
		e = append(e, we...)
	}
	return d, e
}

type eigenCase struct {
	name string
	n    int
	a    []float64
}

func eigenCases() []eigenCase {
	rng := rand.New(rand.NewPCG(16, 1))
	var cs []eigenCase
	for _, n := range []int{1, 2, 3, 17, 33, 64, 100, 257, 400} {
		cs = append(cs, eigenCase{fmt.Sprintf("random n=%d", n), n, randomSym(rng, n)})
	}
	{
		n := 100
		a := make([]float64, n*n)
		for i := range n {
			a[i*n+i] = rng.NormFloat64()
		}
		cs = append(cs, eigenCase{"diagonal", n, a})
	}
	{
		n := 70
		a := make([]float64, n*n)
		for i := range n {
			a[i*n+i] = 1
		}
		cs = append(cs, eigenCase{"identity", n, a})
	}
	cs = append(cs, eigenCase{"zero", 50, make([]float64, 2500)})
	{
		n := 120
		lam := make([]float64, n)
		for i := range lam {
			lam[i] = float64(1 + i/3)
		}
		cs = append(cs, eigenCase{"repeated", n, withSpectrum(rng, lam)})
	}
	{
		n := 150
		lam := make([]float64, n)
		for i := range lam {
			lam[i] = 1 + float64(i)*1e-13
		}
		cs = append(cs, eigenCase{"clustered", n, withSpectrum(rng, lam)})
	}
	{
		d, e := wilkinson(21)
		cs = append(cs, eigenCase{"Wilkinson W21+", 21, tridiagMatrix(d, e)})
	}
	for _, delta := range []float64{1e-14, 1e-7} {
		d, e := gluedWilkinson(10, delta)
		cs = append(cs, eigenCase{fmt.Sprintf("glued Wilkinson δ=%g", delta), len(d), tridiagMatrix(d, e)})
	}
	{
		// Entries spanning 1e-10..1e10: a_ij = r_ij·g_i·g_j.
		n := 80
		g := make([]float64, n)
		for i := range g {
			g[i] = math.Pow(10, -5+10*float64(i)/float64(n-1))
		}
		a := randomSym(rng, n)
		for i := range n {
			for j := range n {
				a[i*n+j] *= g[i] * g[j]
			}
		}
		cs = append(cs, eigenCase{"graded", n, a})
	}
	{
		n := 90
		u := make([]float64, n)
		for i := range u {
			u[i] = rng.NormFloat64()
		}
		a := make([]float64, n*n)
		for i := range n {
			for j := range n {
				a[i*n+j] = u[i] * u[j]
			}
			a[i*n+i]++
		}
		cs = append(cs, eigenCase{"rank one + identity", n, a})
	}
	{
		// An RBF kernel matrix of 3-D points: positive semi-definite, with
		// most eigenvalues clustered at rounding level near 0 (cKPCA's case).
		n := 300
		x := make([]float64, 3*n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		a := make([]float64, n*n)
		for i := range n {
			for j := range n {
				a[i*n+j] = math.Exp(-SqDist(x[3*i:3*i+3], x[3*j:3*j+3]) / 2)
			}
		}
		cs = append(cs, eigenCase{"RBF kernel", n, a})
	}
	for _, scale := range []float64{1e300, 1e-300} {
		// Scaled into the safe range and back (as Dsyev does).
		n := 40
		a := randomSym(rng, n)
		for i := range a {
			a[i] *= scale
		}
		cs = append(cs, eigenCase{fmt.Sprintf("random ×%g", scale), n, a})
	}
	{
		n := 110
		d := make([]float64, n)
		e := make([]float64, n-1)
		for i := range d {
			d[i] = rng.NormFloat64()
		}
		for i := range e {
			if i%37 != 36 {
				e[i] = rng.NormFloat64()
			}
		}
		cs = append(cs, eigenCase{"tridiagonal with zero off-diagonals", n, tridiagMatrix(d, e)})
	}
	return cs
}

func TestEigenSymAccuracy(t *testing.T) {
	ctx := context.Background()
	for _, c := range eigenCases() {
		n := c.n
		vals := make([]float64, n)
		vecs := make([]float64, n*n)
		orig := append([]float64(nil), c.a...)
		if err := EigenSym(ctx, vals, vecs, c.a, n, 2); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i := range orig {
			if math.Float64bits(orig[i]) != math.Float64bits(c.a[i]) {
				t.Fatalf("%s: input modified at %d", c.name, i)
			}
		}
		for k := 1; k < n; k++ {
			if vals[k] < vals[k-1] {
				t.Errorf("%s: values not ascending at %d: %g < %g", c.name, k, vals[k], vals[k-1])
			}
		}
		res, orth := eigenQuality(c.a, vals, vecs, n)
		t.Logf("%s: n=%d residual %.3g orthogonality %.3g", c.name, n, res, orth)
		if !(res < eigenBound) {
			t.Errorf("%s: scaled residual %g ≥ %d", c.name, res, eigenBound)
		}
		if !(orth < eigenBound) {
			t.Errorf("%s: scaled orthogonality loss %g ≥ %d", c.name, orth, eigenBound)
		}
		want, _ := gonumEigen(t, c.name, c.a, n)
		var norm, maxd float64
		for k := range n {
			norm = max(norm, math.Abs(want[k]))
			maxd = max(maxd, math.Abs(vals[k]-want[k]))
		}
		if norm == 0 {
			norm = 1
		}
		if d := maxd / (float64(n) * eigenTestEps * norm); !(d <= 10) {
			t.Errorf("%s: eigenvalues differ from gonum's by %g = %.3g·n·ε·‖A‖", c.name, maxd, d)
		}
		// The values-only path agrees with the vectors path.
		vals2 := make([]float64, n)
		if err := EigenSym(ctx, vals2, nil, c.a, n, 1); err != nil {
			t.Fatalf("%s: values only: %v", c.name, err)
		}
		for k := range n {
			if d := math.Abs(vals2[k]-vals[k]) / (float64(n) * eigenTestEps * norm); !(d <= 10) {
				t.Errorf("%s: values-only eigenvalue %d = %g, with vectors %g", c.name, k, vals2[k], vals[k])
				break
			}
		}
	}
}

// TestEigenSymVectorsMatchGonum compares the eigenvectors with gonum's, up
// to sign, on spectra with gaps of 1 (so that each vector is determined to
// about n·ε).
func TestEigenSymVectorsMatchGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 2))
	for _, n := range []int{5, 40, 130} {
		name := fmt.Sprintf("separated n=%d", n)
		lam := make([]float64, n)
		for i := range lam {
			lam[i] = float64(i) - float64(n)/3
		}
		a := withSpectrum(rng, lam)
		vals := make([]float64, n)
		vecs := make([]float64, n*n)
		if err := EigenSym(context.Background(), vals, vecs, a, n, 2); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		_, gv := gonumEigen(t, name, a, n)
		var worst float64
		for k := range n {
			sign := 1.0
			var big float64
			for i := range n {
				if v := gv.At(i, k); math.Abs(v) > big {
					big = math.Abs(v)
					sign = math.Copysign(1, v*vecs[i*n+k])
				}
			}
			for i := range n {
				worst = max(worst, math.Abs(sign*vecs[i*n+k]-gv.At(i, k)))
			}
		}
		if worst > 1e-12 {
			t.Errorf("%s: eigenvectors differ from gonum's (up to sign) by %g", name, worst)
		}
	}
}

func TestEigenSymThreadsBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 3))
	lam := make([]float64, 300)
	for i := range lam {
		lam[i] = float64(i / 4)
	}
	cases := []eigenCase{
		{"random n=333", 333, randomSym(rng, 333)},
		{"repeated n=300", 300, withSpectrum(rng, lam)},
	}
	for _, c := range cases {
		n := c.n
		var ref, refv []float64
		for _, th := range []int{1, 2, 5} {
			vals := make([]float64, n)
			vecs := make([]float64, n*n)
			if err := EigenSym(context.Background(), vals, vecs, c.a, n, th); err != nil {
				t.Fatalf("%s threads=%d: %v", c.name, th, err)
			}
			if ref == nil {
				ref, refv = vals, vecs
				continue
			}
			for i := range ref {
				if math.Float64bits(vals[i]) != math.Float64bits(ref[i]) {
					t.Fatalf("%s: threads=%d value %d differs from threads=1", c.name, th, i)
				}
			}
			for i := range refv {
				if math.Float64bits(vecs[i]) != math.Float64bits(refv[i]) {
					t.Fatalf("%s: threads=%d vector entry %d differs from threads=1", c.name, th, i)
				}
			}
		}
	}
}

func TestEigenSymErrors(t *testing.T) {
	n := 40
	rng := rand.New(rand.NewPCG(16, 4))
	a := randomSym(rng, n)
	vals := make([]float64, n)
	vecs := make([]float64, n*n)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, v := range [][]float64{vecs, nil} {
		if err := EigenSym(ctx, vals, v, a, n, 2); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled (vectors %v): got %v, want context.Canceled", v != nil, err)
		}
	}
	for _, c := range []struct {
		name string
		v    float64
		i, j int
	}{
		{"NaN", math.NaN(), 7, 3},
		{"+Inf", math.Inf(1), 5, 5},
		{"-Inf", math.Inf(-1), 39, 0},
	} {
		b := append([]float64(nil), a...)
		b[c.i*n+c.j] = c.v
		err := EigenSym(context.Background(), vals, vecs, b, n, 2)
		if !errors.Is(err, ErrEigen) {
			t.Errorf("%s: got %v, want an error wrapping ErrEigen", c.name, err)
		}
	}
	// Only the lower triangle is read: a NaN above the diagonal is ignored.
	b := append([]float64(nil), a...)
	b[3*n+7] = math.NaN()
	if err := EigenSym(context.Background(), vals, vecs, b, n, 2); err != nil {
		t.Errorf("NaN in the upper triangle: %v", err)
	}
	for _, c := range []struct {
		name string
		fn   func()
	}{
		{"n=0", func() { EigenSym(context.Background(), nil, nil, nil, 0, 1) }},
		{"short values", func() { EigenSym(context.Background(), vals[:n-1], vecs, a, n, 1) }},
		{"short vectors", func() { EigenSym(context.Background(), vals, vecs[:n], a, n, 1) }},
		{"short a", func() { EigenSym(context.Background(), vals, vecs, a[:n], n, 1) }},
	} {
		if !panics(c.fn) {
			t.Errorf("%s: no panic", c.name)
		}
	}
}

func BenchmarkEigenSym(b *testing.B) {
	for _, n := range []int{500, 1000, 2000} {
		rng := rand.New(rand.NewPCG(16, uint64(n)))
		a := randomSym(rng, n)
		b.Run(fmt.Sprintf("n=%d/impl=dandc", n), func(b *testing.B) {
			vals := make([]float64, n)
			vecs := make([]float64, n*n)
			for b.Loop() {
				if err := EigenSym(context.Background(), vals, vecs, a, n, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("n=%d/impl=gonum", n), func(b *testing.B) {
			sym := mat.NewSymDense(n, nil)
			for i := range n {
				for j := 0; j <= i; j++ {
					sym.SetSym(i, j, a[i*n+j])
				}
			}
			for b.Loop() {
				var eig mat.EigenSym
				if !eig.Factorize(sym, true) {
					b.Fatal("gonum EigenSym failed")
				}
			}
		})
	}
}

// countdownCtx is a context that is cancelled at its after-th call of
// Err (never if after ≤ 0), so that a computation can be stopped at each of its checks in turn.
type countdownCtx struct {
	context.Context
	after, calls int
	done         chan struct{}
}

func newCountdownCtx(after int) *countdownCtx {
	return &countdownCtx{Context: context.Background(), after: after, done: make(chan struct{})}
}

func (c *countdownCtx) Done() <-chan struct{} { return c.done }

func (c *countdownCtx) Err() error {
	c.calls++
	if c.calls == c.after {
		close(c.done)
	}
	if c.after > 0 && c.calls >= c.after {
		return context.Canceled
	}
	return nil
}

// TestEigenSymCancelMidway cancels EigenSym at each of its context checks
// (one thread, so that the checks come in a fixed order): every one must
// end the call with context.Canceled.
func TestEigenSymCancelMidway(t *testing.T) {
	n := 150
	a := randomSym(rand.New(rand.NewPCG(16, 5)), n)
	vals := make([]float64, n)
	vecs := make([]float64, n*n)
	total := newCountdownCtx(-1)
	if err := EigenSym(total, vals, vecs, a, n, 1); err != nil {
		t.Fatal(err)
	}
	if total.calls < 5 {
		t.Fatalf("only %d context checks", total.calls)
	}
	for after := 1; after <= total.calls; after++ {
		ctx := newCountdownCtx(after)
		if err := EigenSym(ctx, vals, vecs, a, n, 1); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at check %d of %d: got %v", after, total.calls, err)
		}
	}
}

// The factored form must hold EigenSym's decomposition: the same values,
// Q·e_k its eigenvectors (up to the rounding of the blocked product),
// Qᵀ the inverse of Q, and A·q_k = λ_k·q_k.
func TestSymEigenFactored(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	for _, tc := range []struct {
		name string
		n    int
		a    []float64
	}{
		{"n=1", 1, []float64{-2.5}},
		{"zero", 4, make([]float64, 16)},
		{"random 7", 7, randomSym(rng, 7)},
		{"random 130", 130, randomSym(rng, 130)},
		{"random 301", 301, randomSym(rng, 301)},
		{"tiny scale", 40, scaledSym(randomSym(rng, 40), 1e-200)},
	} {
		n := tc.n
		f, err := NewSymEigen(context.Background(), tc.a, n, 2)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		vals, vecs := make([]float64, n), make([]float64, n*n)
		if err := EigenSym(context.Background(), vals, vecs, tc.a, n, 2); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slicesEqualBits(f.Values, vals) {
			t.Errorf("%s: values differ from EigenSym's", tc.name)
		}
		var anorm float64
		for _, v := range tc.a {
			anorm = max(anorm, math.Abs(v))
		}
		q := make([]float64, n)
		aq := make([]float64, n)
		var vecErr, resid float64
		for k := range n {
			f.Vector(q, k)
			for r := range n {
				vecErr = max(vecErr, math.Abs(q[r]-vecs[r*n+k]))
				var s float64
				for c := range n {
					s += tc.a[r*n+c] * q[c]
				}
				aq[r] = s
			}
			for r := range n {
				resid = max(resid, math.Abs(aq[r]-f.Values[k]*q[r]))
			}
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		back := make([]float64, n)
		f.MulQT(back, x)
		f.MulQ(back, back)
		var roundTrip float64
		for i := range x {
			roundTrip = max(roundTrip, math.Abs(back[i]-x[i]))
		}
		tol := 1e-13 * float64(n)
		if vecErr > tol || roundTrip > tol || resid > tol*max(anorm, math.SmallestNonzeroFloat64) {
			t.Errorf("%s: vectors differ by %.3g, Q·Qᵀx by %.3g, residual %.3g (‖A‖ %.3g), want ≤ %.3g",
				tc.name, vecErr, roundTrip, resid, anorm, tol)
		}
		f.NegateVector(0)
		f.Vector(q, 0)
		if math.Abs(q[0]+vecs[0]) > tol {
			t.Errorf("%s: NegateVector(0) gives %v, want %v", tc.name, q[0], -vecs[0])
		}
	}
}

func scaledSym(a []float64, s float64) []float64 {
	for i := range a {
		a[i] *= s
	}
	return a
}
