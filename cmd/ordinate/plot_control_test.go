package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlotControlPoints fits ckpca and lsp with three control points (the
// demo's thyroid triangle as columns, and three zoo animals as a control
// table) and checks that plot marks them: a legend entry with their number
// and one black-edged diamond each, besides the legend's.
func TestPlotControlPoints(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "control.csv")
	if _, err := writeThyroidControl(data); err != nil {
		t.Fatal(err)
	}
	// The same three points as a control table (--control-table T --id
	// ID): the embedding keeps only the id, and plot finds the points
	// through the table the provenance records.
	ctab := filepath.Join(dir, "points.csv")
	if err := os.WriteFile(ctab, []byte("animal_name,px,py\naardvark,1,0\nchicken,-1,0.5\ncarp,0,-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	zoo := filepath.Join("..", "..", "testdata", "ckpca", "zoo-unique.csv")
	fromTable := []string{"--in", zoo, "--id", "animal_name", "--label", "type", "--control-table", ctab}
	fromColumns := []string{"--in", data, "--label", "label", "--control", "cx,cy"}
	args := map[string][]string{"ckpca": {"ckpca", "--scale", "auto"}, "lsp": {"lsp"}}
	for _, run := range []string{"ckpca", "lsp", "ckpca/table", "lsp/table"} {
		stage, inputs := strings.TrimSuffix(run, "/table"), fromColumns
		if strings.HasSuffix(run, "/table") {
			inputs = fromTable
		}
		name := strings.ReplaceAll(run, "/", "-")
		emb, out := filepath.Join(dir, name+".parquet"), filepath.Join(dir, name+".svg")
		if code, _, e := runCmd(t, nil, append(append(args[stage], inputs...), "--out", emb, "--quiet")...); code != 0 {
			t.Fatalf("%s: exit %d: %s", run, code, e)
		}
		if code, _, e := runCmd(t, nil, "plot", "--in", emb, "--out", out, "--quiet"); code != 0 {
			t.Fatalf("%s plot: exit %d: %s", run, code, e)
		}
		b, _ := os.ReadFile(out)
		svg := string(b)
		if !strings.Contains(svg, ">control point (3)<") {
			t.Errorf("%s: no legend entry for the 3 control points", run)
		}
		if got := strings.Count(svg, `stroke:#000000;stroke-width:0.9"`); got != 4 {
			t.Errorf("%s: %d diamond edges, want 3 control points and the legend's", run, got)
		}
	}
}
