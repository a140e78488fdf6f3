package nerv

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ordinate/ordinate/kernels"
)

// nervTestBeta returns dense input neighbourhoods for n random points in
// inDims dimensions, calibrated to the given perplexity, and the bandwidths
// σ_i. If zeros, about one entry in five is set to 0 and the row renormalised.
func nervTestBeta(t testing.TB, rng *rand.Rand, n, inDims int, perplexity float64, zeros bool) (beta, sigma []float64) {
	x := make([]float64, n*inDims)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	beta = make([]float64, n*n)
	if err := kernels.SqDistances(context.Background(), beta, x, n, inDims, 1); err != nil {
		t.Fatal(err)
	}
	prec := make([]float64, n)
	if err := kernels.Perplexity(context.Background(), prec, beta, beta, n, perplexity, 1); err != nil {
		t.Fatal(err)
	}
	sigma = make([]float64, n)
	for i, b := range prec {
		sigma[i] = 1 / math.Sqrt(2*b)
	}
	if zeros {
		for i := range n {
			var s float64
			for j := range n {
				if j != i && rng.IntN(5) == 0 {
					beta[i*n+j] = 0
				}
				s += beta[i*n+j]
			}
			for j := range n {
				beta[i*n+j] /= s
			}
		}
	}
	return beta, sigma
}

// nervTestLabels returns n×c labels of the given kind: "hard" (one-hot,
// also returned as classes), "soft" (random probability vectors, some
// entries 0), "unlabelled" (soft with every third row NaN).
func nervTestLabels(rng *rand.Rand, n, c int, kind string) (soft []float64, classes []int) {
	if kind == "none" {
		return nil, nil
	}
	soft = make([]float64, n*c)
	classes = make([]int, n)
	for i := range n {
		row := soft[i*c : (i+1)*c]
		switch kind {
		case "hard":
			classes[i] = rng.IntN(c)
			row[classes[i]] = 1
		default:
			var s float64
			for k := range row {
				if rng.IntN(3) > 0 {
					row[k] = rng.ExpFloat64()
				}
				s += row[k]
			}
			if s == 0 {
				row[0], s = 1, 1
			}
			for k := range row {
				row[k] /= s
			}
			if kind == "unlabelled" && i%3 == 1 {
				for k := range row {
					row[k] = math.NaN()
				}
			}
		}
	}
	return soft, classes
}

// nervBrute is the stress written plainly from its definition, with the
// trade-off of each ordered pair given by tau and no max-subtraction. Like
// Stress it floors β at nervBetaFloor inside the logarithm of the
// precision term, and 0 log 0 = 0.
func nervBrute(y []float64, dims int, beta []float64, n int, scale []float64, tau func(i, j int) float64) float64 {
	db := func(p, q float64) float64 {
		if p == 0 {
			return q
		}
		return p*(math.Log(p)-math.Log(max(q, nervBetaFloor))) + q - p
	}
	var total float64
	for i := range n {
		s := scale[0]
		if len(scale) == n {
			s = scale[i]
		}
		e := make([]float64, n)
		var z float64
		for j := range n {
			if j == i {
				continue
			}
			var d2 float64
			for k := range dims {
				d := y[i*dims+k] - y[j*dims+k]
				d2 += d * d
			}
			e[j] = math.Exp(-d2 / (2 * s * s))
			z += e[j]
		}
		for j := range n {
			if j == i {
				continue
			}
			b, t := e[j]/z, tau(i, j)
			total += t*db(beta[i*n+j], b) + (1-t)*db(b, beta[i*n+j])
		}
	}
	return total / float64(n)
}

func nervRandomY(rng *rand.Rand, n, dims int) []float64 {
	y := make([]float64, n*dims)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	return y
}

func TestNeRVStressGradient(t *testing.T) {
	cases := []struct {
		name         string
		n, dims, c   int
		labels       string
		global       bool
		zeros        bool
		alpha, gamma float64
	}{
		{"nerv/1d/point", 25, 1, 0, "none", false, false, 0, 0.5},
		{"nerv/2d/global/zeros", 30, 2, 0, "none", true, true, 0, 0.3},
		{"hard/2d/point", 30, 2, 3, "hard", false, false, 1, 0.5},
		{"hard/3d/global", 28, 3, 4, "hard", true, false, 0.5, 0.2},
		{"soft/2d/point/zeros", 30, 2, 3, "soft", false, true, 0.7, 0.4},
		{"soft/3d/point", 24, 3, 5, "soft", false, false, 1, 0},
		{"soft/1d/global", 26, 1, 2, "soft", true, false, 0.3, 1},
		{"unlabelled/2d/point", 30, 2, 3, "unlabelled", false, false, 0.8, 0.6},
		{"unlabelled/3d/global/zeros", 27, 3, 3, "unlabelled", true, true, 1, 0.5},
	}
	for ci, tc := range cases {
		rng := rand.New(rand.NewPCG(uint64(ci)+1, 71))
		beta, sigma := nervTestBeta(t, rng, tc.n, 4, 6, tc.zeros)
		soft, _ := nervTestLabels(rng, tc.n, tc.c, tc.labels)
		scale := sigma
		if tc.global {
			scale = []float64{0.8}
		}
		in := &Input{N: tc.n, C: tc.c, Beta: beta, Soft: soft, Alpha: tc.alpha, Gamma: tc.gamma, Scale: scale}
		y := nervRandomY(rng, tc.n, tc.dims)
		grad := make([]float64, len(y))
		if ci%2 == 1 {
			tc.name += "/kept-forces"
			in.Force = make([]float64, tc.n*tc.n)
		}
		if _, err := Stress(context.Background(), grad, y, tc.dims, in, 2); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		fd := make([]float64, len(y))
		const h = 1e-5
		for k := range y {
			y0 := y[k]
			y[k] = y0 + h
			fp, _ := Stress(context.Background(), nil, y, tc.dims, in, 2)
			y[k] = y0 - h
			fm, _ := Stress(context.Background(), nil, y, tc.dims, in, 2)
			y[k] = y0
			fd[k] = (fp - fm) / (2 * h)
		}
		if e := gradRelErr(grad, fd); !(e < 1e-6) {
			t.Errorf("%s: relative gradient error %.3g against central differences", tc.name, e)
		}
	}
}

func TestNeRVStressReductions(t *testing.T) {
	cases := []struct {
		name         string
		n, dims, c   int
		global       bool
		alpha, gamma float64
	}{
		{"2d/point", 40, 2, 3, false, 0.5, 0.5},
		{"2d/global", 35, 2, 4, true, 1, 0.3},
		{"3d/point", 30, 3, 2, false, 0.2, 0.9},
		{"1d/point", 30, 1, 3, false, 0, 0.7},
	}
	for ci, tc := range cases {
		rng := rand.New(rand.NewPCG(uint64(ci)+11, 5))
		beta, sigma := nervTestBeta(t, rng, tc.n, 5, 7, false)
		scale := sigma
		if tc.global {
			scale = []float64{1.3}
		}
		y := nervRandomY(rng, tc.n, tc.dims)
		soft, classes := nervTestLabels(rng, tc.n, tc.c, "hard")
		tauIn := (1-tc.alpha)*tc.gamma + tc.alpha
		tauOut := (1 - tc.alpha) * tc.gamma
		classNeRV := nervBrute(y, tc.dims, beta, tc.n, scale, func(i, j int) float64 {
			if classes[i] == classes[j] {
				return tauIn
			}
			return tauOut
		})
		nerv := nervBrute(y, tc.dims, beta, tc.n, scale, func(i, j int) float64 { return tc.gamma })
		if math.Abs(classNeRV-nerv) < 1e-6 && tc.alpha > 0 {
			t.Fatalf("%s: ClassNeRV and NeRV references coincide; the test would not discriminate", tc.name)
		}
		in := &Input{N: tc.n, C: tc.c, Beta: beta, Soft: soft, Alpha: tc.alpha, Gamma: tc.gamma, Scale: scale}
		got, err := Stress(context.Background(), nil, y, tc.dims, in, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(got-classNeRV) <= 1e-10) {
			t.Errorf("%s: one-hot stress %.15g, ClassNeRV %.15g", tc.name, got, classNeRV)
		}
		in.Soft = nil
		got, _ = Stress(context.Background(), nil, y, tc.dims, in, 1)
		if !(math.Abs(got-nerv) <= 1e-10) {
			t.Errorf("%s: unlabelled stress %.15g, NeRV %.15g", tc.name, got, nerv)
		}
		// α = 0 with soft labels is NeRV too.
		in.Soft, _ = nervTestLabels(rng, tc.n, tc.c, "soft")
		in.Alpha = 0
		got, _ = Stress(context.Background(), nil, y, tc.dims, in, 1)
		if !(math.Abs(got-nerv) <= 1e-10) {
			t.Errorf("%s: α = 0 stress %.15g, NeRV %.15g", tc.name, got, nerv)
		}
	}
}

// TestNeRVStressSoftBrute checks soft and unlabelled rows against the plain
// formula with Λ from Σ_c min(ω_ic, ω_jc).
func TestNeRVStressSoftBrute(t *testing.T) {
	for ci, kind := range []string{"soft", "unlabelled"} {
		rng := rand.New(rand.NewPCG(uint64(ci)+21, 9))
		const n, dims, c, alpha, gamma = 33, 2, 4, 0.6, 0.35
		beta, sigma := nervTestBeta(t, rng, n, 3, 5, true)
		soft, _ := nervTestLabels(rng, n, c, kind)
		y := nervRandomY(rng, n, dims)
		want := nervBrute(y, dims, beta, n, sigma, func(i, j int) float64 {
			if math.IsNaN(soft[i*c]) || math.IsNaN(soft[j*c]) {
				return gamma
			}
			var m float64
			for k := range c {
				m += min(soft[i*c+k], soft[j*c+k])
			}
			return (1-alpha)*gamma + alpha*m
		})
		in := &Input{N: n, C: c, Beta: beta, Soft: soft, Alpha: alpha, Gamma: gamma, Scale: sigma}
		got, _ := Stress(context.Background(), nil, y, dims, in, 1)
		if !(math.Abs(got-want) <= 1e-10) {
			t.Errorf("%s: stress %.15g, plain formula %.15g", kind, got, want)
		}
	}
}

func TestClassCommunity(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 2000 {
		c := 1 + rng.IntN(6)
		wi, wj := make([]float64, c), make([]float64, c)
		for _, w := range [][]float64{wi, wj} {
			var s float64
			for k := range w {
				if rng.IntN(3) > 0 {
					w[k] = rng.Float64()
				}
				s += w[k]
			}
			if s == 0 {
				w[rng.IntN(c)], s = 1, 1
			}
			for k := range w {
				w[k] /= s
			}
		}
		var m float64
		for k := range c {
			m += min(wi[k], wj[k])
		}
		got := classCommunity(wi, wj)
		if !(math.Abs(got-m) <= 1e-14) || got != classCommunity(wj, wi) {
			t.Fatalf("trial %d: λ(%v, %v) = %v, Σ min = %v, reversed %v", trial, wi, wj, got, m, classCommunity(wj, wi))
		}
	}
	// One-hot vectors give exactly 0 or 1.
	a, b := []float64{0, 1, 0}, []float64{0, 0, 1}
	if classCommunity(a, a) != 1 || classCommunity(a, b) != 0 {
		t.Errorf("one-hot: λ(a, a) = %v, λ(a, b) = %v, want 1 and 0", classCommunity(a, a), classCommunity(a, b))
	}
}

func TestNeRVStressThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const n, dims, c = 101, 2, 3
	beta, sigma := nervTestBeta(t, rng, n, 4, 10, false)
	soft, _ := nervTestLabels(rng, n, c, "unlabelled")
	in := &Input{N: n, C: c, Beta: beta, Soft: soft, Alpha: 0.5, Gamma: 0.5, Scale: sigma}
	y := nervRandomY(rng, n, dims)
	checkThreadsBitIdentical(t, n*dims, func(grad []float64, threads int) (float64, error) {
		return Stress(context.Background(), grad, y, dims, in, threads)
	})
}

// checkThreadsBitIdentical evaluates a stress and gradient with 1, 2 and 3
// threads and requires identical bits.
func checkThreadsBitIdentical(t *testing.T, size int, eval func(grad []float64, threads int) (float64, error)) {
	t.Helper()
	var s1 float64
	var g1 []float64
	for _, threads := range []int{1, 2, 3} {
		g := make([]float64, size)
		s, err := eval(g, threads)
		if err != nil {
			t.Fatal(err)
		}
		if threads == 1 {
			s1, g1 = s, g
			continue
		}
		if math.Float64bits(s) != math.Float64bits(s1) {
			t.Errorf("threads %d: stress %v, threads 1: %v", threads, s, s1)
		}
		for k := range g {
			if math.Float64bits(g[k]) != math.Float64bits(g1[k]) {
				t.Fatalf("threads %d: grad[%d] = %v, threads 1: %v", threads, k, g[k], g1[k])
			}
		}
	}
}

func TestNeRVStressDuplicates(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	const n, dims = 20, 2
	beta, sigma := nervTestBeta(t, rng, n, 3, 4, true)
	soft, _ := nervTestLabels(rng, n, 2, "soft")
	y := nervRandomY(rng, n, dims)
	copy(y[2:4], y[0:2])   // point 1 = point 0
	copy(y[10:12], y[0:2]) // point 5 = point 0
	copy(y[8:10], y[6:8])  // point 4 = point 3
	in := &Input{N: n, C: 2, Beta: beta, Soft: soft, Alpha: 1, Gamma: 0.5, Scale: sigma}
	grad := make([]float64, n*dims)
	got, err := Stress(context.Background(), grad, y, dims, in, 1)
	if err != nil {
		t.Fatal(err)
	}
	for k, g := range grad {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			t.Fatalf("grad[%d] = %v", k, g)
		}
	}
	// Coincident points have D = 0: the stress must still match the plain
	// formula (Λ = λ here, since α = 1 and γ only enters through 1 − α).
	want := nervBrute(y, dims, beta, n, sigma, func(i, j int) float64 {
		var m float64
		for k := range 2 {
			m += min(soft[2*i+k], soft[2*j+k])
		}
		return m
	})
	if !(math.Abs(got-want) <= 1e-10) {
		t.Errorf("duplicates: stress %v, plain formula %v", got, want)
	}
}

// TestNeRVStressGlobalScale checks that a length-1 scale is the same as
// repeating it for every point, and that a far-away point does not
// underflow its softmax row to NaN.
func TestNeRVStressGlobalScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	const n, dims = 30, 2
	beta, _ := nervTestBeta(t, rng, n, 3, 5, false)
	y := nervRandomY(rng, n, dims)
	y[0], y[1] = 1e3, -1e3 // every b_0j would underflow without max-subtraction
	rep := make([]float64, n)
	for i := range rep {
		rep[i] = 0.1
	}
	g1, g2 := make([]float64, n*dims), make([]float64, n*dims)
	in := &Input{N: n, Beta: beta, Gamma: 0.5, Scale: []float64{0.1}}
	s1, _ := Stress(context.Background(), g1, y, dims, in, 1)
	in.Scale = rep
	s2, _ := Stress(context.Background(), g2, y, dims, in, 1)
	if s1 != s2 || math.IsNaN(s1) || math.IsInf(s1, 0) {
		t.Errorf("global scale: stress %v, repeated scale %v", s1, s2)
	}
	for k := range g1 {
		if g1[k] != g2[k] || math.IsNaN(g1[k]) {
			t.Fatalf("global scale: grad[%d] = %v, repeated scale %v", k, g1[k], g2[k])
		}
	}
}

func TestNeRVStressCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 40
	beta, sigma := nervTestBeta(t, rng, n, 2, 5, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := &Input{N: n, Beta: beta, Gamma: 0.5, Scale: sigma}
	if _, err := Stress(ctx, nil, nervRandomY(rng, n, 2), 2, in, 1); err != context.Canceled {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

// nervBenchInput builds β from a fixed-bandwidth Gaussian kernel on random
// 5-D points (cheaper than calibration at n = 5,000) and random soft labels.
func nervBenchInput(b *testing.B, n, c int, labels string) *Input {
	rng := rand.New(rand.NewPCG(1, 2))
	const d = 5
	x := nervRandomY(rng, n, d)
	beta := make([]float64, n*n)
	if err := kernels.SqDistances(context.Background(), beta, x, n, d, 0); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		row := beta[i*n : (i+1)*n]
		var s float64
		for j := range row {
			if j == i {
				row[j] = 0
				continue
			}
			row[j] = math.Exp(-row[j])
			s += row[j]
		}
		for j := range row {
			row[j] /= s
		}
	}
	soft, _ := nervTestLabels(rng, n, c, labels)
	scale := make([]float64, n)
	for i := range scale {
		scale[i] = 0.5 + rng.Float64()
	}
	in := &Input{N: n, C: c, Beta: beta, Soft: soft, Alpha: 0.5, Gamma: 0.5, Scale: scale}
	LogBeta(in) // as transforms/nerv does once per scale
	return in
}

// BenchmarkNeRVStress measures one stress and gradient, with the pair
// forces recomputed in the second pass and kept from the first
// (Input.Force, which Fit uses up to keptForceMaxN points).
func BenchmarkNeRVStress(b *testing.B) {
	for _, bc := range []struct {
		n      int
		kept   bool
		labels string
	}{{800, false, "soft"}, {800, true, "soft"}, {800, true, "hard"}, {5000, false, "soft"}, {5000, true, "soft"}} {
		b.Run(fmt.Sprintf("n=%d/kept=%v/%s", bc.n, bc.kept, bc.labels), func(b *testing.B) {
			n := bc.n
			in := nervBenchInput(b, n, 4, bc.labels)
			if bc.kept {
				in.Force = make([]float64, n*n)
			}
			y := nervRandomY(rand.New(rand.NewPCG(3, 3)), n, 2)
			grad := make([]float64, n*2)
			b.ResetTimer()
			for b.Loop() {
				if _, err := Stress(context.Background(), grad, y, 2, in, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func ExampleStress() {
	// Three points on a line, input neighbourhoods favouring the nearest
	// point, hard labels {0, 0, 1}: ClassNeRV with α = 1, γ = 0.5.
	beta := []float64{
		0, 0.8, 0.2,
		0.5, 0, 0.5,
		0.2, 0.8, 0,
	}
	in := &Input{
		N: 3, C: 2, Beta: beta,
		Soft:  []float64{1, 0, 1, 0, 0, 1},
		Alpha: 1, Gamma: 0.5,
		Scale: []float64{1},
	}
	y := []float64{0, 1, 2}
	grad := make([]float64, 3)
	stress, err := Stress(context.Background(), grad, y, 1, in, 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("stress %.4f\n", stress)
	fmt.Printf("gradient sums to zero: %v\n", math.Abs(grad[0]+grad[1]+grad[2]) < 1e-12)
	// Output:
	// stress 0.0007
	// gradient sums to zero: true
}

// TestNeRVLogBetaCache: the cached log β gives bit-identical stress and
// gradient, including β = 0 entries (floored).
func TestNeRVLogBetaCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const n, dims, c = 60, 2, 3
	beta, sigma := nervTestBeta(t, rng, n, 3, 8, false)
	beta[1], beta[n+3] = 0, 0
	soft, _ := nervTestLabels(rng, n, c, "soft")
	in := &Input{N: n, C: c, Beta: beta, Soft: soft, Alpha: 0.3, Gamma: 0.6, Scale: sigma}
	y := nervRandomY(rng, n, dims)
	g0, g1 := make([]float64, n*dims), make([]float64, n*dims)
	s0, err := Stress(context.Background(), g0, y, dims, in, 2)
	if err != nil {
		t.Fatal(err)
	}
	LogBeta(in)
	s1, err := Stress(context.Background(), g1, y, dims, in, 2)
	if err != nil {
		t.Fatal(err)
	}
	if math.Float64bits(s0) != math.Float64bits(s1) {
		t.Errorf("stress %v with the cache, %v without", s1, s0)
	}
	for k := range g0 {
		if math.Float64bits(g0[k]) != math.Float64bits(g1[k]) {
			t.Fatalf("grad[%d] = %v with the cache, %v without", k, g1[k], g0[k])
		}
	}
}

// TestNeRVKeptForces: keeping the pair forces between the passes
// (Input.Force) gives the same stress bit for bit and the same gradient to
// rounding, and a gradient that does not depend on the thread count, on
// sizes that are not multiples of the symmetrisation tile.
func TestNeRVKeptForces(t *testing.T) {
	for ci, tc := range []struct {
		name    string
		n, dims int
		labels  string
	}{
		{"nerv/2d", 130, 2, "none"},
		{"hard/1d", 65, 1, "hard"},
		{"soft/3d", 200, 3, "soft"},
		{"unlabelled/2d", 64, 2, "unlabelled"},
	} {
		rng := rand.New(rand.NewPCG(uint64(ci)+30, 5))
		beta, sigma := nervTestBeta(t, rng, tc.n, 5, 10, ci == 0)
		soft, _ := nervTestLabels(rng, tc.n, 3, tc.labels)
		c := 3
		if soft == nil {
			c = 0
		}
		in := &Input{N: tc.n, C: c, Beta: beta, Soft: soft, Alpha: 0.6, Gamma: 0.4, Scale: sigma}
		LogBeta(in)
		y := nervRandomY(rng, tc.n, tc.dims)
		want := make([]float64, len(y))
		sw, err := Stress(context.Background(), want, y, tc.dims, in, 2)
		if err != nil {
			t.Fatal(err)
		}
		in.Force = make([]float64, tc.n*tc.n)
		var first []float64
		for _, threads := range []int{1, 2, 3} {
			got := make([]float64, len(y))
			sg, err := Stress(context.Background(), got, y, tc.dims, in, threads)
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(sg) != math.Float64bits(sw) {
				t.Errorf("%s/threads=%d: stress %v with kept forces, %v without", tc.name, threads, sg, sw)
			}
			if e := gradRelErr(got, want); !(e < 1e-12) {
				t.Errorf("%s/threads=%d: gradient differs by %.3g (relative) from the recomputed one", tc.name, threads, e)
			}
			if first == nil {
				first = got
			} else if !slices.Equal(got, first) {
				t.Errorf("%s/threads=%d: gradient differs from the one-thread gradient", tc.name, threads)
			}
		}
	}
}

// TestNeRVHardTradeoff: the one-hot shortcut gives Λ_ij bit for bit as the
// general formula does, on rows that are one-hot, soft, almost one-hot and
// unlabelled, for several α and γ.
func TestNeRVHardTradeoff(t *testing.T) {
	nan := math.NaN()
	soft := []float64{
		1, 0, 0,
		0, 1, 0,
		0, 0, 1,
		0.5, 0.5, 0,
		nan, nan, nan,
		1, 0, 0,
		0.999, 0.001, 0,
		0, 1, 0,
	}
	const n, c = 8, 3
	wantClass := []int32{0, 1, 2, -1, -1, 0, -1, 1}
	if got := hardClasses(soft, n, c); !slices.Equal(got, wantClass) {
		t.Fatalf("hardClasses = %v, want %v", got, wantClass)
	}
	for _, ag := range [][2]float64{{0, 0.5}, {0.3, 0.7}, {1, 0.2}, {0.5, 0.5}, {0.1, 1}} {
		in := &Input{N: n, C: c, Soft: soft, Alpha: ag[0], Gamma: ag[1]}
		r := nervRows{hardLabels: hardLabels{class: hardClasses(soft, n, c),
			lamSame: (1-ag[0])*ag[1] + ag[0]*1, lamOther: (1-ag[0])*ag[1] + ag[0]*0}}
		for i := range n {
			for j := range n {
				if got, want := r.tradeoff(in, i, j), in.tradeoff(i, j); math.Float64bits(got) != math.Float64bits(want) {
					t.Errorf("α=%v γ=%v (%d, %d): Λ = %v, want %v", ag[0], ag[1], i, j, got, want)
				}
			}
		}
	}
}
