package linear_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/apply"
	"github.com/ordinate/ordinate/transforms/bvp"
	"github.com/ordinate/ordinate/transforms/linear"
)

// withConstant is a table with an id, a constant feature between two
// informative ones, and a numeric label.
func withConstant(mem memory.Allocator) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "key", Type: arrow.PrimitiveTypes.Int64},
		{Name: "a", Type: arrow.PrimitiveTypes.Float64},
		{Name: "c", Type: arrow.PrimitiveTypes.Float64},
		{Name: "b", Type: arrow.PrimitiveTypes.Float64},
		{Name: "grade", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	bld := array.NewRecordBuilder(mem, schema)
	defer bld.Release()
	for i := range 30 {
		g := i % 3
		bld.Field(0).(*array.Int64Builder).Append(int64(i))
		bld.Field(1).(*array.Float64Builder).Append(float64(g)*1.5 + 0.1*float64(i%7))
		bld.Field(2).(*array.Float64Builder).Append(3.25)
		bld.Field(3).(*array.Float64Builder).Append(float64(i%4) - 0.3*float64(g))
		bld.Field(4).(*array.Int64Builder).Append(int64(g + 1))
	}
	return bld.NewRecordBatch()
}

// TestConstantColumn: every linear stage on a table with a constant feature
// column warns, drops it, does not panic, and apply of its model on the same
// table reproduces the embedding bit for bit; standardised or not.
func TestConstantColumn(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		stage transforms.Stage
		set   func(o transforms.Options, std bool)
	}{
		{"bvp", bvp.Stage{}, func(o transforms.Options, std bool) {
			p := o.(*bvp.Options)
			p.ID, p.Label, p.Standardize = "key", "grade", std
		}},
		{"pca", linear.PCAStage{}, func(o transforms.Options, std bool) {
			p := o.(*linear.PCAOptions)
			p.ID, p.Label, p.Standardize = "key", "grade", std
		}},
		{"lda", linear.LDAStage{}, func(o transforms.Options, std bool) {
			p := o.(*linear.LDAOptions)
			p.ID, p.Label, p.Standardize = "key", "grade", std
		}},
	} {
		for _, std := range []bool{true, false} {
			name := tc.name
			if !std {
				name += "/raw"
			}
			t.Run(name, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				rec := withConstant(mem)
				defer rec.Release()

				fit := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out", "model-out")
				defer fit.Release()
				opts := tc.stage.NewOptions()
				tc.set(opts, std)
				if err := transforms.Run(ctx, tc.stage, opts, &transforms.Env{Tables: fit, Mem: mem}); err != nil {
					t.Fatal(err)
				}
				prov := fit.Out("out").Provenance()
				if !strings.Contains(strings.Join(prov.Warnings, "\n"), `feature "c" is constant`) {
					t.Errorf("no warning about the constant column: %q", prov.Warnings)
				}
				if got := prov.Figures["features"]; len(got.([]any)) != 2 {
					t.Errorf("features %v, want [a b]", got)
				}

				model := fit.Out("model-out")
				place := &transforms.MemTables{
					In:   map[string][]arrow.RecordBatch{"model": model.Records, "in": {rec}},
					Want: []string{"out"},
				}
				defer place.Release()
				ao := apply.Stage{}.NewOptions().(*apply.Options)
				ao.ID = "key"
				if err := transforms.Run(ctx, apply.Stage{}, ao, &transforms.Env{Tables: place, Mem: mem}); err != nil {
					t.Fatal(err)
				}
				want, got := fit.Out("out").Records[0], place.Out("out").Records[0]
				for j := range 2 {
					w := want.Column(int(want.NumCols()) - 2 + j).(*array.Float64).Float64Values()
					g := got.Column(int(got.NumCols()) - 2 + j).(*array.Float64).Float64Values()
					if len(w) != 30 || len(g) != 30 {
						t.Fatalf("emb_%d: %d fitted and %d applied rows", j, len(w), len(g))
					}
					for i := range w {
						if w[i] != g[i] {
							t.Fatalf("row %d emb_%d: applied %v, fitted %v", i, j, g[i], w[i])
						}
					}
				}
			})
		}
	}
}

// TestNoLabel: lda and bvp refuse to run without a label, naming the
// option.
func TestNoLabel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := withConstant(mem)
	defer rec.Release()
	for _, s := range []transforms.Stage{linear.LDAStage{}, bvp.Stage{}} {
		tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
		err := transforms.Run(context.Background(), s, s.NewOptions(), &transforms.Env{Tables: tables, Mem: mem})
		tables.Release()
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != "label" || !errors.Is(err, transforms.ErrNoLabel) {
			t.Errorf("%s: error %v, want an option error naming label", s.Info().Name, err)
		}
	}
}

// TestDimsAboveFeatures: every linear stage refuses more dimensions than
// features (after the constant column is dropped) with an option error
// naming dims.
func TestDimsAboveFeatures(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := withConstant(mem)
	defer rec.Release()
	for _, stage := range []transforms.Stage{bvp.Stage{}, linear.PCAStage{}, linear.LDAStage{}} {
		opts := stage.NewOptions()
		if err := transforms.SetOptions(opts, map[string]string{"id": "key", "label": "grade", "dims": "3"}); err != nil {
			t.Fatal(err)
		}
		tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
		err := transforms.Run(context.Background(), stage, opts, &transforms.Env{Tables: tables, Mem: mem})
		tables.Release()
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != "dims" || !errors.Is(err, linear.ErrDims) {
			t.Errorf("%s: error %v, want an option error naming dims", stage.Info().Name, err)
		}
	}
}
