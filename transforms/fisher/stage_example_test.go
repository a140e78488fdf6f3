package fisher_test

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/fisher"
)

// ExampleStage runs the fisher stage from Go on in-memory records: a long
// similarity table (i, j, s; pairs i ≤ j) of six objects on a line, a
// linear kernel s_ij = x_i·x_j, and their labels.
func ExampleStage() {
	mem := memory.DefaultAllocator
	x := []float64{0, 1, 2, 3, 4, 5}
	names := []string{"a", "b", "c", "d", "e", "f"}

	sb := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.BinaryTypes.String}, {Name: "j", Type: arrow.BinaryTypes.String},
		{Name: "s", Type: arrow.PrimitiveTypes.Float64}}, nil))
	defer sb.Release()
	for i := range x {
		for j := i; j < len(x); j++ {
			sb.Field(0).(*array.StringBuilder).Append(names[i])
			sb.Field(1).(*array.StringBuilder).Append(names[j])
			sb.Field(2).(*array.Float64Builder).Append(x[i] * x[j])
		}
	}
	sim := sb.NewRecordBatch()
	defer sim.Release()

	lb := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{
		{Name: "name", Type: arrow.BinaryTypes.String}, {Name: "class", Type: arrow.BinaryTypes.String}}, nil))
	defer lb.Release()
	for i, n := range names {
		lb.Field(0).(*array.StringBuilder).Append(n)
		lb.Field(1).(*array.StringBuilder).Append([]string{"low", "high"}[i/3])
	}
	labels := lb.NewRecordBatch()
	defer labels.Release()

	opts := fisher.DefaultOptions()
	opts.ID, opts.Label = "name", "class"
	opts.Sigma = 1
	opts.Upper = true
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"similarity": sim, "labels": labels}, "out")
	defer tables.Release()
	if err := transforms.Run(context.Background(), fisher.Stage{}, &opts, &transforms.Env{Tables: tables}); err != nil {
		panic(err)
	}
	out := tables.Out("out")
	prov := out.Provenance()
	fmt.Printf("%d pairs, kind %s, classes %v\n", out.NumRows(), prov.Kind, prov.Figures["classes"])
	// Equal steps on the line; the Fisher metric stretches the one across
	// the class boundary (c, d).
	rec := out.Records[0]
	is, js := rec.Column(0).(*array.String), rec.Column(1).(*array.String)
	d := rec.Column(2).(*array.Float64)
	for r := range int(rec.NumRows()) {
		if names := is.Value(r) + js.Value(r); names == "ab" || names == "bc" || names == "cd" {
			fmt.Printf("d(%s, %s) = %.3f\n", is.Value(r), js.Value(r), d.Value(r))
		}
	}
	// Output:
	// 15 pairs, kind distance_pairs, classes [high low]
	// d(a, b) = 0.342
	// d(b, c) = 0.659
	// d(c, d) = 0.815
}
