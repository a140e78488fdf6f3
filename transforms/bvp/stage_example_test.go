package bvp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/bvp"
)

// grades is a small in-memory table: two features that follow the grade,
// one constant column, and the ordinal label as text.
func grades() arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "x1", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x2", Type: arrow.PrimitiveTypes.Float64},
		{Name: "batch", Type: arrow.PrimitiveTypes.Float64},
		{Name: "grade", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	names := []string{"low", "mid", "high"}
	for i := range 12 {
		g := i % 3
		b.Field(0).(*array.Float64Builder).Append(float64(g) + 0.1*float64(i%4))
		b.Field(1).(*array.Float64Builder).Append(float64(i%5) - 0.5*float64(g))
		b.Field(2).(*array.Float64Builder).Append(7)
		b.Field(3).(*array.StringBuilder).Append(names[g])
	}
	return b.NewRecordBatch()
}

// ExampleStage runs the bvp stage from Go on an in-memory record, with the
// model as a second output.
func ExampleStage() {
	rec := grades()
	defer rec.Release()
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out", "model-out")
	defer tables.Release()

	opts := bvp.Stage{}.NewOptions().(*bvp.Options)
	opts.Label = "grade"
	opts.Order = []string{"low", "mid", "high"}
	if err := transforms.Run(context.Background(), bvp.Stage{}, opts, &transforms.Env{Tables: tables}); err != nil {
		log.Fatal(err)
	}
	out := tables.Out("out")
	var cols []string
	for _, f := range out.Schema.Fields() {
		cols = append(cols, f.Name)
	}
	prov := out.Provenance()
	fmt.Println("columns:", cols, "rows:", out.NumRows())
	fmt.Println("kind:", prov.Kind, "features:", prov.Figures["features"], "classes:", prov.Figures["classes"])
	fmt.Println("warning:", prov.Warnings[0])
	emb := out.Records[0].Column(2).(*array.Float64)
	fmt.Printf("emb_0 of the first three rows: %.3f %.3f %.3f\n", emb.Value(0), emb.Value(1), emb.Value(2))
	fmt.Println("model:", tables.Out("model-out").Provenance().Kind)
	// Output:
	// columns: [row grade emb_0 emb_1] rows: 12
	// kind: embedding features: [x1 x2] classes: [low mid high]
	// warning: feature "batch" is constant (7) and was dropped: it has no scale to standardise by
	// emb_0 of the first three rows: -0.948 0.121 1.190
	// model: model
}
