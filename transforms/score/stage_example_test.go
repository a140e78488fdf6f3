package score_test

import (
	"context"
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/score"
	"github.com/ordinate/ordinate/transforms/triplets"
)

// tripletRecord makes an in-memory triplet table with the triplets stage:
// ten objects, two aspects that group them differently.
func tripletRecord() arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.BinaryTypes.String}, {Name: "b", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"x", "x", "x", "x", "x", "y", "y", "y", "y", "y"}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"p", "q", "p", "q", "p", "q", "p", "q", "p", "q"}, nil)
	attrs := b.NewRecordBatch()
	defer attrs.Release()
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": attrs}, "out")
	defer tables.Release()
	if err := transforms.Run(context.Background(), triplets.Stage{}, triplets.Stage{}.NewOptions(), &transforms.Env{Tables: tables}); err != nil {
		log.Fatal(err)
	}
	rec := tables.Out("out").Records[0]
	rec.Retain()
	return rec
}

// ExampleStage fits SCORE maps to in-memory triplets and prints the shape
// of the maps and aspects tables.
func ExampleStage() {
	rec := tripletRecord()
	defer rec.Release()
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out", "aspects-out")
	defer tables.Release()

	opts := score.Stage{}.NewOptions().(*score.Options)
	opts.Deterministic = true // bit-identical for a seed, whatever the thread count
	if err := transforms.Run(context.Background(), score.Stage{}, opts, &transforms.Env{Tables: tables}); err != nil {
		log.Fatal(err)
	}
	maps, aspects := tables.Out("out"), tables.Out("aspects-out")
	p := maps.Provenance()
	fmt.Println(p.Kind, maps.NumRows(), "rows:", maps.Schema.NumFields(), "columns; objects", p.Figures["objects"], "triplets", p.Figures["triplets"])
	fmt.Println(aspects.Provenance().Kind, aspects.NumRows(), "rows; first columns", aspects.Schema.Field(0).Name, aspects.Schema.Field(1).Name)
	// Output:
	// maps 20 rows: 4 columns; objects 10 triplets 400
	// aspects 2 rows; first columns aspect delta
}
