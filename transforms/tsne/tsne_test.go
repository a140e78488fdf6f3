package tsne

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// clusters returns k Gaussian clusters of m points each in d dimensions,
// centres sep apart along distinct axes (unit spread), and their labels.
func clusters(rng *rand.Rand, k, m, d int, sep float64) ([]float64, []int) {
	x := make([]float64, k*m*d)
	labels := make([]int, k*m)
	for c := range k {
		for p := range m {
			i := c*m + p
			labels[i] = c
			for a := range d {
				x[i*d+a] = rng.NormFloat64()
			}
			x[i*d+c%d] += sep * float64(1+c/d)
		}
	}
	return x, labels
}

// oneNNErrors counts points whose nearest other point (brute force, lowest
// index on ties) has a different label.
func oneNNErrors(y []float64, n, dims int, labels []int) int {
	errs := 0
	for i := range n {
		best, bd := -1, math.Inf(1)
		for j := range n {
			if j == i {
				continue
			}
			var d2 float64
			for c := range dims {
				t := y[i*dims+c] - y[j*dims+c]
				d2 += t * t
			}
			if d2 < bd {
				best, bd = j, d2
			}
		}
		if labels[best] != labels[i] {
			errs++
		}
	}
	return errs
}

// with returns DefaultOptions changed by set.
func with(set func(o *Options)) Options {
	o := DefaultOptions()
	set(&o)
	return o
}

func pairwise(x []float64, n, d int) []float64 {
	dist := make([]float64, n*n)
	for i := range n {
		for j := range n {
			var s float64
			for a := range d {
				t := x[i*d+a] - x[j*d+a]
				s += t * t
			}
			dist[i*n+j] = math.Sqrt(s)
		}
	}
	return dist
}

func checkFiniteY(t *testing.T, name string, r *Result) {
	t.Helper()
	for i, v := range r.Y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("%s: Y[%d] = %v", name, i, v)
		}
	}
	if math.IsNaN(r.KL) || math.IsInf(r.KL, 0) || r.KL < 0 {
		t.Fatalf("%s: KL = %v", name, r.KL)
	}
}

func TestClustersSeparated(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	x, labels := clusters(rng, 4, 40, 10, 12)
	n := len(labels)
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"exact pca", with(func(o *Options) { o.Method, o.Perplexity, o.MaxIter = Exact, 10, 400 })},
		{"exact random", with(func(o *Options) { o.Method, o.Perplexity, o.MaxIter, o.Init, o.Seed = Exact, 10, 400, InitRandom, 3 })},
		{"bh pca", with(func(o *Options) { o.Method, o.Perplexity, o.MaxIter = BH, 10, 400 })},
		{"bh 3-D", with(func(o *Options) { o.Method, o.Dims, o.Perplexity, o.MaxIter = BH, 3, 10, 400 })},
		{"fft pca", with(func(o *Options) { o.Method, o.Perplexity, o.MaxIter = Interp, 10, 400 })},
		{"fft reordered", with(func(o *Options) { o.Method, o.Perplexity, o.MaxIter, o.reorderMin = Interp, 10, 400, 1 })},
		{"bh reordered", with(func(o *Options) { o.Method, o.Perplexity, o.MaxIter, o.reorderMin = BH, 10, 400, 1 })},
		{"exact 5-D", with(func(o *Options) { o.Method, o.Dims, o.Perplexity, o.MaxIter = Exact, 5, 10, 300 })},
	} {
		r, err := FromFeatures(ctx, x, n, 10, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checkFiniteY(t, c.name, r)
		dims := c.o.Dims
		if e := oneNNErrors(r.Y, n, dims, labels); e != 0 {
			t.Errorf("%s: %d 1-NN errors, want 0", c.name, e)
		}
		if e := oneNNErrors(x, n, 10, labels); e != 0 {
			t.Fatalf("%s: the input itself has %d 1-NN errors", c.name, e)
		}
	}
}

func TestKLDecreases(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	x, labels := clusters(rng, 5, 30, 8, 6)
	n := len(labels)
	for _, m := range []Method{Exact, BH, Interp} {
		var iters []int
		var kls []float64
		o := with(func(o *Options) {
			o.Method, o.Perplexity, o.MaxIter, o.ExaggerationIters, o.Seed = m, 15, 600, 100, 1
			o.Progress = func(it int, kl float64) { iters = append(iters, it); kls = append(kls, kl) }
		})
		r, err := FromFeatures(ctx, x, n, 8, o)
		if err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		if len(kls) != 600/klEvery || iters[len(iters)-1] != 600 || kls[len(kls)-1] != r.KL {
			t.Fatalf("%v: progress %v %v, final KL %v", m, iters, kls, r.KL)
		}
		t.Logf("%v: KL %v", m, kls)
		if !(r.KL < kls[0]/2) {
			t.Errorf("%v: final KL %v not below half the KL %v at iteration %d", m, r.KL, kls[0], iters[0])
		}
		// After the exaggeration phase (iteration 150 on) KL must not grow.
		for q := 3; q < len(kls); q++ {
			if kls[q] > kls[q-1]*(1+1e-3) {
				t.Errorf("%v: KL rose from %v to %v at iteration %d", m, kls[q-1], kls[q], iters[q])
			}
		}
	}
}

// The final KL of the exact method against a brute-force evaluation of P
// and Q at the returned Y.
func TestFinalKLExact(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(9, 9))
	const n, d = 60, 4
	x, _ := clusters(rng, 3, n/3, d, 4)
	r, err := FromFeatures(ctx, x, n, d, with(func(o *Options) { o.Method, o.Perplexity, o.MaxIter = Exact, 7, 200 }))
	if err != nil {
		t.Fatal(err)
	}
	d2 := pairwise(x, n, d)
	for i := range d2 {
		d2[i] *= d2[i]
	}
	cond := make([]float64, n*n)
	if err := kernels.Perplexity(ctx, make([]float64, n), cond, d2, n, 7, 1); err != nil {
		t.Fatal(err)
	}
	var z, want float64
	for i := range n {
		for j := range n {
			if i != j {
				dy := pairwise(r.Y[2*i:2*i+2:2*i+2], 1, 2)[0]
				_ = dy
				a, b := r.Y[2*i]-r.Y[2*j], r.Y[2*i+1]-r.Y[2*j+1]
				z += 1 / (1 + a*a + b*b)
			}
		}
	}
	for i := range n {
		for j := range n {
			p := (cond[i*n+j] + cond[j*n+i]) / (2 * n)
			if i == j || p == 0 {
				continue
			}
			a, b := r.Y[2*i]-r.Y[2*j], r.Y[2*i+1]-r.Y[2*j+1]
			want += p * math.Log(p/(1/(1+a*a+b*b)/z))
		}
	}
	if math.Abs(r.KL-want) > 1e-9 {
		t.Errorf("KL = %v, brute force %v", r.KL, want)
	}
	if r.Method != "exact" || r.Init != "pca" || r.Neighbors != n-1 || r.LearningRate != float64(n) || r.EarlyRate != 50 || r.Perplexity != 7 || r.Iterations != 200 {
		t.Errorf("result metadata: method %s, init %s, neighbours %d, rates %v then %v, perplexity %v, iterations %d",
			r.Method, r.Init, r.Neighbors, r.EarlyRate, r.LearningRate, r.Perplexity, r.Iterations)
	}
}

func TestThreadsBitIdentical(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 12))
	x, labels := clusters(rng, 3, 70, 6, 5)
	n := len(labels)
	for _, m := range []Method{Exact, BH} {
		var ref *Result
		for _, threads := range []int{1, 2, 3} {
			r, err := FromFeatures(ctx, x, n, 6, with(func(o *Options) {
				o.Method, o.Perplexity, o.MaxIter, o.Threads, o.Init, o.Seed = m, 20, 150, threads, InitRandom, 42
			}))
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = r
				continue
			}
			if r.KL != ref.KL {
				t.Errorf("%v threads=%d: KL %v, threads=1 %v", m, threads, r.KL, ref.KL)
			}
			for i := range r.Y {
				if r.Y[i] != ref.Y[i] {
					t.Fatalf("%v threads=%d: Y[%d] = %v, threads=1 %v", m, threads, i, r.Y[i], ref.Y[i])
				}
			}
		}
	}
}

// integerLine returns k clusters of m points on a line with integer
// coordinates (many of them repeated), so that plain distances are exact and
// their squares equal the squared distances of the features bit for bit.
func integerLine(rng *rand.Rand, k, m int) ([]float64, []int) {
	x := make([]float64, k*m)
	labels := make([]int, k*m)
	for i := range x {
		labels[i] = i / m
		x[i] = float64(1000*labels[i] + rng.IntN(40))
	}
	return x, labels
}

func maxAbsDiff(a, b []float64) float64 {
	var worst float64
	for i := range a {
		worst = max(worst, math.Abs(a[i]-b[i]))
	}
	return worst
}

// Plain distances of X must give what X gives. With exact distances P is
// the same bit for bit and so is the whole run.
func TestFromDistancesMatchesFeatures(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(13, 14))
	xi, li := integerLine(rng, 4, 30)
	n := len(li)
	di := pairwise(xi, n, 1)
	for _, m := range []Method{Exact, BH} {
		o := with(func(o *Options) { o.Method, o.Perplexity, o.MaxIter, o.Init, o.Seed = m, 8, 300, InitRandom, 7 })
		rf, err := FromFeatures(ctx, xi, n, 1, o)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := FromDistances(ctx, di, n, o)
		if err != nil {
			t.Fatal(err)
		}
		if w := maxAbsDiff(rf.Y, rd.Y); w != 0 || rf.KL != rd.KL {
			t.Errorf("%v integer line: distances vs features: max |ΔY| = %.3g, KL %v vs %v", m, w, rf.KL, rd.KL)
		}
		if e := oneNNErrors(rd.Y, n, 2, li); e != 0 {
			t.Errorf("%v integer line: %d 1-NN errors", m, e)
		}
	}
	// General data: P agrees to rounding only, and t-SNE amplifies such
	// differences (the gains switch on gradient signs), so compare a short
	// run. BH is left out: a rounding difference can move a point to
	// another cell.
	x, labels := clusters(rng, 4, 30, 5, 6)
	n = len(labels)
	dist := pairwise(x, n, 5)
	o := with(func(o *Options) { o.Method, o.Perplexity, o.MaxIter, o.Init, o.Seed = Exact, 10, 50, InitRandom, 7 })
	rf, err := FromFeatures(ctx, x, n, 5, o)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := FromDistances(ctx, dist, n, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("exact, general data: max |ΔY| = %.3g, KL %v vs %v", maxAbsDiff(rf.Y, rd.Y), rf.KL, rd.KL)
	if w := maxAbsDiff(rf.Y, rd.Y); w > 1e-9 || math.Abs(rf.KL-rd.KL) > 1e-10 {
		t.Errorf("exact: distances vs features: max |ΔY| = %.3g, KL %v vs %v", w, rf.KL, rd.KL)
	}
	// The MDS start of Euclidean distances separates the clusters too.
	r, err := FromDistances(ctx, dist, n, with(func(o *Options) { o.Perplexity, o.MaxIter = 10, 300 }))
	if err != nil {
		t.Fatal(err)
	}
	if r.Init != "mds" {
		t.Errorf("init %q, want mds", r.Init)
	}
	if e := oneNNErrors(r.Y, n, 2, labels); e != 0 {
		t.Errorf("MDS start: %d 1-NN errors", e)
	}
}

func TestFromNeighbors(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(15, 16))
	x, labels := clusters(rng, 4, 40, 6, 10)
	n := len(labels)
	const k = 30
	idx := make([]int32, n*k)
	d2 := make([]float64, n*k)
	if err := kernels.KNN(ctx, idx, d2, x, n, 6, k, 1); err != nil {
		t.Fatal(err)
	}
	dist := make([]float64, n*k)
	for i, v := range d2 {
		dist[i] = math.Sqrt(v)
	}
	o := with(func(o *Options) { o.Perplexity, o.MaxIter, o.Init, o.Seed = 10, 300, InitRandom, 2 })
	r, err := FromNeighbors(ctx, idx, dist, n, k, o)
	if err != nil {
		t.Fatal(err)
	}
	checkFiniteY(t, "neighbors", r)
	if e := oneNNErrors(r.Y, n, 2, labels); e != 0 {
		t.Errorf("%d 1-NN errors", e)
	}
	if r.Method != "bh" || r.Neighbors != k || r.Init != "random" {
		t.Errorf("metadata %+v", *r)
	}
	// On exact integer data, 3·perplexity neighbours reproduce FromFeatures'
	// BH run bit for bit.
	xi, li := integerLine(rng, 3, 40)
	ni := len(li)
	ki := 15
	idx = make([]int32, ni*ki)
	d2 = make([]float64, ni*ki)
	if err := kernels.KNN(ctx, idx, d2, xi, ni, 1, ki, 1); err != nil {
		t.Fatal(err)
	}
	dist = dist[:ni*ki]
	for i, v := range d2 {
		dist[i] = math.Sqrt(v)
	}
	o = with(func(o *Options) { o.Perplexity, o.MaxIter, o.Init, o.Seed = 5, 200, InitRandom, 2 })
	rn, err := FromNeighbors(ctx, idx, dist, ni, ki, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Method = BH
	rf, err := FromFeatures(ctx, xi, ni, 1, o)
	if err != nil {
		t.Fatal(err)
	}
	if w := maxAbsDiff(rn.Y, rf.Y); w != 0 || rn.KL != rf.KL {
		t.Errorf("FromNeighbors vs FromFeatures: max |ΔY| = %.3g, KL %v vs %v", w, rn.KL, rf.KL)
	}
}

func TestDuplicates(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(17, 18))
	const n, d = 120, 3
	x := make([]float64, n*d)
	for i := range n {
		src := i % 20 // 20 distinct points, each 6 times
		if i < 20 {
			for a := range d {
				x[i*d+a] = rng.NormFloat64()
			}
			continue
		}
		copy(x[i*d:(i+1)*d], x[src*d:(src+1)*d])
	}
	for _, m := range []Method{Exact, BH} {
		for _, init := range []Init{InitPCA, InitRandom} {
			name := fmt.Sprintf("%v %v", m, init)
			r, err := FromFeatures(ctx, x, n, d, with(func(o *Options) { o.Method, o.Init, o.Perplexity, o.MaxIter = m, init, 10, 200 }))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkFiniteY(t, name, r)
		}
	}
	// All points identical: no spread for PCA, every distance 0.
	same := make([]float64, 40*2)
	for _, m := range []Method{Exact, BH} {
		r, err := FromFeatures(ctx, same, 40, 2, with(func(o *Options) { o.Method, o.Perplexity, o.MaxIter = m, 5, 100 }))
		if err != nil {
			t.Fatalf("identical %v: %v", m, err)
		}
		checkFiniteY(t, fmt.Sprintf("identical %v", m), r)
		if r.Init != "random" {
			t.Errorf("identical %v: init %q, want random", m, r.Init)
		}
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(19, 20))
	const n, d = 30, 3
	x, _ := clusters(rng, 3, 10, d, 3)
	dist := pairwise(x, n, d)
	idx := make([]int32, n*5)
	nd := make([]float64, n*5)
	if err := kernels.KNN(ctx, idx, nd, x, n, d, 5, 1); err != nil {
		t.Fatal(err)
	}
	bad := append([]float64(nil), x...)
	bad[7] = math.NaN()
	negDist := append([]float64(nil), dist...)
	negDist[1*n+4] = -1
	selfIdx := append([]int32(nil), idx...)
	selfIdx[3*5+2] = 3
	opt := func(method Method, dims int, perp float64) Options {
		return with(func(o *Options) { o.Method, o.Dims, o.Perplexity = method, dims, perp })
	}
	for _, c := range []struct {
		name     string
		err      error
		want     error
		option   string // of the *transforms.OptionError, "" if none
		matrix   string // of the *transforms.DataError, "" if none
		row, col int
	}{
		{"exact perplexity = N−1", run(FromFeatures(ctx, x, n, d, opt(Exact, 2, n-1))), ErrPerplexity, "perplexity", "", -1, 0},
		{"exact perplexity > N", run(FromDistances(ctx, dist, n, opt(Exact, 2, 100))), ErrPerplexity, "perplexity", "", -1, 0},
		{"bh 3·perplexity > N−1", run(FromFeatures(ctx, x, n, d, opt(BH, 2, 10))), ErrPerplexity, "perplexity", "", -1, 0},
		{"auto default perplexity 30", run(FromFeatures(ctx, x, n, d, DefaultOptions())), ErrPerplexity, "perplexity", "", -1, 0},
		{"perplexity below 1", run(FromFeatures(ctx, x, n, d, opt(Auto, 2, 0.5))), transforms.ErrInvalidOption, "perplexity", "", -1, 0},
		{"neighbours perplexity = k", run(FromNeighbors(ctx, idx, nd, n, 5, opt(Auto, 2, 5))), ErrPerplexity, "perplexity", "", -1, 0},
		{"neighbours exact", run(FromNeighbors(ctx, idx, nd, n, 5, opt(Exact, 2, 2))), ErrMethod, "method", "", -1, 0},
		{"neighbours auto 4-D", run(FromNeighbors(ctx, idx, nd, n, 5, opt(Auto, 4, 2))), ErrMethod, "method", "", -1, 0},
		{"bh 4-D", run(FromFeatures(ctx, x, n, d, opt(BH, 4, 3))), ErrMethod, "method", "", -1, 0},
		{"fft 3-D", run(FromFeatures(ctx, x, n, d, opt(Interp, 3, 3))), ErrMethod, "method", "", -1, 0},
		{"pca dims > d", run(FromFeatures(ctx, x, n, d, opt(Auto, 4, 3))), transforms.ErrInvalidOption, "dims", "", -1, 0},
		{"negative theta", run(FromFeatures(ctx, x, n, d, with(func(o *Options) { o.Theta, o.Perplexity = -1, 3 }))), transforms.ErrInvalidOption, "theta", "", -1, 0},
		{"bad method", run(FromFeatures(ctx, x, n, d, opt("tree", 2, 3))), transforms.ErrInvalidOption, "method", "", -1, 0},
		{"length", run(FromFeatures(ctx, x[:10], n, d, opt(Auto, 2, 3))), ErrLength, "", "", -1, 0},
		{"one point", run(FromDistances(ctx, []float64{0}, 1, DefaultOptions())), ErrNoData, "", "", -1, 0},
		{"NaN feature", run(FromFeatures(ctx, bad, n, d, opt(Auto, 2, 3))), ErrNonFinite, "", "x", 2, 1},
		{"negative distance", run(FromDistances(ctx, negDist, n, opt(Auto, 2, 3))), ErrNegative, "", "dist", 1, 4},
		{"self neighbour", run(FromNeighbors(ctx, selfIdx, nd, n, 5, opt(Auto, 2, 2))), ErrNeighbor, "", "idx", 3, 2},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, c.err, c.want)
			continue
		}
		var oe *transforms.OptionError
		if isOpt := errors.As(c.err, &oe); isOpt != (c.option != "") || isOpt && oe.Option != c.option {
			t.Errorf("%s: error %v, want an OptionError naming %q", c.name, c.err, c.option)
		} else if isOpt {
			t.Logf("%s: %v", c.name, c.err)
		}
		var ie *transforms.DataError
		if isPos := errors.As(c.err, &ie); isPos != (c.matrix != "") {
			t.Errorf("%s: positional %v, want %v: %v", c.name, isPos, c.matrix != "", c.err)
		} else if isPos {
			if ie.Matrix != c.matrix || ie.Row != int64(c.row) || ie.Column != strconv.Itoa(c.col) {
				t.Errorf("%s: error %v, want a *transforms.DataError at row %d, column %d of %s", c.name, c.err, c.row, c.col, c.matrix)
			}
			if want := fmt.Sprintf("row %d, column %d of %s", c.row, c.col, c.matrix); !strings.Contains(c.err.Error(), want) {
				t.Errorf("%s: message %q does not say %q", c.name, c.err, want)
			}
		}
	}
}

func run(_ *Result, err error) error { return err }

func TestCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	x, labels := clusters(rng, 2, 50, 3, 3)
	n := len(labels)
	ctx, cancel := context.WithCancel(context.Background())
	o := with(func(o *Options) {
		o.Perplexity = 10
		o.Progress = func(it int, _ float64) {
			if it >= 100 {
				cancel()
			}
		}
	})
	if _, err := FromFeatures(ctx, x, n, 3, o); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

// A few optimiser steps replayed by hand from the rules in the package doc:
// random start N(0, 1e-4²) from PCG(Seed, 0x7453e), exaggeration and
// momentum 0.5 for ExaggerationIters, then 0.8, gains +0.2 / ×0.8 (≥ 0.01),
// step η/4 times the gradient, re-centring.
func TestOptimizerSteps(t *testing.T) {
	// Without a step bound, and with one small enough to shorten most
	// steps (the replay scales each point's update back to the bound).
	for _, limit := range []float64{0, 0.05} {
		optimizerSteps(t, limit)
	}
}

func optimizerSteps(t *testing.T, limit float64) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(23, 24))
	const n, d, dims = 30, 4, 2
	x, _ := clusters(rng, 3, 10, d, 3)
	o := with(func(o *Options) {
		o.Method, o.Perplexity, o.MaxIter, o.ExaggerationIters, o.EarlyExaggeration = Exact, 5, 6, 3, 4
		o.LearningRate, o.Init, o.Seed, o.MaxStepNorm = 100, InitRandom, 99, limit
	})
	r, err := FromFeatures(ctx, x, n, d, o)
	if err != nil {
		t.Fatal(err)
	}
	p := pairwise(x, n, d)
	for i := range p {
		p[i] *= p[i]
	}
	if err := kernels.Perplexity(ctx, make([]float64, n), p, p, n, 5, 1); err != nil {
		t.Fatal(err)
	}
	JointP(p, n)
	init := rand.New(rand.NewPCG(99, 0x7453e))
	y := make([]float64, n*dims)
	for i := range y {
		y[i] = 1e-4 * init.NormFloat64()
	}
	upd := make([]float64, n*dims)
	gains := make([]float64, n*dims)
	for i := range gains {
		gains[i] = 1
	}
	grad := make([]float64, n*dims)
	clipped := 0
	for it := range 6 {
		alpha, mom := 1.0, 0.8
		if it < 3 {
			alpha, mom = 4, 0.5
		}
		if _, err := GradExact(ctx, grad, y, p, n, dims, alpha, 1); err != nil {
			t.Fatal(err)
		}
		for k, g := range grad {
			// bhtsne: sign(g) ≠ sign(update), with sign(0) = 0.
			if g*upd[k] < 0 || (upd[k] == 0) != (g == 0) {
				gains[k] += 0.2
			} else {
				gains[k] = math.Max(gains[k]*0.8, 0.01)
			}
			upd[k] = mom*upd[k] - 100.0/4*gains[k]*g
		}
		for i := 0; limit > 0 && i < n; i++ {
			u := upd[i*dims : (i+1)*dims]
			if norm := math.Hypot(u[0], u[1]); norm > limit {
				clipped++
				u[0], u[1] = u[0]*(limit/norm), u[1]*(limit/norm)
			}
		}
		for k := range y {
			y[k] += upd[k]
		}
		for c := range dims {
			var m float64
			for i := range n {
				m += y[i*dims+c]
			}
			m /= n
			for i := range n {
				y[i*dims+c] -= m
			}
		}
	}
	var scale float64
	for _, v := range y {
		scale = max(scale, math.Abs(v))
	}
	if w := maxAbsDiff(r.Y, y); w > 1e-12*scale {
		t.Errorf("step bound %v: max |ΔY| = %.3g against the hand-replayed steps (scale %.3g)", limit, w, scale)
	}
	if limit > 0 && clipped < n {
		t.Errorf("step bound %v: only %d updates were shortened; the case does not test the bound", limit, clipped)
	}
}

// phaseLog records the phases a fit reports and the work added to each.
type phaseLog struct {
	mu     sync.Mutex
	phases []string
	total  map[string]int64
	done   map[string]int64
	cur    string
}

func (p *phaseLog) Start(phase string, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.total == nil {
		p.total, p.done = map[string]int64{}, map[string]int64{}
	}
	p.phases = append(p.phases, phase)
	p.cur, p.total[phase] = phase, total
}
func (p *phaseLog) Add(n int64) { p.mu.Lock(); p.done[p.cur] += n; p.mu.Unlock() }
func (p *phaseLog) Finish()     {}

// The neighbour search reports its work: all of it for the exhaustive
// search, at least the trees and one descent pass (and no more than the
// total announced) for NN-descent.
func TestNeighboursProgress(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	x, labels := clusters(rng, 4, 600, 5, 4)
	n := len(labels)
	for _, c := range []struct {
		name string
		knn  kernels.KNNMethod
	}{{"exact", kernels.KNNExact}, {"approx", kernels.KNNApprox}} {
		var log phaseLog
		o := with(func(o *Options) { o.Method, o.KNN, o.MaxIter, o.Reporter = BH, c.knn, 1, &log })
		res, err := FromFeatures(context.Background(), x, n, 5, o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		total, done := log.total["neighbours"], log.done["neighbours"]
		if res.KNN != string(c.knn) {
			t.Errorf("%s: ran %s", c.name, res.KNN)
		}
		if c.knn == kernels.KNNExact && (total != int64(n) || done != total) ||
			c.knn == kernels.KNNApprox && (total <= int64(n) || done > total || done < 2*int64(n)) {
			t.Errorf("%s: neighbours reported %d of %d rows (phases %v)", c.name, done, total, log.phases)
		}
	}
}
