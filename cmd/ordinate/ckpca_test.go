package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ordinate/ordinate/arrowio"
)

// ckpcaTable writes a CSV of n rows with four features and control columns
// cx, cy set on the given rows.
func ckpcaTable(t *testing.T, dir string, n int, ctrl map[int][2]float64) string {
	rng := rand.New(rand.NewPCG(11, 12))
	var b strings.Builder
	b.WriteString("id,x1,x2,x3,x4,cx,cy\n")
	for i := range n {
		fmt.Fprintf(&b, "r%d", i)
		for j := range 4 {
			fmt.Fprintf(&b, ",%g", rng.NormFloat64()*math.Pow(0.8, float64(j)))
		}
		if c, ok := ctrl[i]; ok {
			fmt.Fprintf(&b, ",%g,%g\n", c[0], c[1])
		} else {
			b.WriteString(",,\n")
		}
	}
	p := filepath.Join(dir, "t.csv")
	write(t, p, b.String())
	return p
}

func readCSV(t *testing.T, path string) []map[string]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for k, v := range r {
			m[recs[0][k]] = v
		}
		out = append(out, m)
	}
	return out
}

// TestCKPCACommand fits with control columns and with a control table, for
// the linear (affine model) and rbf (kernel model) kernels, and checks that
// the control rows land on their targets in the output and through apply.
func TestCKPCACommand(t *testing.T) {
	dir := t.TempDir()
	ctrl := map[int][2]float64{3: {0.4, 1.5}, 17: {1.2, -0.1}, 29: {-0.3, 0.2}}
	in := ckpcaTable(t, dir, 50, ctrl)
	table := filepath.Join(dir, "placed.csv")
	write(t, table, "id,px,py\nr3,0.4,1.5\nr17,1.2,-0.1\nr29,-0.3,0.2\n")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"linear columns", []string{"--control", "cx,cy"}},
		{"rbf table", []string{"--control-table", table, "--kernel", "rbf", "--features", "x*"}},
		{"poly nystrom", []string{"--control", "cx,cy", "--kernel", "poly", "--landmarks", "40"}},
	} {
		out := filepath.Join(dir, "e.csv")
		model := filepath.Join(dir, "m.parquet")
		args := append([]string{"ckpca", "--in", in, "--id", "id", "--scale", "auto", "--out", out, "--model-out", model, "--quiet"}, tc.args...)
		if code, _, e := runCmd(t, nil, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, e)
		}
		applied := filepath.Join(dir, "a.csv")
		if code, _, e := runCmd(t, nil, "apply", "--model", model, "--in", in, "--id", "id", "--out", applied, "--quiet"); code != 0 {
			t.Fatalf("%s: apply: exit %d: %s", tc.name, code, e)
		}
		emb, app := readCSV(t, out), readCSV(t, applied)
		for i, want := range ctrl {
			for s := range 2 {
				col := fmt.Sprintf("emb_%d", s)
				got, _ := strconv.ParseFloat(emb[i][col], 64)
				if math.Abs(got-want[s]) > 1e-8 {
					t.Errorf("%s: row %d %s = %g, target %g", tc.name, i, col, got, want[s])
				}
				ap, _ := strconv.ParseFloat(app[i][col], 64)
				if math.Abs(ap-got) > 1e-8 {
					t.Errorf("%s: apply row %d %s = %g, fit %g", tc.name, i, col, ap, got)
				}
			}
		}
	}
	info, err := arrowio.Inspect(context.Background(), filepath.Join(dir, "m.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Provenance == nil || info.Provenance.Stage != "ckpca" {
		t.Errorf("model provenance %+v, want stage ckpca", info.Provenance)
	}
}

func TestCKPCACommandErrors(t *testing.T) {
	dir := t.TempDir()
	in := ckpcaTable(t, dir, 30, map[int][2]float64{2: {40, 40}, 5: {-40, 10}})
	partial := filepath.Join(dir, "partial.csv")
	write(t, partial, "id,x1,x2,cx,cy\na,1,2,0.1,\nb,2,1,,\nc,0,1,,\nd,1,1,,\n")
	unknown := filepath.Join(dir, "unknown.csv")
	write(t, unknown, "id,px,py\nr1,0,0\nzz,1,1\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"infeasible", []string{"--in", in, "--control", "cx,cy"}, "scale auto"},
		{"partial control row", []string{"--in", partial, "--control", "cx,cy"}, "row 0"},
		{"dims mismatch", []string{"--in", in, "--control", "cx,cy", "--dims", "3"}, "one control column per output dimension"},
		{"unknown control id", []string{"--in", in, "--control-table", unknown, "--features", "x*"}, "zz"},
		{"bad kernel", []string{"--in", in, "--control", "cx,cy", "--kernel", "sigmoid"}, "want one of"},
		{"precomputed model", []string{"--in", in, "--kernel", "precomputed", "--model-out", filepath.Join(dir, "m.parquet")}, "precomputed"},
		{"precomputed not square", []string{"--in", in, "--kernel", "precomputed", "--features", "x*"}, "one column per row"},
		{"soft with auto", []string{"--in", in, "--control", "cx,cy", "--soft", "1", "--scale", "auto"}, "do not combine"},
	} {
		args := append([]string{"ckpca", "--id", "id", "--out", filepath.Join(dir, "x.parquet")}, tc.args...)
		code, _, e := runCmd(t, nil, args...)
		if code != exitInput || !strings.Contains(e, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d mentioning %q", tc.name, code, e, exitInput, tc.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "x.parquet")); err == nil {
			t.Errorf("%s: output file written despite the error", tc.name)
		}
	}
}

func TestLSPCommand(t *testing.T) {
	dir := t.TempDir()
	ctrl := map[int][2]float64{3: {0.4, 1.5}, 17: {1.2, -0.1}, 29: {-0.3, 0.2}}
	in := ckpcaTable(t, dir, 50, ctrl)
	for _, tc := range []struct {
		name  string
		args  []string
		exact bool // the control rows land exactly on their targets
	}{
		{"linear", []string{"--variant", "linear", "--model-out", filepath.Join(dir, "m.parquet")}, true},
		{"laplacian", []string{"--variant", "laplacian", "--neighbors", "8"}, false},
	} {
		out := filepath.Join(dir, tc.name+".csv")
		args := append([]string{"lsp", "--in", in, "--id", "id", "--control", "cx,cy", "--out", out, "--quiet"}, tc.args...)
		if code, _, e := runCmd(t, nil, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, e)
		}
		emb := readCSV(t, out)
		for i, want := range ctrl {
			for s := range 2 {
				got, _ := strconv.ParseFloat(emb[i][fmt.Sprintf("emb_%d", s)], 64)
				tol := 1e-9
				if !tc.exact {
					tol = 0.5 // least squares: near, not on, the target
				}
				if math.Abs(got-want[s]) > tol {
					t.Errorf("%s: row %d dim %d = %g, target %g", tc.name, i, s, got, want[s])
				}
			}
		}
	}
	code, _, e := runCmd(t, nil, "lsp", "--in", in, "--id", "id", "--out", filepath.Join(dir, "x.csv"))
	if code != exitInput || !strings.Contains(e, "needs control points") {
		t.Errorf("no control: exit %d, stderr %q", code, e)
	}
	code, _, e = runCmd(t, nil, "lsp", "--in", in, "--id", "id", "--control", "cx,cy", "--variant", "laplacian", "--model-out", filepath.Join(dir, "m2.parquet"), "--out", filepath.Join(dir, "x.csv"))
	if code != exitInput || !strings.Contains(e, "variant linear") {
		t.Errorf("laplacian model: exit %d, stderr %q", code, e)
	}
}

// TestCKPCAPrecomputed checks that a precomputed linear kernel gives the
// same embedding as the linear kernel on the raw features, and that an
// indefinite similarity (aural sonar) is refused with the reason.
func TestCKPCAPrecomputed(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(21, 22))
	const n = 25
	x := make([][3]float64, n)
	for i := range x {
		for j := range 3 {
			x[i][j] = rng.NormFloat64()
		}
	}
	ctrl := map[int][2]float64{1: {0.3, 0.1}, 9: {-0.2, 0.4}}
	var feat, kern, long strings.Builder
	feat.WriteString("id,x1,x2,x3,cx,cy\n")
	long.WriteString("i,j,s\n")
	kern.WriteString("id")
	for j := range n {
		fmt.Fprintf(&kern, ",k%02d", j)
	}
	kern.WriteString(",cx,cy\n")
	for i := range n {
		c := ",,"
		if v, ok := ctrl[i]; ok {
			c = fmt.Sprintf(",%g,%g", v[0], v[1])
		}
		fmt.Fprintf(&feat, "r%d,%g,%g,%g%s\n", i, x[i][0], x[i][1], x[i][2], c)
		fmt.Fprintf(&kern, "r%d", i)
		for j := range n {
			v := x[i][0]*x[j][0] + x[i][1]*x[j][1] + x[i][2]*x[j][2]
			fmt.Fprintf(&kern, ",%g", v)
			fmt.Fprintf(&long, "r%d,r%d,%g\n", i, j, v)
		}
		kern.WriteString(c + "\n")
	}
	fp, kp := filepath.Join(dir, "f.csv"), filepath.Join(dir, "k.csv")
	write(t, fp, feat.String())
	write(t, kp, kern.String())
	lin, pre := filepath.Join(dir, "lin.csv"), filepath.Join(dir, "pre.csv")
	if code, _, e := runCmd(t, nil, "ckpca", "--in", fp, "--id", "id", "--control", "cx,cy", "--standardize=false", "--out", lin, "--quiet"); code != 0 {
		t.Fatalf("linear: exit %d: %s", code, e)
	}
	if code, _, e := runCmd(t, nil, "ckpca", "--in", kp, "--id", "id", "--control", "cx,cy", "--kernel", "precomputed", "--features", "k*", "--out", pre, "--quiet"); code != 0 {
		t.Fatalf("precomputed: exit %d: %s", code, e)
	}
	// The same kernel as a long table, with --in holding only the rows.
	lp, lpre := filepath.Join(dir, "long.csv"), filepath.Join(dir, "lpre.csv")
	write(t, lp, long.String())
	if code, _, e := runCmd(t, nil, "ckpca", "--in", fp, "--id", "id", "--control", "cx,cy", "--similarity", lp, "--out", lpre, "--quiet"); code != 0 {
		t.Fatalf("long similarity: exit %d: %s", code, e)
	}
	a := readCSV(t, lin)
	for name, other := range map[string]string{"square": pre, "long": lpre} {
		b := readCSV(t, other)
		for i := range n {
			for _, col := range []string{"emb_0", "emb_1"} {
				va, _ := strconv.ParseFloat(a[i][col], 64)
				vb, _ := strconv.ParseFloat(b[i][col], 64)
				if math.Abs(va-vb) > 1e-6 {
					t.Errorf("%s: row %d %s: linear %g, precomputed %g", name, i, col, va, vb)
				}
			}
		}
	}
	if code, _, e := runCmd(t, nil, "ckpca", "--in", fp, "--id", "id", "--similarity", lp, "--kernel", "rbf", "--out", filepath.Join(dir, "x.csv")); code != exitInput || !strings.Contains(e, "does not combine") {
		t.Errorf("similarity with rbf: exit %d, stderr %q", code, e)
	}
	code, _, e := runCmd(t, nil, "ckpca", "--in", "../../testdata/similarity/aural_sonar.parquet", "--id", "id", "--kernel", "precomputed",
		"--features", "s_*", "--out", filepath.Join(dir, "x.parquet"))
	if code != exitInput || !strings.Contains(e, "not positive semi-definite") {
		t.Errorf("aural sonar: exit %d, stderr %q", code, e)
	}
	code, _, e = runCmd(t, nil, "ckpca", "--in", "../../testdata/similarity/aural_sonar.parquet", "--id", "id", "--kernel", "precomputed",
		"--features", "s_*", "--correction", "clip", "--out", filepath.Join(dir, "x.parquet"))
	if code != 0 || !strings.Contains(e, "corrected with clip") {
		t.Errorf("aural sonar, clipped: exit %d, stderr %q", code, e)
	}
}
