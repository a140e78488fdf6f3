package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestModelFileAsData: a model file given where a stage reads a data table
// (--in, --embedding, --similarity, --distances) is refused, exit 2, saying
// what it is and where it goes, instead of being fitted as data (29 model
// columns as features) or failing on a perplexity or a missing column.
// The report still lists model files, and apply still takes one as --model.
func TestModelFileAsData(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "tsne.model.parquet")
	emb := filepath.Join(dir, "tsne.parquet")
	if code, _, e := runCmd(t, nil, "tsne", "--in", thyroid, "--label", "label", "--out", emb, "--model-out", model, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	out := func(name string) string { return filepath.Join(dir, name) }
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"tsne --in", []string{"tsne", "--in", model, "--out", out("a.parquet")}},
		{"pca --in", []string{"pca", "--in", model, "--out", out("a.parquet")}},
		{"nerv --in", []string{"nerv", "--in", model, "--out", out("a.parquet")}},
		{"bvp --in", []string{"bvp", "--in", model, "--label", "label", "--out", out("a.parquet")}},
		{"fisher --in", []string{"fisher", "--in", model, "--label", "label", "--kernel", "rbf", "--out", out("a.parquet")}},
		{"tsne --distances", []string{"tsne", "--distances", model, "--out", out("a.parquet")}},
		{"evaluate --in", []string{"evaluate", "--in", model, "--embedding", emb, "--out", out("m.parquet")}},
		{"evaluate --embedding", []string{"evaluate", "--in", thyroid, "--embedding", model, "--label", "label", "--out", out("m.parquet")}},
		{"apply --in", []string{"apply", "--model", model, "--in", model, "--out", out("a.parquet")}},
		{"plot --in", []string{"plot", "--in", model, "--out", out("a.svg")}},
	} {
		code, _, e := runCmd(t, nil, append(tc.args, "--quiet")...)
		if code != exitInput || !strings.Contains(e, "a model file, not a data table") || !strings.Contains(e, "ordinate apply --model") || !strings.Contains(e, model) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d saying %s is a model file, for ordinate apply --model", tc.name, code, e, exitInput, model)
		}
	}
	noLeftovers(t, dir, "tsne.model.parquet", "tsne.parquet")
	if code, _, e := runCmd(t, nil, "apply", "--model", model, "--in", thyroid, "--out", out("placed.parquet"), "--quiet"); code != 0 {
		t.Errorf("apply --model: exit %d, %s", code, e)
	}
	if code, _, e := runCmd(t, nil, "report", "--out", out("r.html"), "--quiet", emb, model); code != 0 {
		t.Errorf("report with a model file: exit %d, %s", code, e)
	}
}
