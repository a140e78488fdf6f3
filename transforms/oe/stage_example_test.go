package oe_test

import (
	"context"
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/oe"
)

// ExampleSOEStage fits one SOE map per aspect to an in-memory triplet table.
func ExampleSOEStage() {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "j", Type: arrow.PrimitiveTypes.Int64},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "aspect", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	// Objects 0…3 on a line in aspect "line"; in aspect "pairs" {0, 3} and {1, 2} go together.
	for _, t := range [][3]int64{{0, 1, 2}, {1, 2, 3}, {0, 1, 3}, {3, 2, 0}, {2, 1, 0}, {1, 0, 3}} {
		b.Field(0).(*array.Int64Builder).Append(t[0])
		b.Field(1).(*array.Int64Builder).Append(t[1])
		b.Field(2).(*array.Int64Builder).Append(t[2])
		b.Field(3).(*array.StringBuilder).Append("line")
	}
	for _, t := range [][3]int64{{0, 3, 1}, {3, 0, 2}, {1, 2, 0}, {2, 1, 3}} {
		b.Field(0).(*array.Int64Builder).Append(t[0])
		b.Field(1).(*array.Int64Builder).Append(t[1])
		b.Field(2).(*array.Int64Builder).Append(t[2])
		b.Field(3).(*array.StringBuilder).Append("pairs")
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
	defer tables.Release()

	opts := oe.SOEStage{}.NewOptions().(*oe.SOEOptions)
	opts.PerAspect = true
	if err := transforms.Run(context.Background(), oe.SOEStage{}, opts, &transforms.Env{Tables: tables}); err != nil {
		log.Fatal(err)
	}
	out := tables.Out("out")
	p := out.Provenance()
	fmt.Println(p.Kind, out.NumRows(), "rows; objects", p.Figures["objects"], "triplets", p.Figures["triplets"])
	m := out.Records[0]
	fmt.Println("aspects:", m.Column(0).ValueStr(0), m.Column(0).ValueStr(4))
	// Output:
	// maps 8 rows; objects 4 triplets 10
	// aspects: line pairs
}
