package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlotJoin colours a table by a column of another, matched on an id:
// the legend has the joined classes and the unmatched rows' entry, a
// warning counts them, and a missing column or id is an error naming the
// file and the column.
func TestPlotJoin(t *testing.T) {
	dir := t.TempDir()
	emb, attrs := filepath.Join(dir, "emb.csv"), filepath.Join(dir, "attrs.csv")
	write(t, emb, "id,x,y\na,0,0\nb,1,1\nc,2,0\nd,3,1\n")
	write(t, attrs, "name,group\nb,beta\na,alpha\nc,alpha\n")
	out := filepath.Join(dir, "j.svg")
	code, _, e := runCmd(t, nil, "plot", "--in", emb, "--x", "x", "--y", "y", "--join", attrs, "--on", "id=name", "--color", "group", "--out", out)
	if code != 0 {
		t.Fatalf("join: exit %d: %s", code, e)
	}
	if !strings.Contains(e, "1 of 4 rows") || !strings.Contains(e, "attrs.csv") {
		t.Errorf("join: no warning counting the unmatched row: %q", e)
	}
	b, _ := os.ReadFile(out)
	for _, w := range []string{">alpha<", ">beta<", ">not in attrs.csv (1)<", ">group<"} {
		if !strings.Contains(string(b), w) {
			t.Errorf("join: the SVG lacks %q", w)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing colour column", []string{"--on", "id=name", "--color", "nope"}, []string{"attrs.csv", `"nope"`}},
		{"missing joined id", []string{"--on", "id", "--color", "group"}, []string{"attrs.csv", `"id"`}},
		{"missing drawn id", []string{"--on", "key=name", "--color", "group"}, []string{"emb.csv", `"key"`}},
		{"no --on", []string{"--color", "group"}, []string{"--on"}},
		{"ids repeated", []string{"--on", "id=group", "--color", "name"}, []string{"attrs.csv", `"alpha" appears twice`}},
	} {
		args := append([]string{"plot", "--in", emb, "--x", "x", "--y", "y", "--join", attrs, "--out", filepath.Join(dir, "x.svg")}, tc.args...)
		code, _, e := runCmd(t, nil, args...)
		if code != exitInput {
			t.Errorf("%s: exit %d, stderr %q", tc.name, code, e)
		}
		for _, w := range tc.want {
			if !strings.Contains(e, w) {
				t.Errorf("%s: stderr %q lacks %s", tc.name, e, w)
			}
		}
	}
	other := filepath.Join(dir, "other.csv")
	write(t, other, "name,group\nz,zeta\n")
	code, _, e = runCmd(t, nil, "plot", "--in", emb, "--x", "x", "--y", "y", "--join", other, "--on", "id=name", "--color", "group", "--out", filepath.Join(dir, "x.svg"))
	if code != exitInput || !strings.Contains(e, "no row of") || !strings.Contains(e, "other.csv") {
		t.Errorf("nothing matches: exit %d, stderr %q", code, e)
	}
}
