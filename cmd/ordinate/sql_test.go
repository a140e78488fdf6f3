package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestSQLCommand: a bvp model prints one SELECT per dialect with the id,
// both coordinates and the kept column; --json holds the same SELECT and
// one expression per coordinate.
func TestSQLCommand(t *testing.T) {
	model := fitThyroidModel(t, t.TempDir(), "bvp")
	for _, tc := range []struct {
		dialect, quote, double string
	}{{"duckdb", `"`, "DOUBLE"}, {"spark", "`", "DOUBLE"}, {"postgres", `"`, "DOUBLE PRECISION"}, {"ansi", `"`, "DOUBLE PRECISION"}} {
		code, out, e := runCmd(t, nil, "sql", "--model", model, "--dialect", tc.dialect, "--table", "thyroid", "--id", "id", "--keep", "label")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.dialect, code, e)
		}
		q := func(s string) string { return tc.quote + s + tc.quote }
		for _, want := range []string{"SELECT\n  " + q("id") + ",\n", " AS " + q("emb_0") + ",\n", " AS " + q("emb_1") + ",\n", "  " + q("label") + "\nFROM thyroid;\n", "CAST(" + q("x1") + " AS " + tc.double + ")"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the SELECT lacks %q:\n%s", tc.dialect, want, out)
			}
		}
		code, js, e := runCmd(t, nil, "sql", "--model", model, "--dialect", tc.dialect, "--table", "thyroid", "--id", "id", "--keep", "label", "--json")
		if code != 0 {
			t.Fatalf("%s --json: exit %d: %s", tc.dialect, code, e)
		}
		var got struct {
			Dialect  string   `json:"dialect"`
			Stage    string   `json:"stage"`
			Features []string `json:"features"`
			Columns  []struct {
				Name       string `json:"name"`
				Expression string `json:"expression"`
			} `json:"columns"`
			Select string `json:"select"`
		}
		if err := json.Unmarshal([]byte(js), &got); err != nil {
			t.Fatalf("%s --json: %v\n%s", tc.dialect, err, js)
		}
		if got.Dialect != tc.dialect || got.Stage != "bvp" || len(got.Features) != 5 || len(got.Columns) != 2 || got.Select+";\n" != out {
			t.Errorf("%s --json: %+v", tc.dialect, got)
		}
		for j, c := range got.Columns {
			if c.Name != "emb_"+string(rune('0'+j)) || !strings.Contains(out, c.Expression+" AS "+q(c.Name)) {
				t.Errorf("%s --json: column %d is %q = %q, not in the SELECT", tc.dialect, j, c.Name, c.Expression)
			}
		}
	}
}

// TestSQLRefuses: models that are not affine, globs in --keep, an unknown
// dialect and a missing model are usage errors that say why.
func TestSQLRefuses(t *testing.T) {
	dir := t.TempDir()
	tsneModel, bvpModel := fitThyroidModel(t, dir, "tsne"), fitThyroidModel(t, dir, "bvp")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"t-SNE model", []string{"--model", tsneModel}, `sql serves affine models (bvp, pca, lda, and ckpca or lsp with a linear map); this is a "placement" model of stage tsne`},
		{"glob in keep", []string{"--model", bvpModel, "--keep", "x*"}, "not globs"},
		{"unknown dialect", []string{"--model", bvpModel, "--dialect", "oracle"}, `unknown dialect "oracle" (one of duckdb, spark, postgres, ansi)`},
		{"no model file", []string{"--model", filepath.Join(dir, "missing.parquet")}, "missing.parquet"},
		{"an argument", []string{"--model", bvpModel, "extra"}, "no arguments"},
	} {
		code, _, e := runCmd(t, nil, append([]string{"sql"}, tc.args...)...)
		if code != exitInput || !strings.Contains(e, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d naming %q", tc.name, code, e, exitInput, tc.want)
		}
	}
}

// fitThyroidModel fits stage on newthyroid and returns its model's path in
// dir.
func fitThyroidModel(t *testing.T, dir, stage string) string {
	t.Helper()
	model := filepath.Join(dir, stage+".model.parquet")
	if code, _, e := runCmd(t, nil, stage, "--in", "../../testdata/ordinal/newthyroid.csv", "--label", "label", "--quiet",
		"--out", filepath.Join(dir, stage+".parquet"), "--model-out", model); code != 0 {
		t.Fatalf("%s: exit %d: %s", stage, code, e)
	}
	return model
}
