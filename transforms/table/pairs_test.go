package table

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
		{"missing pair", [][3]string{{"a", "b"}, {"a", "c"}}, []float64{1, 2}, nil, "no value for the pair (b, c)"},
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

func TestSimilarityMatrix(t *testing.T) {
	ids := &arrowio.Frame{Source: arrowio.Source{Path: "t.csv"}, N: 2, IDName: "id", ID: stringArray("a", "b")}
	defer ids.Release()
	full := [][3]string{{"a", "a"}, {"a", "b"}, {"b", "b"}}
	got, err := SimilarityMatrix(pairFrame(t, full, []float64{2, -0.5, 1}), ids)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{2, -0.5, -0.5, 1}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Errorf("similarity matrix %v, want %v", got, want)
	}
	// Kernel distances need the diagonal: a similarity table without it is incomplete.
	if _, err := SimilarityMatrix(pairFrame(t, [][3]string{{"a", "b"}}, []float64{0.3}), ids); err == nil || !strings.Contains(err.Error(), "(a, a)") {
		t.Errorf("missing diagonal: error %v", err)
	}
}

func TestNeighborLists(t *testing.T) {
	ids := &arrowio.Frame{Source: arrowio.Source{Path: "t.csv"}, N: 3, IDName: "id", ID: stringArray("a", "b", "c")}
	defer ids.Release()
	rows := [][3]string{{"a", "b"}, {"b", "c"}, {"c", "a"}, {"a", "c"}, {"b", "a"}, {"c", "b"}}
	idx, dist, k, err := NeighborLists(pairFrame(t, rows, []float64{1, 2, 3, 4, 5, 6}), ids)
	if err != nil {
		t.Fatal(err)
	}
	wantIdx := []int32{1, 2, 2, 0, 0, 1}
	wantDist := []float64{1, 4, 2, 5, 3, 6}
	if k != 2 {
		t.Fatalf("k = %d, want 2", k)
	}
	for r := range wantIdx {
		if idx[r] != wantIdx[r] || dist[r] != wantDist[r] {
			t.Errorf("entry %d: (%d, %v), want (%d, %v)", r, idx[r], dist[r], wantIdx[r], wantDist[r])
		}
	}
	for _, tc := range []struct {
		name string
		rows [][3]string
		want string
	}{
		{"uneven", [][3]string{{"a", "b"}, {"a", "c"}, {"b", "a"}}, "row 1 (id a)"},
		{"not a multiple", [][3]string{{"a", "b"}, {"a", "c"}}, "neither all pairs"},
		{"self", [][3]string{{"a", "a"}, {"b", "a"}, {"c", "a"}}, "its own neighbour"},
	} {
		d := make([]float64, len(tc.rows))
		if _, _, _, err := NeighborLists(pairFrame(t, tc.rows, d), ids); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
