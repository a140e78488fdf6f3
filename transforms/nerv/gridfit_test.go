package nerv

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ordinate/ordinate/internal/synth"
	"github.com/ordinate/ordinate/transforms"
)

// TestResolveMethod: auto runs the exact method up to AutoExactMax rows,
// grid above for hard labels or none in one or two dimensions, and cutoff
// for soft labels or three dimensions.
func TestResolveMethod(t *testing.T) {
	const n, c = 1000, 3
	hard := make([]float64, n*c)
	for i := range n {
		hard[i*c+i%c] = 1
	}
	soft := append([]float64(nil), hard...)
	soft[0], soft[1] = 0.5, 0.5
	unlabelled := append([]float64(nil), hard...)
	for k := range c {
		unlabelled[3*c+k] = math.NaN()
	}
	for _, tc := range []struct {
		name string
		n    int
		mod  func(*Options)
		soft []float64
		want Method
	}{
		{"small, hard labels", AutoExactMax, nil, hard[:AutoExactMax*c], Exact},
		{"hard labels", n, nil, hard, Grid},
		{"hard labels, some unlabelled rows", n, nil, unlabelled, Grid},
		{"no labels", n, nil, nil, Grid},
		{"soft labels", n, nil, soft, Grid},
		{"soft labels, α = 0", n, func(o *Options) { o.Alpha = 0 }, soft, Grid},
		{"three dims", n, func(o *Options) { o.Dims = 3 }, hard, Cutoff},
		{"transferred widths", n, func(o *Options) { o.OutputScale = Transfer }, hard, Exact},
		{"asked for", n, func(o *Options) { o.Method = BarnesHut }, hard, BarnesHut},
	} {
		o := DefaultOptions()
		if tc.mod != nil {
			tc.mod(&o)
		}
		if got := o.ResolveMethod(tc.n, tc.soft, c); got != tc.want {
			t.Errorf("%s: ResolveMethod = %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestFitGridOptions: method grid refuses three dimensions as an error of
// the option that asks for them.
func TestFitGridOptions(t *testing.T) {
	const per, c = 50, 6
	n := 4 * per
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(1, 2)), per)
	for _, tc := range []struct {
		name   string
		soft   []float64
		dims   int
		option string
	}{
		{"three dims", soft, 3, "dims"},
	} {
		o := DefaultOptions()
		o.Method, o.Dims, o.Perplexity = Grid, tc.dims, 10
		_, err := Fit(context.Background(), x, n, 3, tc.soft, c, o)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option {
			t.Errorf("%s: error %v, want an option error naming %q", tc.name, err, tc.option)
		}
	}
}

// TestFitGrid: a ClassNeRV or SoftClassNeRV fit with method grid
// minimises the objective of the cut-off: the cut-off's stress of the
// grid's final map is the grid's own (for soft labels, up to the rounding
// of the far pairs' Λ, gridsoft.go), and the map ends near the cut-off
// fit's stress.
func TestFitGrid(t *testing.T) {
	ctx := context.Background()
	const per, c = 150, 6
	n := 4 * per
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(1, 2)), per)
	hard, _ := hardOf(soft, n, c)
	o := DefaultOptions()
	o.Perplexity, o.Threads = 15, 2
	for _, lc := range []struct {
		name   string
		labels []float64
		same   float64 // the cut-off's stress of the grid's map, relative
	}{{"hard", hard, 1e-5}, {"soft", soft, 1e-3}} {
		fits := map[Method]*Result{}
		for _, m := range []Method{Grid, Cutoff} {
			oo := o
			oo.Method = m
			r, err := Fit(ctx, x, n, 3, lc.labels, c, oo)
			if err != nil {
				t.Fatalf("%s %s: %v", lc.name, m, err)
			}
			if r.Method != m || r.GridFallbacks != 0 {
				t.Errorf("%s %s: ran %s with %d grid fallbacks", lc.name, m, r.Method, r.GridFallbacks)
			}
			fits[m] = r
		}
		g, cut := fits[Grid], fits[Cutoff]
		t.Logf("%s: final stress: grid %.6f (%d iterations), cutoff %.6f (%d)", lc.name, g.Stress, g.Levels[len(g.Levels)-1].Iterations, cut.Stress, cut.Levels[len(cut.Levels)-1].Iterations)
		if rel := math.Abs(g.Stress-cut.Stress) / cut.Stress; rel > 0.02 {
			t.Errorf("%s: final stress: grid %.6f, cutoff %.6f: %.3g apart, want within 2%%", lc.name, g.Stress, cut.Stress, rel)
		}
		// The same objective, evaluated by the cut-off at the grid's map.
		sl, err := newSparseLevels(ctx, x, n, 3, lc.labels, c, Options{Method: Cutoff, Perplexity: o.Perplexity, Alpha: o.Alpha, Gamma: o.Gamma,
			Dims: 2, Threads: 2, Neighbors: o.Neighbors, CutoffTol: 1e-6, BHTol: 0, Multiscale: false}, transforms.NoProgress{})
		if err != nil {
			t.Fatal(err)
		}
		eval, _, err := sl.level(o.Perplexity, true)
		if err != nil {
			t.Fatal(err)
		}
		s := eval(g.Y, make([]float64, n*2))
		t.Logf("%s: the cut-off's stress of the grid's map %.9f, the grid's %.9f", lc.name, s, g.Stress)
		if math.Abs(s-g.Stress) > lc.same*g.Stress {
			t.Errorf("%s: the cut-off's stress of the grid's map is %.9f, the grid's %.9f, want within %g", lc.name, s, g.Stress, lc.same)
		}
	}
}

// TestFitAutoMemory: under a memory limit that the cut-off's plan fits and
// the grid's does not, method auto runs the cut-off; below the cut-off's
// plan it refuses with a memory error; with room for both it runs the
// grid.
func TestFitAutoMemory(t *testing.T) {
	const per, c = 150, 6
	n := 4 * per
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(1, 2)), per)
	o := DefaultOptions()
	o.Perplexity, o.Threads, o.MaxIter, o.CoarseMaxIter = 15, 2, 5, 2
	plan := func(m Method) float64 {
		oo := o
		oo.Method = m
		return memoryPlan(n, oo, softFields(soft, c, o)).bytes()
	}
	grid, cut := plan(Grid), plan(Cutoff)
	if !(cut < grid) {
		t.Fatalf("plans: cutoff %.0f bytes, grid %.0f: want the cut-off's smaller", cut, grid)
	}
	for _, tc := range []struct {
		name  string
		limit float64
		want  Method // "": refused
	}{
		{"room for both", 2 * grid, Grid},
		{"room for the cut-off only", (cut + grid) / 2, Cutoff},
		{"room for neither", cut / 2, ""},
	} {
		ctx := transforms.WithMemoryLimit(context.Background(), int64(tc.limit))
		r, err := Fit(ctx, x, n, 3, soft, c, o)
		var me *transforms.MemoryError
		switch {
		case tc.want == "" && !errors.As(err, &me):
			t.Errorf("%s: error %v, want a memory error", tc.name, err)
		case tc.want != "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && r.Method != tc.want:
			t.Errorf("%s: ran %s, want %s", tc.name, r.Method, tc.want)
		}
	}
}
