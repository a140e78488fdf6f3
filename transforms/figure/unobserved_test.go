package figure

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// tripletsReader is a triplet table (i, j, k, aspect, split) of rows
// "i j k aspect split".
func tripletsReader(t *testing.T, rows ...string) arrowio.Reader {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "j", Type: arrow.PrimitiveTypes.Int64},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "aspect", Type: arrow.BinaryTypes.String}, {Name: "split", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range rows {
		f := strings.Fields(r)
		for c := range 3 {
			b.Field(c).(*array.Int64Builder).Append(int64(f[c][0] - '0'))
		}
		b.Field(3).(*array.StringBuilder).Append(f[3])
		b.Field(4).(*array.StringBuilder).Append(f[4])
	}
	rec := b.NewRecordBatch()
	return arrowio.NewRecordsReader("t.parquet", schema, []arrow.RecordBatch{rec})
}

// TestReadObserved checks which objects each aspect observed: those its
// train triplets name (every triplet's with all), and that a single map
// counts an object any aspect observed.
func TestReadObserved(t *testing.T) {
	rows := []string{"0 1 2 hair train", "1 2 3 hair hidden", "3 4 5 eggs train"}
	aspects := []string{"hair", "hair", "hair", "hair", "eggs", "eggs", "eggs"}
	ids := []string{"0", "3", "4", "6", "0", "3", "5"}
	for _, tc := range []struct {
		name    string
		prov    *arrowio.Provenance
		aspects []string
		want    []bool
	}{
		{"train triplets", nil, aspects, []bool{false, true, true, true, true, false, false}},
		{"all triplets", &arrowio.Provenance{Params: map[string]any{"all": true}}, aspects, []bool{false, false, true, true, true, false, false}},
		{"one map", nil, nil, []bool{false, false, false, true, false, false, false}},
		// SCORE --single-map writes the aspect "all", which no triplet names.
		{"one map with aspect all", nil, slices.Repeat([]string{"all"}, 7), []bool{false, false, false, true, false, false, false}},
	} {
		obs, _, err := ReadObserved(context.Background(), tripletsReader(t, rows...), tc.prov)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := obs.Unobserved(tc.aspects, ids); !slices.Equal(got, tc.want) {
			t.Errorf("%s: unobserved %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestScatterUnobserved checks the unobserved rows' marks: grey rings in
// the panels and a legend entry with their number.
func TestScatterUnobserved(t *testing.T) {
	p := only(testPoints(), "facets")
	p.Unobserved = make([]bool, len(p.X))
	for i := range 10 {
		p.Unobserved[3*i] = true
	}
	var buf bytes.Buffer
	if err := Scatter(&buf, "svg", p, Style{NoFontEmbedding: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), ">not observed (10)<") {
		t.Error("no legend entry for the unobserved rows")
	}
	p.Unobserved = p.Unobserved[:5]
	if err := Scatter(&bytes.Buffer{}, "svg", p, Style{}); err == nil {
		t.Error("5 observed flags for 150 points: no error")
	}
}
