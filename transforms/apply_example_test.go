package transforms_test

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

// points is an in-memory table of n rows with an id and two features.
func points(n int, shift float64) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "u", Type: arrow.PrimitiveTypes.Float64},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Float64Builder).Append(float64(i) + shift)
		b.Field(2).(*array.Float64Builder).Append(float64(i%3) - shift)
	}
	return b.NewRecordBatch()
}

// ExampleApplyStage fits PCA on one in-memory table, keeps its model in
// memory, and places the rows of another table with the apply stage.
func ExampleApplyStage() {
	ctx := context.Background()
	train := points(10, 0)
	defer train.Release()
	fit := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": train}, "out", "model-out")
	defer fit.Release()
	popts := linear.PCAStage{}.NewOptions().(*linear.PCAStageOptions)
	popts.ID, popts.Dims = "id", 1
	if err := transforms.Run(ctx, linear.PCAStage{}, popts, &transforms.Env{Tables: fit}); err != nil {
		log.Fatal(err)
	}

	fresh := points(4, 0.5)
	defer fresh.Release()
	place := &transforms.MemTables{
		In:   map[string][]arrow.RecordBatch{"model": fit.Out("model-out").Records, "in": {fresh}},
		Want: []string{"out"},
	}
	defer place.Release()
	opts := transforms.ApplyStage{}.NewOptions().(*transforms.ApplyOptions)
	opts.ID = "id"
	if err := transforms.Run(ctx, transforms.ApplyStage{}, opts, &transforms.Env{Tables: place}); err != nil {
		log.Fatal(err)
	}
	out := place.Out("out")
	fmt.Println("model of stage:", out.Provenance().Figures["model_stage"], "rows:", out.NumRows())
	emb := out.Records[0].Column(1).(*array.Float64)
	for i := range emb.Len() {
		fmt.Printf("id %d -> %.3f\n", i, emb.Value(i))
	}
	// Output:
	// model of stage: pca rows: 4
	// id 0 -> -2.065
	// id 1 -> -1.024
	// id 2 -> 0.017
	// id 3 -> -1.364
}
