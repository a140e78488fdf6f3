package tsne

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// interpMap draws a seeded n×dims embedding of the given kind: "spread"
// (uniform over ±25), "clusters" (10 unit Gaussians with centres uniform
// over ±30), "tiny" (N(0, 1e-4²), an initialisation) or "wide" (uniform
// over ±150: 300 intervals per axis).
func interpMap(kind string, n, dims int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 15))
	y := make([]float64, n*dims)
	switch kind {
	case "spread":
		for i := range y {
			y[i] = 50 * (rng.Float64() - 0.5)
		}
	case "wide":
		for i := range y {
			y[i] = 300 * (rng.Float64() - 0.5)
		}
	case "tiny":
		for i := range y {
			y[i] = 1e-4 * rng.NormFloat64()
		}
	case "clusters":
		const k = 10
		centres := make([]float64, k*dims)
		for i := range centres {
			centres[i] = 60 * (rng.Float64() - 0.5)
		}
		for i := range n {
			c := rng.IntN(k)
			for a := range dims {
				y[i*dims+a] = centres[c*dims+a] + rng.NormFloat64()
			}
		}
	default:
		panic(kind)
	}
	return y
}

// emptyP is an n×n P without entries: the gradient is −4·rep/Z alone.
func emptyP(n int) *SparseAffinities {
	return &SparseAffinities{N: n, RowPtr: make([]int, n+1)}
}

// interpRepErr returns the relative errors of Z and of the repulsive sums
// Σ_j w_ij²(y_i − y_j) (relative L2 over all points) of g against the
// exact sums (Barnes–Hut at θ = 0).
func interpRepErr(t *testing.T, g *InterpGradient, y []float64, n, dims int) (zErr, repErr float64) {
	t.Helper()
	ctx := context.Background()
	p := emptyP(n)
	want := make([]float64, n*dims)
	var bh BHGradient
	zw, err := bh.Grad(ctx, want, y, p, dims, 0, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float64, n*dims)
	zg, err := g.Grad(ctx, got, y, p, dims, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	// grad = −4·rep/Z.
	for i := range got {
		got[i] *= -zg / 4
		want[i] *= -zw / 4
	}
	return math.Abs(zg-zw) / zw, tsneRelErr(got, want)
}

func TestInterpGradientAccuracy(t *testing.T) {
	for _, tc := range []struct {
		kind         string
		n, dims      int
		zTol, repTol float64
	}{
		// Measured at the defaults: Z 5e-5–4e-4, repulsion 0.016–0.073
		// (the net force of a uniform map is a small residue of large
		// opposing terms, so its relative error is the largest).
		{"spread", 2000, 2, 1e-3, 0.1},
		{"clusters", 2000, 2, 1e-3, 0.04},
		{"tiny", 1000, 2, 1e-9, 1e-6},
		{"wide", 1000, 2, 1e-3, 0.1},
		{"spread", 2000, 1, 1e-3, 0.1},
		{"clusters", 2000, 1, 1e-3, 0.04},
		{"tiny", 1000, 1, 1e-9, 1e-6},
	} {
		name := fmt.Sprintf("%s/N=%d/dims=%d", tc.kind, tc.n, tc.dims)
		y := interpMap(tc.kind, tc.n, tc.dims, 1)
		g := newInterp()
		ze, re := interpRepErr(t, &g, y, tc.n, tc.dims)
		t.Logf("%s: relative error of Z %.2g, of the repulsive sums %.2g", name, ze, re)
		if ze > tc.zTol || re > tc.repTol {
			t.Errorf("%s: relative errors Z %.3g (want ≤ %g), repulsion %.3g (want ≤ %g)", name, ze, tc.zTol, re, tc.repTol)
		}
	}
}

func TestInterpGradientConverges(t *testing.T) {
	for _, dims := range []int{1, 2} {
		for _, kind := range []string{"spread", "clusters"} {
			const n = 1000
			y := interpMap(kind, n, dims, 2)
			prevZ, prevR := math.Inf(1), math.Inf(1)
			for _, nodes := range []int{2, 3, 5} {
				name := fmt.Sprintf("%s/dims=%d/p=%d", kind, dims, nodes)
				g := newInterp()
				g.NodesPerInterval = nodes
				ze, re := interpRepErr(t, &g, y, n, dims)
				t.Logf("%s: relative error of Z %.2g, of the repulsive sums %.2g", name, ze, re)
				if !(ze < prevZ && re < prevR) {
					t.Errorf("%s: errors Z %.3g, repulsion %.3g did not both shrink (previous %.3g, %.3g)", name, ze, re, prevZ, prevR)
				}
				prevZ, prevR = ze, re
			}
			// More, narrower intervals at p = 2 (the extents are 50–60,
			// so IntervalWidth 1 gives at least 50 intervals). The error
			// of Z is a sum of errors of both signs, which can grow a
			// little when the grid moves against the points, so it must
			// shrink over every halving of the width twice (16× in the
			// limit), the repulsion over every halving.
			zs := []float64{math.Inf(1), math.Inf(1)}
			prevR = math.Inf(1)
			for _, width := range []float64{4, 2, 1, 0.5} {
				name := fmt.Sprintf("%s/dims=%d/width=%v", kind, dims, width)
				g := newInterp()
				g.NodesPerInterval, g.MinIntervals, g.IntervalWidth = 2, 1, width
				ze, re := interpRepErr(t, &g, y, n, dims)
				t.Logf("%s: relative error of Z %.2g, of the repulsive sums %.2g", name, ze, re)
				if prevZ := zs[len(zs)-2]; !(ze < prevZ && re < prevR) {
					t.Errorf("%s: errors Z %.3g, repulsion %.3g did not shrink (Z at twice the width %.3g, repulsion at the previous %.3g)", name, ze, re, prevZ, prevR)
				}
				zs, prevR = append(zs, ze), re
			}
		}
	}
}

// TestInterpGradientFull compares the whole gradient, attraction included,
// with the exact one (GradExact over the dense form of the same P).
func TestInterpGradientFull(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(15, 2))
	const n, k = 600, 30
	p, _ := tsneSparseSetup(t, rng, n, 5, k, 10)
	dp := tsneDense(p)
	for _, dims := range []int{1, 2} {
		for _, kind := range []string{"spread", "clusters", "tiny"} {
			for _, alpha := range []float64{1, 12} {
				name := fmt.Sprintf("%s/dims=%d/α=%v", kind, dims, alpha)
				y := interpMap(kind, n, dims, 3)
				want := make([]float64, n*dims)
				zw, err := GradExact(ctx, want, y, dp, n, dims, alpha, 0)
				if err != nil {
					t.Fatal(err)
				}
				got := make([]float64, n*dims)
				g := newInterp()
				zg, err := g.Grad(ctx, got, y, p, dims, alpha, 0)
				if err != nil {
					t.Fatal(err)
				}
				e := tsneRelErr(got, want)
				var bh BHGradient
				bhg := make([]float64, n*dims)
				if _, err := bh.Grad(ctx, bhg, y, p, dims, 0.5, alpha, 0); err != nil {
					t.Fatal(err)
				}
				bhe := tsneRelErr(bhg, want)
				t.Logf("%s: gradient relative error %.2g (Barnes–Hut θ = 0.5: %.2g), Z %.2g", name, e, bhe, math.Abs(zg-zw)/zw)
				// Measured: 0.027–0.063 at α = 1, 0.0026–0.012 at α = 12.
				tol := 0.1
				if alpha > 1 {
					tol = 0.02
				}
				if e > tol || math.Abs(zg-zw) > 1e-3*zw {
					t.Errorf("%s: gradient relative error %.3g (want ≤ %g), Z %v vs %v", name, e, tol, zg, zw)
				}
			}
		}
	}
}

func TestInterpGradientDeterministic(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(15, 3))
	const n = 1500
	p, _ := tsneSparseSetup(t, rng, n, 4, 20, 6)
	for _, dims := range []int{1, 2} {
		y := interpMap("clusters", n, dims, 4)
		var ref []float64
		var zref float64
		g := newInterp() // reused across thread counts and calls
		for _, threads := range []int{1, 2, 3, 8} {
			grad := make([]float64, n*dims)
			z, err := g.Grad(ctx, grad, y, p, dims, 4, threads)
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref, zref = grad, z
				continue
			}
			if z != zref || !slices.Equal(grad, ref) {
				t.Errorf("dims=%d threads=%d: result differs from threads=1", dims, threads)
			}
		}
	}
}

func TestInterpGradientEdgeCases(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		y    []float64
		dims int
	}{
		{"one point", []float64{3, 4}, 2},
		{"coincident", []float64{1, 1, 1, 1, 1, 1}, 2},
		{"a line in 2-D", []float64{0, 0, 1, 0, 2, 0, 5, 0}, 2},
		{"two points 1-D", []float64{0, 1}, 1},
	} {
		n := len(tc.y) / tc.dims
		p := emptyP(n)
		want := make([]float64, len(tc.y))
		var bh BHGradient
		zw, err := bh.Grad(ctx, want, tc.y, p, tc.dims, 0, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, len(tc.y))
		g := newInterp()
		zg, err := g.Grad(ctx, got, tc.y, p, tc.dims, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			// Z = 0 and the repulsion 0/0, as for Barnes–Hut; only Z is
			// meaningful.
			if math.Abs(zg) > 1e-6 {
				t.Errorf("%s: Z = %v, want 0", tc.name, zg)
			}
			continue
		}
		var scale, diff float64
		for i := range got {
			scale = max(scale, math.Abs(want[i]))
			diff = max(diff, math.Abs(got[i]-want[i]))
		}
		if math.Abs(zg-zw) > 1e-5*zw || diff > 1e-4*(1+scale) {
			t.Errorf("%s: Z %v vs %v, gradient %v vs %v", tc.name, zg, zw, got, want)
		}
	}
	g := newInterp()
	if z, err := g.Grad(ctx, nil, nil, emptyP(0), 2, 1, 1); z != 0 || err != nil {
		t.Errorf("empty: %v, %v", z, err)
	}
}

func TestInterpGradientCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	const n = 500
	y := interpMap("spread", n, 2, 5)
	g := newInterp()
	if _, err := g.Grad(ctx, make([]float64, 2*n), y, emptyP(n), 2, 1, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

// newInterp returns an InterpGradient with the default settings.
func newInterp() InterpGradient { return InterpGradient{InterpSettings: DefaultInterpSettings()} }

// interpWith returns an InterpGradient with the default settings changed
// by set.
func interpWith(set func(s *InterpSettings)) InterpGradient {
	g := newInterp()
	set(&g.InterpSettings)
	return g
}

// A change of the settings between calls is checked again.
func TestInterpGradientRechecks(t *testing.T) {
	y := interpMap("spread", 10, 2, 6)
	g := newInterp()
	if _, err := g.Grad(context.Background(), make([]float64, 20), y[:20], emptyP(10), 2, 1, 1); err != nil {
		t.Fatal(err)
	}
	g.IntervalWidth = 0
	defer func() {
		if recover() == nil {
			t.Error("no panic for IntervalWidth 0 after a valid call")
		}
	}()
	_, _ = g.Grad(context.Background(), make([]float64, 20), y[:20], emptyP(10), 2, 1, 1)
}

func TestInterpGradientPanics(t *testing.T) {
	y := interpMap("spread", 10, 3, 6)
	for _, tc := range []struct {
		name string
		g    InterpGradient
		dims int
	}{
		{"dims 3", newInterp(), 3},
		{"zero settings", InterpGradient{}, 2},
		{"too many nodes", interpWith(func(s *InterpSettings) { s.NodesPerInterval = MaxNodesPerInterval + 1 }), 2},
		{"negative width", interpWith(func(s *InterpSettings) { s.IntervalWidth = -1 }), 2},
		{"max below min", interpWith(func(s *InterpSettings) { s.MinIntervals, s.MaxIntervals = 60, 40 }), 2},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			n := len(y) / tc.dims
			if tc.dims == 2 {
				n = 10
			}
			_, _ = tc.g.Grad(context.Background(), make([]float64, n*tc.dims), y[:n*tc.dims], emptyP(n), tc.dims, 1, 1)
		}()
	}
}

// TestInterpGradientAllocs checks that repeated calls on the same grid
// allocate nothing that grows with N (only the parallel loops' closures).
func TestInterpGradientAllocs(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{500, 5000} {
		y := interpMap("clusters", n, 2, 7)
		p := emptyP(n)
		grad := make([]float64, 2*n)
		g := newInterp()
		allocs := testing.AllocsPerRun(3, func() {
			if _, err := g.Grad(ctx, grad, y, p, 2, 1, 1); err != nil {
				t.Fatal(err)
			}
		})
		// 43 measured, the same at both sizes.
		if allocs > 64 {
			t.Errorf("N=%d: %v allocations per call, want ≤ 64", n, allocs)
		}
	}
}

// TestInterpKernelCache checks that a reused InterpGradient, which keeps
// the kernels' spectra while the grid stays, gives bit for bit what a new
// one gives: on the same map (spectra reused), on a map moved by less than
// an interval (same grid size and spacing, reused), and on a wider map
// (recomputed).
func TestInterpKernelCache(t *testing.T) {
	ctx := context.Background()
	for _, dims := range []int{1, 2} {
		const n = 1500
		y := interpMap("spread", n, dims, 3)
		moved := slices.Clone(y)
		for i := range moved {
			moved[i] += 0.01
		}
		wide := slices.Clone(y)
		for i := range wide {
			wide[i] *= 1.5
		}
		p := emptyP(n)
		reused := newInterp()
		for _, step := range []struct {
			name  string
			y     []float64
			cache bool
		}{{"first", y, false}, {"same", y, true}, {"moved", moved, true}, {"wider", wide, false}} {
			name := fmt.Sprintf("dims=%d/%s", dims, step.name)
			before := reused.kernelKey
			got := make([]float64, n*dims)
			zg, err := reused.Grad(ctx, got, step.y, p, dims, 1, 2)
			if err != nil {
				t.Fatal(err)
			}
			if kept := before == reused.kernelKey; kept != step.cache {
				t.Errorf("%s: spectra kept = %v, want %v", name, kept, step.cache)
			}
			fresh := newInterp()
			want := make([]float64, n*dims)
			zw, err := fresh.Grad(ctx, want, step.y, p, dims, 1, 2)
			if err != nil {
				t.Fatal(err)
			}
			if zg != zw || !slices.Equal(got, want) {
				t.Errorf("%s: reused gradient differs from a new one (Z %v, %v)", name, zg, zw)
			}
		}
	}
}
