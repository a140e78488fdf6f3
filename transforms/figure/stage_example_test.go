package figure_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/figure"
	"github.com/ordinate/ordinate/transforms/table"
)

// The plot stage run from Go on an embedding held in memory: the table's
// provenance (schema metadata "ordinate") says it is an embedding, and the
// figure comes back as the bytes of the file output "out".
func ExampleStage() {
	md, _ := (&arrowio.Provenance{Tool: "ordinate", Stage: "pca", Kind: table.Embedding, Params: map[string]any{"dims": 2}}).Metadata()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "label", Type: arrow.BinaryTypes.String},
		{Name: "emb_0", Type: arrow.PrimitiveTypes.Float64},
		{Name: "emb_1", Type: arrow.PrimitiveTypes.Float64},
	}, &md)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"low", "low", "mid", "high", "high"}, nil)
	b.Field(1).(*array.Float64Builder).AppendValues([]float64{0, 1, 2, 3, 4}, nil)
	b.Field(2).(*array.Float64Builder).AppendValues([]float64{1, 0, 1, 0, 1}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()

	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
	opts := figure.Stage{}.NewOptions().(*figure.Options)
	opts.Color = "label"
	opts.Order = []string{"low", "mid", "high"}
	env := &transforms.Env{Tables: tables}
	if err := transforms.Run(context.Background(), figure.Stage{}, opts, env); err != nil {
		panic(err)
	}
	svg := tables.File("out")
	fmt.Println(string(svg[:5]), bytes.Contains(svg, []byte("<svg")), bytes.Contains(svg, []byte(">mid<")))
	fmt.Println("points:", env.Prov.Figures["points"])
	// Output:
	// <?xml true true
	// points: 5
}
