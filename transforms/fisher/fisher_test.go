package fisher

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// linearKernel returns S = XXᵀ for n random points in dim dimensions with
// k classes (shifted class means so that the classes are not trivial).
func linearKernel(n, dim, k int, seed uint64) (x, s []float64, cls []int) {
	rng := rand.New(rand.NewPCG(seed, 99))
	x = make([]float64, n*dim)
	cls = make([]int, n)
	for i := range n {
		cls[i] = i % k
		for d := range dim {
			x[i*dim+d] = 0.7*float64(cls[i]*((d+cls[i])%2)) + rng.NormFloat64()
		}
	}
	s = linearGram(x, n, dim)
	return x, s, cls
}

// segment is √(vᵀJ(x)v) computed in feature space: the Parzen posterior
// at x, b_c = E[x_l | c] − E[x_l], J = σ⁻⁴ Σ_c p(c) b_c b_cᵀ.
func segment(xs []float64, n, dim int, cls []int, k int, sigma float64, x, v []float64, skip1, skip2 int) float64 {
	w := make([]float64, n)
	mx := math.Inf(-1)
	for l := range n {
		if l == skip1 || l == skip2 {
			continue
		}
		var d2 float64
		for d := range dim {
			e := x[d] - xs[l*dim+d]
			d2 += e * e
		}
		w[l] = -d2 / (2 * sigma * sigma)
		mx = max(mx, w[l])
	}
	var W float64
	for l := range n {
		if l == skip1 || l == skip2 {
			w[l] = 0
			continue
		}
		w[l] = math.Exp(w[l] - mx)
		W += w[l]
	}
	mean := make([]float64, dim)
	pc := make([]float64, k)
	mc := make([]float64, k*dim)
	for l := range n {
		p := w[l] / W
		pc[cls[l]] += p
		for d := range dim {
			mean[d] += p * xs[l*dim+d]
			mc[cls[l]*dim+d] += p * xs[l*dim+d]
		}
	}
	J := make([]float64, dim*dim)
	for c := range k {
		if pc[c] == 0 {
			continue
		}
		b := make([]float64, dim)
		for d := range dim {
			b[d] = mc[c*dim+d]/pc[c] - mean[d]
		}
		for p := range dim {
			for q := range dim {
				J[p*dim+q] += pc[c] * b[p] * b[q] / (sigma * sigma * sigma * sigma)
			}
		}
	}
	var q float64
	for p := range dim {
		for r := range dim {
			q += v[p] * J[p*dim+r] * v[r]
		}
	}
	return math.Sqrt(q)
}

// explicit computes d(i, j) with vectors, for the rule.
func explicit(xs []float64, n, dim int, cls []int, k int, sigma float64, T int, rule Rule, excl bool, i, j int) float64 {
	s1, s2 := -1, -1
	if excl {
		s1, s2 = i, j
	}
	v := make([]float64, dim)
	for d := range dim {
		v[d] = (xs[j*dim+d] - xs[i*dim+d]) / float64(T)
	}
	x := make([]float64, dim)
	var sum float64
	for t := 0; t <= T; t++ {
		a := float64(t) / float64(T)
		for d := range dim {
			x[d] = (1-a)*xs[i*dim+d] + a*xs[j*dim+d]
		}
		seg := segment(xs, n, dim, cls, k, sigma, x, v, s1, s2)
		switch {
		case rule == Left && t < T:
			sum += seg
		case rule == Trapezoid && (t == 0 || t == T):
			sum += seg / 2
		case rule == Trapezoid:
			sum += seg
		}
	}
	return sum
}

func TestDistancesExactLinearKernel(t *testing.T) {
	const n, dim, k = 30, 3, 3
	xs, s, cls := linearKernel(n, dim, k, 1)
	for _, tc := range []struct {
		name  string
		rule  Rule
		excl  bool
		sigma float64
		T     int
	}{
		{"trapezoid", Trapezoid, false, 0.9, 10},
		{"left", Left, false, 0.9, 10},
		{"trapezoid excl", Trapezoid, true, 0.9, 7},
		{"left excl", Left, true, 1.3, 7},
		{"left T=1", Left, false, 0.9, 1},
	} {
		o := sigmaOptions(tc.sigma)
		o.Steps, o.Rule, o.ExcludeEndpoints = tc.T, tc.rule, tc.excl
		dist, st, err := Distances(context.Background(), s, n, cls, k, o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if st.Steps != tc.T || st.Rule != tc.rule || st.Sigma != tc.sigma {
			t.Errorf("%s: stats %+v", tc.name, st)
		}
		var worst, scale float64
		for i := range n {
			for j := range n {
				if i == j {
					if dist[i*n+j] != 0 {
						t.Errorf("%s: d(%d,%d) = %v", tc.name, i, i, dist[i*n+j])
					}
					continue
				}
				want := explicit(xs, n, dim, cls, k, tc.sigma, tc.T, tc.rule, tc.excl, i, j)
				worst = max(worst, math.Abs(dist[i*n+j]-want))
				scale = max(scale, want)
			}
		}
		if worst > 1e-10*scale || scale == 0 {
			t.Errorf("%s: max |kernel − explicit| = %.3g (max d %.3g)", tc.name, worst, scale)
		}
	}
}

func TestTrapezoidIsMeanOfLeft(t *testing.T) {
	const n, dim, k = 25, 4, 3
	_, s, cls := linearKernel(n, dim, k, 2)
	o := sigmaOptions(1)
	o.Steps = 5
	trap, st, err := Distances(context.Background(), s, n, cls, k, o)
	if err != nil {
		t.Fatal(err)
	}
	if st.MaxAsymmetry != 0 {
		t.Errorf("trapezoid: MaxAsymmetry %v", st.MaxAsymmetry)
	}
	o.Rule = Left
	left, st, err := Distances(context.Background(), s, n, cls, k, o)
	if err != nil {
		t.Fatal(err)
	}
	var asym, maxD float64
	for i := range n {
		for j := range n {
			if trap[i*n+j] != trap[j*n+i] {
				t.Fatalf("trapezoid not symmetric at (%d,%d)", i, j)
			}
			mean := (left[i*n+j] + left[j*n+i]) / 2
			if math.Abs(trap[i*n+j]-mean) > 1e-13*max(1, mean) {
				t.Errorf("(%d,%d): trapezoid %v, mean of left %v", i, j, trap[i*n+j], mean)
			}
			asym = max(asym, math.Abs(left[i*n+j]-left[j*n+i]))
			maxD = max(maxD, left[i*n+j])
		}
	}
	if asym < 1e-3*maxD {
		t.Errorf("left rule nearly symmetric: max asymmetry %v of %v", asym, maxD)
	}
	if math.Abs(st.MaxAsymmetry-asym/maxD) > 1e-15 {
		t.Errorf("MaxAsymmetry %v, want %v", st.MaxAsymmetry, asym/maxD)
	}
}

func TestConvergenceInSteps(t *testing.T) {
	const n, dim, k = 30, 3, 3
	_, s, cls := linearKernel(n, dim, k, 3)
	d := map[int][]float64{}
	for _, T := range []int{2, 20, 40} {
		o := sigmaOptions(1.2)
		o.Steps = T
		v, _, err := Distances(context.Background(), s, n, cls, k, o)
		if err != nil {
			t.Fatal(err)
		}
		d[T] = v
	}
	rel := func(a, b []float64) float64 {
		var num, den float64
		for q := range a {
			num = max(num, math.Abs(a[q]-b[q]))
			den = max(den, b[q])
		}
		return num / den
	}
	fine, coarse := rel(d[20], d[40]), rel(d[2], d[40])
	if fine > 0.01 {
		t.Errorf("T=20 vs T=40: relative change %.3g > 1%%", fine)
	}
	if !(fine < coarse/10) {
		t.Errorf("no convergence: T=2 vs 40 %.3g, T=20 vs 40 %.3g", coarse, fine)
	}
}

func TestDistancesThreadsIdentical(t *testing.T) {
	const n, dim, k = 50, 3, 4
	_, s, cls := linearKernel(n, dim, k, 4)
	var ref []float64
	for _, th := range []int{1, 2, 3} {
		o := sigmaOptions(0.8)
		o.Steps, o.Rule, o.Threads = 4, Left, th
		d, _, err := Distances(context.Background(), s, n, cls, k, o)
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = d
			continue
		}
		for q := range d {
			if d[q] != ref[q] {
				t.Fatalf("threads %d: d[%d] = %v, threads 1: %v", th, q, d[q], ref[q])
			}
		}
	}
}

// TestTinySigma uses twin points of different classes at distance ≈ σ,
// so that the weights underflow away from the points but F stays large.
// The explicit feature-space reference uses exact differences, while the
// kernel form gets d² from s_ii + s_ll − 2s_il, whose rounding (≈1e-16) is
// amplified by 1/(2σ²) = 5e5 in the logits: hence the 1e-8 tolerance here
// (the kernels package checks the same case against a kernel-domain
// reference to 1e-10).
func TestTinySigma(t *testing.T) {
	const n, dim, k, sigma = 20, 3, 2, 1e-3
	rng := rand.New(rand.NewPCG(5, 5))
	xs := make([]float64, n*dim)
	cls := make([]int, n)
	for i := 0; i < n; i += 2 {
		cls[i], cls[i+1] = 0, 1
		for d := range dim {
			xs[i*dim+d] = rng.NormFloat64()
			xs[(i+1)*dim+d] = xs[i*dim+d] + sigma*rng.NormFloat64()
		}
	}
	s := make([]float64, n*n)
	for i := range n {
		for j := range n {
			for d := range dim {
				s[i*n+j] += xs[i*dim+d] * xs[j*dim+d]
			}
		}
	}
	for _, excl := range []bool{false, true} {
		o := sigmaOptions(sigma)
		o.Steps, o.Rule, o.ExcludeEndpoints = 4, Left, excl
		d, st, err := Distances(context.Background(), s, n, cls, k, o)
		if err != nil {
			t.Fatal(err)
		}
		if st.Fallbacks == 0 {
			t.Errorf("excl %v: no fallbacks counted at σ = 1e-3", excl)
		}
		var maxD float64
		for i := range n {
			for j := range n {
				v := d[i*n+j]
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("excl %v: d(%d,%d) = %v", excl, i, j, v)
				}
				if i == j {
					continue
				}
				maxD = max(maxD, v)
				want := explicit(xs, n, dim, cls, k, o.Sigma, o.Steps, o.Rule, excl, i, j)
				if math.Abs(v-want) > 1e-8*max(want, 1) {
					t.Errorf("excl %v: d(%d,%d) = %v, log-domain reference %v", excl, i, j, v, want)
				}
			}
		}
		if maxD < 0.01 {
			t.Errorf("excl %v: max d = %v: the test exercises nothing", excl, maxD)
		}
	}
}

func TestSparseMatchesDense(t *testing.T) {
	const n, dim, k = 60, 3, 3
	_, s, cls := linearKernel(n, dim, k, 6)
	for _, tc := range []struct {
		rule Rule
		excl bool
		K    int
	}{
		{Trapezoid, false, 8}, {Left, false, 8}, {Trapezoid, true, 8}, {Left, true, 1}, {Trapezoid, false, 1},
	} {
		name := fmt.Sprintf("%v excl=%v K=%d", tc.rule, tc.excl, tc.K)
		o := sigmaOptions(0.3)
		o.Steps, o.Rule, o.ExcludeEndpoints = 6, tc.rule, tc.excl
		dense, _, err := Distances(context.Background(), s, n, cls, k, o)
		if err != nil {
			t.Fatal(err)
		}
		o.Neighbors = tc.K
		idx, dist, st, err := SparseDistances(context.Background(), s, n, cls, k, o)
		if err != nil {
			t.Fatal(err)
		}
		if st.KeptTerms >= st.DenseTerms && !(tc.excl && tc.K == 1) {
			t.Errorf("%s: no truncation (%d of %d terms)", name, st.KeptTerms, st.DenseTerms)
		}
		for q, v := range dist {
			i, j := q/tc.K, int(idx[q])
			if want := dense[i*n+j]; math.Abs(v-want) > 1e-9*max(want, 1e-300) {
				t.Errorf("%s: (%d,%d) sparse %v, dense %v", name, i, j, v, want)
			}
		}
	}
}

func TestValidation(t *testing.T) {
	_, s, cls := linearKernel(5, 2, 2, 7)
	good := sigmaOptions(1)
	bad := func(f func([]float64, []int, *Options)) ([]float64, []int, Options) {
		s2 := append([]float64(nil), s...)
		c2 := append([]int(nil), cls...)
		o := good
		f(s2, c2, &o)
		return s2, c2, o
	}
	cases := []struct {
		name   string
		n      int
		f      func([]float64, []int, *Options)
		want   error
		option string         // the option an OptionError names, "" for input errors
		pos    *arrowio.Error // Matrix, Row and Column; nil when not positional
	}{
		{"sigma 0", 5, func(_ []float64, _ []int, o *Options) { o.Sigma = 0 }, transforms.ErrInvalidOption, "sigma", nil},
		{"sigma -1", 5, func(_ []float64, _ []int, o *Options) { o.Sigma = -1 }, transforms.ErrInvalidOption, "sigma", nil},
		{"steps -1", 5, func(_ []float64, _ []int, o *Options) { o.Steps = -1 }, transforms.ErrInvalidOption, "steps", nil},
		{"steps 0", 5, func(_ []float64, _ []int, o *Options) { o.Steps = 0 }, transforms.ErrInvalidOption, "steps", nil},
		{"rule zero value", 5, func(_ []float64, _ []int, o *Options) { o.Rule = "" }, transforms.ErrInvalidOption, "rule", nil},
		{"neighbors in dense", 5, func(_ []float64, _ []int, o *Options) { o.Neighbors = 2 }, transforms.ErrInvalidOption, "neighbors", nil},
		{"NaN", 5, func(s []float64, _ []int, _ *Options) { s[7] = math.NaN() }, ErrNonFinite, "", arrowio.MatrixError("s", 1, 2, nil)},
		{"asymmetric", 5, func(s []float64, _ []int, _ *Options) { s[1*5+3] += 1 }, ErrAsymmetric, "", arrowio.MatrixError("s", 3, 1, nil)},
		{"class range", 5, func(_ []float64, c []int, _ *Options) { c[4] = 2 }, ErrClassRange, "", arrowio.MatrixError("classes", 4, -1, nil)},
		{"one class", 5, func(_ []float64, c []int, _ *Options) { clear(c) }, ErrTooFewClasses, "", nil},
		{"length", 4, func([]float64, []int, *Options) {}, ErrLength, "", nil},
	}
	for _, tc := range cases {
		s2, c2, o := bad(tc.f)
		_, _, err := Distances(context.Background(), s2, tc.n, c2, 2, o)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
			continue
		}
		var oe *transforms.OptionError
		if isOpt := errors.As(err, &oe); isOpt != (tc.option != "") || isOpt && oe.Option != tc.option {
			t.Errorf("%s: err = %v, want an option error on %q", tc.name, err, tc.option)
		}
		var ie *arrowio.Error
		if isPos := errors.As(err, &ie); isPos != (tc.pos != nil) {
			t.Errorf("%s: err = %v, positional %v, want %v", tc.name, err, isPos, tc.pos != nil)
		} else if isPos && (ie.Matrix != tc.pos.Matrix || ie.Row != tc.pos.Row || ie.Column != tc.pos.Column) {
			t.Errorf("%s: err = %v, want position %q (%d, %q)", tc.name, err, tc.pos.Matrix, tc.pos.Row, tc.pos.Column)
		}
	}
	for _, K := range []int{0, 5} {
		o := sigmaOptions(1)
		o.Neighbors = K
		var oe *transforms.OptionError
		if _, _, _, err := SparseDistances(context.Background(), s, 5, cls, 2, o); !errors.As(err, &oe) || oe.Option != "neighbors" {
			t.Errorf("sparse K = %d of n = 5: err = %v, want an option error on neighbors", K, err)
		}
	}
	o := sigmaOptions(1)
	o.ExcludeEndpoints = true
	if _, _, err := Distances(context.Background(), s[:4], 2, cls[:2], 2, o); !errors.Is(err, ErrTooFew) {
		t.Errorf("n = 2 with ExcludeEndpoints: err = %v", err)
	}
}

// readAural reads testdata/similarity/aural_sonar.parquet (id, label, s_0 …
// s_99; labels 1 and 2 become classes 0 and 1).
func readAural(t *testing.T) ([]float64, []int, int) {
	t.Helper()
	ctx := context.Background()
	r, err := arrowio.Open(ctx, filepath.Join("..", "..", "testdata", "similarity", "aural_sonar.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	f, err := arrowio.ReadFrame(ctx, r, arrowio.Selection{ID: "id", Label: "label", Features: []string{"s_*"}, Keep: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	if f.D != f.N {
		t.Fatalf("aural sonar: %d rows, %d similarity columns", f.N, f.D)
	}
	cls := make([]int, f.N)
	for i, v := range f.Label.Num {
		cls[i] = int(v) - 1
	}
	return append([]float64(nil), f.X...), cls, f.N
}

// looErrors counts leave-one-out 1-NN errors, ties to the lowest index.
func looErrors(d []float64, n int, cls []int) int {
	errs := 0
	for i := range n {
		best := -1
		for j := range n {
			if j != i && (best < 0 || d[i*n+j] < d[i*n+best]) {
				best = j
			}
		}
		if cls[best] != cls[i] {
			errs++
		}
	}
	return errs
}

// TestAuralSonarGolden checks the research note's golden number (17/100
// leave-one-out 1-NN errors on the clipped kernel distances, the paper's
// "original (clip)" 17 %) and the 1-NN errors of the Fisher distances that
// the note got with an independent implementation.
func TestAuralSonarGolden(t *testing.T) {
	s, cls, n := readAural(t)
	kernels.Symmetrize(s, n)
	neg, err := kernels.CorrectSpectrum(s, s, n, kernels.Clip)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(neg-0.21) > 0.01 {
		t.Errorf("negative eigenvalue share %.3f, note says 0.21", neg)
	}
	d2 := make([]float64, n*n)
	kernels.KernelSqDistances(d2, s, n)
	if e := looErrors(d2, n, cls); e != 17 {
		t.Errorf("clip 1-NN errors %d, want 17", e)
	}
	// The note's §1.4 table (its own numpy implementation, trapezoid, T = 10,
	// σ = mean perplexity-30 bandwidth 0.306 times 1, 2, 4).
	for _, g := range []struct {
		sigma float64
		excl  bool
		want  int
	}{
		{0.306, false, 0}, {0.612, false, 15}, {1.224, false, 13},
		{0.306, true, 18}, {0.612, true, 16}, {1.224, true, 19},
	} {
		o := sigmaOptions(g.sigma)
		o.ExcludeEndpoints = g.excl
		d, _, err := Distances(context.Background(), s, n, cls, 2, o)
		if err != nil {
			t.Fatal(err)
		}
		for q, v := range d {
			if math.IsNaN(v) || math.IsInf(v, 0) || v != d[(q%n)*n+q/n] {
				t.Fatalf("σ %v excl %v: d[%d] = %v not finite or not symmetric", g.sigma, g.excl, q, v)
			}
		}
		if e := looErrors(d, n, cls); e != g.want {
			t.Errorf("σ %v excl %v: Fisher 1-NN errors %d/100, note: %d", g.sigma, g.excl, e, g.want)
		}
	}
}

func TestProgress(t *testing.T) {
	const n, dim, k = 40, 3, 2
	_, s, cls := linearKernel(n, dim, k, 8)
	for _, sparse := range []bool{false, true} {
		var last, total int64
		o := sigmaOptions(1)
		o.Steps, o.Threads = 3, 2
		o.Progress = func(done, tot int64) {
			if done <= last {
				t.Errorf("sparse %v: progress %d after %d", sparse, done, last)
			}
			last, total = done, tot
		}
		var err error
		want := int64(n * (n - 1) / 2)
		if sparse {
			o.Neighbors = 5
			_, _, _, err = SparseDistances(context.Background(), s, n, cls, k, o)
			want = n
		} else {
			_, _, err = Distances(context.Background(), s, n, cls, k, o)
		}
		if err != nil {
			t.Fatal(err)
		}
		if last != want || total != want {
			t.Errorf("sparse %v: final progress %d of %d, want %d of %d", sparse, last, total, want, want)
		}
	}
}

// sigmaOptions returns DefaultOptions with σ = sigma.
func sigmaOptions(sigma float64) Options {
	o := DefaultOptions()
	o.Sigma = sigma
	return o
}

// linearGram is the linear kernel of the n points x (n×dim): s_ij = ⟨x_i, x_j⟩.
func linearGram(x []float64, n, dim int) []float64 {
	s := make([]float64, n*n)
	for i := range n {
		for j := range n {
			var v float64
			for d := range dim {
				v += x[i*dim+d] * x[j*dim+d]
			}
			s[i*n+j] = v
		}
	}
	return s
}
