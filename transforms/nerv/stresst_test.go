package nerv

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ordinate/ordinate/internal/synth"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// nervSparseBruteT is the t-kernel stress written plainly: b_ij =
// w_ij/Σ_k w_ik with w = 1/(1 + h·D²), β from the lists and 0 elsewhere,
// log β floored at the row's floor in the precision term, Λ exact.
func nervSparseBruteT(y []float64, dims int, in *SparseInput) float64 {
	return nervSparseBruteTFar(y, dims, in, nil)
}

// nervSparseBruteTFar is nervSparseBruteT with the unlisted pairs' Λ from
// far (nil: exact).
func nervSparseBruteTFar(y []float64, dims int, in *SparseInput, far func(i, j int) float64) float64 {
	n, k := in.N, in.K
	h := 1 / (2 * in.Scale * in.Scale)
	var total float64
	for i := range n {
		beta := make([]float64, n)
		lf := math.Inf(1)
		for q, j := range in.Idx[i*k : (i+1)*k] {
			beta[j] = in.Beta[i*k+q]
			lf = min(lf, math.Log(max(beta[j], nervBetaFloor)))
		}
		if in.LogFloor != nil {
			lf = in.LogFloor[i]
		}
		listed := make([]bool, n)
		for _, j := range in.Idx[i*k : (i+1)*k] {
			listed[j] = true
		}
		w := make([]float64, n)
		var z float64
		for j := range n {
			if j != i {
				w[j] = 1 / (1 + h*kernels.EmbedSqDist(y[i*dims:(i+1)*dims], y[j*dims:(j+1)*dims]))
				z += w[j]
			}
		}
		for j := range n {
			if j == i {
				continue
			}
			b, p, lam := w[j]/z, beta[j], in.tradeoff(i, j)
			if far != nil && !listed[j] {
				lam = far(i, j)
			}
			var recall float64
			if p > 0 {
				recall = p * math.Log(p/b)
			}
			logp := lf
			if p > 0 {
				logp = math.Log(max(p, nervBetaFloor))
			}
			total += lam*(recall+b-p) + (1-lam)*(b*(math.Log(b)-logp)+p-b)
		}
	}
	return total / float64(n)
}

// tFixture is gridFixture with layouts "wide", the converged map (its
// default) eight times as wide, and "blobs" ("blobs, wide"), each class
// drawn in to a quarter and its centre moved 30 (240) widths along the
// diagonal per class, so that the class planes take the fine grid
// (TStress.chooseGrids).
func tFixture(t testing.TB, tc gridCase, seed uint64) (*SparseInput, []float64) {
	layout := tc.layout
	tc.layout, _ = strings.CutPrefix(tc.layout, "blobs, ")
	if layout == "blobs" {
		tc.layout = "converged"
	}
	in, y := gridFixture(t, tc, seed)
	switch layout {
	case "wide":
		for k := range y {
			y[k] *= 8
		}
	case "blobs", "blobs, wide":
		step := 30 * in.Scale
		if layout == "blobs, wide" {
			step *= 8
		}
		for i := range tc.n {
			cls := slices.Index(in.Soft[i*in.C:(i+1)*in.C], 1)
			for c := range tc.dims {
				y[i*tc.dims+c] = y[i*tc.dims+c]/4 + step*float64(cls)
			}
		}
	}
	return in, y
}

// tCases are the label kinds of the t-kernel tests (gridFixture's).
func tCases(n, dims int) []gridCase {
	return []gridCase{
		{name: "no labels", n: n, k: 30, dims: dims, labels: "none", alpha: 0.6, layout: "converged"},
		{name: "hard", n: n, k: 30, dims: dims, labels: "hard", alpha: 0.6, layout: "converged", cacheLogBeta: true},
		{name: "hard, unlabelled rows", n: n, k: 30, dims: dims, labels: "hard+unlabelled", alpha: 0.6, layout: "converged"},
		{name: "hard, dense", n: n, k: 30, dims: dims, labels: "hard", alpha: 1, layout: "dense"},
		{name: "lattice soft, unlabelled rows", n: n, k: 30, dims: dims, labels: "lattice+unlabelled", alpha: 0.6, layout: "converged"},
		// A map eight times as wide (tFixture): the class planes' coarse
		// grid reaches its cap, and a wider near radius than the fine one.
		{name: "hard, wide", n: n, k: 30, dims: dims, labels: "hard", alpha: 0.6, layout: "wide"},
		{name: "lattice soft, wide", n: n, k: 30, dims: dims, labels: "lattice+unlabelled", alpha: 0.6, layout: "wide"},
		// Compact classes: their planes on the fine grid, their near
		// pairs found in the fine scan.
		{name: "hard, blobs", n: n, k: 30, dims: dims, labels: "hard", alpha: 0.6, layout: "blobs"},
		{name: "hard, blobs, wide", n: n, k: 30, dims: dims, labels: "hard", alpha: 1, layout: "blobs, wide"},
	}
}

// TestTStressGradient checks TStress's gradient against central
// differences of its own stress on maps small enough that every plane is
// summed directly (exact sums), and its stress against the plain
// formula, in one and two dimensions, with soft labels off the lattice
// too (the rounded far pairs are then part of the objective).
func TestTStressGradient(t *testing.T) {
	ctx := context.Background()
	cases := append(tCases(120, 2), tCases(90, 1)...)
	cases = append(cases, gridCase{name: "soft", n: 120, k: 30, dims: 2, labels: "soft", alpha: 0.8, layout: "converged"})
	for _, tc := range cases {
		in, y := tFixture(t, tc, 3)
		var ts TStress
		grad := make([]float64, len(y))
		s, err := ts.Stress(ctx, grad, y, tc.dims, in, 1)
		if err != nil {
			t.Fatalf("%s %d-D: %v", tc.name, tc.dims, err)
		}
		// Off the lattice the far pairs carry the rounded Λ̂, the listed
		// ones the exact Λ.
		var far func(i, j int) float64
		if tc.labels == "soft" {
			var cs gridSoft
			cs.set(in, DefaultGridSoftLevels)
			far = func(i, j int) float64 {
				if !in.labelled(i) || !in.labelled(j) {
					return in.Gamma
				}
				return (1-in.Alpha)*in.Gamma + in.Alpha*cs.lamHat(i, j, in.C)
			}
		}
		if want := nervSparseBruteTFar(y, tc.dims, in, far); math.Abs(s-want) > 1e-10*math.Abs(want) {
			t.Errorf("%s %d-D: stress %.12g, plain formula %.12g", tc.name, tc.dims, s, want)
		}
		num := make([]float64, len(y))
		for q := range y {
			step := 1e-5 * in.Scale
			v := y[q]
			y[q] = v + step
			sp, _ := ts.Stress(ctx, nil, y, tc.dims, in, 1)
			y[q] = v - step
			sm, _ := ts.Stress(ctx, nil, y, tc.dims, in, 1)
			y[q] = v
			num[q] = (sp - sm) / (2 * step)
		}
		if e := gradRelErr(grad, num); e > 1e-6 {
			t.Errorf("%s %d-D: gradient against central differences: relative error %.2g", tc.name, tc.dims, e)
		}
	}
}

// TestTStressAgainstBrute checks the interpolated stress and gradient
// against the plain formula and its central differences on maps large
// enough for interpolation, with nodes enough to make the scheme's error
// small, and with the default nodes within the error the fit lives with.
func TestTStressAgainstBrute(t *testing.T) {
	ctx := context.Background()
	for _, v := range []struct {
		nodes    int
		gridOnly bool
	}{{8, true}, {0, true}, {0, false}} {
		nodes := v.nodes
		for _, tc := range tCases(1000, 2) {
			in, y := tFixture(t, tc, 5)
			ts := TStress{NodesPerInterval: nodes, gridOnly: v.gridOnly}
			grad := make([]float64, len(y))
			s, err := ts.Stress(ctx, grad, y, tc.dims, in, 2)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			want := nervSparseBruteT(y, tc.dims, in)
			// Measured: stress errors up to 6e-7 (8 nodes) and 4e-8 (5), the
			// gradient's 3e-5, the central differences' own.
			// Without gridOnly the planes cheaper summed directly are (the
			// map's, of 1,000 rows; a class's own coarse grid stays), to
			// the same tolerance.
			sTol, gTol := 2e-6, 1e-4
			if nodes == 0 {
				sTol = 2e-7
			}
			if e := math.Abs(s-want) / math.Abs(want); e > sTol {
				t.Errorf("%s, %d nodes: stress %.10g, plain formula %.10g: relative error %.2g, want ≤ %g", tc.name, nodes, s, want, e, sTol)
			}
			// Central differences of the plain formula at a few coordinates.
			var num, got []float64
			for _, q := range []int{0, 1, 777, 1501, 1998, 1999} {
				step := 1e-5 * in.Scale
				v := y[q]
				y[q] = v + step
				sp := nervSparseBruteT(y, tc.dims, in)
				y[q] = v - step
				sm := nervSparseBruteT(y, tc.dims, in)
				y[q] = v
				num = append(num, (sp-sm)/(2*step))
				got = append(got, grad[q])
			}
			if e := gradRelErr(got, num); e > gTol {
				t.Errorf("%s, %d nodes: gradient against the plain formula's central differences: relative error %.2g, want ≤ %g", tc.name, nodes, e, gTol)
			}
			t.Logf("%s, %d nodes: stress error %.2g, gradient error %.2g; near radii %.3g, %.3g; class grids %v fine intervals wide", tc.name, nodes, math.Abs(s-want)/math.Abs(want), gradRelErr(got, num), ts.interp.r, ts.coarse.r, ts.factor)
			// Compact classes take the fine grid, classes spread over the
			// map a coarser one each.
			if fine := len(ts.factor) > 0 && !slices.ContainsFunc(ts.factor, func(f int32) bool { return f > 1 }); fine != strings.HasPrefix(tc.layout, "blobs") && ts.factor != nil {
				t.Errorf("%s, %d nodes: class grids %v fine intervals wide", tc.name, nodes, ts.factor)
			}
		}
	}
}

// TestHeldSpread: the held-spread stress is the same for every multiple
// of a map, its gradient has no radial part, and it matches central
// differences.
func TestHeldSpread(t *testing.T) {
	ctx := context.Background()
	tc := gridCase{name: "hard", n: 150, k: 30, dims: 2, labels: "hard", alpha: 0.5, layout: "converged"}
	in, y := gridFixture(t, tc, 9)
	var ts TStress
	r0 := 7.0 * in.Scale
	f := heldSpread(func(v, g []float64) float64 {
		s, err := ts.Stress(ctx, g, v, 2, in, 1)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, tc.n, 2, r0)
	g := make([]float64, len(y))
	s := f(y, g)
	big := make([]float64, len(y))
	for k, v := range y {
		big[k] = 3.5 * v
	}
	if s2 := f(big, nil); math.Abs(s2-s) > 1e-12*math.Abs(s) {
		t.Errorf("stress %.15g at y, %.15g at 3.5·y", s, s2)
	}
	var mean [2]float64
	tSpread(y, tc.n, 2, mean[:])
	var radial, norm float64
	for i := range tc.n {
		for c := range 2 {
			radial += g[i*2+c] * (y[i*2+c] - mean[c])
			norm += g[i*2+c] * g[i*2+c]
		}
	}
	if r := math.Abs(radial) / (math.Sqrt(norm) * tSpread(y, tc.n, 2, nil) * math.Sqrt(float64(tc.n))); r > 1e-12 {
		t.Errorf("radial part of the gradient %.3g of its norm", r)
	}
	num := make([]float64, len(y))
	for q := range y {
		step := 1e-5 * in.Scale
		v := y[q]
		y[q] = v + step
		sp := f(y, nil)
		y[q] = v - step
		sm := f(y, nil)
		y[q] = v
		num[q] = (sp - sm) / (2 * step)
	}
	if e := gradRelErr(g, num); e > 1e-6 {
		t.Errorf("gradient against central differences: relative error %.2g", e)
	}
}

// TestFitT: a fit with output kernel t ends with a level under the t
// kernel whose stress is the plain t formula's at the returned map, and
// the options the kernel cannot take are errors naming them.
func TestFitT(t *testing.T) {
	ctx := context.Background()
	const per, c = 150, 6
	n := 4 * per
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(1, 2)), per)
	hard, _ := hardOf(soft, n, c)
	o := DefaultOptions()
	o.Perplexity, o.Threads, o.OutputKernel = 15, 2, KernelT
	r, err := Fit(ctx, x, n, 3, hard, c, o)
	if err != nil {
		t.Fatal(err)
	}
	last := r.Levels[len(r.Levels)-1]
	if r.OutputKernel != KernelT || last.Kernel != KernelT || r.Method != Grid {
		t.Fatalf("kernel %q, last level %+v, method %s", r.OutputKernel, last, r.Method)
	}
	sl, err := newSparseLevels(ctx, x, n, 3, hard, c, Options{Method: Grid, Perplexity: o.Perplexity, Alpha: o.Alpha, Gamma: o.Gamma,
		Dims: 2, Threads: 2, Neighbors: o.Neighbors, Multiscale: false}, transforms.NoProgress{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := sl.level(o.Perplexity, true); err != nil {
		t.Fatal(err)
	}
	want := nervSparseBruteT(r.Y, 2, sl.cur)
	// 1e-3: a sparse map's rows interpolate worst.
	if e := math.Abs(r.Stress-want) / want; e > 1e-3 {
		t.Errorf("final stress %.8g, the plain t formula at the map %.8g: %.2g apart", r.Stress, want, e)
	}
	t.Logf("t level: %d iterations, %d evaluations, %s; stress %.6g", last.Iterations, last.Evaluations, last.Status, r.Stress)
	for _, tc := range []struct {
		name   string
		mod    func(*Options)
		option string
	}{
		{"method cutoff", func(o *Options) { o.Method = Cutoff }, "output-kernel"},
		{"method exact", func(o *Options) { o.Method = Exact }, "output-kernel"},
		{"three dims", func(o *Options) { o.Dims = 3 }, "dims"},
		{"transferred widths", func(o *Options) { o.OutputScale = Transfer }, "output-scale"},
	} {
		oo := o
		tc.mod(&oo)
		_, err := Fit(ctx, x, n, 3, hard, c, oo)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option {
			t.Errorf("%s: error %v, want an option error naming %q", tc.name, err, tc.option)
		}
	}
}

// TestTStressThreads: the same bits for any thread count.
func TestTStressThreads(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []gridCase{
		{name: "hard, wide", n: 1500, k: 30, dims: 2, labels: "hard+unlabelled", alpha: 0.6, layout: "wide"},
		{name: "soft", n: 1500, k: 30, dims: 2, labels: "soft", alpha: 0.6, layout: "converged"},
		// Classes on grids of their own: their near pairs in strips too.
		{name: "hard, blobs, wide", n: 1500, k: 30, dims: 2, labels: "hard", alpha: 1, layout: "blobs, wide"},
	} {
		in, y := tFixture(t, tc, 11)
		for _, grid := range []bool{true, false} {
			var want []float64
			var ws float64
			for _, threads := range []int{1, 2, 3} {
				ts := TStress{gridOnly: grid}
				g := make([]float64, len(y))
				s, err := ts.Stress(ctx, g, y, 2, in, threads)
				if err != nil {
					t.Fatal(err)
				}
				if want == nil {
					want, ws = g, s
					continue
				}
				if s != ws || !slices.Equal(g, want) {
					t.Errorf("%s, grid only %v: %d threads: stress %v, gradient differs from one thread's (%v)", tc.name, grid, threads, s, ws)
				}
			}
		}
	}
}

// TestTStressReuse: a TStress that has evaluated other maps (other
// extents and windows: its spectra kept, dropped and their buffers
// reused, makeRoom) gives a map the same bits as a fresh one.
func TestTStressReuse(t *testing.T) {
	ctx := context.Background()
	tc := gridCase{name: "hard, blobs", n: 1500, k: 30, dims: 2, labels: "hard", alpha: 0.6, layout: "blobs, wide"}
	in, y := tFixture(t, tc, 13)
	fresh := TStress{gridOnly: true}
	want := make([]float64, len(y))
	ws, err := fresh.Stress(ctx, want, y, 2, in, 2)
	if err != nil {
		t.Fatal(err)
	}
	used := TStress{gridOnly: true}
	g := make([]float64, len(y))
	for _, f := range []float64{1.7, 0.6, 3.1, 1.05, 1} {
		v := make([]float64, len(y))
		for k := range y {
			v[k] = y[k] * f
		}
		if _, err := used.Stress(ctx, g, v, 2, in, 2); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := used.Stress(ctx, g, y, 2, in, 2)
	if s != ws || !slices.Equal(g, want) {
		t.Errorf("%s: after other maps stress %v, a fresh TStress %v (or the gradients differ)", tc.name, s, ws)
	}
}

// tBenchMap is a map as the t level starts it: c Gaussian class blobs
// (labels "blobs") or the same points with random classes ("mixed"), its
// input the map's own k = 30 neighbours (perplexity 10), scaled as
// refineT scales it (tMapScale).
func tBenchMap(b testing.TB, n, c int, labels string) (*SparseInput, []float64) {
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	const k = 30
	side := int(math.Ceil(math.Sqrt(float64(c))))
	gap := 5.0
	if labels == "islands" {
		gap = 20
	}
	y := make([]float64, 2*n)
	soft := make([]float64, n*c)
	for i := range n {
		m := i % c
		y[2*i] = gap*float64(m%side) + rng.NormFloat64()
		y[2*i+1] = gap*float64(m/side) + rng.NormFloat64()
		if labels == "mixed" {
			m = rng.IntN(c)
		}
		soft[i*c+m] = 1
	}
	idx := make([]int32, n*k)
	p := make([]float64, n*k)
	ctx := context.Background()
	if err := kernels.KNN(ctx, idx, p, y, n, 2, k, 0); err != nil {
		b.Fatal(err)
	}
	prec := make([]float64, n)
	if err := kernels.PerplexitySparse(ctx, prec, p, p, n, k, 10, 0); err != nil {
		b.Fatal(err)
	}
	var s float64
	for _, v := range prec {
		s += 1 / math.Sqrt(2*v)
	}
	in := &SparseInput{N: n, K: k, Idx: idx, Beta: p, C: c, Soft: soft, Alpha: 1, Gamma: 0.3, Scale: s / float64(n)}
	near := make([]float64, n)
	for i := range n {
		for _, j := range idx[i*k : i*k+10] {
			near[i] += math.Sqrt(kernels.EmbedSqDist(y[2*i:2*i+2], y[2*j:2*j+2])) / 10
		}
	}
	slices.Sort(near)
	f := tMapScale(n) * math.Sqrt2 * in.Scale / near[n/2]
	for q := range y {
		y[q] *= f
	}
	return in, y
}

// BenchmarkNeRVTStress times one t-kernel stress and gradient on maps as
// the t level starts them (tBenchMap): 30 classes, in blobs and mixed.
func BenchmarkNeRVTStress(b *testing.B) {
	for _, n := range []int{20000, 100000} {
		for _, labels := range []string{"blobs", "islands", "mixed"} {
			in, y := tBenchMap(b, n, 30, labels)
			g := make([]float64, len(y))
			var ts TStress
			b.Run(fmt.Sprintf("%d/%s", n, labels), func(b *testing.B) {
				for range b.N {
					if _, err := ts.Stress(context.Background(), g, y, 2, in, 0); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
