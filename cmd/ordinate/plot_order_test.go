package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPlotOrdinalLegend runs bvp on bondrate's five ordered classes, named
// and shuffled so that they appear as mid, very_low, high, low, very_high
// (issue 17), and checks that plot draws the legend in the order bvp
// recorded, with the ordinal palette (viridis from dark to green); and that
// plot --order gives an order of its own.
func TestPlotOrdinalLegend(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("../../testdata/ordinal/bondrate.csv")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{"1": "very_low", "2": "low", "3": "mid", "4": "high", "5": "very_high"}
	appear := []string{"mid", "very_low", "high", "low", "very_high"}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	rows := make([]string, 0, len(lines)-1)
	for _, l := range lines[1:] {
		k := strings.LastIndexByte(l, ',')
		rows = append(rows, l[:k+1]+names[l[k+1:]])
	}
	rank := func(r string) int { return slices.Index(appear, r[strings.LastIndexByte(r, ',')+1:]) }
	slices.SortStableFunc(rows, func(a, b string) int { return rank(a) - rank(b) })
	in := filepath.Join(dir, "bond.csv")
	write(t, in, lines[0]+"\n"+strings.Join(rows, "\n")+"\n")
	emb := filepath.Join(dir, "bvp.parquet")
	order := "very_low,low,mid,high,very_high"
	if code, _, e := runCmd(t, nil, "bvp", "--in", in, "--label", "label", "--order", order, "--out", emb, "--quiet"); code != 0 {
		t.Fatalf("bvp: exit %d: %s", code, e)
	}
	for _, tc := range []struct {
		name    string
		args    []string
		legend  []string
		ordinal bool
	}{
		{"recorded order", nil, strings.Split(order, ","), true},
		{"plot --order", []string{"--order", "very_high,high,mid,low,very_low"}, []string{"very_high", "high", "mid", "low", "very_low"}, true},
		{"categorical palette", []string{"--palette", "categorical"}, strings.Split(order, ","), false},
	} {
		out := filepath.Join(dir, tc.name+".svg")
		if code, _, e := runCmd(t, nil, append([]string{"plot", "--in", emb, "--color", "label", "--out", out, "--quiet"}, tc.args...)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, e)
		}
		svg, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range regexp.MustCompile(`>([a-z_]+)<`).FindAllStringSubmatch(string(svg), -1) {
			if slices.Contains(appear, m[1]) {
				got = append(got, m[1])
			}
		}
		if !slices.Equal(got, tc.legend) {
			t.Errorf("%s: legend %v, want %v", tc.name, got, tc.legend)
		}
		// Viridis' dark end (#440154) for the first level, or Okabe–Ito's
		// orange (#e69f00), not both.
		s := strings.ToLower(string(svg))
		if ordinal := strings.Contains(s, "#440154"); ordinal != tc.ordinal || ordinal == strings.Contains(s, "#e69f00") {
			t.Errorf("%s: the levels are not drawn with the %s palette", tc.name, map[bool]string{true: "ordinal", false: "categorical"}[tc.ordinal])
		}
	}
}
