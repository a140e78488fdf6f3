package tsne_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/tsne"
)

// ExampleStage runs the tsne stage from Go on an in-memory Arrow record:
// three clusters of 30 points in 3-D, ten units apart.
func ExampleStage() {
	rng := rand.New(rand.NewPCG(1, 2))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "x1", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x2", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x3", Type: arrow.PrimitiveTypes.Float64},
		{Name: "cluster", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range 90 {
		for a := range 3 {
			v := rng.NormFloat64()
			if a == i/30 {
				v += 10
			}
			b.Field(a).(*array.Float64Builder).Append(v)
		}
		b.Field(3).(*array.StringBuilder).Append(fmt.Sprint("c", i/30))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()

	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
	defer tables.Release()
	opts := tsne.Stage{}.NewOptions().(*tsne.Options)
	opts.Label = "cluster"
	opts.Perplexity = 10
	opts.MaxIter = 300
	if err := transforms.Run(context.Background(), tsne.Stage{}, opts, &transforms.Env{Tables: tables}); err != nil {
		fmt.Println(err)
		return
	}
	out := tables.Out("out")
	fmt.Println(out.NumRows(), "rows")
	var cols []string
	for _, f := range out.Schema.Fields() {
		cols = append(cols, f.Name)
	}
	fmt.Println(strings.Join(cols, " "))
	p := out.Provenance()
	fmt.Println(p.Kind, p.Stage, p.Figures["method"], p.Figures["features"])
	// Output:
	// 90 rows
	// row cluster emb_0 emb_1
	// embedding tsne exact [x1 x2 x3]
}
