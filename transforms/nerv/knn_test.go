package nerv

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/internal/synth"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/quality"
)

// TestFitBHApproxNeighbours: Barnes–Hut ClassNeRV on 2,500 points in 30-D
// (above ApproxKNN's exact fallback) with NN-descent neighbours gives the
// embedding quality of exact neighbours, within tolerances, and reports
// which search ran.
func TestFitBHApproxNeighbours(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: fits two 2,500-point Barnes–Hut embeddings, about 6 s; go test without -short (as CI does) runs it")
	}
	// 30-D clusters wide enough to overlap, where NN-descent misses a few
	// neighbours (recall below 1, logged).
	const n, d = 2500, 30
	ds := genBlobs("blobs", rand.New(rand.NewPCG(15, 4)), n, d, []float64{8, 8, 8, 8}, false)
	soft := oneHot(ds.cls)
	got := map[kernels.KNNMethod]*quality.Report{}
	lists := map[kernels.KNNMethod][]int32{}
	for _, m := range []kernels.KNNMethod{kernels.KNNExact, kernels.KNNApprox} {
		o := DefaultOptions()
		o.Method, o.OutputScale, o.Alpha = BarnesHut, Global, 1
		// One scale, 30 iterations: the same budget for both searches keeps
		// the test short (both embeddings are well separated by then).
		o.Multiscale, o.Perplexity, o.Neighbors, o.MaxIter = false, 10, m, 30
		r, err := Fit(context.Background(), ds.x, n, d, soft, 4, o)
		if err != nil {
			t.Fatal(err)
		}
		if r.KNN != m {
			t.Errorf("Neighbors %v: Result.KNN %v", m, r.KNN)
		}
		lists[m] = r.NeighborIdx
		if got[m], err = quality.Evaluate(context.Background(), ds.x, d, r.Y, 2, ds.cls, quality.Options{Ks: []int{10}}); err != nil {
			t.Fatal(err)
		}
	}
	// Recall of the exact lists (sets per row; ties may reorder them).
	ex, ap := lists[kernels.KNNExact], lists[kernels.KNNApprox]
	k := len(ex) / n
	var hit int
	for i := range n {
		want := map[int32]bool{}
		for _, j := range ex[i*k : (i+1)*k] {
			want[j] = true
		}
		for _, j := range ap[i*k : (i+1)*k] {
			if want[j] {
				hit++
			}
		}
	}
	t.Logf("NN-descent recall of the %d exact neighbours: %.4f", k, float64(hit)/float64(n*k))
	for _, tc := range []struct {
		metric, subset string
		tol            float64
	}{
		{quality.MetricTrustworthiness, quality.SubsetAll, 0.01},
		{quality.MetricContinuity, quality.SubsetAll, 0.01},
		{quality.MetricKNNAccuracy, quality.SubsetEmbedding, 0.01},
	} {
		ex, _ := got[kernels.KNNExact].Value(tc.metric, 10, tc.subset)
		ap, _ := got[kernels.KNNApprox].Value(tc.metric, 10, tc.subset)
		t.Logf("%s(10): exact neighbours %.4f, NN-descent %.4f", tc.metric, ex, ap)
		if ap < ex-tc.tol {
			t.Errorf("%s(10): NN-descent %.4f, exact %.4f; want within %g", tc.metric, ap, ex, tc.tol)
		}
	}
}

// TestStageKNNFigure: the stage records which neighbour search ran; below
// 2,000 rows --knn approx runs the exact search (ApproxKNN's fallback) and
// says so.
func TestStageKNNFigure(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method Method
		knn    string
		want   string
	}{
		{"exact method", Exact, "approx", "exact"},
		{"bh, approx below the fallback", BarnesHut, "approx", "exact"},
		{"bh, auto", BarnesHut, "auto", "exact"},
	} {
		opts := Stage{}.NewOptions().(*Options)
		opts.Perplexity, opts.Method = 5, tc.method
		opts.Neighbors = kernels.KNNMethod(tc.knn)
		figs, err := runTwoClasses(opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := figs["knn"]; got != tc.want {
			t.Errorf("%s: figure knn %v, want %q", tc.name, got, tc.want)
		}
	}
}

// runTwoClasses runs the stage with opts and label "class" on twoClasses and
// returns the figures of its output.
func runTwoClasses(opts *Options) (map[string]any, error) {
	rec := twoClasses()
	defer rec.Release()
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
	defer tables.Release()
	opts.Label = "class"
	if err := transforms.Run(context.Background(), Stage{}, opts, &transforms.Env{Tables: tables}); err != nil {
		return nil, err
	}
	return tables.Out("out").Provenance().Figures, nil
}

// twoClasses is a table of 60 rows: two 2-D Gaussian classes ("a", "b"),
// three units apart.
func twoClasses() arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(3, 5))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "x1", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x2", Type: arrow.PrimitiveTypes.Float64},
		{Name: "class", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range 60 {
		for a := range 2 {
			b.Field(a).(*array.Float64Builder).Append(rng.NormFloat64() + 3*float64(i/30))
		}
		b.Field(2).(*array.StringBuilder).Append([]string{"a", "b"}[i/30])
	}
	return b.NewRecordBatch()
}

// TestSparseLevelLast checks that the last level, which takes the neighbour
// lists without copying them, evaluates the same stress and gradient, bit
// for bit, as a level built from copies, and leaves the lists intact for
// Result.NeighborIdx.
func TestSparseLevelLast(t *testing.T) {
	ctx := context.Background()
	const per, c, dims = 100, 6, 2
	n := 4 * per
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(3, 4)), per)
	o := DefaultOptions()
	o.Method, o.OutputScale, o.Multiscale, o.Threads = BarnesHut, Global, false, 2
	y := nervRandomY(rand.New(rand.NewPCG(5, 6)), n, dims)
	eval := func(last bool) (float64, []float64, *sparseLevels) {
		sl, err := newSparseLevels(ctx, x, n, 3, soft, c, o, transforms.NoProgress{})
		if err != nil {
			t.Fatal(err)
		}
		f, _, err := sl.level(o.Perplexity, last)
		if err != nil {
			t.Fatal(err)
		}
		g := make([]float64, n*dims)
		return f(y, g), g, sl
	}
	s0, g0, copied := eval(false)
	s1, g1, shared := eval(true)
	if s0 != s1 || !slices.Equal(g0, g1) {
		t.Errorf("last level: stress %v, copied lists %v; gradients equal: %v", s1, s0, slices.Equal(g0, g1))
	}
	if shared.d2 != nil || copied.d2 == nil {
		t.Errorf("last level: distances kept %v, want released; copied level: kept %v, want kept", shared.d2 != nil, copied.d2 != nil)
	}
	if !slices.Equal(shared.idx, copied.idx) {
		t.Error("last level changed the neighbour lists")
	}
}
