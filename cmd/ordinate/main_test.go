package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

const thyroid = "../../testdata/ordinal/newthyroid.csv"

// runCmd runs the command line in-process and returns its exit code and output.
func runCmd(t *testing.T, stdin []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"ordinate"}, args...), bytes.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// readEmbedding reads the emb_* columns of an output table, keyed by its id column.
func readEmbedding(t *testing.T, path, id string) *arrowio.Frame {
	t.Helper()
	r, err := arrowio.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer r.Release()
	f, err := arrowio.ReadFrame(context.Background(), r, arrowio.Selection{ID: id, Features: []string{"emb_*"}, Keep: []string{}})
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	t.Cleanup(f.Release)
	return f
}

// noLeftovers fails if dir holds anything but the named files.
func noLeftovers(t *testing.T, dir string, want ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("folder %s holds %v, want %v", dir, got, want)
	}
}

func TestHelpHasExamples(t *testing.T) {
	for _, cmd := range []string{"bvp", "pca", "lda", "apply", "evaluate", "inspect", "sql", "demo"} {
		code, out, errOut := runCmd(t, nil, cmd, "--help")
		if code != 0 {
			t.Errorf("%s --help: exit %d, stderr %q", cmd, code, errOut)
		}
		if !strings.Contains(out, "Examples:") || !strings.Contains(out, "ordinate "+cmd) {
			t.Errorf("%s --help lacks an example:\n%s", cmd, out)
		}
	}
	code, out, _ := runCmd(t, nil, "--help")
	if code != 0 || !strings.Contains(out, "Exit codes") {
		t.Errorf("top-level --help: exit %d, output:\n%s", code, out)
	}
}

func TestBVPEndToEnd(t *testing.T) {
	dir := t.TempDir()
	emb := filepath.Join(dir, "e.parquet")
	model := filepath.Join(dir, "bvp.model.parquet")
	code, _, errOut := runCmd(t, nil, "bvp", "--in", thyroid, "--label", "label", "--out", emb, "--model-out", model, "--quiet")
	if code != 0 {
		t.Fatalf("bvp: exit %d: %s", code, errOut)
	}
	info, err := arrowio.Inspect(context.Background(), emb)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range info.Schema.Fields() {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, ","); got != "row,label,emb_0,emb_1" {
		t.Errorf("columns = %s, want row,label,emb_0,emb_1", got)
	}
	p := info.Provenance
	if p == nil {
		t.Fatal("no ordinate provenance in the footer")
	}
	if p.Stage != "bvp" || p.RowsWritten != 215 || p.Seed != 1 || len(p.Inputs) != 1 || p.Inputs[0].Rows != 215 || p.Inputs[0].Bytes == 0 {
		t.Errorf("provenance = %+v", p)
	}
	for _, k := range []string{"dims", "solver", "standardize", "seed", "threads", "on_invalid"} {
		if _, ok := p.Params[k]; !ok {
			t.Errorf("provenance params lack %q: %v", k, p.Params)
		}
	}
	if _, ok := p.Figures["singular_values"]; !ok {
		t.Errorf("provenance figures lack singular_values: %v", p.Figures)
	}

	// apply reproduces the fitted embedding exactly (same code path).
	applied := filepath.Join(dir, "applied.parquet")
	code, _, errOut = runCmd(t, nil, "apply", "--model", model, "--in", thyroid, "--out", applied, "--quiet")
	if code != 0 {
		t.Fatalf("apply: exit %d: %s", code, errOut)
	}
	a, b := readEmbedding(t, emb, "row"), readEmbedding(t, applied, "row")
	if a.N != 215 || b.N != 215 || a.D != 2 {
		t.Fatalf("shapes: fitted %d×%d, applied %d×%d", a.N, a.D, b.N, b.D)
	}
	for i := range a.X {
		if a.X[i] != b.X[i] {
			t.Fatalf("applied value %d = %v, fitted %v", i, b.X[i], a.X[i])
		}
	}

	// evaluate writes the long metrics table and a readable summary.
	metrics := filepath.Join(dir, "m.parquet")
	code, out, errOut := runCmd(t, nil, "evaluate", "--embedding", emb, "--in", thyroid, "--label", "label", "--ordinal", "--out", metrics)
	if code != 0 {
		t.Fatalf("evaluate: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"trustworthiness", "continuity", "knn_accuracy", "ordinal_spearman", "class centres along the best axis: 1 < 2 < 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("evaluate summary lacks %q:\n%s", want, out)
		}
	}
	mi, err := arrowio.Inspect(context.Background(), metrics)
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, f := range mi.Schema.Fields() {
		cols = append(cols, f.Name)
	}
	if strings.Join(cols, ",") != "metric,k,subset,value" || mi.Rows < 10 {
		t.Errorf("metrics table: columns %v, %d rows", cols, mi.Rows)
	}
	noLeftovers(t, dir, "applied.parquet", "bvp.model.parquet", "e.parquet", "m.parquet")
}

func TestOutputFormats(t *testing.T) {
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref.parquet")
	if code, _, e := runCmd(t, nil, "pca", "--in", thyroid, "--out", ref, "--quiet"); code != 0 {
		t.Fatalf("pca: %s", e)
	}
	want := readEmbedding(t, ref, "row")
	for _, ext := range []string{".arrow", ".feather", ".csv"} {
		out := filepath.Join(dir, "e"+ext)
		if code, _, e := runCmd(t, nil, "pca", "--in", thyroid, "--out", out, "--quiet"); code != 0 {
			t.Fatalf("pca --out %s: exit %d: %s", ext, code, e)
		}
		got := readEmbedding(t, out, "row")
		for i := range want.X {
			if math.Abs(got.X[i]-want.X[i]) > 1e-12*math.Max(1, math.Abs(want.X[i])) {
				t.Fatalf("%s: value %d = %v, want %v", ext, i, got.X[i], want.X[i])
			}
		}
	}
	// "-" streams Arrow IPC to stdout, and "-" reads it from stdin.
	code, stream, e := runCmd(t, nil, "pca", "--in", thyroid, "--out", "-", "--quiet")
	if code != 0 || len(stream) == 0 {
		t.Fatalf("pca --out -: exit %d: %s", code, e)
	}
	back := filepath.Join(dir, "back.parquet")
	code, _, e = runCmd(t, []byte(stream), "pca", "--in", "-", "--features", "emb_*", "--out", back, "--quiet", "--standardize=false", "--id", "row")
	if code != 0 {
		t.Fatalf("pca --in -: exit %d: %s", code, e)
	}
	if got := readEmbedding(t, back, "row"); got.N != 215 {
		t.Errorf("stdin round trip: %d rows, want 215", got.N)
	}
}

func TestBadInputExitsTwo(t *testing.T) {
	dir := t.TempDir()
	csv, err := os.ReadFile(thyroid)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(csv), "\n")
	// Row 3 (0-based data row) gets a NaN in x2.
	fields := strings.Split(lines[4], ",")
	fields[1] = "NaN"
	lines[4] = strings.Join(fields, ",")
	nanCSV := filepath.Join(dir, "nan.csv")
	write(t, nanCSV, strings.Join(lines, "\n"))
	textLabels := filepath.Join(dir, "text.csv")
	write(t, textLabels, "x1,x2,grade\n1,2,low\n2,3,mid\n3,1,high\n4,4,low\n5,2,mid\n6,0,high\n")
	damaged := filepath.Join(dir, "damaged.parquet")
	write(t, damaged, "PAR1 this is not a parquet file PAR1")
	empty := filepath.Join(dir, "empty.csv")
	write(t, empty, "")
	header := filepath.Join(dir, "header.csv")
	write(t, header, "x1,x2,label\n")
	out := filepath.Join(dir, "out", "e.parquet")
	if err := os.Mkdir(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string // substrings of stderr
	}{
		{"nan feature", []string{"bvp", "--in", nanCSV, "--label", "label", "--out", out}, []string{"nan.csv", `column "x2"`, "row 3", "NaN"}},
		{"missing column", []string{"bvp", "--in", thyroid, "--label", "grade", "--out", out}, []string{"grade"}},
		{"text labels without order", []string{"bvp", "--in", textLabels, "--label", "grade", "--out", out}, []string{"--order"}},
		{"order misses a class", []string{"bvp", "--in", textLabels, "--label", "grade", "--order", "low,high", "--out", out}, []string{"mid"}},
		{"damaged parquet", []string{"pca", "--in", damaged, "--out", out}, []string{"damaged.parquet"}},
		{"empty file", []string{"pca", "--in", empty, "--out", out}, []string{"empty.csv"}},
		{"zero rows", []string{"pca", "--in", header, "--out", out}, []string{"header.csv", "no rows"}},
		{"missing input", []string{"pca", "--in", filepath.Join(dir, "nope.parquet"), "--out", out}, []string{"nope.parquet"}},
		{"unknown flag", []string{"pca", "--in", thyroid, "--out", out, "--frobnicate"}, []string{"frobnicate"}},
		{"missing required flag", []string{"pca", "--in", thyroid}, []string{"out"}},
		{"bad dims", []string{"bvp", "--in", thyroid, "--label", "label", "--dims", "0", "--out", out}, []string{"--dims"}},
		{"too many dims", []string{"bvp", "--in", thyroid, "--label", "label", "--dims", "9", "--out", out}, []string{"9"}},
		{"bad solver", []string{"bvp", "--in", thyroid, "--label", "label", "--solver", "magic", "--out", out}, []string{"magic"}},
		{"bad out extension", []string{"pca", "--in", thyroid, "--out", filepath.Join(dir, "e.xlsx")}, []string{"e.xlsx"}},
		{"out folder missing", []string{"pca", "--in", thyroid, "--out", filepath.Join(dir, "no", "e.parquet")}, []string{"does not exist"}},
		{"model is not a model", []string{"apply", "--model", thyroid, "--in", thyroid, "--out", out}, []string{"model"}},
	} {
		code, _, errOut := runCmd(t, nil, tc.args...)
		if code != exitInput {
			t.Errorf("%s: exit %d, want %d; stderr: %s", tc.name, code, exitInput, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr lacks %q: %s", tc.name, w, errOut)
			}
		}
		if strings.Contains(errOut, "panic") || strings.Contains(errOut, "goroutine") {
			t.Errorf("%s: stderr shows a panic: %s", tc.name, errOut)
		}
		noLeftovers(t, filepath.Dir(out))
	}
}

func TestOnInvalidDrop(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.csv")
	write(t, in, "id,x1,x2,label\na,1,2,1\nb,NaN,3,2\nc,3,,3\nd,4,4,1\ne,5,2,2\nf,6,0,3\ng,1,1,2\n")
	out := filepath.Join(dir, "e.parquet")
	code, _, errOut := runCmd(t, nil, "bvp", "--in", in, "--id", "id", "--label", "label", "--on-invalid", "drop", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "dropped 2 of 7 rows") {
		t.Errorf("stderr does not report the dropped rows: %s", errOut)
	}
	f := readEmbedding(t, out, "id")
	if f.N != 5 {
		t.Fatalf("%d rows written, want 5", f.N)
	}
	var ids []string
	for i := range f.N {
		ids = append(ids, f.ID.ValueStr(i))
	}
	if got := strings.Join(ids, ","); got != "a,d,e,f,g" {
		t.Errorf("ids = %s, want a,d,e,f,g", got)
	}
	info, err := arrowio.Inspect(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if in := info.Provenance.Inputs[0]; in.Dropped != 2 || in.Rows != 7 {
		t.Errorf("provenance input = %+v, want 7 rows with 2 dropped", in)
	}
}

func TestTextLabelsWithOrder(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.csv")
	write(t, in, "x1,x2,grade\n1,2,low\n2,3,mid\n3,1,high\n4,4,low\n5,2,mid\n6,0,high\n")
	out := filepath.Join(dir, "e.parquet")
	code, _, errOut := runCmd(t, nil, "bvp", "--in", in, "--label", "grade", "--order", "low,mid,high", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	info, err := arrowio.Inspect(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	order, _ := info.Provenance.Figures["classes"].([]any)
	if len(order) != 3 || order[0] != "low" || order[2] != "high" {
		t.Errorf("recorded class order = %v, want [low mid high]", info.Provenance.Figures["classes"])
	}
}

func TestDemo(t *testing.T) {
	dir := t.TempDir()
	// --threads goes to every step, and is shown in the commands printed.
	code, out, errOut := runCmd(t, nil, "demo", "--out", dir, "--threads", "1")
	if code != 0 {
		t.Fatalf("demo: exit %d: %s", code, errOut)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "$ ordinate ") && !strings.Contains(line, " --threads 1 ") {
			t.Errorf("demo step without --threads 1: %s", line)
		}
	}
	if p := demoProvenance(t, filepath.Join(dir, "thyroid-tsne.parquet")); p == nil || p.Params["threads"] != 1.0 {
		t.Errorf("the demo's t-SNE ran with threads %v, want 1", p.Params["threads"])
	}
	for _, want := range []string{"$ ordinate bvp", "max |difference| = 0", "Spearman's rho", "T(10)", "Fisher t-SNE", "SCORE, one map per aspect", "softclassnerv", "cKPCA (both kernels)"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"thyroid-bvp.parquet", "thyroid-pca.parquet", "gaussians-lda.parquet", "gaussians-bvp.model.parquet", "thyroid-bvp-applied.parquet", "gaussians-metrics-bvp.parquet", "sim-fisher-tsne.parquet", "zoo-score-maps.parquet", "zoo-score-aspects.parquet", "fc-softclassnerv.parquet", "fc-metrics-classnerv.parquet", "thyroid-ckpca.parquet", "thyroid-ckpca.model.parquet", "thyroid-lsp-laplacian.parquet"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("demo did not write %s: %v", f, err)
		}
	}
	// The demo's point: on the synthetic set BVP keeps the ordinal direction,
	// PCA discards it.
	figures := func(name string) map[string]float64 {
		f, err := readFigures(&cli.Context{Context: context.Background()}, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	bvp, pca := figures("gaussians-metrics-bvp.parquet"), figures("gaussians-metrics-pca.parquet")
	if bvp["ordinal_spearman"] < 0.9 || pca["ordinal_spearman"] > 0.6 {
		t.Errorf("synthetic set: Spearman rho BVP %.3f, PCA %.3f; want BVP > 0.9 and PCA < 0.6", bvp["ordinal_spearman"], pca["ordinal_spearman"])
	}
	if bvp["center_spearman"] != 1 {
		t.Errorf("synthetic set: BVP centre order rho = %v, want 1", bvp["center_spearman"])
	}
	demoData, err := os.ReadFile(thyroid)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(demoData, demoThyroid) {
		t.Error("cmd/ordinate/demodata/newthyroid.csv differs from testdata/ordinal/newthyroid.csv")
	}
	if zooData, err := os.ReadFile(zoo); err != nil || !bytes.Equal(zooData, demoZoo) {
		t.Errorf("cmd/ordinate/demodata/zoo.csv differs from testdata/zoo/zoo.csv (%v)", err)
	}
}

// demoProvenance reads the provenance of a table (nil when it has none).
func demoProvenance(t *testing.T, path string) *arrowio.Provenance {
	t.Helper()
	r, err := arrowio.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	return transforms.TableProvenance(r.Schema())
}

func TestInspect(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "e.parquet")
	if code, _, e := runCmd(t, nil, "lda", "--in", thyroid, "--label", "label", "--out", out, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	code, text, e := runCmd(t, nil, "inspect", out)
	if code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, e)
	}
	for _, want := range []string{"emb_0", "215", `"stage": "lda"`} {
		if !strings.Contains(text, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, text)
		}
	}
	if code, _, _ := runCmd(t, nil, "inspect"); code != exitInput {
		t.Errorf("inspect without a file: exit %d, want %d", code, exitInput)
	}
}

func TestExitCodeClassification(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{inputError{errors.New("x")}, exitInput},
		{runtimeError{errors.New("disk full")}, exitRuntime},
		{runtimeError{context.Canceled}, exitRuntime},
		{errors.New(`Required flag "out" not set`), exitInput},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEvaluateDistances scores the Euclidean distance table of the input
// features (only pairs i < j, so the mirror is exercised) and checks it
// against the "input" subset that evaluate reports for an embedding of the
// same rows: both are k-NN accuracies of the same neighbourhoods (the raw
// features: bvp standardised them, so evaluate is told not to).
func TestEvaluateDistances(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile(thyroid)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")[1:]
	pts := make([][]float64, len(lines))
	for r, l := range lines {
		f := strings.Split(l, ",")
		for _, v := range f[:5] {
			var x float64
			if _, err := fmt.Sscan(v, &x); err != nil {
				t.Fatal(err)
			}
			pts[r] = append(pts[r], x)
		}
	}
	var b strings.Builder
	b.WriteString("i,j,distance\n")
	for i := range pts {
		for j := i + 1; j < len(pts); j++ {
			var s float64
			for k := range pts[i] {
				s += (pts[i][k] - pts[j][k]) * (pts[i][k] - pts[j][k])
			}
			fmt.Fprintf(&b, "%d,%d,%s\n", i, j, strconv.FormatFloat(math.Sqrt(s), 'g', -1, 64))
		}
	}
	dpath := filepath.Join(dir, "d.csv")
	write(t, dpath, b.String())
	emb := filepath.Join(dir, "e.parquet")
	if code, _, e := runCmd(t, nil, "bvp", "--in", thyroid, "--label", "label", "--out", emb, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	ref, fromDist := filepath.Join(dir, "ref.parquet"), filepath.Join(dir, "dist.parquet")
	if code, _, e := runCmd(t, nil, "evaluate", "--embedding", emb, "--in", thyroid, "--label", "label", "--features", "x*", "--standardize", "false", "--k", "5,10", "--out", ref, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	code, out, e := runCmd(t, nil, "evaluate", "--distances", dpath, "--in", thyroid, "--label", "label", "--k", "5,10", "--out", fromDist)
	if code != 0 {
		t.Fatalf("evaluate --distances: exit %d: %s", code, e)
	}
	if !strings.Contains(out, "knn_accuracy") {
		t.Errorf("summary lacks knn_accuracy:\n%s", out)
	}
	cctx := &cli.Context{Context: context.Background()}
	want, err := readFigures(cctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readFigures(cctx, fromDist)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"knn_accuracy@5", "knn_accuracy@10", "nn_error@1"} {
		w, ok1 := want[k+"/input"]
		g, ok2 := got[k+"/distances"]
		if !ok1 || !ok2 || w != g {
			t.Errorf("%s: distances give %v (%v), input space %v (%v)", k, g, ok2, w, ok1)
		}
	}
	// A table with a pair missing is an error naming the pair.
	short := filepath.Join(dir, "short.csv")
	write(t, short, strings.Join(strings.Split(b.String(), "\n")[:100], "\n")+"\n")
	code, _, e = runCmd(t, nil, "evaluate", "--distances", short, "--in", thyroid, "--label", "label", "--out", filepath.Join(dir, "x.parquet"))
	if code != exitInput || !strings.Contains(e, "no value for the pair") {
		t.Errorf("incomplete table: exit %d, stderr %s", code, e)
	}
}

func TestLogFormatJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "e.parquet")
	code, _, errOut := runCmd(t, nil, "bvp", "--in", thyroid, "--label", "label", "--dims", "3", "--out", out, "--log-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	var sawWarning bool
	for _, l := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("stderr line is not JSON: %q", l)
		}
		if rec["level"] == "WARN" && strings.Contains(fmt.Sprint(rec["msg"]), "axis 3") {
			sawWarning = true
		}
	}
	// Three classes give two informative BVP axes: the third is filled, with a warning.
	if !sawWarning {
		t.Errorf("no JSON warning about the filled third axis in:\n%s", errOut)
	}
	info, err := arrowio.Inspect(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if info.Provenance.Figures["null_filled"] != float64(1) || len(info.Provenance.Warnings) == 0 {
		t.Errorf("provenance: null_filled %v, warnings %v", info.Provenance.Figures["null_filled"], info.Provenance.Warnings)
	}
}

// TestEvaluateSplitWithoutID runs evaluate --triplets --split --attributes
// without --id, which once failed to encode a NaN in the provenance, and
// checks the hidden k-NN accuracy is recorded (NaN and ±Inf become null).
func TestEvaluateSplitWithoutID(t *testing.T) {
	dir := t.TempDir()
	tr, split, maps, m := filepath.Join(dir, "t.parquet"), filepath.Join(dir, "split.parquet"), filepath.Join(dir, "soe.parquet"), filepath.Join(dir, "m.parquet")
	if code, _, e := runCmd(t, nil, "triplets", "--in", zoo, "--exclude", "animal_name,type_name", "--per-aspect", "300",
		"--split-objects", "0.5", "--split-out", split, "--out", tr, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	if code, _, e := runCmd(t, nil, "soe", "--in", tr, "--per-aspect", "--out", maps, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	code, out, e := runCmd(t, nil, "evaluate", "--embedding", maps, "--triplets", tr, "--split", split, "--attributes", zoo, "--out", m)
	if code != 0 || !strings.Contains(out, "10-NN accuracy of hidden objects") {
		t.Fatalf("exit %d: %s\n%s", code, e, out)
	}
	info, err := arrowio.Inspect(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if p := info.Provenance; p == nil || p.Kind != "metrics" || p.Figures["hidden_knn_accuracy_k10_hidden"] == nil {
		t.Errorf("provenance %+v", p)
	}
}
