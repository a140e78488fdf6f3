package report

import (
	"testing"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/table"
)

func TestPhaseOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    *file
		want phase
	}{
		{"triplets", &file{kind: table.Triplets}, phaseInputs},
		{"fitted embedding", &file{kind: table.Embedding, prov: fitProv("r1")}, phaseFits},
		{"placed rows", &file{kind: table.Embedding, prov: applyProv("r1")}, phasePlacements},
		{"maps", &file{kind: table.Maps}, phaseFits},
		{"distances", &file{kind: table.DistancePairs}, phaseFits},
		{"metrics", &file{kind: table.Metrics, prov: &arrowio.Provenance{}}, phaseMetrics},
		{"no kind", &file{}, phaseOther},
	} {
		if got := phaseOf(tc.f); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSectionID: ids from the file name, safe in a URL fragment, the same
// on every run, numbered when two files share a name.
func TestSectionID(t *testing.T) {
	taken := map[string]bool{"summary": true}
	for _, tc := range []struct{ name, want string }{
		{"thyroid-bvp.parquet", "t-thyroid-bvp-parquet"},
		{"Thyroid BVP.parquet", "t-thyroid-bvp-parquet-2"},
		{"memory:in#0", "t-memory-in-0"},
		{"2.parquet", "t-2-parquet"},
	} {
		if got := sectionID(tc.name, taken); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
