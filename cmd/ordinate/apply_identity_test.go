package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// thyroidControl is the bundled thyroid table with control columns cx, cy
// (null except on one row per class).
const thyroidControl = "../../testdata/ckpca/thyroid-control.csv"

// TestApplyIdentity: for every stage that writes a model, standardised or
// not, apply on the training rows gives the fitting stage's own embedding
// bit for bit (as the README promises): each stage places its rows with
// the model it writes.
func TestApplyIdentity(t *testing.T) {
	features := []string{"--features", "x*", "--label", "label"}
	control := []string{"--label", "label", "--control", "cx,cy", "--scale", "auto"}
	stages := []struct {
		name string
		args []string
	}{
		{"bvp", append([]string{"bvp"}, features...)},
		{"pca", append([]string{"pca"}, features...)},
		{"lda", append([]string{"lda"}, features...)},
		{"ckpca linear", append([]string{"ckpca"}, control...)},
		{"ckpca linear dual", append([]string{"ckpca", "--path", "dual"}, control...)},
		{"ckpca rbf", append([]string{"ckpca", "--kernel", "rbf"}, control...)},
		{"ckpca poly", append([]string{"ckpca", "--kernel", "poly"}, control...)},
		{"ckpca cosine", append([]string{"ckpca", "--kernel", "cosine"}, control...)},
		{"ckpca rbf landmarks", append([]string{"ckpca", "--kernel", "rbf", "--landmarks", "60"}, control...)},
		{"ckpca linear landmarks", append([]string{"ckpca", "--landmarks", "60"}, control...)},
		{"lsp linear", []string{"lsp", "--label", "label", "--control", "cx,cy"}},
	}
	for _, st := range stages {
		for _, std := range []bool{true, false} {
			name := fmt.Sprintf("%s/standardize=%v", st.name, std)
			t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
				dir := t.TempDir()
				ext := ".parquet"
				if std {
					ext = ".arrow" // both output formats carry the float64 bits
				}
				out, model, applied := filepath.Join(dir, "fit"+ext), filepath.Join(dir, "m.parquet"), filepath.Join(dir, "applied"+ext)
				args := append(append([]string{}, st.args...), "--in", thyroidControl, fmt.Sprintf("--standardize=%v", std),
					"--out", out, "--model-out", model, "--quiet")
				if code, _, e := runCmd(t, nil, args...); code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, e)
				}
				if code, _, e := runCmd(t, nil, "apply", "--model", model, "--in", thyroidControl, "--out", applied, "--quiet"); code != 0 {
					t.Fatalf("apply: exit %d: %s", code, e)
				}
				fit, app := readEmbedding(t, out, "row"), readEmbedding(t, applied, "row")
				if fit.N != 215 || fit.N != app.N || fit.D != app.D || fit.D < 1 {
					t.Fatalf("fit %d×%d, apply %d×%d", fit.N, fit.D, app.N, app.D)
				}
				if strings.Join(fit.FeatureNames, ",") != strings.Join(app.FeatureNames, ",") {
					t.Errorf("columns: fit %v, apply %v", fit.FeatureNames, app.FeatureNames)
				}
				for i, v := range fit.X {
					if math.Float64bits(v) != math.Float64bits(app.X[i]) {
						t.Fatalf("row %d %s: fit %v, apply %v (differ by %g)", i/fit.D, fit.FeatureNames[i%fit.D], v, app.X[i], v-app.X[i])
					}
				}
			})
		}
	}
}
