package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestPlotCommand(t *testing.T) {
	dir := t.TempDir()
	emb := filepath.Join(dir, "pca.parquet")
	if code, _, e := runCmd(t, nil, "pca", "--in", "../../testdata/ordinal/newthyroid.csv", "--label", "label", "--out", emb, "--quiet"); code != 0 {
		t.Fatalf("pca: exit %d: %s", code, e)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string // strings the SVG must hold
	}{
		{"categorical", []string{"--color", "label"}, []string{">1<", ">2<", ">3<", "pca"}},
		{"continuous", []string{"--color", "emb_0"}, []string{"emb_0"}},
		{"forced continuous", []string{"--color", "label", "--color-scale", "continuous", "--title", "My title"}, []string{"My title"}},
		{"facets", []string{"--facet", "label", "--facet-order", "3,2,1"}, []string{">3<"}},
	} {
		out := filepath.Join(dir, tc.name+".svg")
		if code, _, e := runCmd(t, nil, append([]string{"plot", "--in", emb, "--out", out, "--quiet"}, tc.args...)...); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, e)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s: the SVG lacks %q", tc.name, w)
			}
		}
	}
	// Soft labels: colours mixed, the legend without the shared p_ prefix.
	soft := filepath.Join(dir, "soft.csv")
	write(t, soft, "emb_0,emb_1,p_alpha,p_beta\n0,0,1,0\n1,1,0.5,0.5\n2,0,0,1\n3,1,,\n")
	if code, _, e := runCmd(t, nil, "plot", "--in", soft, "--soft-labels", "p_*", "--out", filepath.Join(dir, "soft.svg"), "--quiet"); code != 0 {
		t.Fatalf("soft labels: exit %d: %s", code, e)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "soft.svg")); !strings.Contains(string(b), ">alpha<") || !strings.Contains(string(b), ">beta<") {
		t.Error("soft labels: the legend lacks alpha and beta")
	}
	// An Arrow stream on stdin (no footer to title from).
	code, stream, e := runCmd(t, nil, "pca", "--in", "../../testdata/ordinal/newthyroid.csv", "--label", "label", "--out", "-", "--quiet")
	if code != 0 {
		t.Fatalf("pca to stdout: exit %d: %s", code, e)
	}
	if code, _, e := runCmd(t, []byte(stream), "plot", "--in", "-", "--color", "label", "--out", filepath.Join(dir, "stdin.svg"), "--quiet"); code != 0 {
		t.Fatalf("plot from stdin: exit %d: %s", code, e)
	}
	png := filepath.Join(dir, "p.png")
	if code, _, e := runCmd(t, nil, "plot", "--in", emb, "--color", "label", "--out", png, "--quiet"); code != 0 {
		t.Fatalf("png: exit %d: %s", code, e)
	}
	if b, _ := os.ReadFile(png); len(b) < 1000 || string(b[1:4]) != "PNG" {
		t.Errorf("png: %d bytes, not a PNG", len(b))
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"extension", []string{"--out", filepath.Join(dir, "x.pdf")}, ".svg or .png"},
		{"missing column", []string{"--color", "nope", "--out", filepath.Join(dir, "x.svg")}, "nope"},
		{"colour and soft", []string{"--color", "label", "--soft-labels", "p_*", "--out", filepath.Join(dir, "x.svg")}, "not both"},
		{"bad colour scale", []string{"--color", "label", "--color-scale", "rainbow", "--out", filepath.Join(dir, "x.svg")}, "rainbow"},
	} {
		code, _, e := runCmd(t, nil, append([]string{"plot", "--in", emb}, tc.args...)...)
		if code != exitInput || !strings.Contains(e, tc.want) {
			t.Errorf("%s: exit %d, stderr %q", tc.name, code, e)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.svg")); err == nil {
		t.Error("a failed plot left x.svg behind")
	}
	// Kinds: SCORE maps get one panel per aspect by default; a triplets
	// table is not drawn, whatever its columns.
	trip, maps := filepath.Join(dir, "t.parquet"), filepath.Join(dir, "maps.parquet")
	for _, args := range [][]string{
		{"triplets", "--in", "../../testdata/zoo/zoo.csv", "--aspects", "hair,eggs", "--per-aspect", "300", "--split-objects", "0.5", "--out", trip},
		{"score", "--in", trip, "--out", maps},
		{"plot", "--in", maps, "--out", filepath.Join(dir, "maps.svg")},
	} {
		if code, _, e := runCmd(t, nil, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], code, e)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "maps.svg")); !strings.Contains(string(b), ">hair<") || !strings.Contains(string(b), ">eggs<") {
		t.Error("maps: no panel per aspect")
	}
	if code, _, e := runCmd(t, nil, "plot", "--in", trip, "--out", filepath.Join(dir, "t.svg")); code != exitInput || !strings.Contains(e, "triplets table") {
		t.Errorf("triplets: exit %d, stderr %q", code, e)
	}
	// --triplets marks the objects an aspect never observed; it needs maps.
	if code, _, e := runCmd(t, nil, "plot", "--in", maps, "--triplets", trip, "--out", filepath.Join(dir, "obs.svg"), "--quiet"); code != 0 {
		t.Errorf("maps with triplets: exit %d: %s", code, e)
	} else if b, _ := os.ReadFile(filepath.Join(dir, "obs.svg")); !regexp.MustCompile(`>not observed \([0-9]+\)<`).Match(b) {
		t.Error("maps with triplets: no legend entry for the unobserved objects")
	}
	// The report marks them too when the triplets the maps were fitted on
	// are among its tables, and not without them.
	for _, withTrip := range []bool{true, false} {
		page := filepath.Join(dir, fmt.Sprintf("r-%v.html", withTrip))
		args := []string{"report", "--quiet", "--out", page, maps}
		if withTrip {
			args = append(args, trip)
		}
		if code, _, e := runCmd(t, nil, args...); code != 0 {
			t.Fatalf("report (triplets %v): exit %d: %s", withTrip, code, e)
		}
		b, _ := os.ReadFile(page)
		if got := regexp.MustCompile(`>not observed \([0-9]+\)<`).Match(b); got != withTrip {
			t.Errorf("report (triplets %v): unobserved objects marked %v", withTrip, got)
		}
	}
	if code, _, e := runCmd(t, nil, "plot", "--in", emb, "--triplets", trip, "--out", filepath.Join(dir, "x.svg")); code != exitInput || !strings.Contains(e, "not a maps table") {
		t.Errorf("embedding with triplets: exit %d, stderr %q", code, e)
	}
	// --format svg writes SVG to stdout.
	if code, out, e := runCmd(t, nil, "plot", "--in", emb, "--format", "svg", "--out", "-", "--quiet"); code != 0 || !strings.Contains(out, "<svg") {
		t.Errorf("stdout: exit %d, stderr %q", code, e)
	}
}

// TestReportCommand builds a small pipeline and checks the page: one inline
// SVG per drawn figure (as its meta tag says), the metrics attached to
// their embedding, nothing loaded from elsewhere.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	in := "../../testdata/ordinal/newthyroid.csv"
	p := func(s string) string { return filepath.Join(dir, s) }
	for _, args := range [][]string{
		{"pca", "--in", in, "--label", "label", "--out", p("pca.parquet")},
		{"lda", "--in", in, "--label", "label", "--out", p("lda.parquet")},
		{"evaluate", "--embedding", p("pca.parquet"), "--in", in, "--label", "label", "--k", "10", "--out", p("m-pca.parquet")},
		{"triplets", "--in", "../../testdata/zoo/zoo.csv", "--aspects", "hair,eggs", "--per-aspect", "300", "--out", p("t.parquet")},
	} {
		if code, _, e := runCmd(t, nil, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", args[0], code, e)
		}
	}
	out := p("report.html")
	code, _, e := runCmd(t, nil, "report", "--quiet", "--out", out, p("pca.parquet"), p("lda.parquet"), p("m-pca.parquet"), p("t.parquet"))
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, e)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	m := regexp.MustCompile(`name="ordinate-figures" content="(\d+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no ordinate-figures meta tag")
	}
	want, _ := strconv.Atoi(m[1])
	if got := strings.Count(page, "<svg"); got != want || want != 2 {
		t.Errorf("%d <svg> elements, meta says %d; want 2 (pca, lda)", got, want)
	}
	if !strings.Contains(page, "Quality (m-pca.parquet)") || !strings.Contains(page, "trustworthiness") {
		t.Error("the metrics table is not attached to pca.parquet")
	}
	if strings.Count(page, `<section class="table"`) != 3 {
		t.Errorf("%d sections, want 3 (pca, lda, triplets)", strings.Count(page, `<section class="table"`))
	}
	// The pipeline's order, whatever the arguments' order: the triplets
	// (an input) before the fits.
	at := func(s string) int { return strings.Index(page, s) }
	if !(at(`id="t-t-parquet"`) >= 0 && at(`id="t-t-parquet"`) < at(`id="t-pca-parquet"`) && at(`id="t-pca-parquet"`) < at(`id="t-lda-parquet"`)) {
		t.Error("sections not in the pipeline's order (triplets, pca, lda)")
	}
	for _, id := range []string{"summary", "t-pca-parquet", "t-lda-parquet", "t-t-parquet"} {
		if !strings.Contains(page, `<a href="#`+id+`"`) || !strings.Contains(page, `id="`+id+`"`) {
			t.Errorf("no contents link to an element %s", id)
		}
	}
	if got := strings.Count(page, `<tr data-section=`); got != 2 || !strings.Contains(page, `<tr data-section="t-pca-parquet">`) {
		t.Errorf("%d summary rows, want 2 (pca, lda)", got)
	}
	if !strings.Contains(page, "· 4 files</p>") || strings.Count(page, "Quality (m-pca.parquet)") != 1 {
		t.Error("the file count or the single copy of the metrics is wrong")
	}
	if regexp.MustCompile(`(src|href)="(https?:)?//`).MatchString(page) {
		t.Error("the page loads something from elsewhere")
	}
	if code, _, e := runCmd(t, nil, "report", "--out", p("r2.html")); code != exitInput || !strings.Contains(e, "at least one table") {
		t.Errorf("no files: exit %d, stderr %q", code, e)
	}
}
