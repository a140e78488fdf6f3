package ckpca

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/affine"
	"github.com/ordinate/ordinate/transforms/apply"
)

// applyInMemory places the rows of rec with the model table of a run, as
// the apply stage does, and returns the embedding.
func applyInMemory(t *testing.T, model *transforms.MemTable, rec arrow.RecordBatch) []float64 {
	t.Helper()
	place := &transforms.MemTables{In: map[string][]arrow.RecordBatch{"model": model.Records, "in": {rec}}, Want: []string{"out"}}
	defer place.Release()
	opts := apply.Stage{}.NewOptions().(*apply.Options)
	opts.ID = "id"
	if err := transforms.Run(context.Background(), apply.Stage{}, opts, &transforms.Env{Tables: place}); err != nil {
		t.Fatalf("apply: %v", err)
	}
	return embedding(t, place.Out("out"))
}

// TestStageApplyIdentity: for every kernel and path that writes a model,
// standardised or not, the stage's own embedding is bit for bit what
// apply gives for the same rows (the stage places its rows with the
// model), and it does not depend on the thread count.
func TestStageApplyIdentity(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Options)
		path string
	}{
		{"linear primal", func(o *Options) {}, "primal"},
		{"linear dual", func(o *Options) { o.Path = PathDual }, "dual"},
		{"rbf", func(o *Options) { o.Kernel = RBF }, "dual"},
		{"poly", func(o *Options) { o.Kernel = Poly }, "dual"},
		{"cosine", func(o *Options) { o.Kernel = Cosine }, "dual"},
		{"rbf landmarks", func(o *Options) { o.Kernel, o.Landmarks = RBF, 25 }, "nystrom"},
		{"linear landmarks", func(o *Options) { o.Landmarks = 25 }, "nystrom"},
		{"rbf soft", func(o *Options) { o.Kernel, o.Soft, o.Scale = RBF, 10, ScaleNone }, "dual"},
	} {
		for _, std := range []bool{true, false} {
			name := fmt.Sprintf("%s/standardize=%v", tc.name, std)
			var first []float64
			for _, threads := range []int{1, 3} {
				o := Stage{}.NewOptions().(*Options)
				o.ID, o.Control, o.Scale, o.Standardize = "id", []string{"cx", "cy"}, ScaleAuto, std
				tc.set(o)
				mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
				rec := stageRecord(mem, 40, false)
				tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out", "model-out")
				env := &transforms.Env{Tables: tables, Threads: threads, Mem: mem}
				if err := transforms.Run(context.Background(), Stage{}, o, env); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if got := env.Prov.Figures["path"]; got != tc.path {
					t.Errorf("%s: path %v, want %s", name, got, tc.path)
				}
				fit := embedding(t, tables.Out("out"))
				applied := applyInMemory(t, tables.Out("model-out"), rec)
				for i := range fit {
					if math.Float64bits(fit[i]) != math.Float64bits(applied[i]) {
						t.Errorf("%s threads %d: row %d emb_%d: stage %v, apply %v (differ by %g)", name, threads, i/2, i%2, fit[i], applied[i], fit[i]-applied[i])
						break
					}
				}
				// The control rows still meet their targets.
				if o.Soft == 0 && (math.Abs(fit[3*2]-0.4) > 1e-9 || math.Abs(fit[17*2+1]+0.1) > 1e-9) {
					t.Errorf("%s: control rows at (%g, %g), (%g, %g)", name, fit[6], fit[7], fit[34], fit[35])
				}
				if first == nil {
					first = fit
				} else {
					for i := range fit {
						if math.Float64bits(fit[i]) != math.Float64bits(first[i]) {
							t.Errorf("%s: value %d is %v with 1 thread, %v with %d", name, i, first[i], fit[i], threads)
							break
						}
					}
				}
				tables.Release()
				rec.Release()
				mem.AssertSize(t, 0)
			}
		}
	}
}

// TestStagePlacementMatchesFit bounds what writing the model's placement
// costs: the stage's embedding (the kernel expansion, or the affine map,
// that apply evaluates) agrees with the solver's own F·U, rebuilt here from
// the exported pieces on the same standardised rows, to 1e-12 of the
// embedding's largest value on every path.
func TestStagePlacementMatchesFit(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		set  func(*Options)
	}{
		{"linear primal", func(o *Options) {}},
		{"linear dual", func(o *Options) { o.Path = PathDual }},
		{"rbf", func(o *Options) { o.Kernel = RBF }},
		{"poly", func(o *Options) { o.Kernel = Poly }},
		{"cosine", func(o *Options) { o.Kernel = Cosine }},
		{"rbf landmarks", func(o *Options) { o.Kernel, o.Landmarks = RBF, 25 }},
		{"rbf soft", func(o *Options) { o.Kernel, o.Soft, o.Scale = RBF, 10, ScaleNone }},
	} {
		for _, std := range []bool{true, false} {
			name := fmt.Sprintf("%s/standardize=%v", tc.name, std)
			o := Stage{}.NewOptions().(*Options)
			o.ID, o.Control, o.Scale, o.Standardize = "id", []string{"cx", "cy"}, ScaleAuto, std
			tc.set(o)
			rec := stageRecord(memory.DefaultAllocator, 40, false)
			defer rec.Release()
			tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out", "model-out")
			defer tables.Release()
			if err := transforms.Run(ctx, Stage{}, o, &transforms.Env{Tables: tables}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			placed := embedding(t, tables.Out("out"))
			read := &transforms.Env{Tables: &transforms.MemTables{In: map[string][]arrow.RecordBatch{"model": tables.Out("model-out").Records}}, Prov: &arrowio.Provenance{}}
			m, _, err := read.ReadModel(ctx, "model")
			if err != nil {
				t.Fatal(err)
			}
			// The standardised rows, as the stage fitted on them.
			var sc *transforms.Scaling
			kern := kernels.Kernel{Kind: "linear"}
			switch m := m.(type) {
			case *affine.Model:
				sc = &transforms.Scaling{Names: m.Features, Cols: []int{0, 1, 2, 3}, Mean: m.Mean, Scale: m.Scale}
			case *KernelModel:
				sc, kern = m.Scaling, m.Kernel
			}
			n, p := 40, 4
			raw := make([]float64, n*p)
			for j := range p {
				col := rec.Column(1 + j).(*array.Float64)
				for i := range n {
					raw[i*p+j] = col.Value(i)
				}
			}
			xs := mat.NewDense(n, p, sc.Apply(nil, raw, n, p))
			var feat *Features
			switch {
			case o.Landmarks > 0:
				// The landmarks are the model's reference rows.
				var lm []int
				ref := m.(*KernelModel).Ref
				for r := range o.Landmarks {
					for i := range n {
						if slices.Equal(xs.RawRowView(i), ref.RawRowView(r)) {
							lm = append(lm, i)
							break
						}
					}
				}
				feat, err = NystromFeatures(xs, lm, kern)
			case o.Kernel == Linear && o.Path != PathDual:
				feat = &Features{F: xs}
			default:
				feat, err = KernelFeatures(gram(kern, xs, xs))
			}
			if err != nil {
				t.Fatal(err)
			}
			ctrl := Control{Rows: []int{3, 17}, Targets: []float64{0.4, 1.5, 1.2, -0.1}}
			fit, err := Fit(feat.F, ctrl, *o)
			if err != nil {
				t.Fatal(err)
			}
			var worst, big float64
			for i, v := range placed {
				worst = max(worst, math.Abs(v-fit.Embedding.At(i/2, i%2)))
				big = max(big, math.Abs(v))
			}
			if worst > 1e-12*big {
				t.Errorf("%s: placement and F·U differ by %g (largest value %g)", name, worst, big)
			}
			t.Logf("%s: max |placement − F·U| = %.3g, largest value %.3g", name, worst, big)
		}
	}
}
