package linear_test

import (
	"context"
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/linear"
)

// flowers is a small in-memory table: an id, three features and a species.
func flowers() arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "petal", Type: arrow.PrimitiveTypes.Float64},
		{Name: "sepal", Type: arrow.PrimitiveTypes.Float64},
		{Name: "stem", Type: arrow.PrimitiveTypes.Float64},
		{Name: "species", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	names := []string{"iris", "lily", "rose"}
	for i := range 15 {
		k := i % 3
		b.Field(0).(*array.Int64Builder).Append(int64(100 + i))
		b.Field(1).(*array.Float64Builder).Append(2*float64(k) + 0.3*float64(i%4))
		b.Field(2).(*array.Float64Builder).Append(float64(i%5) + 0.2*float64(k))
		b.Field(3).(*array.Float64Builder).Append(float64(i%2) - float64(k))
		b.Field(4).(*array.StringBuilder).Append(names[k])
	}
	return b.NewRecordBatch()
}

// run runs a stage on the flowers and prints a summary of its embedding.
func run(s transforms.Stage, opts transforms.Options) {
	rec := flowers()
	defer rec.Release()
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
	defer tables.Release()
	if err := transforms.Run(context.Background(), s, opts, &transforms.Env{Tables: tables}); err != nil {
		log.Fatal(err)
	}
	out := tables.Out("out")
	var cols []string
	for _, f := range out.Schema.Fields() {
		cols = append(cols, f.Name)
	}
	fmt.Println(s.Info().Name, "columns:", cols, "rows:", out.NumRows())
	e0 := out.Records[0].Column(2).(*array.Float64)
	fmt.Printf("row 0: emb_0 = %.3f\n", e0.Value(0))
}

// ExamplePCAStage runs the pca stage from Go on an in-memory record; the
// label is passed through.
func ExamplePCAStage() {
	opts := linear.PCAStage{}.NewOptions().(*linear.PCAOptions)
	opts.ID = "id"
	opts.Label = "species"
	run(linear.PCAStage{}, opts)
	// Output:
	// pca columns: [id species emb_0 emb_1] rows: 15
	// row 0: emb_0 = 1.574
}

// ExampleLDAStage runs the lda stage from Go on an in-memory record.
func ExampleLDAStage() {
	opts := linear.LDAStage{}.NewOptions().(*linear.LDAOptions)
	opts.ID = "id"
	opts.Label = "species"
	opts.Dims = 2
	run(linear.LDAStage{}, opts)
	// Output:
	// lda columns: [id species emb_0 emb_1] rows: 15
	// row 0: emb_0 = -1.480
}
