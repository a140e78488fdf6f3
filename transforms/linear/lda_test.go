package linear

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/internal/synth"
	"github.com/ordinate/ordinate/transforms"
)

// scatters computes S_b and S_w directly from their definitions.
func scatters(x *mat.Dense, classes []int, k int) (sb, sw *mat.Dense, centers [][]float64) {
	n, D := x.Dims()
	centers = make([][]float64, k)
	cnt := make([]float64, k)
	mean := make([]float64, D)
	for c := range centers {
		centers[c] = make([]float64, D)
	}
	for i, c := range classes {
		for j := range D {
			centers[c][j] += x.At(i, j)
			mean[j] += x.At(i, j) / float64(n)
		}
		cnt[c]++
	}
	for c := range centers {
		for j := range D {
			centers[c][j] /= cnt[c]
		}
	}
	sb, sw = mat.NewDense(D, D, nil), mat.NewDense(D, D, nil)
	for c := range k {
		for a := range D {
			for b := range D {
				sb.Set(a, b, sb.At(a, b)+cnt[c]*(centers[c][a]-mean[a])*(centers[c][b]-mean[b]))
			}
		}
	}
	for i, c := range classes {
		for a := range D {
			for b := range D {
				sw.Set(a, b, sw.At(a, b)+(x.At(i, a)-centers[c][a])*(x.At(i, b)-centers[c][b]))
			}
		}
	}
	return sb, sw, centers
}

// gaussianClasses draws per points for each class mean, with a shared
// covariance L·Lᵀ.
func gaussianClasses(rng *rand.Rand, means [][]float64, l *mat.Dense, per int) (*mat.Dense, []int) {
	D := len(means[0])
	x := mat.NewDense(len(means)*per, D, nil)
	cl := make([]int, len(means)*per)
	z := make([]float64, D)
	for c, mu := range means {
		for p := range per {
			i := c*per + p
			for j := range z {
				z[j] = rng.NormFloat64()
			}
			for a := range D {
				v := mu[a]
				for b := range D {
					v += l.At(a, b) * z[b]
				}
				x.Set(i, a, v)
			}
			cl[i] = c
		}
	}
	return x, cl
}

// oneHotData has D = 6 columns: 3 Gaussian ones and a 3-level one-hot
// attribute (columns summing to 1), so that S_w is singular.
func oneHotData(rng *rand.Rand) (*mat.Dense, []int) {
	const n, k = 120, 4
	x := mat.NewDense(n, 6, nil)
	cl := make([]int, n)
	for i := range n {
		c := i % k
		cl[i] = c
		x.Set(i, 0, float64(c)+rng.NormFloat64())
		x.Set(i, 1, 0.5*float64(c*c)+rng.NormFloat64())
		x.Set(i, 2, rng.NormFloat64())
		x.Set(i, 3+(c+rng.IntN(2))%3, 1)
	}
	return x, cl
}

// TestLDAGeneralizedEigen checks the residual of S_b w = λ(S_w+εI)w, the
// (S_w+εI)-orthogonality of the axes, and the eigenvalues against
// mat.Eigen of (S_w+εI)⁻¹S_b, on random and on rank-deficient data.
func TestLDAGeneralizedEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	l := randomMatrix(rng, 5, 5)
	means := [][]float64{{0, 0, 0, 0, 0}, {1, 0, 2, 0, 0}, {2, 1, 1, -1, 0}, {0, 3, 0, 0, 1}}
	xr, cr := gaussianClasses(rng, means, l, 40)
	xo, co := oneHotData(rng)
	for _, tc := range []struct {
		name    string
		x       *mat.Dense
		classes []int
		k, d    int
	}{{"random", xr, cr, 4, 3}, {"one-hot", xo, co, 4, 3}} {
		res, err := LDA(tc.x, tc.classes, tc.k, ldaOpts(tc.d))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.Discriminants != tc.d || len(res.Warnings) != 0 {
			t.Fatalf("%s: %d discriminants, warnings %q", tc.name, res.Discriminants, res.Warnings)
		}
		_, D := tc.x.Dims()
		sb, sw, _ := scatters(tc.x, tc.classes, tc.k)
		if want := 1e-6 * mat.Trace(sw) / float64(D); math.Abs(res.Shrinkage-want) > 1e-12*want {
			t.Errorf("%s: shrinkage %g, want %g", tc.name, res.Shrinkage, want)
		}
		swe := mat.DenseCopyOf(sw)
		for j := range D {
			swe.Set(j, j, swe.At(j, j)+res.Shrinkage)
		}
		for j := range tc.d {
			w := res.Axes.ColView(j)
			if n := mat.Norm(w, 2); math.Abs(n-1) > 1e-12 {
				t.Errorf("%s: axis %d has norm %g", tc.name, j, n)
			}
			var lhs, rhs mat.VecDense
			lhs.MulVec(sb, w)
			rhs.MulVec(swe, w)
			rhs.ScaleVec(res.Eigenvalues[j], &rhs)
			lhs.SubVec(&lhs, &rhs)
			if r := mat.Norm(&lhs, 2); r > 1e-9*mat.Norm(sb, 2) {
				t.Errorf("%s: axis %d residual %g (‖S_b‖ = %g)", tc.name, j, r, mat.Norm(sb, 2))
			}
			for i := range j {
				var sv mat.VecDense
				sv.MulVec(swe, w)
				if c := mat.Dot(res.Axes.ColView(i), &sv); math.Abs(c) > 1e-9*mat.Norm(swe, 2) {
					t.Errorf("%s: axes %d and %d not S_w-orthogonal (%g)", tc.name, i, j, c)
				}
			}
		}
		if !sort.IsSorted(sort.Reverse(sort.Float64Slice(res.Eigenvalues))) {
			t.Errorf("%s: eigenvalues %v not descending", tc.name, res.Eigenvalues)
		}
		// Oracle: the eigenvalues of (S_w+εI)⁻¹ S_b.
		var m mat.Dense
		if err := m.Solve(swe, sb); err != nil {
			t.Fatal(err)
		}
		var eig mat.Eigen
		if !eig.Factorize(&m, mat.EigenNone) {
			t.Fatal("Eigen failed")
		}
		var vals []float64
		for _, v := range eig.Values(nil) {
			vals = append(vals, real(v))
		}
		slices.Sort(vals)
		slices.Reverse(vals)
		for j := range tc.d {
			if math.Abs(vals[j]-res.Eigenvalues[j]) > 1e-6*vals[0] {
				t.Errorf("%s: λ%d = %.10g, oracle %.10g", tc.name, j+1, res.Eigenvalues[j], vals[j])
			}
		}
	}
}

// TestLDATwoGaussians checks the axis of two classes against
// S_w⁻¹(c₁ − c₀) (exact for two classes) and against the population
// direction Σ⁻¹(μ₁ − μ₀).
func TestLDATwoGaussians(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	l := mat.NewDense(3, 3, []float64{2, 0, 0, 1, 1, 0, -0.5, 0.3, 0.7})
	mu := [][]float64{{0, 0, 0}, {1, 2, -1}}
	x, cl := gaussianClasses(rng, mu, l, 4000)
	res, err := LDA(x, cl, 2, ldaOpts(1))
	if err != nil {
		t.Fatal(err)
	}
	w := mat.Col(nil, 0, res.Axes)
	_, sw, c := scatters(x, cl, 2)
	diff := mat.NewVecDense(3, []float64{c[1][0] - c[0][0], c[1][1] - c[0][1], c[1][2] - c[0][2]})
	var sample mat.VecDense
	if err := sample.SolveVec(sw, diff); err != nil {
		t.Fatal(err)
	}
	if cos := mat.Dot(mat.NewVecDense(3, w), &sample) / mat.Norm(&sample, 2); cos < 1-1e-9 {
		t.Errorf("cosine with S_w⁻¹(c₁ − c₀) = %.12f", cos)
	}
	var sigma mat.Dense
	sigma.Mul(l, l.T())
	var pop mat.VecDense
	if err := pop.SolveVec(&sigma, mat.NewVecDense(3, []float64{1, 2, -1})); err != nil {
		t.Fatal(err)
	}
	if cos := mat.Dot(mat.NewVecDense(3, w), &pop) / mat.Norm(&pop, 2); cos < math.Cos(0.05) {
		t.Errorf("angle with Σ⁻¹(μ₁ − μ₀) = %.3g rad, want < 0.05", math.Acos(cos))
	}
}

// TestLDARayleigh2D compares axis 1 with a brute-force maximisation of the
// Rayleigh quotient wᵀS_b w / wᵀ(S_w+εI)w over directions in the plane.
func TestLDARayleigh2D(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	l := mat.NewDense(2, 2, []float64{1.5, 0, 1.2, 0.4})
	x, cl := gaussianClasses(rng, [][]float64{{0, 0}, {1, 0.5}, {1.5, 2}}, l, 30)
	res, err := LDA(x, cl, 3, ldaOpts(2))
	if err != nil {
		t.Fatal(err)
	}
	sb, sw, _ := scatters(x, cl, 3)
	for j := range 2 {
		sw.Set(j, j, sw.At(j, j)+res.Shrinkage)
	}
	quotient := func(th float64) float64 {
		w := mat.NewVecDense(2, []float64{math.Cos(th), math.Sin(th)})
		return mat.Inner(w, sb, w) / mat.Inner(w, sw, w)
	}
	best, bestQ := 0.0, math.Inf(-1)
	const steps = 7200
	for i := range steps {
		if th := math.Pi * float64(i) / steps; quotient(th) > bestQ {
			best, bestQ = th, quotient(th)
		}
	}
	lo, hi := best-math.Pi/steps, best+math.Pi/steps
	for range 80 {
		m1, m2 := lo+(hi-lo)*0.382, lo+(hi-lo)*0.618
		if quotient(m1) > quotient(m2) {
			hi = m2
		} else {
			lo = m1
		}
	}
	th := (lo + hi) / 2
	if c := math.Abs(math.Cos(th)*res.Axes.At(0, 0) + math.Sin(th)*res.Axes.At(1, 0)); c < 1-1e-9 {
		t.Errorf("axis 1 has |cos| %.12f with the brute-force maximiser", c)
	}
	if math.Abs(quotient(th)-res.Eigenvalues[0]) > 1e-9*res.Eigenvalues[0] {
		t.Errorf("λ₁ = %.12g, maximum of the quotient %.12g", res.Eigenvalues[0], quotient(th))
	}
}

// TestLDAFill asks for more axes than k−1 and checks the warning and that
// the filled axes are the top variance directions orthogonal to the
// discriminant axis (eigenvectors of P·Cov·P with P = I − w₁w₁ᵀ).
func TestLDAFill(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	l := mat.NewDense(4, 4, []float64{1, 0, 0, 0, 0.5, 3, 0, 0, 0, 0.2, 2, 0, 0.1, 0, 0, 0.5})
	x, cl := gaussianClasses(rng, [][]float64{{0, 0, 0, 0}, {2, 0, 0, 1}}, l, 50)
	res, err := LDA(x, cl, 2, ldaOpts(3))
	if err != nil {
		t.Fatal(err)
	}
	const want = "2 classes give at most 1 discriminant axis; axes 2–3 are the directions of largest data variance orthogonal to it"
	if res.Discriminants != 1 || len(res.Eigenvalues) != 1 || len(res.Warnings) != 1 || res.Warnings[0] != want {
		t.Fatalf("discriminants %d, eigenvalues %v, warnings %q; want 1 and [%q]", res.Discriminants, res.Eigenvalues, res.Warnings, want)
	}
	w1 := res.Axes.ColView(0)
	p := mat.NewDense(4, 4, nil)
	p.Outer(-1, w1, w1)
	for i := range 4 {
		p.Set(i, i, p.At(i, i)+1)
	}
	c := centered(x)
	var cov, pc, pcp mat.Dense
	cov.Mul(c.T(), c)
	cov.Scale(1/float64(99), &cov)
	pc.Mul(p, &cov)
	pcp.Mul(&pc, p)
	sym := mat.NewSymDense(4, nil)
	for i := range 4 {
		for j := i; j < 4; j++ {
			sym.SetSym(i, j, (pcp.At(i, j)+pcp.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	eig.Factorize(sym, true)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	for j := 1; j < 3; j++ {
		if d := mat.Dot(w1, res.Axes.ColView(j)); math.Abs(d) > 1e-12 {
			t.Errorf("axis %d not orthogonal to axis 1 (%g)", j+1, d)
		}
		if cos := math.Abs(mat.Dot(vecs.ColView(4-j), res.Axes.ColView(j))); cos < 1-1e-9 {
			t.Errorf("axis %d has |cos| %.12f with the eigenvector of P·Cov·P", j+1, cos)
		}
	}
	if d := mat.Dot(res.Axes.ColView(1), res.Axes.ColView(2)); math.Abs(d) > 1e-12 {
		t.Errorf("filled axes not orthogonal (%g)", d)
	}
	checkSignsLargest(t, "LDA fill", res.Axes, 1)
}

// TestLDASigns checks that axis 1 points from the first to the last class
// and that flipping the data flips axis 1 only.
func TestLDASigns(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	x, cl := oneHotData(rng)
	n, D := x.Dims()
	res, err := LDA(x, cl, 4, ldaOpts(3))
	if err != nil {
		t.Fatal(err)
	}
	_, _, c := scatters(x, cl, 4)
	var along float64
	for i := range D {
		along += (c[3][i] - c[0][i]) * res.Axes.At(i, 0)
	}
	if along <= 0 {
		t.Errorf("(c_last − c_first)·w₁ = %g, want > 0", along)
	}
	checkSignsLargest(t, "LDA", res.Axes, 1)
	neg := mat.NewDense(n, D, nil)
	neg.Scale(-1, x)
	rn, err := LDA(neg, cl, 4, ldaOpts(3))
	if err != nil {
		t.Fatal(err)
	}
	for j := range 3 {
		f := 1.0
		if j == 0 {
			f = -1
		}
		for i := range D {
			if math.Abs(rn.Axes.At(i, j)-f*res.Axes.At(i, j)) > 1e-8 {
				t.Fatalf("with −x, axis %d component %d = %g, want %g", j+1, i, rn.Axes.At(i, j), f*res.Axes.At(i, j))
			}
		}
	}
}

// TestLDAOrdinalGaussians checks that LDA keeps the class order of the
// paper's first synthetic data set along axis 1, as the paper reports.
func TestLDAOrdinalGaussians(t *testing.T) {
	for seed := range uint64(10) {
		x, cl := synth.OrdinalGaussians(rand.New(rand.NewPCG(seed, 42)), synth.GaussianPerClass)
		res, err := LDA(x, cl, synth.GaussianClasses, ldaOpts(2))
		if err != nil {
			t.Fatal(err)
		}
		y := res.Transform(nil, res.Centers)
		pos := mat.Col(nil, 0, y)
		if !slices.IsSorted(pos) {
			t.Errorf("seed %d: class centres along LDA axis 1 = %.3f, want increasing", seed, pos)
		}
	}
}

func TestLDAErrors(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{0, 0, 1, 0, 2, 1, 3, 1})
	cl := []int{0, 0, 1, 1}
	inf := mat.DenseCopyOf(x)
	inf.Set(3, 1, math.Inf(1))
	for _, tc := range []struct {
		name      string
		x         *mat.Dense
		classes   []int
		k, d      int
		shrinkage float64
		want      error
		option    string // the option an *transforms.OptionError names, "" for none
	}{
		{"empty", &mat.Dense{}, nil, 2, 1, 0, ErrNoData, ""},
		{"d 0", x, cl, 2, 0, 0, transforms.ErrInvalidOption, "dims"},
		{"d > D", x, cl, 2, 3, 0, ErrDims, "dims"},
		{"length", x, cl[:3], 2, 1, 0, ErrLength, ""},
		{"one class", x, []int{0, 0, 0, 0}, 1, 1, 0, ErrTooFewClasses, ""},
		{"range", x, []int{0, 0, 1, 2}, 2, 1, 0, ErrClassRange, ""},
		{"empty class", x, []int{0, 0, 2, 2}, 3, 1, 0, ErrEmptyClass, ""},
		{"inf", inf, cl, 2, 1, 0, ErrNonFinite, ""},
		{"shrinkage", x, cl, 2, 1, -1, transforms.ErrInvalidOption, "shrinkage"},
		{"shrinkage NaN", x, cl, 2, 1, math.NaN(), transforms.ErrInvalidOption, "shrinkage"},
	} {
		o := ldaOpts(tc.d)
		o.Shrinkage = tc.shrinkage
		_, err := LDA(tc.x, tc.classes, tc.k, o)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
		var oe *transforms.OptionError
		if got := errors.As(err, &oe); got != (tc.option != "") || (got && oe.Option != tc.option) {
			t.Errorf("%s: error %v, want an option error naming %q", tc.name, err, tc.option)
		}
	}
	o := ldaOpts(1)
	o.Shrinkage = 0.25
	res, err := LDA(x, cl, 2, o)
	if err != nil || res.Shrinkage != 0.25 {
		t.Errorf("explicit shrinkage: %v, %v", res, err)
	}
	// Coinciding centres: no discriminant axis, every axis filled.
	same := mat.NewDense(4, 2, []float64{1, 0, -1, 0, 0, 1, 0, -1})
	res, err = LDA(same, []int{0, 0, 1, 1}, 2, ldaOpts(2))
	if err != nil || res.Discriminants != 0 || !strings.Contains(res.Warnings[0], "coincide") {
		t.Errorf("coinciding centres: %v, %v", res, err)
	}
}

// ldaOpts is DefaultLDAOptions with d dimensions.
func ldaOpts(d int) LDAOptions {
	o := DefaultLDAOptions()
	o.Dims = d
	return o
}
