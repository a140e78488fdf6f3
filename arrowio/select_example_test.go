package arrowio_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

func ExampleSelection_Compile() {
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "x2", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "grade", Type: arrow.BinaryTypes.String},
		{Name: "x1", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	rec, _, err := array.RecordFromJSON(mem, schema, strings.NewReader(`[
		{"name": "ann", "x2": 0.5,  "grade": "low",  "x1": 1},
		{"name": "bob", "x2": null, "grade": "high", "x1": 2},
		{"name": "cy",  "x2": 2.5,  "grade": "mid",  "x1": 3}
	]`))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rec.Release()

	sel := arrowio.Selection{ID: "name", Features: []string{"x*"}, Label: "grade"}
	plan, err := sel.Compile(schema, arrowio.Source{Path: "grades.parquet"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("features:", plan.FeatureNames()) // schema order within a glob

	// By default an invalid value stops with its position.
	_, err = plan.Extract(rec, "grades.parquet", 0)
	fmt.Println(err)
	fmt.Println(errors.Is(err, arrowio.ErrInvalidValue))

	// With InvalidDrop the row goes, and is counted.
	sel.OnInvalid = arrowio.InvalidDrop
	plan, err = sel.Compile(schema, arrowio.Source{Path: "grades.parquet"})
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := plan.Extract(rec, "grades.parquet", 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Release()
	fmt.Println("X:", f.X, "rows:", f.Rows, "dropped:", f.Dropped)
	fmt.Println("ids:", f.ID, "labels:", f.Label.Str, "kept:", f.KeepFields[0].Name, f.Keep[0])
	// Output:
	// features: [x2 x1]
	// grades.parquet: column "x2", row 1 (id bob): invalid value: null
	// true
	// X: [0.5 1 2.5 3] rows: [0 2] dropped: 1
	// ids: ["ann" "cy"] labels: [low mid] kept: grade ["low" "mid"]
}
