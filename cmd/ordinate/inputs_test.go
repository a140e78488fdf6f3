package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
)

// featureTable writes a CSV that a new user might bring: an id column, a
// target, three informative features and a constant column; with controls,
// also control columns cx, cy (set on three rows) for the stages with
// control points.
func featureTable(t *testing.T, dir string, controls bool) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 3))
	var b strings.Builder
	b.WriteString("id,x1,x2,x3,constant,target")
	if controls {
		b.WriteString(",cx,cy")
	}
	b.WriteString("\n")
	points := map[int][2]float64{0: {0, 1}, 20: {1, -0.5}, 40: {-1, -0.5}}
	for i := range 60 {
		c := i / 20
		fmt.Fprintf(&b, "%d,%g,%g,%g,7,%d", 1000+i, float64(c)+rng.NormFloat64(), rng.NormFloat64(), float64(c)*0.5+rng.NormFloat64(), c)
		switch p, ok := points[i]; {
		case !controls:
		case ok:
			fmt.Fprintf(&b, ",%g,%g", p[0], p[1])
		default:
			b.WriteString(",,")
		}
		b.WriteString("\n")
	}
	path := filepath.Join(dir, fmt.Sprintf("users-%v.csv", controls))
	write(t, path, b.String())
	return path
}

// Every stage that reads features, on a table with a constant column and
// with the default feature set: it warns, drops the constant column, leaves
// the id and the target out of the features, records what it used, and
// never panics.
func TestFeatureStagesSharedInputs(t *testing.T) {
	dir := t.TempDir()
	in, withControls := featureTable(t, dir, false), featureTable(t, dir, true)
	emb := filepath.Join(dir, "pca.parquet")
	if code, _, stderr := runCmd(t, nil, "pca", "--in", in, "--label", "target", "--out", emb); code != 0 {
		t.Fatalf("pca: exit %d: %s", code, stderr)
	}
	for _, tc := range []struct {
		stage    string
		args     []string
		controls bool
	}{
		{"bvp", []string{"--label", "target"}, false},
		{"pca", []string{"--label", "target"}, false},
		{"lda", []string{"--label", "target"}, false},
		{"ckpca", []string{"--label", "target", "--control", "cx,cy", "--kernel", "rbf", "--scale", "auto"}, true},
		{"lsp", []string{"--label", "target", "--control", "cx,cy"}, true},
		{"tsne", []string{"--label", "target", "--perplexity", "10", "--iterations", "100"}, false},
		{"tsne", []string{"--label", "target", "--perplexity", "10", "--iterations", "100", "--standardize"}, false},
		{"nerv", []string{"--label", "target", "--perplexity", "10"}, false},
		{"fisher", []string{"--label", "target", "--kernel", "rbf"}, false},
		// evaluate takes the fitted space from the embedding's provenance
		// (no constant column there); naming the features reads it.
		{"evaluate", []string{"--embedding", emb, "--label", "target", "--k", "5", "--features", "x*,constant"}, false},
	} {
		name := tc.stage + " " + strings.Join(tc.args, " ")
		out := filepath.Join(dir, tc.stage+"-out.parquet")
		table := in
		if tc.controls {
			table = withControls
		}
		args := append([]string{tc.stage, "--in", table, "--out", out}, tc.args...)
		code, _, stderr := runCmd(t, nil, args...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", name, code, stderr)
			continue
		}
		if strings.Contains(stderr, "panic") {
			t.Errorf("%s: panicked: %s", name, stderr)
		}
		if !strings.Contains(stderr, `feature \"constant\" is constant`) {
			t.Errorf("%s: no warning about the constant column:\n%s", name, stderr)
		}
		info, err := arrowio.Inspect(t.Context(), out)
		if err != nil || info.Provenance == nil {
			t.Fatalf("%s: %v", name, err)
		}
		p := info.Provenance
		feats := fmt.Sprint(p.Figures["features"])
		if feats != "[x1 x2 x3]" {
			t.Errorf("%s: recorded features %s, want [x1 x2 x3] (no id, target, constant or control columns)", name, feats)
		}
		if p.Kind == "" {
			t.Errorf("%s: output has no kind", name)
		}
		if _, ok := p.Params["standardize"]; !ok {
			t.Errorf("%s: standardize not recorded in params %v", name, p.Params)
		}
	}
}

// --standardize has one help text (one meaning) in every stage that reads
// features; only its default differs. evaluate's is the choice of space.
func TestStandardizeSameEverywhere(t *testing.T) {
	app := newApp(nil, nil, nil)
	var first, firstName string
	n := 0
	for _, c := range app.Commands {
		if c.Name == "evaluate" {
			continue
		}
		for _, f := range c.Flags {
			bf, ok := f.(*cli.BoolFlag)
			if !ok || bf.Name != "standardize" {
				continue
			}
			n++
			if first == "" {
				first, firstName = bf.Usage, c.Name
			} else if bf.Usage != first {
				t.Errorf("%s --standardize says %q, %s says %q", c.Name, bf.Usage, firstName, first)
			}
		}
	}
	if n < 8 {
		t.Errorf("%d stages have --standardize, want bvp, pca, lda, ckpca, lsp, tsne, nerv, fisher", n)
	}
}

// An option after report's tables is not taken for a file name.
func TestOptionAfterTables(t *testing.T) {
	code, _, stderr := runCmd(t, nil, "report", "--out", filepath.Join(t.TempDir(), "r.html"), "a.parquet", "--title", "X")
	if code != 2 || !strings.Contains(stderr, "--title comes after the tables") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
