package report_test

import (
	"bytes"
	"context"
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/linear"
	"github.com/ordinate/ordinate/transforms/report"
)

// The report stage run from Go: a PCA embedding made in memory is the one
// table of the report (the variadic role "in" takes in#0, in#1, …), and the
// page comes back as the bytes of the file output "out".
func ExampleStage() {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "x1", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x2", Type: arrow.PrimitiveTypes.Float64},
		{Name: "grade", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range 9 {
		b.Field(0).(*array.Float64Builder).Append(float64(i % 3))
		b.Field(1).(*array.Float64Builder).Append(float64(i%4) - 0.5*float64(i%3))
		b.Field(2).(*array.StringBuilder).Append([]string{"low", "mid", "high"}[i%3])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()

	fit := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
	defer fit.Release()
	po := linear.PCAStage{}.NewOptions()
	if err := transforms.SetOptions(po, map[string]string{"label": "grade"}); err != nil {
		log.Fatal(err)
	}
	if err := transforms.Run(context.Background(), linear.PCAStage{}, po, &transforms.Env{Tables: fit}); err != nil {
		log.Fatal(err)
	}

	page := &transforms.MemTables{In: map[string][]arrow.RecordBatch{"in#0": fit.Out("out").Records}, Want: []string{"out"}}
	ro := report.DefaultOptions()
	ro.Title = "grades"
	if err := transforms.Run(context.Background(), report.Stage{}, &ro, &transforms.Env{Tables: page}); err != nil {
		log.Fatal(err)
	}
	html := page.File("out")
	fmt.Println("html:", bytes.HasPrefix(bytes.TrimSpace(html), []byte("<!DOCTYPE html>")))
	fmt.Println("title:", bytes.Contains(html, []byte("<title>grades</title>")))
	fmt.Println("figures:", bytes.Count(html, []byte("<svg")))
	// Output:
	// html: true
	// title: true
	// figures: 1
}
