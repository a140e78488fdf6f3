package report

import (
	"testing"

	"github.com/ordinate/ordinate/arrowio"
)

// TestKeyParams: parameters as the run resolved them (a figure of the same
// name or resolved_NAME wins over the option), γ 0 left out.
func TestKeyParams(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *arrowio.Provenance
		want string
	}{
		{"resolved gamma", &arrowio.Provenance{Params: map[string]any{"kernel": "rbf", "gamma": 0.0}, Figures: map[string]any{"resolved_gamma": 0.25}}, "kernel rbf, gamma 0.25"},
		{"gamma unused", &arrowio.Provenance{Params: map[string]any{"kernel": "linear", "gamma": 0.0, "nu": 1.0}}, "kernel linear, nu 1"},
		{"figure wins", &arrowio.Provenance{Params: map[string]any{"perplexity": 30.0}, Figures: map[string]any{"perplexity": 14.0}}, "perplexity 14"},
		{"nothing", &arrowio.Provenance{Params: map[string]any{"threads": 2.0}}, ""},
		{"bvp", &arrowio.Provenance{Stage: "bvp", Params: map[string]any{"dims": 2.0, "solver": "svd", "standardize": true, "max_iter": 100.0, "threads": 2.0}},
			"solver svd, standardized"},
		{"pca", &arrowio.Provenance{Stage: "pca", Params: map[string]any{"dims": 2.0, "standardize": true, "threads": 2.0}}, "standardized"},
		{"pca raw", &arrowio.Provenance{Stage: "pca", Params: map[string]any{"dims": 2.0, "standardize": false}}, "not standardized"},
		{"lda", &arrowio.Provenance{Stage: "lda", Params: map[string]any{"shrinkage": 0.0, "standardize": true}, Figures: map[string]any{"shrinkage": 0.00010967412384798851}},
			"shrinkage 0.000109674, standardized"},
		{"tsne", &arrowio.Provenance{Stage: "tsne", Params: map[string]any{"perplexity": 30.0, "standardize": true}}, "perplexity 30, standardized"},
		{"tsne of distances", &arrowio.Provenance{Stage: "tsne", Params: map[string]any{"perplexity": 30.0, "standardize": false},
			Inputs: []arrowio.InputInfo{{Role: "distances"}, {Role: "labels"}}}, "perplexity 30"},
		{"pca of a feature table", &arrowio.Provenance{Stage: "pca", Params: map[string]any{"standardize": false}, Inputs: []arrowio.InputInfo{{Role: "in"}}}, "not standardized"},
		{"no provenance", nil, ""},
	} {
		if got := keyParams(tc.p); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestDataRoot follows an embedding's input back through the tables of the
// report to the data, so that fits of the same data are compared together.
func TestDataRoot(t *testing.T) {
	in := func(role, path string) *arrowio.Provenance {
		return &arrowio.Provenance{Inputs: []arrowio.InputInfo{{Role: role, Path: path}}}
	}
	dist := &file{path: "/r/sim-fisher.parquet", prov: in("similarity", "/r/similarity.parquet")}
	tsne := &file{path: "/r/sim-fisher-tsne.parquet", prov: &arrowio.Provenance{Inputs: []arrowio.InputInfo{
		{Role: "distances", Path: "/r/sim-fisher.parquet"}, {Role: "labels", Path: "/r/labels.parquet"}}}}
	loop := &file{path: "/r/a.parquet", prov: in("in", "/r/a.parquet")}
	all := []*file{dist, tsne, loop}
	for _, tc := range []struct {
		name string
		f    *file
		want string
	}{
		{"through a distance table", tsne, "similarity.parquet"},
		{"direct", &file{prov: in("in", "/d/thyroid.csv")}, "thyroid.csv"},
		{"nothing recorded", &file{}, "(input not recorded)"},
		{"a table naming itself", loop, "a.parquet"},
	} {
		if got := dataRoot(all, tc.f); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestSummaryK prefers k = 10, else the smallest k of the neighbourhood
// and class metrics.
func TestSummaryK(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows [][]metricRow
		want int
	}{
		{"10 present", [][]metricRow{{{"trustworthiness", "all", 5, 1}}, {{"knn_accuracy", "embedding", 10, 1}}}, 10},
		{"smallest", [][]metricRow{{{"trustworthiness", "all", 30, 1}, {"trustworthiness", "all", 5, 1}}}, 5},
		{"other metrics ignored", [][]metricRow{{{"nn_error", "embedding", 1, 1}, {"trustworthiness", "all", 7, 1}}}, 7},
		{"none", [][]metricRow{{{"triplet_accuracy", "all", 0, 1}}}, 0},
	} {
		if got := summaryK(tc.rows); got != tc.want {
			t.Errorf("%s: k = %d, want %d", tc.name, got, tc.want)
		}
	}
}
