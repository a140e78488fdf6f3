package triplets_test

import (
	"context"
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/triplets"
)

// animals is a small attribute table: an id column and two categorical
// attributes, each an aspect.
func animals() arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "legs", Type: arrow.BinaryTypes.String},
		{Name: "home", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"cat", "dog", "hen", "duck", "trout", "eel"}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"4", "4", "2", "2", "0", "0"}, nil)
	b.Field(2).(*array.StringBuilder).AppendValues([]string{"land", "land", "land", "water", "water", "water"}, nil)
	return b.NewRecordBatch()
}

// ExampleStage runs the triplets stage on an in-memory table, with the
// object split of Le & Lauw, and prints what it wrote.
func ExampleStage() {
	rec := animals()
	defer rec.Release()
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out", "split-out")
	defer tables.Release()

	opts := triplets.Stage{}.NewOptions().(*triplets.Options)
	opts.ID = "name"
	opts.Pairs = triplets.Unordered
	opts.SplitObjects = 0.5
	if err := transforms.Run(context.Background(), triplets.Stage{}, opts, &transforms.Env{Tables: tables}); err != nil {
		log.Fatal(err)
	}
	out := tables.Out("out")
	p := out.Provenance()
	fmt.Println(p.Kind, out.NumRows(), "triplets; per aspect", p.Figures["triplets_per_aspect"], "train", p.Figures["train"])
	t := out.Records[0]
	for r := range 3 {
		fmt.Printf("<%s, %s, %s> under %s: %s\n", t.Column(0).ValueStr(r), t.Column(1).ValueStr(r), t.Column(2).ValueStr(r),
			t.Column(3).ValueStr(r), t.Column(4).ValueStr(r))
	}
	split := tables.Out("split-out")
	fmt.Println(split.Provenance().Kind, split.NumRows(), "rows:", split.Schema.Field(0).Name, split.Schema.Field(1).Name, split.Schema.Field(2).Name)
	// Output:
	// triplets 30 triplets; per aspect [12 18] train 1
	// <cat, dog, hen> under legs: hidden
	// <cat, dog, duck> under legs: hidden
	// <cat, dog, trout> under legs: hidden
	// split 12 rows: aspect id observed
}
