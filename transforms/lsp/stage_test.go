package lsp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/apply"
)

// controlRecord is n rows with an id, features x1…x3 on unequal scales and
// control columns cx, cy on rows 2, 9 and 21 (null elsewhere).
func controlRecord(mem memory.Allocator, n int) arrow.RecordBatch {
	fields := []arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}
	for _, name := range []string{"x1", "x2", "x3"} {
		fields = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64})
	}
	fields = append(fields, arrow.Field{Name: "cx", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		arrow.Field{Name: "cy", Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	targets := map[int][2]float64{2: {0.5, 0.1}, 9: {-0.2, 0.3}, 21: {0.7, -0.6}}
	for i := range n {
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("r%d", i))
		for j := range 3 {
			b.Field(1 + j).(*array.Float64Builder).Append(100*float64(j) + math.Pow(10, float64(j))*math.Sin(float64((i+3)*(j+2))))
		}
		if t, ok := targets[i]; ok {
			b.Field(4).(*array.Float64Builder).Append(t[0])
			b.Field(5).(*array.Float64Builder).Append(t[1])
		} else {
			b.Field(4).AppendNull()
			b.Field(5).AppendNull()
		}
	}
	return b.NewRecordBatch()
}

func embedding(t *testing.T, m *transforms.MemTable) []float64 {
	t.Helper()
	var out []float64
	r := m.Records[0]
	e0 := r.Column(r.Schema().FieldIndices("emb_0")[0]).(*array.Float64)
	e1 := r.Column(r.Schema().FieldIndices("emb_1")[0]).(*array.Float64)
	for i := range int(r.NumRows()) {
		out = append(out, e0.Value(i), e1.Value(i))
	}
	return out
}

// TestStageApplyIdentity: the linear map's own embedding is bit for bit
// what apply gives with its model for the same rows, standardised or not.
func TestStageApplyIdentity(t *testing.T) {
	ctx := context.Background()
	for _, std := range []bool{true, false} {
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		rec := controlRecord(mem, 30)
		tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out", "model-out")
		o := Stage{}.NewOptions().(*Options)
		o.ID, o.Control, o.Standardize = "id", []string{"cx", "cy"}, std
		if err := transforms.Run(ctx, Stage{}, o, &transforms.Env{Tables: tables, Mem: mem}); err != nil {
			t.Fatalf("standardize=%v: %v", std, err)
		}
		fit := embedding(t, tables.Out("out"))

		place := &transforms.MemTables{In: map[string][]arrow.RecordBatch{"model": tables.Out("model-out").Records, "in": {rec}}, Want: []string{"out"}}
		ao := apply.Stage{}.NewOptions().(*apply.Options)
		ao.ID = "id"
		if err := transforms.Run(ctx, apply.Stage{}, ao, &transforms.Env{Tables: place}); err != nil {
			t.Fatalf("standardize=%v: apply: %v", std, err)
		}
		applied := embedding(t, place.Out("out"))
		for i := range fit {
			if math.Float64bits(fit[i]) != math.Float64bits(applied[i]) {
				t.Errorf("standardize=%v: row %d emb_%d: stage %v, apply %v (differ by %g)", std, i/2, i%2, fit[i], applied[i], fit[i]-applied[i])
				break
			}
		}
		if math.Abs(fit[2*2]-0.5) > 1e-9 || math.Abs(fit[21*2+1]+0.6) > 1e-9 {
			t.Errorf("standardize=%v: control rows at (%g, %g), (%g, %g)", std, fit[4], fit[5], fit[42], fit[43])
		}
		place.Release()
		tables.Release()
		rec.Release()
		mem.AssertSize(t, 0)
	}
}

// TestOptionsValidate: the defaults validate; an out-of-range value of
// each ranged option (and of Tol, the library's) and a value outside the
// enum are refused with an *transforms.OptionError naming the option.
func TestOptionsValidate(t *testing.T) {
	d := DefaultOptions()
	if err := transforms.Validate(&d); err != nil {
		t.Fatalf("DefaultOptions: %v", err)
	}
	if n := (Stage{}).NewOptions().(*Options); !reflect.DeepEqual(*n, d) {
		t.Errorf("NewOptions %+v, DefaultOptions %+v", *n, d)
	}
	for _, tc := range []struct {
		option string
		set    func(*Options)
	}{
		{"dims", func(o *Options) { o.Dims = -1 }},
		{"neighbors", func(o *Options) { o.Neighbors = 0 }},
		{"variant", func(o *Options) { o.Variant = "" }},
		{"variant", func(o *Options) { o.Variant = "paulovich" }},
		{"Tol", func(o *Options) { o.Tol = 0 }},
		{"Tol", func(o *Options) { o.Tol = math.NaN() }},
	} {
		o := DefaultOptions()
		tc.set(&o)
		err := transforms.Validate(&o)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option {
			t.Errorf("%s: error %v, want an OptionError naming it", tc.option, err)
		}
	}
}

// TestLaplacianNeighborsRows: Laplacian refuses as many neighbours as rows
// (the one check of neighbors that needs the data) with an OptionError
// naming neighbors, and a value out of its range before any work.
func TestLaplacianNeighborsRows(t *testing.T) {
	x := mat.NewDense(5, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1, 2, 2})
	for _, k := range []int{0, 5, 6} {
		o := DefaultOptions()
		o.Neighbors = k
		_, err := Laplacian(context.Background(), x, []int{0}, []float64{0, 0}, 2, o)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != "neighbors" {
			t.Errorf("%d neighbours for 5 rows: error %v, want an OptionError naming neighbors", k, err)
		}
	}
}
