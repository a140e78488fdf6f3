package figure

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// WithControlTable finds the ids of a control table through the
// provenance, and leaves the spec alone whenever it cannot.
func TestWithControlTable(t *testing.T) {
	dir := t.TempDir()
	ctab := filepath.Join(dir, "points.csv")
	if err := os.WriteFile(ctab, []byte("name,px,py\nowl,1,0\nemu,0,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	withName := arrow.NewSchema([]arrow.Field{{Name: "name", Type: arrow.BinaryTypes.String}, {Name: "emb_0", Type: arrow.PrimitiveTypes.Float64}}, nil)
	without := arrow.NewSchema([]arrow.Field{{Name: "row", Type: arrow.PrimitiveTypes.Int64}}, nil)
	prov := func(path string) *arrowio.Provenance {
		return &arrowio.Provenance{Params: map[string]any{"id": "name"}, Inputs: []arrowio.InputInfo{{Role: "control-table", Path: path}}}
	}
	for _, tc := range []struct {
		name   string
		spec   Spec
		schema *arrow.Schema
		prov   *arrowio.Provenance
		want   []string // the ids found; nil: spec unchanged
	}{
		{"the table's ids", Spec{}, withName, prov(ctab), []string{"emu", "owl"}},
		{"no provenance", Spec{}, withName, nil, nil},
		{"no control table", Spec{}, withName, &arrowio.Provenance{Params: map[string]any{"id": "name"}}, nil},
		{"the table is gone", Spec{}, withName, prov(filepath.Join(dir, "gone.csv")), nil},
		{"the embedding lacks the id", Spec{}, without, prov(ctab), nil},
		{"control columns win", Spec{Control: []string{"cx"}}, withName, prov(ctab), nil},
	} {
		got := tc.spec.WithControlTable(context.Background(), tc.schema, tc.prov, memory.NewGoAllocator())
		ids := slices.Sorted(maps.Keys(got.ControlIDs))
		if tc.want == nil {
			if got.ControlIDs != nil || got.ControlIDColumn != "" {
				t.Errorf("%s: spec changed to %q %v", tc.name, got.ControlIDColumn, ids)
			}
			continue
		}
		if got.ControlIDColumn != "name" || !slices.Equal(ids, tc.want) {
			t.Errorf("%s: column %q ids %v, want name %v", tc.name, got.ControlIDColumn, ids, tc.want)
		}
	}
}
