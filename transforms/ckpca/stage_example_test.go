package ckpca_test

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/ckpca"
)

// controlRecord is a small feature table: ids, three features, and control
// columns cx, cy set on rows a and d only.
func controlRecord() arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.BinaryTypes.String},
		{Name: "x1", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x2", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x3", Type: arrow.PrimitiveTypes.Float64},
		{Name: "cx", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "cy", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil))
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"a", "b", "c", "d", "e", "f"}, nil)
	b.Field(1).(*array.Float64Builder).AppendValues([]float64{1.0, -0.8, 0.3, -0.4, 0.6, -0.7}, nil)
	b.Field(2).(*array.Float64Builder).AppendValues([]float64{0.2, 0.1, -0.9, 0.7, 0.4, -0.5}, nil)
	b.Field(3).(*array.Float64Builder).AppendValues([]float64{0.1, -0.3, 0.2, 0.5, -0.6, 0.1}, nil)
	valid := []bool{true, false, false, true, false, false}
	b.Field(4).(*array.Float64Builder).AppendValues([]float64{0.5, 0, 0, -0.2, 0, 0}, valid)
	b.Field(5).(*array.Float64Builder).AppendValues([]float64{0.1, 0, 0, 0.3, 0, 0}, valid)
	return b.NewRecordBatch()
}

// The ckpca stage run from Go on an in-memory table: rows a and d are
// placed by hand through the control columns, and land on their targets.
// Default options: the linear kernel, solved in feature space.
func ExampleStage() {
	rec := controlRecord()
	defer rec.Release()
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
	defer tables.Release()
	opts := ckpca.Stage{}.NewOptions().(*ckpca.Options)
	opts.ID, opts.Control, opts.Scale = "id", []string{"cx", "cy"}, ckpca.ScaleAuto
	if err := transforms.Run(context.Background(), ckpca.Stage{}, opts, &transforms.Env{Tables: tables}); err != nil {
		panic(err)
	}
	out := tables.Out("out")
	r := out.Records[0]
	ids := r.Column(0).(*array.String)
	emb0 := r.Column(r.Schema().FieldIndices("emb_0")[0]).(*array.Float64)
	emb1 := r.Column(r.Schema().FieldIndices("emb_1")[0]).(*array.Float64)
	for _, i := range []int{0, 3} {
		fmt.Printf("%s at (%.3f, %.3f)\n", ids.Value(i), emb0.Value(i), emb1.Value(i))
	}
	p := out.Provenance()
	fmt.Println("rows:", out.NumRows(), "kind:", p.Kind, "path:", p.Figures["path"], "control points:", p.Figures["control_points"])
	// Output:
	// a at (0.500, 0.100)
	// d at (-0.200, 0.300)
	// rows: 6 kind: embedding path: primal control points: 2
}
