package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ordinate/ordinate/arrowio"
)

func TestNeRVCommand(t *testing.T) {
	dir := t.TempDir()
	// Soft labels over two classes, one unlabelled row (both null).
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.WriteString("id,x1,x2,x3,p_a,p_b,grp\n")
	for i := range 60 {
		w := float64(i) / 59
		pa, pb := fmt.Sprint(1-w), fmt.Sprint(w)
		if i == 7 {
			pa, pb = "", ""
		}
		grp := map[bool]string{true: "a", false: "b"}[w < 0.5]
		fmt.Fprintf(&b, "r%d,%g,%g,%g,%s,%s,%s\n", i, rng.NormFloat64()+3*w, rng.NormFloat64(), rng.NormFloat64(), pa, pb, grp)
	}
	soft := filepath.Join(dir, "soft.csv")
	write(t, soft, b.String())
	for _, tc := range []struct {
		name string
		args []string
		mode string
	}{
		{"soft", []string{"--soft-labels", "p_*", "--features", "x*"}, "softclassnerv"},
		{"hard", []string{"--label", "grp", "--features", "x*", "--output-scale", "global", "--multiscale=false"}, "classnerv"},
		{"none", []string{"--features", "x*"}, "nerv"},
		{"bh", []string{"--soft-labels", "p_*", "--features", "x*", "--method", "bh"}, "softclassnerv"},
		{"t", []string{"--soft-labels", "p_*", "--features", "x*", "--output-kernel", "t"}, "softclassnerv"},
	} {
		out, model := filepath.Join(dir, tc.name+".parquet"), filepath.Join(dir, tc.name+".model.parquet")
		args := append([]string{"nerv", "--in", soft, "--id", "id", "--perplexity", "10", "--out", out, "--model-out", model, "--quiet"}, tc.args...)
		if code, _, e := runCmd(t, nil, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, e)
		}
		if tc.name == "t" {
			// Placing the training rows into the t map (every reference row
			// in each row's sums) puts them near where the fit did.
			placed := filepath.Join(dir, "t.placed.parquet")
			if code, _, e := runCmd(t, nil, "apply", "--model", model, "--in", soft, "--id", "id", "--soft-labels", "p_*", "--out", placed, "--quiet"); code != 0 {
				t.Fatalf("apply the t map: exit %d: %s", code, e)
			}
			fit, app := readEmbedding(t, out, "id"), readEmbedding(t, placed, "id")
			var spread, moved []float64
			for i := range fit.N {
				moved = append(moved, math.Hypot(fit.X[2*i]-app.X[2*i], fit.X[2*i+1]-app.X[2*i+1]))
				spread = append(spread, math.Hypot(fit.X[2*i], fit.X[2*i+1]))
			}
			slices.Sort(moved)
			slices.Sort(spread)
			if med := moved[fit.N/2]; !(med < 0.1*spread[fit.N/2]) {
				t.Errorf("t map: placed rows moved %.3g (median) from their fitted places, against a median radius %.3g", med, spread[fit.N/2])
			}
		}
		info, err := arrowio.Inspect(context.Background(), out)
		if err != nil {
			t.Fatal(err)
		}
		if info.Rows != 60 || info.Provenance.Figures["mode"] != tc.mode {
			t.Errorf("%s: %d rows, mode %v; want 60 rows of %s", tc.name, info.Rows, info.Provenance.Figures["mode"], tc.mode)
		}
		levels, ok := info.Provenance.Figures["levels"].([]any)
		if !ok || len(levels) == 0 {
			t.Fatalf("%s: levels %v, want the stress and iterations per scale", tc.name, info.Provenance.Figures["levels"])
		}
		// The t kernel's last level says so, and the figure names the kernel.
		wantKernel := map[bool]string{true: "t", false: "gaussian"}[tc.name == "t"]
		last, _ := levels[len(levels)-1].(map[string]any)
		if k := info.Provenance.Figures["output_kernel"]; k != wantKernel || (wantKernel == "t") != (last["kernel"] == "t") {
			t.Errorf("%s: output_kernel %v, last level %v; want %s", tc.name, k, last, wantKernel)
		}
	}
	neg := filepath.Join(dir, "neg.csv")
	write(t, neg, "x1,x2,p_a,p_b\n1,2,0.5,0.5\n2,3,-0.2,1.2\n3,1,1,0\n4,4,0,1\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"negative weight", []string{"--in", neg, "--soft-labels", "p_*"}, "row 1"},
		{"both label kinds", []string{"--in", soft, "--label", "grp", "--soft-labels", "p_*"}, "not both"},
		{"perplexity too large", []string{"--in", soft, "--features", "x*", "--perplexity", "80"}, "perplexity"},
		{"bad output scale", []string{"--in", soft, "--features", "x*", "--output-scale", "local"}, "--output-scale"},
		{"bh with transfer", []string{"--in", soft, "--features", "x*", "--method", "bh", "--output-scale", "transfer"}, "global width"},
		{"bh in 4-D", []string{"--in", soft, "--features", "x*", "--method", "bh", "--dims", "4"}, "at most 3"},
		{"bad method", []string{"--in", soft, "--features", "x*", "--method", "fmm"}, "--method"},
		{"t kernel with cutoff", []string{"--in", soft, "--features", "x*", "--output-kernel", "t", "--method", "cutoff"}, "--output-kernel"},
		{"t kernel in 3-D", []string{"--in", soft, "--features", "x*", "--output-kernel", "t", "--dims", "3"}, "at most 2"},
	} {
		args := append([]string{"nerv", "--out", filepath.Join(dir, "x.parquet")}, tc.args...)
		code, _, e := runCmd(t, nil, args...)
		if code != exitInput || !strings.Contains(e, tc.want) {
			t.Errorf("%s: exit %d, stderr %q", tc.name, code, e)
		}
	}
}
