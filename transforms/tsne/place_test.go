package tsne

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/ordinate/ordinate/transforms/placement"

	"github.com/ordinate/ordinate/kernels"
)

// tsneNeighbours returns the k reference rows nearest to target in the map,
// ascending, with their squared distances times scale: a new row whose
// input neighbourhood mirrors that spot of the map.
func tsneNeighbours(ref placement.Reference, target []float64, k int, scale float64) ([]int32, []float64) {
	type nd struct {
		d float64
		j int32
	}
	all := make([]nd, ref.N)
	for j := range ref.N {
		var d2 float64
		for a, v := range ref.Row(int32(j)) {
			d2 += (target[a] - v) * (target[a] - v)
		}
		all[j] = nd{d2, int32(j)}
	}
	slices.SortFunc(all, func(a, b nd) int {
		if a.d != b.d {
			if a.d < b.d {
				return -1
			}
			return 1
		}
		return int(a.j - b.j)
	})
	nbr, d2 := make([]int32, k), make([]float64, k)
	for i := range k {
		nbr[i], d2[i] = all[i].j, scale*all[i].d
	}
	return nbr, d2
}

func newTestTSNE(t *testing.T, ref placement.Reference, o PlaceOptions) *Placer {
	t.Helper()
	p, err := NewPlacer(context.Background(), ref, o, 2)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTSNEGradient(t *testing.T) {
	for _, dims := range []int{1, 2, 3} {
		ref := fieldTestMap(1500, dims, 4, uint64(10+dims))
		p := newTestTSNE(t, ref, DefaultPlaceOptions())
		rng := rand.New(rand.NewPCG(uint64(dims), 3))
		r := make([]float64, dims)
		for trial := range 20 {
			target := ref.Row(int32(rng.IntN(ref.N)))
			nbr, d2 := tsneNeighbours(ref, target, p.k, 0.5+rng.Float64())
			pr := make([]float64, p.k)
			if _, err := kernels.PerplexityRow(pr, d2, -1, p.o.Perplexity, 0); err != nil {
				t.Fatal(err)
			}
			yn := p.gather(make([]float64, p.k*dims), nbr)
			y := slices.Clone(target)
			for a := range y {
				y[a] += 2 * rng.NormFloat64()
			}
			// Central differences of the exact objective.
			const step = 1e-5
			fd := make([]float64, dims)
			for a := range dims {
				yp, ym := slices.Clone(y), slices.Clone(y)
				yp[a] += step
				ym[a] -= step
				fd[a] = (p.cost(yp, nbr, pr, r, true) - p.cost(ym, nbr, pr, r, true)) / (2 * step)
			}
			g := make([]float64, dims)
			z := p.halfGrad(g, y, yn, pr, 1, r, true)
			rz := math.Sqrt(dotSelf(r)) / z
			for a := range dims {
				if math.Abs(2*g[a]-fd[a]) > 1e-6*(1+math.Abs(fd[a])) {
					t.Errorf("dims %d, trial %d, exact field: ∂C/∂y[%d] = %v, finite differences %v", dims, trial, a, 2*g[a], fd[a])
				}
			}
			if dims == 3 {
				continue // no grid
			}
			// The interpolated field: the error of R/Z is at most the
			// field's tolerances (field_test.go), doubled for ∂C/∂y.
			p.halfGrad(g, y, yn, pr, 1, r, false)
			tol := 2 * (7.5e-3 + 4e-3*rz)
			for a := range dims {
				if math.Abs(2*g[a]-fd[a]) > tol {
					t.Errorf("dims %d, trial %d, interpolated field: ∂C/∂y[%d] = %v, finite differences %v (tolerance %.1e)",
						dims, trial, a, 2*g[a], fd[a], tol)
				}
			}
			// Exaggeration α scales the attraction only.
			g2 := make([]float64, dims)
			p.halfGrad(g, y, yn, pr, 1, r, true)
			p.halfGrad(g2, y, yn, pr, 2.5, r, true)
			var attr []float64
			for a := range dims {
				attr = append(attr, (g2[a]-g[a])/1.5)
			}
			want := make([]float64, dims)
			for i, j := range nbr {
				yj := ref.Row(j)
				var s float64
				for a := range dims {
					s += (y[a] - yj[a]) * (y[a] - yj[a])
				}
				for a := range dims {
					want[a] += pr[i] / (1 + s) * (y[a] - yj[a])
				}
			}
			for a := range dims {
				if math.Abs(attr[a]-want[a]) > 1e-9*(1+math.Abs(want[a])) {
					t.Errorf("dims %d, trial %d: attraction[%d] = %v, want %v", dims, trial, a, attr[a], want[a])
				}
			}
		}
	}
}

// Placement lowers each row's KL below its value at the median start. The
// strict check uses the exact field and α = 1, where the steps descend the
// KL itself. With the defaults the steps descend C_α (α = 1.5), whose
// minimum is not C's, and the interpolated Z carries a relative error up to
// 4e-3 (field_test.go) into log Z: a row that starts near C's minimum may
// end up to that much above it (seen: 5e-4).
func TestTSNEPlaceLowersKL(t *testing.T) {
	exact := DefaultPlaceOptions()
	exact.Exaggeration, exact.Field.Exact = 1, true
	for _, c := range []struct {
		name string
		o    PlaceOptions
		tol  float64
	}{
		{"exact field, α = 1", exact, 0},
		{"defaults", DefaultPlaceOptions(), 4e-3},
	} {
		for _, dims := range []int{1, 2, 3} {
			ref := fieldTestMap(800, dims, 4, uint64(20+dims))
			p := newTestTSNE(t, ref, c.o)
			o0 := c.o
			o0.Iterations = 0
			p0 := newTestTSNE(t, ref, o0)
			rng := rand.New(rand.NewPCG(uint64(dims), 5))
			dst := make([]float64, dims)
			var s PlaceScratch
			for row := range 30 {
				// A row between two reference points: its neighbours come
				// from around both, which the median does not fit.
				a, b := ref.Row(int32(rng.IntN(ref.N))), ref.Row(int32(rng.IntN(ref.N)))
				target := make([]float64, dims)
				for k := range dims {
					target[k] = a[k] + 0.3*(b[k]-a[k]) + rng.NormFloat64()
				}
				nbr, d2 := tsneNeighbours(ref, target, p.Neighbors(), 1)
				kl0, err := p0.Place(dst, nbr, d2, &s)
				if err != nil {
					t.Fatal(err)
				}
				kl, err := p.Place(dst, nbr, d2, &s)
				if err != nil {
					t.Fatal(err)
				}
				if !(kl <= kl0+c.tol) {
					t.Errorf("%s, dims %d, row %d: KL after placement %v > %v at the median start (tolerance %.0e)",
						c.name, dims, row, kl, kl0, c.tol)
				}
			}
		}
	}
}

// A row whose input neighbours are all in one cluster of a well-separated
// three-cluster map lands in that cluster.
func TestTSNECluster(t *testing.T) {
	for _, dims := range []int{1, 2, 3} {
		const n, c = 600, 3
		rng := rand.New(rand.NewPCG(uint64(dims), 7))
		y := make([]float64, n*dims)
		cent := make([]float64, c*dims)
		for l := range c {
			cent[l*dims] = 30 * float64(l) // 30 apart on the first axis
		}
		for i := range n {
			for a := range dims {
				y[i*dims+a] = cent[(i%c)*dims+a] + 2*rng.NormFloat64()
			}
		}
		ref := placement.Reference{Y: y, N: n, Dims: dims}
		p := newTestTSNE(t, ref, DefaultPlaceOptions())
		dst := make([]float64, dims)
		for trial := range 30 {
			l := trial % c
			// Random members of cluster l at random input distances.
			m := p.Neighbors()
			nbr, d2 := make([]int32, m), make([]float64, m)
			for k := range m {
				nbr[k] = int32(c*rng.IntN(n/c) + l)
				d2[k] = 1 + 4*rng.Float64()
			}
			slices.Sort(d2)
			if _, err := p.Place(dst, nbr, d2, nil); err != nil {
				t.Fatal(err)
			}
			dist := func(l int) float64 {
				var s float64
				for a := range dims {
					s += (dst[a] - cent[l*dims+a]) * (dst[a] - cent[l*dims+a])
				}
				return math.Sqrt(s)
			}
			for o := range c {
				if o != l && dist(o) <= dist(l) {
					t.Errorf("dims %d, trial %d: placed at %v, %.3g from its cluster %d's centre, %.3g from cluster %d's",
						dims, trial, dst, dist(l), l, dist(o), o)
				}
			}
		}
	}
}

func TestTSNEDeterminism(t *testing.T) {
	ref := fieldTestMap(1000, 2, 5, 31)
	p1, err := NewPlacer(context.Background(), ref, DefaultPlaceOptions(), 1)
	if err != nil {
		t.Fatal(err)
	}
	p2 := newTestTSNE(t, ref, DefaultPlaceOptions())
	rng := rand.New(rand.NewPCG(1, 9))
	const rows = 40
	nbrs, d2s := make([][]int32, rows), make([][]float64, rows)
	for i := range rows {
		target := []float64{ref.Y[2*i] + rng.NormFloat64(), ref.Y[2*i+1] + rng.NormFloat64()}
		nbrs[i], d2s[i] = tsneNeighbours(ref, target, p1.Neighbors(), 1)
	}
	want := make([]float64, 2*rows)
	for i := range rows {
		if _, err := p1.Place(want[2*i:2*i+2], nbrs[i], d2s[i], nil); err != nil {
			t.Fatal(err)
		}
	}
	// Two goroutines, each with its own scratch, in opposite orders, on
	// the placer built with 2 threads.
	got := [2][]float64{make([]float64, 2*rows), make([]float64, 2*rows)}
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s PlaceScratch
			for k := range rows {
				i := k
				if g == 1 {
					i = rows - 1 - k
				}
				if _, err := p2.Place(got[g][2*i:2*i+2], nbrs[i], d2s[i], &s); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for g := range 2 {
		if !slices.Equal(got[g], want) {
			t.Errorf("goroutine %d: positions differ from the single-threaded run", g)
		}
	}
}

func TestTSNENeighbourCount(t *testing.T) {
	ref := fieldTestMap(500, 2, 3, 41)
	p := newTestTSNE(t, ref, DefaultPlaceOptions())
	if got := p.Neighbors(); got != 25 {
		t.Errorf("Neighbors() = %d, want max(⌊3·5⌋, 25) = 25", got)
	}
	nbr, d2 := tsneNeighbours(ref, ref.Row(7), 40, 1)
	want, got := make([]float64, 2), make([]float64, 2)
	if _, err := p.Place(want, nbr[:25], d2[:25], nil); err != nil {
		t.Fatal(err)
	}
	// Extra neighbours beyond Neighbors() are ignored.
	if _, err := p.Place(got, nbr, d2, nil); err != nil || !slices.Equal(got, want) {
		t.Errorf("40 neighbours: %v, %v; want %v as with 25", got, err, want)
	}
	// Fewer than Neighbors() is fine while the perplexity fits.
	for _, m := range []int{6, 10, 15, 20} {
		if _, err := p.Place(got, nbr[:m], d2[:m], nil); err != nil {
			t.Errorf("%d neighbours: %v", m, err)
		}
	}
	// A map smaller than K: K = N.
	small := placement.Reference{Y: ref.Y[:2*8], N: 8, Dims: 2}
	ps := newTestTSNE(t, small, DefaultPlaceOptions())
	if got := ps.Neighbors(); got != 25 {
		t.Errorf("N = 8: Neighbors() = %d, want 25", got)
	}
	if _, err := ps.Place(got, []int32{0, 1, 2, 3, 4, 5, 6, 7}, []float64{1, 2, 3, 4, 5, 6, 7, 8}, nil); err != nil {
		t.Errorf("N = 8: %v", err)
	}
}

func TestTSNEPlaceErrors(t *testing.T) {
	ref := fieldTestMap(100, 2, 2, 51)
	p := newTestTSNE(t, ref, DefaultPlaceOptions())
	dst := make([]float64, 2)
	nbr := []int32{0, 1, 2, 3, 4, 5, 6, 7}
	inf := math.Inf(1)
	for _, c := range []struct {
		name string
		nbr  []int32
		d2   []float64
		want error
	}{
		{"no neighbours", nil, nil, kernels.ErrPerplexity},
		{"5 neighbours, perplexity 5", nbr[:5], []float64{1, 2, 3, 4, 5}, kernels.ErrPerplexity},
		{"NaN distance", nbr[:6], []float64{1, 2, math.NaN(), 4, 5, 6}, ErrPlaceInput},
		{"negative distance", nbr[:6], []float64{-1, 2, 3, 4, 5, 6}, ErrPlaceInput},
		{"no finite distance", nbr[:6], []float64{inf, inf, inf, inf, inf, inf}, ErrPlaceInput},
	} {
		if _, err := p.Place(dst, c.nbr, c.d2, nil); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	// Infinite distances beyond the first are allowed (weight 0).
	if _, err := p.Place(dst, nbr[:7], []float64{1, 2, 3, 4, 5, 6, inf}, nil); err != nil {
		t.Errorf("one infinite distance: %v", err)
	}
	for _, c := range []struct {
		name string
		fn   func()
	}{
		{"wrong dst", func() { p.Place(make([]float64, 3), nbr, make([]float64, 8), nil) }},
		{"lengths", func() { p.Place(dst, nbr, make([]float64, 7), nil) }},
		{"index", func() { p.Place(dst, []int32{0, 100}, []float64{1, 2}, nil) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			c.fn()
		}()
	}
}

func TestTSNEOptions(t *testing.T) {
	ref := fieldTestMap(100, 2, 2, 61)
	def := DefaultPlaceOptions()
	for _, c := range []struct {
		name   string
		edit   func(*PlaceOptions)
		ref    placement.Reference
		wantPP bool // also kernels.ErrPerplexity
	}{
		{"perplexity 0", func(o *PlaceOptions) { o.Perplexity = 0 }, ref, true},
		{"perplexity NaN", func(o *PlaceOptions) { o.Perplexity = math.NaN() }, ref, true},
		{"perplexity ≥ N", func(o *PlaceOptions) { o.Perplexity = 5 }, placement.Reference{Y: ref.Y[:10], N: 5, Dims: 2}, true},
		{"exaggeration 0", func(o *PlaceOptions) { o.Exaggeration = 0 }, ref, false},
		{"learning rate −1", func(o *PlaceOptions) { o.LearningRate = -1 }, ref, false},
		{"learning rate +Inf", func(o *PlaceOptions) { o.LearningRate = math.Inf(1) }, ref, false},
		{"momentum 1", func(o *PlaceOptions) { o.Momentum = 1 }, ref, false},
		{"max grad norm −1", func(o *PlaceOptions) { o.MaxGradNorm = -1 }, ref, false},
		{"iterations −1", func(o *PlaceOptions) { o.Iterations = -1 }, ref, false},
		{"tolerance −1", func(o *PlaceOptions) { o.Tol = -1 }, ref, false},
		{"tolerance NaN", func(o *PlaceOptions) { o.Tol = math.NaN() }, ref, false},
		{"tolerance +Inf", func(o *PlaceOptions) { o.Tol = math.Inf(1) }, ref, false},
		{"init neighbours 0", func(o *PlaceOptions) { o.InitNeighbors = 0 }, ref, false},
	} {
		o := def
		c.edit(&o)
		_, err := NewPlacer(context.Background(), c.ref, o, 1)
		if !errors.Is(err, ErrPlaceOption) || errors.Is(err, kernels.ErrPerplexity) != c.wantPP {
			t.Errorf("%s: err = %v, want ErrPlaceOption (and kernels.ErrPerplexity: %v)", c.name, err, c.wantPP)
		}
	}
	o := def
	o.Field.Spacing = -1
	if _, err := NewPlacer(context.Background(), ref, o, 1); !errors.Is(err, ErrField) {
		t.Errorf("field spacing −1: err = %v, want ErrField", err)
	}
	// Zero iterations and no clipping are valid.
	o = def
	o.Iterations, o.MaxGradNorm = 0, 0
	if _, err := NewPlacer(context.Background(), ref, o, 1); err != nil {
		t.Errorf("0 iterations, no clipping: %v", err)
	}
}

func TestTSNEPlaceAllocs(t *testing.T) {
	ref := fieldTestMap(300, 2, 3, 71)
	p := newTestTSNE(t, ref, DefaultPlaceOptions())
	nbr, d2 := tsneNeighbours(ref, ref.Row(3), p.Neighbors(), 1)
	dst := make([]float64, 2)
	var s PlaceScratch
	if _, err := p.Place(dst, nbr, d2, &s); err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(10, func() { p.Place(dst, nbr, d2, &s) }); a != 0 {
		t.Errorf("Place allocates %v times per call after warm-up", a)
	}
}

// The early stop: a row that stops before Iterations has a gradient of
// norm at most Tol where it stopped (checked against halfGrad), and it
// lies close to where all the steps and more take it. descend2 (Place's
// path for Dims = 2) matches the generic descend bit for bit.
func TestTSNETol(t *testing.T) {
	ref := fieldTestMap(2000, 2, 6, 81)
	long := DefaultPlaceOptions()
	long.Iterations, long.Tol = 1000, 0
	pl := newTestTSNE(t, ref, long)
	p := newTestTSNE(t, ref, DefaultPlaceOptions())
	rng := rand.New(rand.NewPCG(8, 1))
	var s PlaceScratch
	stopped := 0
	for row := range 40 {
		target := slices.Clone(ref.Row(int32(rng.IntN(ref.N))))
		target[0] += rng.NormFloat64()
		target[1] += rng.NormFloat64()
		nbr, d2 := tsneNeighbours(ref, target, p.Neighbors(), 1)
		pr := make([]float64, p.k)
		if _, err := kernels.PerplexityRow(pr, d2[:p.k], -1, p.o.Perplexity, 0); err != nil {
			t.Fatal(err)
		}
		y := make([]float64, 2)
		placement.MedianInit(y, ref, nbr[:p.o.InitNeighbors], nil)
		yn := p.gather(make([]float64, 2*p.k), nbr[:p.k])
		y0, y1, steps := p.descend2(y[0], y[1], yn, pr)
		// The generic optimiser from the same start.
		yg := slices.Clone(y)
		s.grow(p.k, 2)
		p.descend(yg, yn, pr, &s)
		if yg[0] != y0 || yg[1] != y1 {
			t.Errorf("row %d: descend2 gives (%v, %v), descend %v", row, y0, y1, yg)
		}
		g := make([]float64, 2)
		p.halfGrad(g, []float64{y0, y1}, yn, pr, p.o.Exaggeration, make([]float64, 2), false)
		if steps < p.o.Iterations {
			stopped++
			if n := math.Hypot(g[0], g[1]); n > p.o.Tol {
				t.Errorf("row %d: stopped after %d steps with |g| = %.2e > Tol = %.0e", row, steps, n, p.o.Tol)
			}
		}
		dst, far := make([]float64, 2), make([]float64, 2)
		if _, err := p.Place(dst, nbr, d2, &s); err != nil {
			t.Fatal(err)
		}
		if dst[0] != y0 || dst[1] != y1 {
			t.Errorf("row %d: Place gives %v, descend2 (%v, %v)", row, dst, y0, y1)
		}
		if _, err := pl.Place(far, nbr, d2, &s); err != nil {
			t.Fatal(err)
		}
		// Measured: at most 1.6e-3 from the 1000-step position on a
		// fitted map's held-out rows (package doc).
		if d := math.Hypot(dst[0]-far[0], dst[1]-far[1]); d > 0.01 {
			t.Errorf("row %d: %.2e from the position after 1000 steps", row, d)
		}
	}
	if stopped == 0 {
		t.Errorf("no row stopped before %d steps", p.o.Iterations)
	}
}
