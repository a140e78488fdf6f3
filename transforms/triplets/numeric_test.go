package triplets_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/triplets"
)

// TestNumericAspectsWarn: a numeric column with many distinct values (mpg's
// displ, cty, hwy) becomes an aspect whose every value is a category of its
// own; the stage says so, naming the column and its count. Class-like
// codes (at most 12 values), text and dictionaries pass silently.
func TestNumericAspectsWarn(t *testing.T) {
	const n = 40
	rng := rand.New(rand.NewPCG(35, 6))
	mem := memory.DefaultAllocator
	f64 := array.NewFloat64Builder(mem)
	i64 := array.NewInt64Builder(mem)
	code := array.NewInt32Builder(mem)
	txt := array.NewStringBuilder(mem)
	for i := range n {
		f64.Append(float64(rng.IntN(30)) / 10) // up to 30 values
		i64.Append(int64(i % 13))              // 13 values
		code.Append(int32(i % 12))             // 12 values
		txt.Append(fmt.Sprintf("t%d", i%20))   // 20 values, text
	}
	cols := []arrow.Array{f64.NewArray(), i64.NewArray(), code.NewArray(), txt.NewArray()}
	for _, b := range []array.Builder{f64, i64, code, txt} {
		b.Release()
	}
	fields := []arrow.Field{{Name: "displ", Type: arrow.PrimitiveTypes.Float64}, {Name: "cty", Type: arrow.PrimitiveTypes.Int64},
		{Name: "cyl", Type: arrow.PrimitiveTypes.Int32}, {Name: "model", Type: arrow.BinaryTypes.String}}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, n)
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	distinct := map[float64]bool{}
	for _, v := range rec.Column(0).(*array.Float64).Float64Values() {
		distinct[v] = true
	}
	for _, tc := range []struct {
		name    string
		exclude []string
		want    []string // in the warning; nil: no warning
	}{
		{"measurements", []string{}, []string{fmt.Sprintf(`"displ" (%d distinct values)`, len(distinct)), `"cty" (13 distinct values)`}},
		{"left out", []string{"displ", "cty"}, nil},
	} {
		tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
		opts := triplets.Stage{}.NewOptions().(*triplets.Options)
		opts.Exclude = tc.exclude
		opts.PerAspect = 10
		if err := transforms.Run(context.Background(), triplets.Stage{}, opts, &transforms.Env{Tables: tables}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got string
		for _, w := range tables.Out("out").Provenance().Warnings {
			if strings.Contains(w, "numeric columns") {
				got = w
			}
		}
		tables.Release()
		if tc.want == nil {
			if got != "" {
				t.Errorf("%s: unexpected warning %q", tc.name, got)
			}
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: warning %q lacks %q", tc.name, got, w)
			}
		}
		if strings.Contains(got, "cyl") || strings.Contains(got, "model") {
			t.Errorf("%s: warning %q names a class-like or text column", tc.name, got)
		}
	}
}
