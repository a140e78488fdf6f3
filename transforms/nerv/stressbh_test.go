package nerv

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ordinate/ordinate/kernels"
)

// sparseEval evaluates a stress of SparseInput at tolerance tol.
type sparseEval func(ctx context.Context, grad, y []float64, dims int, sp *SparseInput, tol float64, threads int) (float64, error)

// sparseStresses are BH.Stress and the cut-off without its Barnes–Hut
// rows, each with fresh state per call, for the tests that hold for both.
func sparseStresses() []struct {
	name string
	eval sparseEval
} {
	return []struct {
		name string
		eval sparseEval
	}{
		{"bh", func(ctx context.Context, grad, y []float64, dims int, sp *SparseInput, tol float64, threads int) (float64, error) {
			return new(BH).Stress(ctx, grad, y, dims, sp, tol, threads)
		}},
		{"cutoff", func(ctx context.Context, grad, y []float64, dims int, sp *SparseInput, tol float64, threads int) (float64, error) {
			return (&CutoffStress{BHAbove: -1}).Stress(ctx, grad, y, dims, sp, tol, DefaultBHTol, threads)
		}},
	}
}

// nervSparseFixture makes a sparse NeRV input over k neighbours of n random
// points (β calibrated over the lists) and its dense equivalent, with β = 0
// outside the lists.
func nervSparseFixture(t testing.TB, rng *rand.Rand, n, k, inDims int, perplexity float64, labels string) (*SparseInput, *Input) {
	sp := nervSparseOnly(t, rng, n, k, inDims, perplexity, labels)
	dense := make([]float64, n*n)
	for i := range n {
		for q, j := range sp.Idx[i*k : (i+1)*k] {
			dense[i*n+int(j)] = sp.Beta[i*k+q]
		}
	}
	return sp, &Input{N: n, C: sp.C, Beta: dense, Soft: sp.Soft, Alpha: sp.Alpha, Gamma: sp.Gamma, Scale: []float64{sp.Scale}}
}

// nervSparseOnly is nervSparseFixture without the dense equivalent.
func nervSparseOnly(t testing.TB, rng *rand.Rand, n, k, inDims int, perplexity float64, labels string) *SparseInput {
	x := nervRandomY(rng, n, inDims)
	idx := make([]int32, n*k)
	p := make([]float64, n*k)
	if err := kernels.KNN(context.Background(), idx, p, x, n, inDims, k, 1); err != nil {
		t.Fatal(err)
	}
	prec := make([]float64, n)
	if err := kernels.PerplexitySparse(context.Background(), prec, p, p, n, k, perplexity, 1); err != nil {
		t.Fatal(err)
	}
	var s float64
	for _, b := range prec {
		s += 1 / math.Sqrt(2*b)
	}
	s /= float64(n)
	soft, _ := nervTestLabels(rng, n, 3, labels)
	return &SparseInput{N: n, K: k, Idx: idx, Beta: p, C: 3, Soft: soft, Alpha: 0.6, Gamma: 0.3, Scale: s}
}

// nervSparseBrute is the floored sparse stress written plainly: β_ij from
// the lists, 0 elsewhere; in the precision term log β is floored at the
// row's smallest listed β; no max-subtraction.
func nervSparseBrute(y []float64, dims int, in *SparseInput) float64 {
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
		e := make([]float64, n)
		var z float64
		for j := range n {
			if j != i {
				e[j] = math.Exp(-h * kernels.EmbedSqDist(y[i*dims:(i+1)*dims], y[j*dims:(j+1)*dims]))
				z += e[j]
			}
		}
		for j := range n {
			if j == i {
				continue
			}
			b, p, lam := e[j]/z, beta[j], in.tradeoff(i, j)
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

// TestNeRVBHExact checks that with tol = 0 (every point visited) the
// Barnes–Hut stress is the plain floored sparse stress, equal to the exact
// Stress when the lists hold every point, that its gradient matches
// central differences, and that the cut-off with tol = 0 (every pair)
// gives the same stress and gradient.
func TestNeRVBHExact(t *testing.T) {
	cases := []struct {
		name          string
		n, k, dims    int
		labels        string
		spreadY, perp float64
	}{
		{"nerv 1-D full lists", 40, 39, 1, "none", 1, 8},
		{"hard 2-D full lists", 50, 49, 2, "hard", 1, 8},
		{"hard 2-D sparse", 120, 30, 2, "hard", 1, 10},
		{"soft 2-D sparse", 120, 30, 2, "soft", 2, 10},
		{"unlabelled 3-D", 90, 20, 3, "unlabelled", 0.5, 6},
		{"soft 2-D, given floor", 100, 25, 2, "soft", 1, 8},
	}
	for _, tc := range cases {
		rng := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.k)))
		sp, dense := nervSparseFixture(t, rng, tc.n, tc.k, 4, tc.perp, tc.labels)
		if strings.HasSuffix(tc.name, "given floor") {
			sp.LogFloor = make([]float64, tc.n)
			for i := range sp.LogFloor {
				sp.LogFloor[i] = -12 - float64(i%5)
			}
		}
		y := nervRandomY(rng, tc.n, tc.dims)
		for i := range y {
			y[i] *= tc.spreadY * sp.Scale
		}
		var bh BH
		g := make([]float64, len(y))
		got, err := bh.Stress(context.Background(), g, y, tc.dims, sp, 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		if want := nervSparseBrute(y, tc.dims, sp); math.Abs(got-want) > 1e-10*max(1, math.Abs(want)) {
			t.Errorf("%s: stress %v, plain formula %v", tc.name, got, want)
		}
		gc := make([]float64, len(y))
		sc, err := (&CutoffStress{BHAbove: -1}).Stress(context.Background(), gc, y, tc.dims, sp, 0, 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(sc-got) > 1e-12*max(1, math.Abs(got)) || maxAbsDiff(gc, g) > 1e-12*max(1, maxAbs(g)) {
			t.Errorf("%s: cut-off stress %v, gradient off by %g; Barnes–Hut %v", tc.name, sc, maxAbsDiff(gc, g), got)
		}
		if tc.k == tc.n-1 {
			gWant := make([]float64, len(y))
			want, err := Stress(context.Background(), gWant, y, tc.dims, dense, 1)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want) > 1e-10*max(1, math.Abs(want)) {
				t.Errorf("%s: stress %v, Stress %v", tc.name, got, want)
			}
			if d := maxAbsDiff(g, gWant); d > 1e-10*max(1, maxAbs(gWant)) {
				t.Errorf("%s: gradient differs from Stress by %g", tc.name, d)
			}
		}
		const step = 1e-6
		for _, q := range []int{0, 7, len(y) / 2, len(y) - 1} {
			yy := append([]float64(nil), y...)
			yy[q] = y[q] + step
			fp, _ := bh.Stress(context.Background(), nil, yy, tc.dims, sp, 0, 1)
			yy[q] = y[q] - step
			fm, _ := bh.Stress(context.Background(), nil, yy, tc.dims, sp, 0, 1)
			fd := (fp - fm) / (2 * step)
			if math.Abs(fd-g[q]) > 1e-6*max(1, math.Abs(fd)) {
				t.Errorf("%s: grad[%d] = %.10g, central difference %.10g", tc.name, q, g[q], fd)
			}
		}
	}
}

func maxAbsDiff(a, b []float64) float64 {
	var d float64
	for k := range a {
		d = max(d, math.Abs(a[k]-b[k]))
	}
	return d
}

func maxAbs(a []float64) float64 {
	var d float64
	for _, v := range a {
		d = max(d, math.Abs(v))
	}
	return d
}

// TestNeRVBHApprox checks the approximation against the exact sparse
// stress: the stress error and the gradient error shrink with tol, and at
// 1e-4 are below 1e-5 and 1e-3 relative.
func TestNeRVBHApprox(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	const n, k, dims = 1500, 45, 2
	for _, labels := range []string{"none", "hard", "soft"} {
		sp, _ := nervSparseFixture(t, rng, n, k, 5, 15, labels)
		y := nervRandomY(rng, n, dims)
		for i := range y {
			y[i] *= 3 * sp.Scale
		}
		var bh BH
		gx := make([]float64, n*dims)
		exact, err := bh.Stress(context.Background(), gx, y, dims, sp, 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		prevS, prevG := math.Inf(1), math.Inf(1)
		for _, tol := range []float64{1e-2, 1e-4, 1e-6} {
			g := make([]float64, n*dims)
			s, err := bh.Stress(context.Background(), g, y, dims, sp, tol, 2)
			if err != nil {
				t.Fatal(err)
			}
			es := math.Abs(s-exact) / math.Abs(exact)
			eg := gradRelErr(g, gx)
			t.Logf("%s tol %g: stress rel err %.2e, grad rel err %.2e", labels, tol, es, eg)
			if es > prevS*1.01+1e-12 || eg > prevG*1.01+1e-12 {
				t.Errorf("%s tol %g: errors %g, %g did not shrink from %g, %g", labels, tol, es, eg, prevS, prevG)
			}
			if tol == 1e-4 && (es > 1e-5 || eg > 1e-3) {
				t.Errorf("%s tol %g: stress rel err %g, grad rel err %g, want ≤ 1e-5, 1e-3", labels, tol, es, eg)
			}
			prevS, prevG = es, eg
		}
	}
}

// gradRelErr is ‖g − want‖ / ‖want‖.
func gradRelErr(g, want []float64) float64 {
	var num, den float64
	for k := range g {
		num += (g[k] - want[k]) * (g[k] - want[k])
		den += want[k] * want[k]
	}
	return math.Sqrt(num / den)
}

func TestNeRVBHThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, k, dims = 700, 30, 2
	sp, _ := nervSparseFixture(t, rng, n, k, 3, 10, "soft")
	y := nervRandomY(rng, n, dims)
	checkThreadsBitIdentical(t, n*dims, func(grad []float64, threads int) (float64, error) {
		var bh BH
		return bh.Stress(context.Background(), grad, y, dims, sp, 1e-4, threads)
	})
}

// TestNeRVBHDegenerate covers coincident points (they share a leaf or a
// cell), a point far from all others (its row would underflow without the
// shift, and its reach spans the grid), for both sparse stresses.
func TestNeRVBHDegenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const n, k, dims = 200, 20, 2
	sp := nervSparseOnly(t, rng, n, k, 3, 6, "hard")
	y := nervRandomY(rng, n, dims)
	for i := 1; i < 30; i++ {
		copy(y[2*i:2*i+2], y[0:2])
	}
	y[2*50], y[2*50+1] = 1e4, -1e4
	for _, st := range sparseStresses() {
		for _, tol := range []float64{0, 1e-4, 1e-2} {
			g := make([]float64, n*dims)
			s, err := st.eval(context.Background(), g, y, dims, sp, tol, 1)
			if err != nil {
				t.Fatal(err)
			}
			if math.IsNaN(s) || math.IsInf(s, 0) {
				t.Fatalf("%s tol %g: stress %v", st.name, tol, s)
			}
			for q, v := range g {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s tol %g: grad[%d] = %v", st.name, tol, q, v)
				}
			}
			if want := nervSparseBrute(y, dims, sp); (tol == 0 || st.name == "cutoff") && math.Abs(s-want) > 1e-9*math.Abs(want) {
				t.Errorf("%s tol %g: stress %v, plain formula %v", st.name, tol, s, want)
			}
		}
	}
}

func TestNeRVBHCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	sp, _ := nervSparseFixture(t, rng, 100, 10, 2, 3, "none")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, st := range sparseStresses() {
		if _, err := st.eval(ctx, nil, nervRandomY(rng, 100, 2), 2, sp, 1e-2, 1); err != context.Canceled {
			t.Errorf("%s cancelled: err = %v", st.name, err)
		}
	}
}

// BenchmarkNeRVBH times one stress and gradient at the nerv default
// tolerance 1e-2, K = 96 neighbours (perplexity 32), hard labels.
func BenchmarkNeRVBH(b *testing.B) {
	var bh BH
	benchSparse(b, func(g, y []float64, sp *SparseInput) error {
		_, err := bh.Stress(context.Background(), g, y, 2, sp, DefaultBHTol, 0)
		return err
	})
}

// BenchmarkNeRVCutoff is BenchmarkNeRVBH's evaluation with the cut-off
// stress (default tolerances) on the same inputs.
func BenchmarkNeRVCutoff(b *testing.B) {
	var co CutoffStress
	benchSparse(b, func(g, y []float64, sp *SparseInput) error {
		_, err := co.Stress(context.Background(), g, y, 2, sp, DefaultCutoffTol, DefaultBHTol, 0)
		return err
	})
}

// benchSparse times eval at N = 5,000 and 20,000 on a map at about a
// converged map's density (K neighbours within ~1.5 widths).
func benchSparse(b *testing.B, eval func(g, y []float64, sp *SparseInput) error) {
	for _, n := range []int{5000, 20000} {
		rng := rand.New(rand.NewPCG(1, 2))
		sp := nervSparseOnly(b, rng, n, 96, 3, 32, "hard")
		y := nervRandomY(rng, n, 2)
		for i := range y {
			y[i] *= math.Sqrt(float64(n)/28) * sp.Scale
		}
		g := make([]float64, n*2)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				if err := eval(g, y, sp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func ExampleBH_Stress() {
	// The three points of ExampleStress with full neighbour lists: with
	// tol = 0 the Barnes–Hut stress is the exact one with a global scale.
	in := &SparseInput{
		N: 3, K: 2,
		Idx:  []int32{1, 2, 0, 2, 1, 0},
		Beta: []float64{0.8, 0.2, 0.5, 0.5, 0.8, 0.2},
		C:    2, Soft: []float64{1, 0, 1, 0, 0, 1},
		Alpha: 1, Gamma: 0.5,
		Scale: 1,
	}
	y := []float64{0, 1, 2}
	var bh BH // reuse across calls: it keeps the tree and scratch space
	stress, err := bh.Stress(context.Background(), nil, y, 1, in, 0, 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("stress %.4f\n", stress)
	// Output:
	// stress 0.0007
}

// TestOneHotTradeoffs: the one-hot shortcuts give the generic loops' bits,
// for every pair and every cell, on labels mixing one-hot, soft and
// unlabelled rows.
func TestOneHotTradeoffs(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	const n, dims = 400, 2
	sp := nervSparseOnly(t, rng, n, 10, 3, 5, "hard")
	c := sp.C
	for i := range n {
		switch i % 5 {
		case 1: // soft
			a := rng.Float64()
			sp.Soft[i*c], sp.Soft[i*c+1], sp.Soft[i*c+2] = a, 1-a, 0
		case 2: // unlabelled
			sp.Soft[i*c], sp.Soft[i*c+1], sp.Soft[i*c+2] = math.NaN(), math.NaN(), math.NaN()
		}
	}
	y := nervRandomY(rng, n, dims)
	var bh BH
	bh.tree.Build(y, n, dims)
	bh.aggregateLabels(sp)
	hard := newHardLabels(sp.Soft, n, c, sp.Alpha, sp.Gamma)
	ones := 0
	for _, h := range hard.class {
		if h >= 0 {
			ones++
		}
	}
	if ones != 240 {
		t.Fatalf("%d one-hot rows, want 240", ones)
	}
	fast := &nervBHWalk{t: &bh.tree, in: sp, nlab: bh.nlab, wsum: bh.wsum, hardLabels: hard}
	// No shortcut: every row's class unknown, so the loops run.
	generic := hard
	generic.class = make([]int32, n)
	for i := range generic.class {
		generic.class[i] = -1
	}
	slow := &nervBHWalk{t: &bh.tree, in: sp, nlab: bh.nlab, wsum: bh.wsum, hardLabels: generic}
	for i := range n {
		for j := range n {
			if a, b := fast.tradeoff(i, j), sp.tradeoff(i, j); a != b {
				t.Fatalf("Λ_%d,%d: %v with the shortcut, %v without", i, j, a, b)
			}
		}
		for nd, node := range bh.tree.Nodes {
			cnt := float64(node.Count)
			if a, b := fast.cellTradeoff(i, nd, cnt), slow.cellTradeoff(i, nd, cnt); a != b {
				t.Fatalf("row %d, cell %d: %v with the shortcut, %v without", i, nd, a, b)
			}
		}
	}
}
