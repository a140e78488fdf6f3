package nerv

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ordinate/ordinate/internal/synth"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/quality"
)

func TestSchedule(t *testing.T) {
	for _, tc := range []struct {
		n     int
		k     float64
		multi bool
		want  []float64
	}{
		{800, 32, true, []float64{400, 200, 100, 50, 32}},
		{800, 32, false, []float64{32}},
		{60, 32, true, []float64{32}},
		{1000, 30, true, []float64{500, 250, 125, 62.5, 31.25, 30}},
	} {
		got := Schedule(tc.n, tc.k, tc.multi)
		if len(got) != len(tc.want) {
			t.Errorf("Schedule(%d, %g, %v) = %v, want %v", tc.n, tc.k, tc.multi, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("Schedule(%d, %g, %v) = %v, want %v", tc.n, tc.k, tc.multi, got, tc.want)
				break
			}
		}
	}
}

func TestLevelsBarnesHut(t *testing.T) {
	for _, tc := range []struct {
		n      int
		k      float64
		method Method
		want   []float64
	}{
		{800, 32, Exact, []float64{400, 200, 100, 50, 32}},
		{800, 32, BarnesHut, []float64{100, 50, 32}},
		{20000, 32, BarnesHut, []float64{78.125, 39.0625, 32}},
		{20000, 150, BarnesHut, []float64{150}}, // K above the cap: K alone
		{20000, 32, Cutoff, []float64{78.125, 39.0625, 32}},
		{50000, 32, Cutoff, []float64{97.65625, 48.828125, 32}}, // at SampleStartAbove: PCA start
		{50004, 32, Cutoff, []float64{32}},                      // above: the sample ran the schedule
		{50004, 32, Exact, Schedule(50004, 32, true)},
	} {
		o := DefaultOptions()
		o.Perplexity, o.Method = tc.k, tc.method
		got := o.Levels(tc.n)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("Levels(n=%d, K=%g, method %v) = %v, want %v", tc.n, tc.k, tc.method, got, tc.want)
		}
	}
}

// hardOf turns soft labels into one-hot rows of their largest weight, and
// class indices.
func hardOf(soft []float64, n, c int) ([]float64, []int) {
	hard := make([]float64, n*c)
	cls := make([]int, n)
	for i := range n {
		best := 0
		for k := 1; k < c; k++ {
			if soft[i*c+k] > soft[i*c+best] {
				best = k
			}
		}
		hard[i*c+best], cls[i] = 1, best
	}
	return hard, cls
}

// TestFourClustersBehaviour runs the paper's first experiment at full size
// (800 points) with the exact method and at a quarter of it with
// Barnes–Hut and with the cut-off: with hard labels ClassNeRV raises between-class
// trustworthiness over NeRV and has a positive KNN gain; with soft labels
// the blended cluster is not torn apart.
func TestFourClustersBehaviour(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fits nine NeRV embeddings, about 20 s on two cores; go test without -short (as CI does) runs it")
	}
	for _, tc := range []struct {
		name   string
		per    int
		method Method
		perp   float64
	}{
		{"exact, 800 points", 200, Exact, 32},
		{"barnes-hut, 400 points", 100, BarnesHut, 15},
		{"cutoff, 400 points", 100, Cutoff, 15},
	} {
		o := DefaultOptions()
		o.Perplexity, o.Method = tc.perp, tc.method
		if tc.method.sparse() {
			o.OutputScale = Global
		}
		t.Run(tc.name, func(t *testing.T) { fourClusters(t, tc.per, o) })
	}
}

func fourClusters(t *testing.T, per int, o Options) {
	ctx := context.Background()
	const c = 6
	n := 4 * per
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(1, 2)), per)
	hard, cls := hardOf(soft, n, c)
	fit := func(labels []float64, alpha float64) []float64 {
		oo := o
		oo.Alpha = alpha
		r, err := Fit(ctx, x, n, 3, labels, c, oo)
		if err != nil {
			t.Fatal(err)
		}
		return r.Y
	}
	nerv := fit(nil, 0)
	classnerv := fit(hard, 1)
	softnerv := fit(soft, 1)
	metric := func(y []float64, m string, sub string) float64 {
		rep, err := quality.Evaluate(ctx, x, 3, y, 2, cls, quality.Options{Ks: []int{10}})
		if err != nil {
			t.Fatal(err)
		}
		v, ok := rep.Value(m, 10, sub)
		if !ok {
			t.Fatalf("no %s/%s", m, sub)
		}
		return v
	}
	t.Logf("T_inter(10): NeRV %.4f, ClassNeRV %.4f; KNN gain %.4f", metric(nerv, "trustworthiness", "inter"), metric(classnerv, "trustworthiness", "inter"), metric(classnerv, "knn_gain", "all"))
	if tn, tc := metric(nerv, "trustworthiness", "inter"), metric(classnerv, "trustworthiness", "inter"); !(tc > tn) {
		t.Errorf("T_inter(10): ClassNeRV %.4f, NeRV %.4f; want ClassNeRV higher", tc, tn)
	}
	if g := metric(classnerv, "knn_gain", "all"); !(g > 0) {
		t.Errorf("ClassNeRV KNN gain(10) = %.4f, want > 0", g)
	}
	// The blended cluster (rows 3·per …): its spread in the soft map stays
	// within a factor 2 of NeRV's, while hard ClassNeRV tears it more.
	spread := func(y []float64) float64 {
		var s float64
		var m int
		for i := 3 * per; i < n; i++ {
			for j := i + 1; j < n; j++ {
				s += math.Hypot(y[i*2]-y[j*2], y[i*2+1]-y[j*2+1])
				m++
			}
		}
		return s / float64(m)
	}
	sn, ss := spread(nerv), spread(softnerv)
	t.Logf("blended cluster spread: NeRV %.3f, SoftClassNeRV %.3f, ClassNeRV %.3f", sn, ss, spread(classnerv))
	if ss > 2*sn {
		t.Errorf("blended cluster spread: SoftClassNeRV %.3f, NeRV %.3f; want within a factor 2", ss, sn)
	}
}

func TestFitErrors(t *testing.T) {
	ctx := context.Background()
	x := make([]float64, 10*3)
	for i := range x {
		x[i] = float64(i % 7)
	}
	o := DefaultOptions()
	o.Perplexity = 3
	for _, tc := range []struct {
		name   string
		mod    func(*Options)
		x      []float64
		option string // the option an *OptionError names; "" for a data error
		want   error
	}{
		{"perplexity ≥ N", func(o *Options) { o.Perplexity = 10 }, x, "perplexity", kernels.ErrPerplexity},
		{"alpha > 1", func(o *Options) { o.Alpha = 1.5 }, x, "alpha", nil},
		{"cutoff, negative cut-off tol", func(o *Options) { o.Method, o.CutoffTol = Cutoff, -1 }, x, "cutoff-tol", nil},
		{"cutoff, negative bh tol (its dense rows)", func(o *Options) { o.Method, o.BHTol = Cutoff, -1 }, x, "bh-tol", nil},
		{"cutoff, transferred widths", func(o *Options) { o.Method, o.OutputScale = Cutoff, Transfer }, x, "output-scale", nil},
		{"bh, three dimensions too many", func(o *Options) { o.Method, o.Dims = BarnesHut, 4 }, x, "dims", nil},
		{"start from a sample, exact method", func(o *Options) { o.Start = StartSample }, x, "start", nil},
		{"start from a sample too small", func(o *Options) { o.Method, o.Start = Cutoff, StartSample }, x, "start", nil},
		{"unknown start", func(o *Options) { o.Start = "spectral" }, x, "start", nil},
		{"unknown method", func(o *Options) { o.Method = "Exact" }, x, "method", nil},
		{"zero-value options", func(o *Options) { *o = Options{} }, x, "on-invalid", nil},
		{"nan", nil, append(append([]float64(nil), x[:29]...), math.NaN()), "", ErrInput},
		{"too few values", nil, x[:29], "", ErrInput},
	} {
		oo := o
		if tc.mod != nil {
			tc.mod(&oo)
		}
		_, err := Fit(ctx, tc.x, 10, 3, nil, 0, oo)
		var oe *transforms.OptionError
		switch {
		case tc.option != "" && (!errors.As(err, &oe) || oe.Option != tc.option):
			t.Errorf("%s: error %v, want an option error naming %q", tc.name, err, tc.option)
		case tc.option == "" && errors.Is(err, transforms.ErrInvalidOption):
			t.Errorf("%s: error %v, want a data error", tc.name, err)
		case tc.want != nil && !errors.Is(err, tc.want):
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
	// A non-finite value is a *DataError at its position in x.
	_, err := Fit(ctx, append(append([]float64(nil), x[:29]...), math.Inf(1)), 10, 3, nil, 0, o)
	var de *transforms.DataError
	if !errors.As(err, &de) || de.Matrix != "x" || de.Row != 9 || de.Column != "2" {
		t.Errorf("non-finite x[9, 2]: error %v, want a DataError at row 9, column 2 of x", err)
	}
}

// TestFitCancelled (issue 40): a cancelled fit returns the context's error,
// never an option error, whether it is cancelled before the fit or during
// a perplexity calibration.
func TestFitCancelled(t *testing.T) {
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(9, 9)), 15)
	const n, c = 60, 6
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, m := range []Method{Exact, BarnesHut, Cutoff} {
		o := DefaultOptions()
		o.Perplexity, o.Method = 8, m
		_, err := Fit(cancelled, x, n, 3, soft, c, o)
		if !errors.Is(err, context.Canceled) || transforms.IsInputError(err) {
			t.Errorf("method %v, cancelled fit: error %v, want context.Canceled alone", m, err)
		}
	}
	// The calibration itself: the levels built with a live context, then
	// cancelled.
	o := DefaultOptions()
	o.Perplexity = 8
	dl, err := newDenseLevels(context.Background(), x, n, 3, soft, c, o)
	if err != nil {
		t.Fatal(err)
	}
	dl.ctx = cancelled
	o.Method = BarnesHut
	sl, err := newSparseLevels(context.Background(), x, n, 3, soft, c, o, transforms.NoProgress{})
	if err != nil {
		t.Fatal(err)
	}
	sl.ctx = cancelled
	for name, lv := range map[string]levelStress{"exact": dl, "bh": sl} {
		_, _, err := lv.level(8, true)
		if !errors.Is(err, context.Canceled) || transforms.IsInputError(err) {
			t.Errorf("%s level, cancelled: error %v, want context.Canceled alone", name, err)
		}
	}
	// A perplexity the calibration refuses is an error of the option.
	if _, _, err := dl.level(float64(n), true); !errors.Is(err, kernels.ErrPerplexity) {
		t.Errorf("perplexity N: error %v, want kernels.ErrPerplexity", err)
	} else if oe := (*transforms.OptionError)(nil); !errors.As(err, &oe) || oe.Option != "perplexity" {
		t.Errorf("perplexity N: error %v, want an option error naming perplexity", err)
	}
}

// TestOptionsValidate: the defaults validate, and transforms.Validate
// refuses an out-of-range value of every ranged option, an unknown value of
// every enum and each combination Options.Validate forbids, with an
// *OptionError naming the option.
func TestOptionsValidate(t *testing.T) {
	def := DefaultOptions()
	if err := transforms.Validate(&def); err != nil {
		t.Fatalf("DefaultOptions: %v", err)
	}
	for _, tc := range []struct {
		option string
		mod    func(*Options)
	}{
		{"dims", func(o *Options) { o.Dims = 0 }},
		{"alpha", func(o *Options) { o.Alpha = -0.1 }},
		{"alpha", func(o *Options) { o.Alpha = 1.1 }},
		{"gamma", func(o *Options) { o.Gamma = -0.1 }},
		{"gamma", func(o *Options) { o.Gamma = math.NaN() }},
		{"perplexity", func(o *Options) { o.Perplexity = 0.5 }},
		{"perplexity", func(o *Options) { o.Perplexity = math.Inf(1) }},
		{"bh-tol", func(o *Options) { o.BHTol = -1e-3 }},
		{"cutoff-tol", func(o *Options) { o.CutoffTol = -1e-3 }},
		{"max-iter", func(o *Options) { o.MaxIter = 0 }},
		{"tol", func(o *Options) { o.Tol = -1 }},
		{"tol", func(o *Options) { o.Tol = math.Inf(1) }},
		{"coarse-max-iter", func(o *Options) { o.CoarseMaxIter = -1 }},
		{"coarse-tol", func(o *Options) { o.CoarseTol = -1 }},
		{"method", func(o *Options) { o.Method = "" }},
		{"knn", func(o *Options) { o.Neighbors = "kd" }},
		{"start", func(o *Options) { o.Start = "" }},
		{"output-scale", func(o *Options) { o.OutputScale = "" }},
		{"soft-labels", func(o *Options) { o.Label, o.SoftLabels = "y", []string{"p_*"} }},
		{"dims", func(o *Options) { o.Method, o.Dims = Cutoff, kernels.MaxBHDims+1 }},
		{"start", func(o *Options) { o.Method, o.Start = Exact, StartSample }},
		{"start", func(o *Options) { o.Start, o.Dims = StartSample, kernels.MaxBHDims+1 }},
		{"start", func(o *Options) { o.Start, o.OutputScale = StartSample, Transfer }},
		{"output-scale", func(o *Options) { o.Method, o.OutputScale = BarnesHut, Transfer }},
	} {
		o := DefaultOptions()
		tc.mod(&o)
		err := transforms.Validate(&o)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option {
			t.Errorf("%s: error %v, want an *OptionError naming it", tc.option, err)
		}
	}
	// What 0 means stays allowed: exact sums, every pair, the last scale's
	// rule on every scale.
	o := DefaultOptions()
	o.Method, o.BHTol, o.CutoffTol, o.CoarseMaxIter, o.CoarseTol, o.Alpha, o.Gamma = Cutoff, 0, 0, 0, 0, 0, 0
	if err := transforms.Validate(&o); err != nil {
		t.Errorf("zeros: %v", err)
	}
}

// TestOutputScaleAuto: Fit resolves the output scale auto by method
// (Result.OutputScale), and the stage records it as the figure
// output_scale.
func TestOutputScaleAuto(t *testing.T) {
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(9, 9)), 15)
	for _, tc := range []struct {
		m     Method
		scale OutputScale
		want  OutputScale
	}{
		{Exact, ScaleAuto, Transfer},
		{Exact, Global, Global},
		{BarnesHut, ScaleAuto, Global},
		{Cutoff, ScaleAuto, Global},
	} {
		o := DefaultOptions()
		o.Perplexity, o.Method, o.OutputScale, o.MaxIter, o.Multiscale = 8, tc.m, tc.scale, 5, false
		r, err := Fit(context.Background(), x, 60, 3, soft, 6, o)
		if err != nil {
			t.Fatal(err)
		}
		if r.OutputScale != tc.want || (r.Width == 0) != (tc.want == Transfer) {
			t.Errorf("method %v, output scale %v: ran %v with width %g, want %v", tc.m, tc.scale, r.OutputScale, r.Width, tc.want)
		}
	}
	for m, want := range map[Method]string{Exact: "transfer", BarnesHut: "global"} {
		opts := Stage{}.NewOptions().(*Options)
		opts.Perplexity, opts.Method, opts.MaxIter = 5, m, 5
		figs, err := runTwoClasses(opts)
		if err != nil {
			t.Fatal(err)
		}
		if figs["output_scale"] != want {
			t.Errorf("method %v: figure output_scale %v, want %q", m, figs["output_scale"], want)
		}
	}
}

// TestPacmanBehaviour runs the paper's second experiment: on the hemisphere
// with hard classes SoftClassNeRV tears the sphere along the class border
// (input neighbours across it end up farther apart, relative to other
// neighbour pairs, than in NeRV), while on the hemisphere whose labels blend
// it keeps the border's neighbours together.
func TestPacmanBehaviour(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fits two 500-point NeRV embeddings, about 4 s; go test without -short (as CI does) runs it")
	}
	ctx := context.Background()
	const n, k = 500, 10
	x, soft := synth.Pacman(rand.New(rand.NewPCG(3, 1)), n)
	o := DefaultOptions()
	o.Method, o.Perplexity = Exact, 20 // the paper's method (auto runs cutoff at 500 rows)
	fit := func(labels []float64, alpha float64) []float64 {
		oo := o
		oo.Alpha = alpha
		r, err := Fit(ctx, x, n, 3, labels, 2, oo)
		if err != nil {
			t.Fatal(err)
		}
		return r.Y
	}
	idx := make([]int32, n*k)
	if err := kernels.KNN(ctx, idx, nil, x, n, 3, k, 1); err != nil {
		t.Fatal(err)
	}
	// tear is the mean map distance of input-neighbour pairs that cross
	// z = 0 on the given side (x ≥ 0: hard), over that of the pairs that do not.
	tear := func(y []float64, hardSide bool) float64 {
		var cross, other float64
		var nc, no int
		for i := range n {
			for _, j := range idx[i*k : (i+1)*k] {
				if (x[i*3] >= 0) != hardSide || (x[int(j)*3] >= 0) != hardSide {
					continue
				}
				d := math.Hypot(y[i*2]-y[j*2], y[i*2+1]-y[j*2+1])
				if (x[i*3+2] >= 0) != (x[int(j)*3+2] >= 0) {
					cross, nc = cross+d, nc+1
				} else {
					other, no = other+d, no+1
				}
			}
		}
		return (cross / float64(nc)) / (other / float64(no))
	}
	nerv, softnerv := fit(nil, 0), fit(soft, 1)
	hn, hs := tear(nerv, true), tear(softnerv, true)
	sn, ss := tear(nerv, false), tear(softnerv, false)
	t.Logf("tear ratio, hard side: NeRV %.3f, SoftClassNeRV %.3f; soft side: NeRV %.3f, SoftClassNeRV %.3f", hn, hs, sn, ss)
	if !(hs > 1.5*hn) {
		t.Errorf("hard side: tear ratio %.3f, NeRV %.3f; want SoftClassNeRV above 1.5× NeRV", hs, hn)
	}
	// The blend stretches the soft side along z a little (about 1.2× here),
	// which this ratio also picks up; a tear is an order of magnitude.
	if !(ss < 1.5*sn && hs > 5*ss) {
		t.Errorf("soft side: tear ratio %.3f, NeRV %.3f, hard side %.3f; want below 1.5× NeRV and a fifth of the hard side", ss, sn, hs)
	}
}

// TestFitDuplicates checks that identical rows (zero input distances) give
// a finite, deterministic embedding with both methods.
func TestFitDuplicates(t *testing.T) {
	ctx := context.Background()
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(9, 9)), 15)
	const n, c = 60, 6
	for i := 1; i < 12; i++ {
		copy(x[i*3:i*3+3], x[0:3])
	}
	for _, m := range []Method{Exact, BarnesHut, Cutoff} {
		o := DefaultOptions()
		o.Perplexity, o.Method, o.MaxIter = 8, m, 100
		if m.sparse() {
			o.OutputScale = Global
		}
		r1, err := Fit(ctx, x, n, 3, soft, c, o)
		if err != nil {
			t.Fatalf("method %v: %v", m, err)
		}
		r2, _ := Fit(ctx, x, n, 3, soft, c, o)
		for q, v := range r1.Y {
			if math.IsNaN(v) || math.IsInf(v, 0) || v != r2.Y[q] {
				t.Fatalf("method %v: y[%d] = %v, second run %v", m, q, v, r2.Y[q])
			}
		}
	}
}
