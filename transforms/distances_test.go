package transforms

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

func stringArray(vals ...string) arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewArray()
}

// pairFrame is a long distance table as ReadFrame gives it for
// Selection{ID: "i", Features: ["distance"], Keep: ["j"]}.
func pairFrame(t *testing.T, rows [][3]string, d []float64) *arrowio.Frame {
	var is, js []string
	var rn []int64
	for r, p := range rows {
		is, js, rn = append(is, p[0]), append(js, p[1]), append(rn, int64(r))
	}
	f := &arrowio.Frame{Source: arrowio.Source{Path: "d.csv"}, N: len(rows), D: 1, FeatureNames: []string{"distance"}, X: d,
		IDName: "i", ID: stringArray(is...), KeepFields: []arrow.Field{{Name: "j", Type: arrow.BinaryTypes.String}},
		Keep: []arrow.Array{stringArray(js...)}, Rows: rn}
	t.Cleanup(f.Release)
	return f
}

func TestDistanceMatrix(t *testing.T) {
	ids := &arrowio.Frame{Source: arrowio.Source{Path: "t.csv"}, N: 3, IDName: "id", ID: stringArray("a", "b", "c")}
	defer ids.Release()
	for _, tc := range []struct {
		name string
		rows [][3]string
		d    []float64
		want []float64
		err  string
	}{
		{"upper is mirrored", [][3]string{{"a", "b"}, {"a", "c"}, {"b", "c"}}, []float64{1, 2, 3}, []float64{0, 1, 2, 1, 0, 3, 2, 3, 0}, ""},
		{"both directions may differ", [][3]string{{"a", "b"}, {"b", "a"}, {"a", "c"}, {"c", "b"}}, []float64{1, 5, 2, 3},
			[]float64{0, 1, 2, 5, 0, 3, 2, 3, 0}, ""},
		{"missing pair", [][3]string{{"a", "b"}, {"a", "c"}}, []float64{1, 2}, nil, "no distance for the pair (b, c)"},
		{"unknown id", [][3]string{{"a", "z"}}, []float64{1}, nil, `column "j", row 0 (id z)`},
		{"negative", [][3]string{{"a", "b"}}, []float64{-1}, nil, "negative distance"},
		{"conflicting repeat", [][3]string{{"a", "b"}, {"a", "b"}}, []float64{1, 2}, nil, "twice"},
	} {
		got, err := DistanceMatrix(pairFrame(t, tc.rows, tc.d), ids)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, arrowio.ErrInvalidValue) {
				t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for k := range tc.want {
			if got[k] != tc.want[k] {
				t.Errorf("%s: entry %d = %v, want %v", tc.name, k, got[k], tc.want[k])
			}
		}
	}
}
