package nerv

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ordinate/ordinate/kernels"
)

// gridCase is a map and input for the grid stress tests.
type gridCase struct {
	name         string
	n, k, dims   int
	labels       string  // "none", "hard", "soft" or "lattice" (soft on the 1/8 lattice), each may end "+unlabelled"
	alpha        float64 // replaces the fixture's 0.6
	layout       string  // "converged", "dense" or "isolated"
	cacheLogBeta bool    // SparseLogBeta and a given floor, as Fit sets them
}

// gridFixture builds the case's input (perplexity K/3 over K neighbours of
// points in 4-D) and map: "converged" as benchSparse builds it (a Gaussian
// of standard deviation √(n/28) widths in 2-D; n/10 widths in 1-D),
// "dense" as TestCutoffHybrid (3 widths, half the points within 0.3),
// "isolated" converged with point 0 moved 3.9 widths beyond the farthest
// other (an exact row).
func gridFixture(t testing.TB, tc gridCase, seed uint64) (*SparseInput, []float64) {
	rng := rand.New(rand.NewPCG(seed, uint64(tc.n)))
	labels, unlabelled := strings.CutSuffix(tc.labels, "+unlabelled")
	kind := labels
	if labels == "lattice" {
		kind = "soft"
	}
	sp := nervSparseOnly(t, rng, tc.n, tc.k, 4, float64(tc.k)/3, kind)
	sp.Alpha = tc.alpha
	if labels == "lattice" {
		gridLattice(sp.Soft, sp.C, DefaultGridSoftLevels)
	}
	if unlabelled {
		for i := 0; i < tc.n; i += 4 {
			for c := range sp.C {
				sp.Soft[i*sp.C+c] = math.NaN()
			}
		}
	}
	if tc.cacheLogBeta {
		SparseLogBeta(sp)
		sp.LogFloor = make([]float64, tc.n)
		for i := range sp.LogFloor {
			sp.LogFloor[i] = -9 - float64(i%4)
		}
	}
	y := nervRandomY(rng, tc.n, tc.dims)
	f := math.Sqrt(float64(tc.n) / 28)
	if tc.dims == 1 {
		f = float64(tc.n) / 10
	}
	if tc.layout == "dense" {
		f = 3
	}
	for i := range y {
		y[i] *= f * sp.Scale
		if tc.layout == "dense" && i < len(y)/2 {
			y[i] *= 0.1
		}
	}
	if tc.layout == "isolated" {
		var far float64
		for i := 1; i < tc.n; i++ {
			far = max(far, math.Abs(y[i*tc.dims]))
		}
		y[0] = far + 3.9*sp.Scale
		for c := 1; c < tc.dims; c++ {
			y[c] = 0
		}
	}
	return sp, y
}

// gridLattice rounds every row of the soft labels (n×c) to multiples of
// 1/levels that still sum to 1 (largest remainders), so that GridStress's
// rounded soft fields are exact.
func gridLattice(soft []float64, c, levels int) {
	r := make([]int, c)
	by := make([]int, c)
	for i := 0; i < len(soft); i += c {
		row := soft[i : i+c]
		sum := 0
		for k, v := range row {
			r[k], by[k] = int(math.Floor(v*float64(levels))), k
			sum += r[k]
		}
		rem := func(k int) float64 { return row[k]*float64(levels) - float64(r[k]) }
		slices.SortStableFunc(by, func(a, b int) int { return cmp.Compare(rem(b), rem(a)) })
		for _, k := range by[:levels-sum] {
			r[k]++
		}
		for k := range row {
			row[k] = float64(r[k]) / float64(levels)
		}
	}
}

// TestGridStressAgainstBH checks GridStress at its default Tol against
// BH.Stress with tol = 0 (the exact floored sparse objective): relative
// stress error ≤ 1e-6 and gradient error ‖Δ‖/‖g‖ ≤ 2e-4, 10 and 5 times
// within the targets 1e-5 and 1e-3. The worst case is a small crowded
// map, whose pairs all see about the same quadrature error.
func TestGridStressAgainstBH(t *testing.T) {
	cases := []gridCase{
		{"none 2-D converged", 3000, 45, 2, "none", 0.6, "converged", false},
		{"hard α=1 2-D converged", 3000, 45, 2, "hard", 1, "converged", true},
		{"hard α=0.5 2-D converged, unlabelled rows", 3000, 45, 2, "hard+unlabelled", 0.5, "converged", false},
		{"hard α=0.5 2-D dense", 3000, 45, 2, "hard", 0.5, "dense", false},
		{"hard α=1 2-D dense, unlabelled rows", 2000, 30, 2, "hard+unlabelled", 1, "dense", true},
		{"soft α=0 2-D converged", 2000, 30, 2, "soft", 0, "converged", false},
		{"hard α=0.5 2-D isolated point", 2000, 30, 2, "hard", 0.5, "isolated", false},
		{"none 1-D converged", 1500, 30, 1, "none", 0.6, "converged", false},
		{"hard α=1 1-D converged, unlabelled rows", 1500, 30, 1, "hard+unlabelled", 1, "converged", true},
		{"hard α=0.5 1-D dense", 1500, 30, 1, "hard", 0.5, "dense", false},
		{"hard α=1 2-D full lists", 60, 59, 2, "hard", 1, "dense", false},
		// Soft labels on the 1/L lattice: the channels are exact.
		{"lattice α=0.6 2-D converged", 3000, 45, 2, "lattice", 0.6, "converged", true},
		{"lattice α=1 2-D dense, unlabelled rows", 2000, 30, 2, "lattice+unlabelled", 1, "dense", false},
		{"lattice α=0.5 2-D isolated point", 2000, 30, 2, "lattice", 0.5, "isolated", false},
		{"lattice α=1 1-D converged, unlabelled rows", 1500, 30, 1, "lattice+unlabelled", 1, "converged", false},
		{"lattice α=1 2-D full lists", 60, 59, 2, "lattice", 1, "dense", false},
	}
	ctx := context.Background()
	for ci, tc := range cases {
		sp, y := gridFixture(t, tc, uint64(ci)+1)
		gb := make([]float64, len(y))
		sb, err := new(BH).Stress(ctx, gb, y, tc.dims, sp, 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		var gs GridStress
		g := make([]float64, len(y))
		s, err := gs.Stress(ctx, g, y, tc.dims, sp, 2)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		es, eg := math.Abs(s-sb)/math.Abs(sb), gradRelErr(g, gb)
		t.Logf("%s: stress rel err %.2e, grad rel err %.2e (%d nodes in %d tiles, %d exact rows)", tc.name, es, eg, gs.plan.nodes, len(gs.plan.tileKey), gridCount(gs.exact[:tc.n]))
		if !(es <= 1e-6) || !(eg <= 2e-4) {
			t.Errorf("%s: stress rel err %g, grad rel err %g, want ≤ 1e-6 and ≤ 2e-4", tc.name, es, eg)
		}
		if soft := strings.HasPrefix(tc.labels, "lattice"); gs.plan.soft != soft {
			t.Errorf("%s: soft channels %v, want %v", tc.name, gs.plan.soft, soft)
		}
		if tc.layout == "isolated" && !gs.exact[gs.pos[0]] {
			t.Errorf("%s: point 0 is not an exact row", tc.name)
		}
	}
}

func gridCount(b []bool) int {
	c := 0
	for _, v := range b {
		if v {
			c++
		}
	}
	return c
}

// TestGridStressGradient checks the gradient against central differences of
// GridStress's own stress (the grid objective, windows and self pairs
// included, is differentiated exactly), on grid rows and on an exact row.
func TestGridStressGradient(t *testing.T) {
	cases := []gridCase{
		{"hard α=0.5 2-D, unlabelled rows", 400, 30, 2, "hard+unlabelled", 0.5, "converged", false},
		{"none 2-D dense", 300, 30, 2, "none", 0.6, "dense", true},
		{"hard α=1 2-D isolated point", 300, 30, 2, "hard", 1, "isolated", false},
		{"hard α=1 1-D", 200, 20, 1, "hard", 1, "converged", false},
		// Off the lattice: the listed pairs' rounding correction.
		{"soft α=0.6 2-D, unlabelled rows", 400, 30, 2, "soft+unlabelled", 0.6, "converged", true},
		{"soft α=1 2-D dense", 300, 30, 2, "soft", 1, "dense", false},
		{"soft α=1 1-D isolated point", 200, 20, 1, "soft", 1, "isolated", false},
	}
	ctx := context.Background()
	for ci, tc := range cases {
		sp, y := gridFixture(t, tc, uint64(ci)+20)
		var gs GridStress
		g := make([]float64, len(y))
		if _, err := gs.Stress(ctx, g, y, tc.dims, sp, 1); err != nil {
			t.Fatal(err)
		}
		step := 1e-5 * sp.Scale
		for _, q := range []int{0, 1, 7, len(y) / 2, len(y) - 1} {
			q = q % len(y)
			yy := append([]float64(nil), y...)
			yy[q] = y[q] + step
			fp, _ := gs.Stress(ctx, nil, yy, tc.dims, sp, 1)
			yy[q] = y[q] - step
			fm, _ := gs.Stress(ctx, nil, yy, tc.dims, sp, 1)
			fd := (fp - fm) / (2 * step)
			if math.Abs(fd-g[q]) > 1e-6*max(math.Abs(fd), 1e-2*maxAbs(g)) {
				t.Errorf("%s: grad[%d] = %.10g, central difference %.10g", tc.name, q, g[q], fd)
			}
		}
	}
}

// TestGridStressRows checks each row's grid sums and stress against plain
// sums at Tol = 1e-9, to 1e-6: tightly enough to fail without the self
// pair's removal (about 1 against Z_i of a few tens) or without the listed
// pairs' exact correction (their recall terms), which the test checks are
// far above 1e-6.
func TestGridStressRows(t *testing.T) {
	for ci, tc := range []gridCase{
		{"hard α=0.5 2-D, unlabelled rows", 300, 30, 2, "hard+unlabelled", 0.5, "converged", false},
		{"none 1-D", 200, 20, 1, "none", 0.6, "converged", true},
	} {
		sp, y := gridFixture(t, tc, uint64(ci)+40)
		gs := GridStress{Tol: 1e-9}
		if _, err := gs.Stress(context.Background(), nil, y, tc.dims, sp, 1); err != nil {
			t.Fatal(err)
		}
		n, dims, k := tc.n, tc.dims, tc.k
		h := 1 / (2 * sp.Scale * sp.Scale)
		st := 4 * (1 + dims)
		var selfMin, listedMin float64 = math.Inf(1), math.Inf(1)
		for i := range n {
			q := int(gs.pos[i])
			if gs.exact[q] {
				continue
			}
			var z, sl float64
			beta := make([]float64, n)
			for r, j := range sp.Idx[i*k : (i+1)*k] {
				beta[j] = sp.Beta[i*k+r]
			}
			lbeta, lf := sp.rowLogBeta(&nervBHScratch{}, i)
			e := make([]float64, n)
			for j := range n {
				if j != i {
					e[j] = math.Exp(-h * kernels.EmbedSqDist(y[i*dims:(i+1)*dims], y[j*dims:(j+1)*dims]))
					z += e[j]
					sl += sp.tradeoff(i, j) * e[j]
				}
			}
			var row, listed float64
			for j := range n {
				if j == i {
					continue
				}
				b, lam := e[j]/z, sp.tradeoff(i, j)
				s0, _ := nervPair(0, lf, b, math.Log(b), lam)
				row += s0
			}
			for r, j := range sp.Idx[i*k : (i+1)*k] {
				b, lam := e[j]/z, sp.tradeoff(i, int(j))
				s, _ := nervPair(beta[j], lbeta[r], b, math.Log(b), lam)
				s0, _ := nervPair(0, lf, b, math.Log(b), lam)
				row += s - s0
				listed += s - s0
			}
			rec := gs.pt[q*st : (q+1)*st]
			if d := math.Abs(rec[0]-z) / z; d > 1e-6 {
				t.Fatalf("%s: row %d: grid Z %v, plain %v", tc.name, i, rec[0], z)
			}
			if d := math.Abs(rec[2+2*dims]-sl) / z; d > 1e-6 {
				t.Fatalf("%s: row %d: grid S_Λ %v, plain %v", tc.name, i, rec[2+2*dims], sl)
			}
			if d := math.Abs(gs.rows[i] - row); d > 1e-6*max(1, math.Abs(row)) {
				t.Fatalf("%s: row %d: grid stress %v, plain %v", tc.name, i, gs.rows[i], row)
			}
			selfMin = min(selfMin, 1/z)
			listedMin = min(listedMin, math.Abs(listed)/max(1, math.Abs(row)))
		}
		// What dropping either would cost, against the 1e-6 tolerance.
		if selfMin < 1e-3 || listedMin < 1e-3 {
			t.Errorf("%s: self pair ≥ %.2g·Z, listed correction ≥ %.2g·row: too small for this test to see them", tc.name, selfMin, listedMin)
		}
	}
}

// TestGridStressThreads: bit-identical results for 1, 2 and 3 threads,
// with classes or soft labels, unlabelled rows and an exact row.
func TestGridStressThreads(t *testing.T) {
	for _, labels := range []string{"hard+unlabelled", "soft+unlabelled"} {
		tc := gridCase{"threads", 3000, 30, 2, labels, 0.5, "isolated", false}
		sp, y := gridFixture(t, tc, 9)
		checkThreadsBitIdentical(t, len(y), func(grad []float64, threads int) (float64, error) {
			var gs GridStress
			return gs.Stress(context.Background(), grad, y, tc.dims, sp, threads)
		})
	}
}

// TestGridStressNonFinite: a coordinate that is not finite, or an extent
// that overflows, gives stress NaN and a NaN gradient; a grid over MaxNodes
// gives ErrGridTooLarge (and Fits says so); cancellation gives ctx.Err().
func TestGridStressNonFinite(t *testing.T) {
	tc := gridCase{"non-finite", 200, 20, 2, "hard", 0.5, "converged", false}
	sp, y := gridFixture(t, tc, 6)
	ctx := context.Background()
	for _, bad := range []struct {
		name string
		v    [2]float64
	}{{"NaN", [2]float64{math.NaN(), 0}}, {"+Inf", [2]float64{0, math.Inf(1)}}, {"extent overflow", [2]float64{1.5e308, 0}}} {
		yy := append([]float64(nil), y...)
		yy[2*7], yy[2*7+1] = bad.v[0], bad.v[1]
		if bad.name == "extent overflow" {
			yy[2*8] = -1.5e308
		}
		var gs GridStress
		g := make([]float64, len(y))
		s, err := gs.Stress(ctx, g, yy, 2, sp, 1)
		if err != nil || !math.IsNaN(s) || !math.IsNaN(g[0]) {
			t.Errorf("%s: stress %v, grad[0] %v, err %v; want NaN, NaN, nil", bad.name, s, g[0], err)
		}
		if gs.Fits(yy, tc.n, 2, sp.Scale) {
			t.Errorf("%s: Fits reports true", bad.name)
		}
	}
	small := GridStress{MaxNodes: 100}
	if small.Fits(y, tc.n, 2, sp.Scale) {
		t.Errorf("MaxNodes 100: Fits reports true")
	}
	if _, err := small.Stress(ctx, make([]float64, len(y)), y, 2, sp, 1); !errors.Is(err, ErrGridTooLarge) {
		t.Errorf("MaxNodes 100: err = %v, want ErrGridTooLarge", err)
	}
	var gs GridStress
	if !gs.Fits(y, tc.n, 2, sp.Scale) {
		t.Errorf("default MaxNodes: Fits reports false")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := gs.Stress(cctx, nil, y, 2, sp, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// TestGridSupports: dims other than 1 and 2, and labels of the wrong
// length, are not supported, and Stress panics on them; hard, soft and
// mixed labels are.
func TestGridSupports(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	hard := nervSparseOnly(t, rng, 50, 10, 3, 4, "hard")
	soft := nervSparseOnly(t, rng, 50, 10, 3, 4, "soft")
	mixed := nervSparseOnly(t, rng, 50, 10, 3, 4, "hard")
	mixed.Soft[3*mixed.C], mixed.Soft[3*mixed.C+1], mixed.Soft[3*mixed.C+2] = 0.5, 0.5, 0
	unlab := nervSparseOnly(t, rng, 50, 10, 3, 4, "hard")
	unlab.Soft[0], unlab.Soft[1], unlab.Soft[2] = math.NaN(), math.NaN(), math.NaN()
	softNoAlpha := *soft
	softNoAlpha.Alpha = 0
	none := *hard
	none.Soft = nil
	short := *soft
	short.Soft = short.Soft[:len(short.Soft)-1]
	for _, c := range []struct {
		name string
		in   *SparseInput
		dims int
		want bool
	}{
		{"hard 2-D", hard, 2, true}, {"hard 1-D", hard, 1, true}, {"none 2-D", &none, 2, true},
		{"unlabelled rows", unlab, 2, true}, {"soft α=0", &softNoAlpha, 2, true},
		{"soft", soft, 2, true}, {"one soft row", mixed, 2, true}, {"soft 3-D", soft, 3, false},
		{"soft, short", &short, 2, false},
		{"hard 3-D", hard, 3, false}, {"none 3-D", &none, 3, false}, {"none 0-D", &none, 0, false},
	} {
		if got := GridSupports(c.in, c.dims); got != c.want {
			t.Errorf("%s: GridSupports = %v, want %v", c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		name string
		in   *SparseInput
		dims int
	}{{"soft, short", &short, 2}, {"hard 3-D", hard, 3}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Stress did not panic", c.name)
				}
			}()
			var gs GridStress
			gs.Stress(context.Background(), nil, nervRandomY(rng, 50, c.dims), c.dims, c.in, 1)
		}()
	}
}

// islandCase is a map of far-apart clusters for the island tests.
type islandCase struct {
	name             string
	clusters, per, k int
	labels           string  // "cluster" (one class per cluster), "mixed" (3 classes, a quarter unlabelled) or "none"
	gap              float64 // least distance between cluster centres, in widths
	moved, single    int     // points put in another cluster's island, points alone far from all
	alpha            float64
}

// gridIslands builds the case's input and map. The input is the clusters
// as 4-D Gaussians 30 standard deviations apart, so that a point's listed
// neighbours lie in its own cluster (perplexity K/3); the map places each
// cluster converged (a 2-D Gaussian of standard deviation √(per/28)
// widths, as gridFixture) around its centre, the centres at random at
// least gap widths apart. The first moved points sit in the next
// cluster's island (their listed neighbours in another island), the next
// single points at least gap widths beyond the map, each alone.
func gridIslands(t testing.TB, tc islandCase, seed uint64) (*SparseInput, []float64) {
	rng := rand.New(rand.NewPCG(seed, uint64(tc.clusters)))
	const inDims = 4
	n, k := tc.clusters*tc.per, tc.k
	x := make([]float64, n*inDims)
	for c := range tc.clusters {
		var centre [inDims]float64
		for d := range centre {
			centre[d] = 30 * rng.NormFloat64()
		}
		for i := c * tc.per; i < (c+1)*tc.per; i++ {
			for d := range inDims {
				x[i*inDims+d] = centre[d] + rng.NormFloat64()
			}
		}
	}
	idx := make([]int32, n*k)
	beta := make([]float64, n*k)
	if err := kernels.KNN(context.Background(), idx, beta, x, n, inDims, k, 0); err != nil {
		t.Fatal(err)
	}
	prec := make([]float64, n)
	if err := kernels.PerplexitySparse(context.Background(), prec, beta, beta, n, k, float64(k)/3, 0); err != nil {
		t.Fatal(err)
	}
	var scale float64
	for _, b := range prec {
		scale += 1 / math.Sqrt(2*b)
	}
	scale /= float64(n)
	sp := &SparseInput{N: n, K: k, Idx: idx, Beta: beta, Alpha: tc.alpha, Gamma: 0.3, Scale: scale}
	switch tc.labels {
	case "cluster":
		sp.C = tc.clusters
		sp.Soft = make([]float64, n*sp.C)
		for i := range n {
			sp.Soft[i*sp.C+i/tc.per] = 1
		}
	case "mixed":
		sp.C = 3
		sp.Soft, _ = nervTestLabels(rng, n, 3, "hard")
		for i := 0; i < n; i += 4 {
			for c := range 3 {
				sp.Soft[i*3+c] = math.NaN()
			}
		}
	}
	side := tc.gap * math.Sqrt(float64(tc.clusters)) * 1.5
	centres := make([][2]float64, 0, tc.clusters)
	for len(centres) < tc.clusters {
		c := [2]float64{side * rng.Float64(), side * rng.Float64()}
		ok := true
		for _, o := range centres {
			ok = ok && math.Hypot(c[0]-o[0], c[1]-o[1]) >= tc.gap
		}
		if ok {
			centres = append(centres, c)
		}
	}
	sd := math.Sqrt(float64(tc.per) / 28)
	y := make([]float64, 2*n)
	for i := range n {
		c := i / tc.per
		if i%tc.per < tc.moved {
			c = (c + 1) % tc.clusters
		}
		for d := range 2 {
			y[2*i+d] = (centres[c][d] + sd*rng.NormFloat64()) * scale
		}
	}
	for q := range tc.single {
		i := tc.per/2 + q*tc.per // away from the moved points
		y[2*i], y[2*i+1] = (side+tc.gap*float64(q+1))*scale, -tc.gap*scale
	}
	return sp, y
}

// gridIslandsWithGrid returns the number of gs's islands whose points get
// grid sums.
func gridIslandsWithGrid(gs *GridStress) int {
	c := 0
	for _, is := range gs.islands {
		if is.grid {
			c++
		}
	}
	return c
}

// gridIslandOf returns point i's island in gs's last layout.
func gridIslandOf(gs *GridStress, i int) int32 { return gs.parent[gs.cellOf[i]] }

// gridBoxNodes returns the nodes of one grid over the bounding box of y
// (with its windows' halo), as the grid had before the islands.
func gridBoxNodes(gs *GridStress, y []float64, n, dims int, scale float64) float64 {
	nodes := 1.0
	for c := range dims {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range n {
			lo, hi = min(lo, y[i*dims+c]/scale), max(hi, y[i*dims+c]/scale)
		}
		nodes *= (hi-lo)/gs.plan.delta + float64(2*gs.plan.half)
	}
	return nodes
}

// TestGridStressIslands checks maps made of far-apart clusters (ClassNeRV
// maps, a class per island): stress and gradient against BH.Stress with
// tol = 0 within TestGridStressAgainstBH's bounds; grid sums for every
// island of two or more points and no tile for a point alone (a map of
// lone points has no grid: every row is exact); nodes below 5 % of a grid
// over the map's bounding box and a measured bound per point; a MaxNodes
// below the box but at the tiles' nodes gives no ErrGridTooLarge and the
// same result (and one below the tiles' does); bit-identical results for
// 1 to 3 threads.
func TestGridStressIslands(t *testing.T) {
	cases := []islandCase{
		{"12 islands, a class each", 12, 400, 30, "cluster", 200, 0, 0, 1},
		{"12 islands, mixed classes and unlabelled rows", 12, 400, 30, "mixed", 200, 0, 0, 0.5},
		{"12 islands, no labels, moved points and 2 lone points", 12, 400, 30, "none", 200, 3, 2, 0},
		{"5 islands 20 widths apart, a class each, moved points", 5, 400, 30, "cluster", 20, 5, 0, 1},
		{"40 points, each alone", 40, 1, 8, "mixed", 200, 0, 0, 0.5},
	}
	ctx := context.Background()
	for ci, tc := range cases {
		sp, y := gridIslands(t, tc, uint64(ci)+60)
		n := sp.N
		var gs GridStress
		s, g, es, eg := gridAgainstBH(t, tc.name, &gs, sp, y)
		box := gridBoxNodes(&gs, y, n, 2, sp.Scale)
		nodes := gs.plan.nodes
		t.Logf("%s: stress rel err %.2e, grad rel err %.2e; %d islands, %d with grid sums, %d tiles, %d nodes (%.2f per point, %.2g%% of the box's %.3g), %d exact rows",
			tc.name, es, eg, len(gs.islands), gridIslandsWithGrid(&gs), len(gs.plan.tileKey), nodes, float64(nodes)/float64(n), 100*float64(nodes)/box, box, gridCount(gs.exact[:n]))
		if !(es <= 1e-6) || !(eg <= 2e-4) {
			t.Errorf("%s: stress rel err %g, grad rel err %g, want ≤ 1e-6 and ≤ 2e-4", tc.name, es, eg)
		}
		if tc.gap >= 100 {
			grids := tc.clusters
			if tc.per == 1 {
				grids = 0 // every row exact, no grid
			}
			if len(gs.islands) != tc.clusters+tc.single || gridIslandsWithGrid(&gs) != grids {
				t.Errorf("%s: %d islands and %d with grid sums, want %d and %d", tc.name, len(gs.islands), gridIslandsWithGrid(&gs), tc.clusters+tc.single, grids)
			}
			// Measured: 11.3 to 12.3 nodes per point (islands of 400
			// points: their tiles are mostly the windows' halo).
			if per := float64(nodes) / float64(n); float64(nodes) > 0.05*box || (tc.per > 1 && per > 14) {
				t.Errorf("%s: %d nodes, %.1f per point, %.2g%% of the bounding box's %.3g, want ≤ 14 and < 5%%", tc.name, nodes, per, 100*float64(nodes)/box, box)
			}
		}
		for q := range tc.single {
			if i := tc.per/2 + q*tc.per; gs.tile[i] >= 0 || !gs.exact[gs.pos[i]] {
				t.Errorf("%s: lone point %d has tile %d, exact %v; want none, an exact row", tc.name, i, gs.tile[i], gs.exact[gs.pos[i]])
			}
		}
		if nodes == 0 {
			if gridCount(gs.exact[:n]) != n {
				t.Errorf("%s: no grid, but %d of %d rows exact", tc.name, gridCount(gs.exact[:n]), n)
			}
			continue
		}
		// MaxNodes between the tiles' nodes and the box: no fallback, the
		// same result; one below the tiles': ErrGridTooLarge.
		tight := GridStress{MaxNodes: nodes}
		if float64(nodes) >= box {
			t.Fatalf("%s: tiles' nodes %d not below the box %.3g", tc.name, nodes, box)
		}
		g2 := make([]float64, len(y))
		s2, err := tight.Stress(ctx, g2, y, 2, sp, 1)
		if err != nil || !tight.Fits(y, n, 2, sp.Scale) {
			t.Errorf("%s: MaxNodes %d (box %.3g): err %v, Fits %v", tc.name, nodes, box, err, tight.Fits(y, n, 2, sp.Scale))
		} else if s2 != s || maxAbsDiff(g2, g) != 0 {
			t.Errorf("%s: MaxNodes %d, 1 thread: stress %v, want %v bit for bit (grad max diff %g)", tc.name, nodes, s2, s, maxAbsDiff(g2, g))
		}
		tight.MaxNodes = nodes - 1
		if _, err := tight.Stress(ctx, g2, y, 2, sp, 1); !errors.Is(err, ErrGridTooLarge) || tight.Fits(y, n, 2, sp.Scale) {
			t.Errorf("%s: MaxNodes %d: err %v, want ErrGridTooLarge", tc.name, nodes-1, err)
		}
		if ci == 2 {
			checkThreadsBitIdentical(t, len(y), func(grad []float64, threads int) (float64, error) {
				return gs.Stress(ctx, grad, y, 2, sp, threads)
			})
		}
	}
}

// gridBridged moves points of gridIslands' map onto chains between the
// clusters: each cluster c > 0 lends its first points to a chain from its
// centre (its points' mean) to that of the nearest of the clusters before
// it, spacing widths apart, each jittered by a tenth of a width, so that
// the map is one island whose bounding box is mostly empty (ClassNeRV's
// blobs joined by stragglers). It returns the chain points' count.
func gridBridged(tc islandCase, y []float64, scale, spacing float64, seed uint64) int {
	rng := rand.New(rand.NewPCG(seed, 7))
	centres := make([][2]float64, tc.clusters)
	for c := range tc.clusters {
		for i := c * tc.per; i < (c+1)*tc.per; i++ {
			centres[c][0] += y[2*i] / float64(tc.per)
			centres[c][1] += y[2*i+1] / float64(tc.per)
		}
	}
	moved := 0
	for c := 1; c < tc.clusters; c++ {
		a, b, dist := centres[c], centres[0], math.Inf(1)
		for _, o := range centres[:c] {
			if d := math.Hypot(o[0]-a[0], o[1]-a[1]); d < dist {
				b, dist = o, d
			}
		}
		steps := int(math.Ceil(dist / (spacing * scale)))
		for j := 1; j < steps; j++ {
			i := c*tc.per + j - 1
			f := float64(j) / float64(steps)
			for d := range 2 {
				y[2*i+d] = a[d] + f*(b[d]-a[d]) + 0.1*scale*rng.NormFloat64()
			}
			moved++
		}
	}
	return moved
}

// TestGridStressBridged checks maps of far-apart clusters joined into one
// island by chains of points (a few widths apart, in any direction): the
// island's bounding box is mostly empty, the tiles follow the clusters
// and the chains (nodes per point and share of the box within measured
// bounds), and stress and gradient match BH.Stress with tol = 0 within
// TestGridStressAgainstBH's bounds.
func TestGridStressBridged(t *testing.T) {
	cases := []struct {
		islandCase
		spacing float64
	}{
		{islandCase{"8 clusters, a class each, chains 2.5 widths apart", 8, 600, 30, "cluster", 150, 0, 0, 1}, 2.5},
		{islandCase{"8 clusters, mixed classes, chains 6 widths apart", 8, 600, 30, "mixed", 150, 0, 0, 0.5}, 6},
		{islandCase{"8 clusters, no labels, chains 2.5 widths apart", 8, 600, 30, "none", 150, 0, 0, 0}, 2.5},
	}
	ctx := context.Background()
	for ci, tc := range cases {
		sp, y := gridIslands(t, tc.islandCase, uint64(ci)+90)
		chain := gridBridged(tc.islandCase, y, sp.Scale, tc.spacing, uint64(ci))
		n := sp.N
		var gs GridStress
		_, _, es, eg := gridAgainstBH(t, tc.name, &gs, sp, y)
		box := gridBoxNodes(&gs, y, n, 2, sp.Scale)
		nodes := gs.plan.nodes
		t.Logf("%s: %d chain points; stress rel err %.2e, grad rel err %.2e; %d islands, %d tiles, %d nodes (%.2f per point, %.2g%% of the box's %.3g), %d exact rows",
			tc.name, chain, es, eg, len(gs.islands), len(gs.plan.tileKey), nodes, float64(nodes)/float64(n), 100*float64(nodes)/box, box, gridCount(gs.exact[:n]))
		if !(es <= 1e-6) || !(eg <= 2e-4) {
			t.Errorf("%s: stress rel err %g, grad rel err %g, want ≤ 1e-6 and ≤ 2e-4", tc.name, es, eg)
		}
		if len(gs.islands) != 1 || gridIslandsWithGrid(&gs) != 1 {
			t.Errorf("%s: %d islands, %d with grid sums, want one bridged island with grid sums", tc.name, len(gs.islands), gridIslandsWithGrid(&gs))
		}
		// Measured: 30 to 37 nodes per point (most of them the chains'),
		// 14 to 16 % of the box.
		if per := float64(nodes) / float64(n); per > 40 || float64(nodes) > 0.2*box {
			t.Errorf("%s: %.1f nodes per point, %.2g%% of the box, want ≤ 40 and ≤ 20%%", tc.name, per, 100*float64(nodes)/box)
		}
		if ci == 1 {
			checkThreadsBitIdentical(t, len(y), func(grad []float64, threads int) (float64, error) {
				return gs.Stress(ctx, grad, y, 2, sp, threads)
			})
		}
	}
}

// TestGridTilesConvolution checks pass 1's convolution on the tiles
// against a dense one over their bounding box: points in a blob and on
// two diagonal chains (a few widths apart, so that tiles meet at their
// corners), in two groups; for each group's selection (and all tiles),
// unit-free random charges on the tiles its points cover and NaN on every
// other node of the charge and row-convolved grids (a node outside the
// selection must not be read, and the selection's other tiles are
// cleared), the fields Φ0 and ΦA on every covered tile in the selection
// match the dense fields to 1e-12 of their largest, and the dense fields
// are 0 on the covered tiles outside it.
func TestGridTilesConvolution(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 300
	y := make([]float64, 2*n)
	group := make([]int32, n)
	for i := range n {
		switch i % 3 {
		case 0: // the blob
			y[2*i], y[2*i+1] = 3*rng.NormFloat64(), 3*rng.NormFloat64()
			group[i] = int32(rng.IntN(2))
		case 1: // a chain up and right
			v := 4 * float64(i/3)
			y[2*i], y[2*i+1] = 10+v/math.Sqrt2, 10+v/math.Sqrt2
		case 2: // a chain up and left, the other group
			v := 3.3 * float64(i/3)
			y[2*i], y[2*i+1] = -10-v*0.8, 10+v*0.6
			group[i] = 1
		}
	}
	g := &GridStress{}
	p := &g.plan
	p.setTol(DefaultGridTol)
	g.layout(y, n, 2, 1, math.MaxInt)
	for k := range g.islands {
		g.islands[k].grid = true
	}
	g.findTiles(n)
	g.setTiles(n)
	g.group, p.nGroup = group, 2
	g.sortPoints()
	e := &gridEval{g: g, p: p, y: y, inv: 1, threads: 2}
	e.setup()
	// The tiles' bounding box, and the tiles each group's points cover.
	ts, tap := p.ts[0], len(p.k0)-1
	lo, hi := p.tileKey[0], p.tileKey[0]
	for _, k := range p.tileKey {
		lo, hi = [2]int{min(lo[0], k[0]), min(lo[1], k[1])}, [2]int{max(hi[0], k[0]), max(hi[1], k[1])}
	}
	w, h := (hi[0]-lo[0]+1)*ts, (hi[1]-lo[1]+1)*ts
	covers := make([]map[int]bool, 3) // groups 0, 1, then all
	for k := range covers {
		covers[k] = map[int]bool{}
	}
	corners := len(p.tileKey)
	for i := range n {
		key, cross := p.tileAt([2]int{g.first[2*i], g.first[2*i+1]})
		for b, o := range [4][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
			if b > 0 && cross&(1<<(b-1)) == 0 {
				continue
			}
			tile := gridTileIndex(p, [2]int{key[0] + o[0], key[1] + o[1]})
			covers[group[i]][tile], covers[2][tile] = true, true
		}
	}
	corners -= len(covers[2])
	t.Logf("%d tiles of %d nodes, %d of them corners; box %d×%d nodes", len(p.tileKey), ts*ts, corners, w, h)
	if corners == 0 {
		t.Fatalf("no corner tiles: the map does not test them")
	}
	node := func(tile, c, r int) int { return p.tileNode[tile] + r*p.tileRow[tile] + c }
	dense := func(tile, c, r int) int {
		k := p.tileKey[tile]
		return ((k[1]-lo[1])*ts+r)*w + (k[0]-lo[0])*ts + c
	}
	for k := -1; k < 2; k++ {
		e.selectGroup(&g.part, k)
		cov := covers[2]
		if k >= 0 {
			cov = covers[k]
		}
		q := e.buf(gQ)
		for _, b := range []int{gQ, gX0, gXA, gPhi0, gPhiA} {
			buf := e.buf(b)
			for j := range buf {
				buf[j] = math.NaN()
			}
		}
		qd := make([]float64, w*h)
		inSel := map[int]bool{}
		for _, sg := range g.sel.segs {
			for tile := int(sg.t0); tile < int(sg.t1); tile++ {
				inSel[tile] = true
				for r := range ts {
					for c := range ts {
						v := 0.0
						if cov[tile] {
							v = rng.Float64()
						}
						q[node(tile, c, r)], qd[dense(tile, c, r)] = v, v
					}
				}
			}
		}
		if err := e.convolve1(context.Background(), []gridTerm{{1, q}}); err != nil {
			t.Fatal(err)
		}
		// The dense fields: along the rows, then across.
		conv := func(src, k []float64, step, n0 int) []float64 {
			out := make([]float64, len(src))
			for j := range src {
				pos := (j / step) % n0
				for o := -tap; o <= tap; o++ {
					if pos+o >= 0 && pos+o < n0 {
						out[j] += k[abs(o)] * src[j+o*step]
					}
				}
			}
			return out
		}
		x0, xa := conv(qd, p.k0, 1, w), conv(qd, p.kA, 1, w)
		f0 := conv(x0, p.k0, w, h)
		fa, fb := conv(xa, p.k0, w, h), conv(x0, p.kA, w, h)
		var top float64
		for j := range f0 {
			fa[j] += fb[j]
			top = max(top, math.Abs(f0[j]), math.Abs(fa[j]))
		}
		phi0, phiA := e.buf(gPhi0), e.buf(gPhiA)
		bad := 0
		for tile := range covers[2] {
			for r := range ts {
				for c := range ts {
					d0, da := f0[dense(tile, c, r)], fa[dense(tile, c, r)]
					if !inSel[tile] {
						if d0 != 0 || da != 0 {
							bad++
						}
						continue
					}
					v0, va := phi0[node(tile, c, r)], phiA[node(tile, c, r)]
					if !(math.Abs(v0-d0) <= 1e-12*top && math.Abs(va-da) <= 1e-12*top) {
						bad++
					}
				}
			}
		}
		if bad > 0 {
			t.Errorf("selection %d (%d tiles): %d covered nodes differ from the dense fields", k, len(inSel), bad)
		}
	}
}

// gridTileIndex returns the index of tile key in p, or the number of
// tiles.
func gridTileIndex(p *gridPlan, key [2]int) int {
	keys := p.tileKey
	j := search(len(keys), func(j int) bool {
		return keys[j][1] > key[1] || (keys[j][1] == key[1] && keys[j][0] >= key[0])
	})
	if j < len(keys) && keys[j] == key {
		return j
	}
	return len(keys)
}

func abs(o int) int {
	if o < 0 {
		return -o
	}
	return o
}

// TestGridStressIslandsGradient checks the gradient against central
// differences where listed pairs cross islands: points moved into another
// cluster's island (their listed neighbours in their own), their
// neighbours, and points alone far from all (exact rows without a tile,
// every listed neighbour in another island).
func TestGridStressIslandsGradient(t *testing.T) {
	cases := []islandCase{
		{"moved points, a class each", 4, 150, 20, "cluster", 200, 3, 0, 1},
		{"moved and lone points, mixed classes", 4, 150, 20, "mixed", 200, 2, 2, 0.5},
		{"moved and lone points, no labels", 4, 150, 20, "none", 200, 2, 2, 0},
	}
	ctx := context.Background()
	for ci, tc := range cases {
		sp, y := gridIslands(t, tc, uint64(ci)+80)
		var gs GridStress
		g := make([]float64, len(y))
		if _, err := gs.Stress(ctx, g, y, 2, sp, 1); err != nil {
			t.Fatal(err)
		}
		var pts []int
		cross := 0
		for c := range tc.clusters {
			for m := range tc.moved {
				i := c*tc.per + m
				pts = append(pts, i, int(sp.Idx[i*sp.K]))
			}
		}
		for q := range tc.single {
			pts = append(pts, tc.per/2+q*tc.per)
		}
		for _, i := range pts {
			for _, j := range sp.Idx[i*sp.K : (i+1)*sp.K] {
				if gs.tile[i] < 0 || gridIslandOf(&gs, int(j)) != gridIslandOf(&gs, i) {
					cross++
				}
			}
		}
		if cross == 0 {
			t.Fatalf("%s: no listed pair crosses islands", tc.name)
		}
		// The recall terms of the pairs across islands make ζ large (β·a_ij
		// with a_ij ~ 2·10⁴), so the difference sums the rows' own
		// differences: the rows that do not move cancel exactly, and ζ's
		// rounding does not swamp it.
		step := 1e-5 * sp.Scale
		rows := make([]float64, sp.N)
		for _, i := range pts {
			for d := range 2 {
				q := 2*i + d
				yy := append([]float64(nil), y...)
				yy[q] = y[q] + step
				if _, err := gs.Stress(ctx, nil, yy, 2, sp, 1); err != nil {
					t.Fatal(err)
				}
				copy(rows, gs.rows[:sp.N])
				yy[q] = y[q] - step
				if _, err := gs.Stress(ctx, nil, yy, 2, sp, 1); err != nil {
					t.Fatal(err)
				}
				var diff float64
				for j, v := range rows {
					diff += v - gs.rows[j]
				}
				fd := diff / float64(sp.N) / (2 * step)
				if math.Abs(fd-g[q]) > 1e-6*max(math.Abs(fd), 1e-2*maxAbs(g)) {
					t.Errorf("%s: grad[%d] (point %d, tile %d) = %.10g, central difference %.10g", tc.name, q, i, gs.tile[i], g[q], fd)
				}
			}
		}
		t.Logf("%s: %d points checked, %d listed pairs across islands", tc.name, len(pts), cross)
	}
}

// BenchmarkNeRVGrid is BenchmarkNeRVCutoff's evaluation (benchSparse: N =
// 5,000 and 20,000 at about a converged map's density, K = 96, hard
// labels) with GridStress at its default Tol.
func BenchmarkNeRVGrid(b *testing.B) {
	var gs GridStress
	benchSparse(b, func(g, y []float64, sp *SparseInput) error {
		_, err := gs.Stress(context.Background(), g, y, 2, sp, 0)
		return err
	})
}

// BenchmarkNeRVGridLarge compares the grid with the cut-off (default
// tolerances) at N = 100,000 on benchSparse's kind of map.
func BenchmarkNeRVGridLarge(b *testing.B) {
	const n = 100000
	rng := rand.New(rand.NewPCG(1, 2))
	sp := nervSparseOnly(b, rng, n, 96, 3, 32, "hard")
	y := nervRandomY(rng, n, 2)
	for i := range y {
		y[i] *= math.Sqrt(float64(n)/28) * sp.Scale
	}
	g := make([]float64, n*2)
	var gs GridStress
	var co CutoffStress
	b.Run(fmt.Sprint("grid/", n), func(b *testing.B) {
		for b.Loop() {
			if _, err := gs.Stress(context.Background(), g, y, 2, sp, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprint("cutoff/", n), func(b *testing.B) {
		for b.Loop() {
			if _, err := co.Stress(context.Background(), g, y, 2, sp, DefaultCutoffTol, DefaultBHTol, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkNeRVGridIslands compares the grid with the cut-off (default
// tolerances) at N = 100,000 on a ClassNeRV-like map: 30 classes, each a
// converged island, their centres at least 200 widths apart (a bounding
// box of about 1,700 widths a side, 10⁷ nodes for one grid over it); and
// times the islands' layout alone.
func BenchmarkNeRVGridIslands(b *testing.B) {
	tc := islandCase{"bench", 30, 3334, 96, "cluster", 200, 0, 0, 1}
	sp, y := gridIslands(b, tc, 1)
	SparseLogBeta(sp) // as Fit does
	n := sp.N
	g := make([]float64, n*2)
	var gs GridStress
	var co CutoffStress
	ctx := context.Background()
	if _, err := gs.Stress(ctx, g, y, 2, sp, 0); err != nil {
		b.Fatal(err)
	}
	b.Logf("N = %d: %d islands, %d nodes (%.2f per point; the bounding box %.3g)", n, len(gs.islands), gs.plan.nodes, float64(gs.plan.nodes)/float64(n), gridBoxNodes(&gs, y, n, 2, sp.Scale))
	b.Run(fmt.Sprint("grid/", n), func(b *testing.B) {
		for b.Loop() {
			if _, err := gs.Stress(ctx, g, y, 2, sp, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprint("layout/", n), func(b *testing.B) {
		for b.Loop() {
			gs.layout(y, n, 2, sp.Scale, math.MaxInt)
		}
	})
	b.Run(fmt.Sprint("cutoff/", n), func(b *testing.B) {
		for b.Loop() {
			if _, err := co.Stress(ctx, g, y, 2, sp, DefaultCutoffTol, DefaultBHTol, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkNeRVGridBridged is BenchmarkNeRVGridIslands' map with its
// islands joined into one by chains of points 2.5 widths apart
// (gridBridged): a grid over its bounding box would take 9.4·10⁶ nodes,
// far beyond the default MaxNodes; its tiles follow the islands and the
// chains.
func BenchmarkNeRVGridBridged(b *testing.B) {
	tc := islandCase{"bench", 30, 3334, 96, "cluster", 200, 0, 0, 1}
	sp, y := gridIslands(b, tc, 1)
	SparseLogBeta(sp)
	chain := gridBridged(tc, y, sp.Scale, 2.5, 1)
	n := sp.N
	g := make([]float64, n*2)
	var gs GridStress
	ctx := context.Background()
	if _, err := gs.Stress(ctx, g, y, 2, sp, 0); err != nil {
		b.Fatal(err)
	}
	b.Logf("N = %d, %d on chains: %d islands, %d nodes (%.2f per point; the bounding box %.3g)", n, chain, len(gs.islands), gs.plan.nodes, float64(gs.plan.nodes)/float64(n), gridBoxNodes(&gs, y, n, 2, sp.Scale))
	for b.Loop() {
		if _, err := gs.Stress(ctx, g, y, 2, sp, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleGridStress_Stress() {
	// The three points of ExampleBH_Stress: the grid gives the exact
	// stress to its tolerance.
	in := &SparseInput{
		N: 3, K: 2,
		Idx:  []int32{1, 2, 0, 2, 1, 0},
		Beta: []float64{0.8, 0.2, 0.5, 0.5, 0.8, 0.2},
		C:    2, Soft: []float64{1, 0, 1, 0, 0, 1},
		Alpha: 1, Gamma: 0.5,
		Scale: 1,
	}
	y := []float64{0, 1, 2}
	var gs GridStress // reuse across calls: it keeps its grids and scratch
	if !GridSupports(in, 1) || !gs.Fits(y, in.N, 1, in.Scale) {
		panic("use CutoffStress")
	}
	stress, err := gs.Stress(context.Background(), nil, y, 1, in, 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("stress %.4f\n", stress)
	// Output:
	// stress 0.0007
}

// BenchmarkGridConvolution times pass 1's convolution of one charge grid
// (fields K and K_A, side×side nodes, default Tol, one thread): direct
// separable convolutions against a zero-padded real FFT (kernels.RealFFT2:
// one forward transform, two products with kept kernel spectra, two
// inverses), after checking that both give the same fields.
func BenchmarkGridConvolution(b *testing.B) {
	ctx := context.Background()
	for _, side := range []int{256, 1024} {
		g := &GridStress{}
		p := &g.plan
		p.setTol(DefaultGridTol)
		p.dims = 2
		p.ax[0], p.ax[1] = gridAxis{coord: 0}, gridAxis{coord: 1}
		// side×side nodes in whole tiles: one run per tile row, its rows
		// those of the square.
		ts := p.tileSide()
		side = (side + ts - 1) / ts * ts
		p.ts = [2]int{ts, ts}
		p.tileKey = p.tileKey[:0]
		for ty := range side / ts {
			for tx := range side / ts {
				p.tileKey = append(p.tileKey, [2]int{tx, ty})
			}
		}
		p.setTiles()
		e := &gridEval{g: g, p: p, threads: 1}
		e.setup()
		e.selectGroup(&g.part, -1)
		rng := rand.New(rand.NewPCG(uint64(side), 1))
		q := e.buf(gQ)
		for k := range q {
			q[k] = rng.Float64()
		}
		fft := newGridFFT(p, side)
		if err := e.convolve1(ctx, []gridTerm{{1, q}}); err != nil {
			b.Fatal(err)
		}
		phi0, phiA := e.buf(gPhi0), e.buf(gPhiA)
		f0, fA := fft.convolve(ctx, q)
		if d := maxAbsDiff(f0, phi0) + maxAbsDiff(fA, phiA); d > 1e-9*maxAbs(phi0) {
			b.Fatalf("side %d: FFT and direct fields differ by %g", side, d)
		}
		b.Run(fmt.Sprintf("direct/%d", side), func(b *testing.B) {
			for b.Loop() {
				if err := e.convolve1(ctx, []gridTerm{{1, q}}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("fft/%d", side), func(b *testing.B) {
			for b.Loop() {
				fft.convolve(ctx, q)
			}
		})
	}
}

// gridFFT is pass 1's convolution by FFT, for BenchmarkGridConvolution.
type gridFFT struct {
	t            kernels.RealFFT2
	side, p      int
	spec0, specA []complex128
	qs, work     []complex128
	out0, outA   []float64
}

func newGridFFT(p *gridPlan, side int) *gridFFT {
	f := &gridFFT{side: side}
	t := len(p.k0) - 1
	f.p = kernels.FFTSize(side + t) // no output node wraps onto another
	f.t.Setup(f.p, f.p, 1)
	_, _, h0 := f.t.Size()
	size := f.p * h0
	f.qs, f.work = make([]complex128, size), make([]complex128, size)
	f.out0, f.outA = make([]float64, side*side), make([]float64, side*side)
	tap := func(k []float64, i int) float64 { // k at the circular offset i
		if i > f.p/2 {
			i = f.p - i
		}
		if i > t {
			return 0
		}
		return k[i]
	}
	scale := 1 / float64(f.p*f.p) // the inverse is unnormalised
	for _, kind := range []int{0, 1} {
		spec := make([]complex128, size)
		f.t.Forward(context.Background(), spec, func(r int, row []float64) bool {
			for c := range row {
				v := tap(p.k0, c) * tap(p.k0, r)
				if kind == 1 {
					v = tap(p.kA, c)*tap(p.k0, r) + tap(p.k0, c)*tap(p.kA, r)
				}
				row[c] = v * scale
			}
			return true
		})
		if kind == 0 {
			f.spec0 = spec
		} else {
			f.specA = spec
		}
	}
	return f
}

func (f *gridFFT) convolve(ctx context.Context, q []float64) (phi0, phiA []float64) {
	side := f.side
	f.t.Forward(ctx, f.qs, func(r int, row []float64) bool {
		if r >= side {
			return false
		}
		copy(row, q[r*side:(r+1)*side])
		return true
	})
	for k, spec := range [2][]complex128{f.spec0, f.specA} {
		out := [2][]float64{f.out0, f.outA}[k]
		for i, v := range spec {
			f.work[i] = v * f.qs[i]
		}
		f.t.Inverse(ctx, f.work, side, func(r int, row []float64) {
			copy(out[r*side:(r+1)*side], row[:side])
		})
	}
	return f.out0, f.outA
}

// TestGridStressSparseIsland: points in a chain 2.5 widths apart along the
// diagonal make one island whose grid over its bounding box would cost far
// more than its exact rows (gridIslandPairs); it gets none, every row is exact,
// and the result stays within TestGridStressAgainstBH's bounds. Half of
// them moved onto a dense cluster keep their grid sums.
func TestGridStressSparseIsland(t *testing.T) {
	tc := gridCase{"chain", 1000, 20, 2, "hard", 0.5, "converged", false}
	sp, y := gridFixture(t, tc, 9)
	ctx := context.Background()
	chain := make([]float64, len(y))
	for i := range tc.n {
		v := 2.5 * sp.Scale * float64(i) / math.Sqrt2
		chain[2*i], chain[2*i+1] = v, v
	}
	half := append([]float64(nil), chain...)
	copy(half[:tc.n], y[:tc.n]) // the first half of the points as in the converged map
	for _, c := range []struct {
		name  string
		y     []float64
		grids int
	}{{"chain", chain, 0}, {"half chain", half, 1}} {
		gb := make([]float64, len(y))
		sb, err := new(BH).Stress(ctx, gb, c.y, 2, sp, 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		var gs GridStress
		g := make([]float64, len(y))
		s, err := gs.Stress(ctx, g, c.y, 2, sp, 2)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		es, eg := math.Abs(s-sb)/math.Abs(sb), gradRelErr(g, gb)
		exact := gridCount(gs.exact[:tc.n])
		grids := gridIslandsWithGrid(&gs)
		t.Logf("%s: %d islands, %d with grid sums, %d nodes, %d exact rows; stress rel err %.2e, grad rel err %.2e", c.name, len(gs.islands), grids, gs.plan.nodes, exact, es, eg)
		if grids != c.grids || (c.grids == 0 && exact != tc.n) || !(es <= 1e-6) || !(eg <= 2e-4) {
			t.Errorf("%s: %d islands with grid sums (want %d), %d exact rows, stress rel err %g, grad rel err %g", c.name, grids, c.grids, exact, es, eg)
		}
	}
}

// gridAgainstBH evaluates y on gs and on BH.Stress with tol 0 (two threads
// each) and returns the grid's stress and gradient and their relative
// errors against BH's.
func gridAgainstBH(t *testing.T, name string, gs *GridStress, sp *SparseInput, y []float64) (s float64, g []float64, es, eg float64) {
	t.Helper()
	ctx := context.Background()
	gb := make([]float64, len(y))
	sb, err := new(BH).Stress(ctx, gb, y, 2, sp, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	g = make([]float64, len(y))
	if s, err = gs.Stress(ctx, g, y, 2, sp, 2); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s, g, math.Abs(s-sb) / math.Abs(sb), gradRelErr(g, gb)
}
