package quality_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/linear"
	"github.com/ordinate/ordinate/transforms/quality"
)

// measurements is a small in-memory table: an id, three features on very
// different scales, and a class.
func measurements() arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "height_mm", Type: arrow.PrimitiveTypes.Float64},
		{Name: "weight_kg", Type: arrow.PrimitiveTypes.Float64},
		{Name: "ratio", Type: arrow.PrimitiveTypes.Float64},
		{Name: "class", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	names := []string{"a", "b", "c"}
	for i := range 30 {
		k := i % 3
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Float64Builder).Append(1000*float64(k) + 300*float64((i*7)%5))
		b.Field(2).(*array.Float64Builder).Append(float64(k) + 0.4*float64((i*3)%4))
		b.Field(3).(*array.Float64Builder).Append(0.01*float64(k) + 0.003*float64(i%7))
		b.Field(4).(*array.StringBuilder).Append(names[k])
	}
	return b.NewRecordBatch()
}

// fitPCA runs the pca stage (standardised by default) and returns its
// embedding, which carries its provenance in the schema's metadata.
func fitPCA(rec arrow.RecordBatch) *transforms.MemTables {
	opts := linear.PCAStage{}.NewOptions()
	if err := transforms.SetOptions(opts, map[string]string{"id": "id", "label": "class"}); err != nil {
		log.Fatal(err)
	}
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
	if err := transforms.Run(context.Background(), linear.PCAStage{}, opts, &transforms.Env{Tables: tables}); err != nil {
		log.Fatal(err)
	}
	return tables
}

// ExampleStage fits PCA on an in-memory table and evaluates the embedding
// from Go: evaluate takes the feature columns and the standardisation from
// the embedding's provenance, and records what it used.
func ExampleStage() {
	rec := measurements()
	defer rec.Release()
	fitted := fitPCA(rec)
	defer fitted.Release()
	emb := fitted.Out("out").Records[0]

	opts := quality.Stage{}.NewOptions().(*quality.Options)
	opts.ID, opts.Label, opts.Ks = "id", "class", []int{5}
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"embedding": emb, "in": rec}, "out", "summary")
	defer tables.Release()
	if err := transforms.Run(context.Background(), quality.Stage{}, opts, &transforms.Env{Tables: tables}); err != nil {
		log.Fatal(err)
	}
	out := tables.Out("out")
	p := out.Provenance()
	fmt.Println("kind:", p.Kind, "rows:", out.NumRows())
	fmt.Println("features:", p.Figures["features"], "from", p.Figures["features_source"])
	fmt.Println("standardize:", p.Figures["standardize"], "from", p.Figures["standardize_source"])
	fmt.Printf("trustworthiness_k5: %.4f\n", p.Figures["trustworthiness_k5"])
	fmt.Println(strings.SplitN(string(tables.File("summary")), "\n", 2)[0])
	// Output:
	// kind: metrics rows: 13
	// features: [height_mm weight_kg ratio] from embedding
	// standardize: true from embedding
	// trustworthiness_k5: 0.9645
	// quality of memory:embedding (30 rows)
}
