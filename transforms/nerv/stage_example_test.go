package nerv_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/nerv"
)

// ExampleStage runs the nerv stage (ClassNeRV, from a hard label) from Go
// on an in-memory Arrow record: two classes of 30 points in 3-D.
func ExampleStage() {
	rng := rand.New(rand.NewPCG(3, 4))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "x1", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x2", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x3", Type: arrow.PrimitiveTypes.Float64},
		{Name: "class", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range 60 {
		b.Field(0).(*array.Int64Builder).Append(int64(100 + i))
		for a := 1; a <= 3; a++ {
			b.Field(a).(*array.Float64Builder).Append(rng.NormFloat64() + 3*float64(i/30))
		}
		b.Field(4).(*array.StringBuilder).Append([]string{"a", "b"}[i/30])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()

	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
	defer tables.Release()
	opts := nerv.Stage{}.NewOptions().(*nerv.Options)
	opts.ID = "id"
	opts.Label = "class"
	opts.Perplexity = 10
	if err := transforms.Run(context.Background(), nerv.Stage{}, opts, &transforms.Env{Tables: tables}); err != nil {
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
	fmt.Println(p.Kind, p.Stage, p.Figures["mode"], p.Figures["classes"], len(p.Figures["levels"].([]any)), "levels")
	// Output:
	// 60 rows
	// id class emb_0 emb_1
	// embedding nerv classnerv [a b] 3 levels
}
