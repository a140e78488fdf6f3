package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlotControlPoints fits ckpca and lsp with three control points (the
// demo's thyroid triangle) and checks that plot marks them: a legend entry
// with their number and one black-edged diamond each, besides the
// legend's.
func TestPlotControlPoints(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "control.csv")
	if _, err := writeThyroidControl(data); err != nil {
		t.Fatal(err)
	}
	args := map[string][]string{"ckpca": {"ckpca", "--scale", "auto"}, "lsp": {"lsp"}}
	for _, stage := range []string{"ckpca", "lsp"} {
		emb, out := filepath.Join(dir, stage+".parquet"), filepath.Join(dir, stage+".svg")
		if code, _, e := runCmd(t, nil, append(args[stage], "--in", data, "--label", "label", "--control", "cx,cy", "--out", emb, "--quiet")...); code != 0 {
			t.Fatalf("%s: exit %d: %s", stage, code, e)
		}
		if code, _, e := runCmd(t, nil, "plot", "--in", emb, "--color", "label", "--out", out, "--quiet"); code != 0 {
			t.Fatalf("%s plot: exit %d: %s", stage, code, e)
		}
		b, _ := os.ReadFile(out)
		svg := string(b)
		if !strings.Contains(svg, ">control point (3)<") {
			t.Errorf("%s: no legend entry for the 3 control points", stage)
		}
		if got := strings.Count(svg, `stroke:#000000;stroke-width:0.9"`); got != 4 {
			t.Errorf("%s: %d diamond edges, want 3 control points and the legend's", stage, got)
		}
	}
}
