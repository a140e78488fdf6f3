package transforms

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

func TestAlign(t *testing.T) {
	frame := func(path string, ids ...string) *arrowio.Frame {
		rows := make([]int64, len(ids))
		for i := range rows {
			rows[i] = int64(i)
		}
		f := &arrowio.Frame{Source: arrowio.Source{Path: path}, N: len(ids), IDName: "id", ID: stringArray(ids...), Rows: rows}
		t.Cleanup(f.Release)
		return f
	}
	in := frame("in.csv", "a", "b", "c", "d")
	for _, tc := range []struct {
		name      string
		emb       *arrowio.Frame
		in        *arrowio.Frame
		want      []int
		unmatched int
		err       string
	}{
		{"permuted subset", frame("e.parquet", "c", "a", "d"), in, []int{2, 0, 3}, 1, ""},
		{"unknown id", frame("e.parquet", "a", "x"), in, nil, 0, `e.parquet: column "id", row 1 (id x)`},
		{"duplicate in embedding", frame("e.parquet", "a", "a"), in, nil, 0, "duplicate id in the embedding"},
		{"duplicate in input", frame("e.parquet", "a"), frame("in.csv", "a", "b", "a"), nil, 0, "in.csv: column \"id\", row 2 (id a)"},
	} {
		idx, unmatched, err := Align(tc.emb, tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || unmatched != tc.unmatched || len(idx) != len(tc.want) {
			t.Errorf("%s: %v, %d unmatched, err %v", tc.name, idx, unmatched, err)
			continue
		}
		for i := range idx {
			if idx[i] != tc.want[i] {
				t.Errorf("%s: embedding row %d -> %d, want %d", tc.name, i, idx[i], tc.want[i])
			}
		}
	}
}

func stringArray(vals ...string) arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewArray()
}
