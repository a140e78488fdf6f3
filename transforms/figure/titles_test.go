package figure

import (
	"strings"
	"testing"

	"github.com/ordinate/ordinate/arrowio"
)

// TestTitles checks the subtitle's parameters: resolved values in place of
// the "from the data" defaults, rounded; parameters the kernel does not
// read left out.
func TestTitles(t *testing.T) {
	for _, tc := range []struct {
		name    string
		params  map[string]any
		figures map[string]any
		want    string
	}{
		{"resolved gamma", map[string]any{"kernel": "rbf", "gamma": 0.0, "nu": 1.0},
			map[string]any{"resolved_gamma": 0.3381415586583378}, "x.parquet · 9 rows · kernel rbf · gamma 0.338 · nu 1"},
		{"given gamma", map[string]any{"kernel": "rbf", "gamma": 2.5}, map[string]any{"resolved_gamma": 2.5},
			"x.parquet · 9 rows · kernel rbf · gamma 2.5"},
		{"linear kernel", map[string]any{"kernel": "linear", "gamma": 0.0, "dims": 0.0}, map[string]any{"dims": 2.0},
			"x.parquet · 9 rows · kernel linear · dims 2"},
		{"dims given", map[string]any{"dims": 3.0}, map[string]any{"dims": 2.0}, "x.parquet · 9 rows · dims 3"},
		{"no kernel", map[string]any{"method": "exact", "gamma": 0.5}, nil, "x.parquet · 9 rows · method exact · gamma 0.5"},
		{"precomputed similarity", map[string]any{"kernel": "", "gamma": 0.0, "perplexity": 30.0}, nil, "x.parquet · 9 rows · perplexity 30"},
	} {
		title, sub := Titles("/tmp/x.parquet", 9, &arrowio.Provenance{Stage: "ckpca", Params: tc.params, Figures: tc.figures})
		if title != "ckpca" || sub != tc.want {
			t.Errorf("%s: %q, %q; want ckpca, %q", tc.name, title, sub, tc.want)
		}
	}
	if title, sub := Titles("/tmp/x.csv", 3, nil); title != "x.csv" || !strings.HasSuffix(sub, "3 rows") {
		t.Errorf("no provenance: %q, %q", title, sub)
	}
}

// TestDistanceTitles: the subtitle of a long distance table counts its
// pairs and objects, not its rows as if they were points.
func TestDistanceTitles(t *testing.T) {
	p := &arrowio.Provenance{Stage: "fisher", Params: map[string]any{"kernel": "", "perplexity": 30.0}}
	title, sub := DistanceTitles("/tmp/d.parquet", 999000, 1000, p)
	if want := "d.parquet · 999000 pairs of 1000 objects · perplexity 30"; title != "fisher" || sub != want {
		t.Errorf("%q, %q; want fisher, %q", title, sub, want)
	}
	if _, sub := DistanceTitles("/tmp/d.csv", 1, 2, nil); sub != "d.csv · 1 pair of 2 objects" {
		t.Errorf("one pair, no provenance: %q", sub)
	}
}
