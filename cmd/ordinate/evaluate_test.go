package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// population returns n seeded rows of three features and a class (0..2).
func population(seed uint64, n int) ([][3]float64, []int) {
	rng := rand.New(rand.NewPCG(seed, 35))
	x := make([][3]float64, n)
	cls := make([]int, n)
	for i := range x {
		c := i % 3
		cls[i] = c
		x[i] = [3]float64{float64(c) + rng.NormFloat64(), 10 * rng.NormFloat64(), float64(c)*2 + rng.NormFloat64()}
	}
	return x, cls
}

// evalCSV writes the rows rows of the population as a CSV, with an id
// column (ids[k] for the k-th row written) unless ids is nil.
func evalCSV(t *testing.T, path string, x [][3]float64, cls []int, rows []int, ids []int) string {
	t.Helper()
	var b strings.Builder
	if ids != nil {
		b.WriteString("id,")
	}
	b.WriteString("x1,x2,x3,label\n")
	for k, i := range rows {
		if ids != nil {
			fmt.Fprintf(&b, "%d,", ids[k])
		}
		fmt.Fprintf(&b, "%s,%s,%s,%d\n", num(x[i][0]), num(x[i][1]), num(x[i][2]), cls[i])
	}
	write(t, path, b.String())
	return path
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func span(lo, hi int) []int {
	var out []int
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// metricValues reads a metrics CSV into metric/k/subset → value.
func metricValues(t *testing.T, path string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, r := range readCSV(t, path) {
		v, err := strconv.ParseFloat(r["value"], 64)
		if err != nil {
			t.Fatalf("%s: value %q", path, r["value"])
		}
		out[r["metric"]+"/"+r["k"]+"/"+r["subset"]] = v
	}
	return out
}

// TestEvaluateRefusesOtherRows: evaluate scores an embedding only against
// the rows it was made from. A table of other rows (the same count, even
// the same ids: the wine rows renumbered), one changed value, or
// rows in another order where rows are matched by number, exits 2 naming
// both files, with nothing written; the same rows (in any order when
// matched by id) are scored.
func TestEvaluateRefusesOtherRows(t *testing.T) {
	dir := t.TempDir()
	x, cls := population(1, 180)
	first, second := span(0, 90), span(90, 180)
	ids := span(0, 90) // the second half renumbered 0…89, as the first
	shuffled := append([]int{}, first...)
	rand.New(rand.NewPCG(2, 35)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	shuffledIDs := append([]int{}, shuffled...)
	xChanged := append([][3]float64{}, x...)
	xChanged[17][1] += 1e-9

	fitIDs := evalCSV(t, filepath.Join(dir, "fit-ids.csv"), x, cls, first, ids)
	fitRows := evalCSV(t, filepath.Join(dir, "fit-rows.csv"), x, cls, first, nil)
	for _, fit := range []string{fitIDs, fitRows} {
		args := []string{"pca", "--in", fit, "--label", "label", "--out", strings.TrimSuffix(fit, ".csv") + ".parquet", "--quiet"}
		if fit == fitIDs {
			args = append(args, "--id", "id")
		}
		if code, _, e := runCmd(t, nil, args...); code != 0 {
			t.Fatalf("pca: exit %d: %s", code, e)
		}
	}
	embIDs, embRows := filepath.Join(dir, "fit-ids.parquet"), filepath.Join(dir, "fit-rows.parquet")
	for _, tc := range []struct {
		name, emb, in string
		ok            bool
		extra         []string
	}{
		{"the same rows, by id", embIDs, fitIDs, true, nil},
		// Scored on other columns than the fit read: those are read again
		// for the check.
		{"the same rows, scored on x1 and x3", embIDs, fitIDs, true, []string{"--features", "x1,x3"}},
		{"other rows, scored on x1 and x3", embIDs, filepath.Join(dir, "second-ids.csv"), false, []string{"--features", "x1,x3"}},
		{"the same rows, by row number", embRows, fitRows, true, nil},
		{"the same rows shuffled, by id", embIDs, evalCSV(t, filepath.Join(dir, "shuffled-ids.csv"), x, cls, shuffled, shuffledIDs), true, nil},
		{"other rows renumbered with the same ids", embIDs, evalCSV(t, filepath.Join(dir, "second-ids.csv"), x, cls, second, ids), false, nil},
		{"other rows of the same count", embRows, evalCSV(t, filepath.Join(dir, "second-rows.csv"), x, cls, second, nil), false, nil},
		{"one value changed by 1e-9", embIDs, evalCSV(t, filepath.Join(dir, "changed.csv"), xChanged, cls, first, ids), false, nil},
		{"the same rows shuffled, by row number", embRows, evalCSV(t, filepath.Join(dir, "shuffled-rows.csv"), x, cls, shuffled, nil), false, nil},
		{"a row fewer", embRows, evalCSV(t, filepath.Join(dir, "fewer.csv"), x, cls, first[:89], nil), false, nil},
	} {
		out := filepath.Join(dir, "m.csv")
		args := append([]string{"evaluate", "--embedding", tc.emb, "--in", tc.in, "--label", "label", "--k", "5", "--out", out, "--quiet"}, tc.extra...)
		code, _, e := runCmd(t, nil, args...)
		switch {
		case tc.ok && code != 0:
			t.Errorf("%s: exit %d: %s", tc.name, code, e)
		case tc.ok && strings.Contains(e, "cannot be checked"):
			t.Errorf("%s: the pairing was not checked: %s", tc.name, e)
		case !tc.ok && code != 2:
			t.Errorf("%s: exit %d, want 2: %s", tc.name, code, e)
		case !tc.ok && (!strings.Contains(e, filepath.Base(tc.emb)) || !strings.Contains(e, filepath.Base(tc.in)) || !strings.Contains(e, "does not hold the rows")):
			t.Errorf("%s: the error does not name both files: %s", tc.name, e)
		}
		if !tc.ok {
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s: wrote %s", tc.name, out)
			}
		}
		os.Remove(out)
	}

	// Matched by id, the order of the rows does not change the metrics.
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	for _, c := range []struct{ in, out string }{{fitIDs, a}, {filepath.Join(dir, "shuffled-ids.csv"), b}} {
		if code, _, e := runCmd(t, nil, "evaluate", "--embedding", embIDs, "--in", c.in, "--label", "label", "--k", "5", "--out", c.out, "--quiet"); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.in, code, e)
		}
	}
	va, vb := metricValues(t, a), metricValues(t, b)
	for k, v := range va {
		if vb[k] != v {
			t.Errorf("%s: %v in order, %v shuffled", k, v, vb[k])
		}
	}
}

// writeEmbedding writes an embedding table without provenance (as another
// tool would): an int64 id column and emb_0, emb_1.
func writeEmbedding(t *testing.T, path, idName string, ids []int64, emb [][2]float64) {
	t.Helper()
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{{Name: idName, Type: arrow.PrimitiveTypes.Int64},
		{Name: "emb_0", Type: arrow.PrimitiveTypes.Float64}, {Name: "emb_1", Type: arrow.PrimitiveTypes.Float64}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.Float64Builder).Append(emb[i][0])
		b.Field(2).(*array.Float64Builder).Append(emb[i][1])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	w, err := arrowio.Create(context.Background(), path, schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestEvaluateWithoutFingerprint: an embedding that records no fingerprint
// (another tool's table) is scored with a warning that the pairing cannot
// be checked; ids missing from either side are an error that names how
// many and the first few.
func TestEvaluateWithoutFingerprint(t *testing.T) {
	dir := t.TempDir()
	x, cls := population(3, 60)
	in := evalCSV(t, filepath.Join(dir, "in.csv"), x, cls, span(0, 60), span(100, 160))
	emb := make([][2]float64, 60)
	var ids []int64
	for i := range emb {
		emb[i] = [2]float64{x[i][0], x[i][2]}
		ids = append(ids, int64(100+i))
	}
	full := filepath.Join(dir, "full.parquet")
	writeEmbedding(t, full, "id", ids, emb)
	code, _, e := runCmd(t, nil, "evaluate", "--embedding", full, "--in", in, "--id", "id", "--features", "x*", "--label", "label", "--k", "5", "--out", filepath.Join(dir, "m.csv"))
	if code != 0 || !strings.Contains(e, "records no fingerprint") || !strings.Contains(e, "cannot be checked") {
		t.Errorf("no fingerprint: exit %d, want 0 with a warning: %s", code, e)
	}
	// Three ids the table lacks, and five rows the embedding lacks.
	part, moved := filepath.Join(dir, "part.parquet"), filepath.Join(dir, "moved.parquet")
	writeEmbedding(t, part, "id", ids[5:], emb[5:])
	idsMoved := append([]int64{}, ids...)
	idsMoved[0], idsMoved[1], idsMoved[2] = 7, 8, 9
	writeEmbedding(t, moved, "id", idsMoved, emb)
	for _, tc := range []struct {
		name, emb string
		want      []string
	}{
		{"rows the embedding lacks", part, []string{"5 of the 60 rows of", `"100", "101", "102", …`, "sample option"}},
		{"ids the table lacks", moved, []string{"3 of the 60 rows of", `"7", "8", "9"`, `"100", "101", "102"`}},
	} {
		out := filepath.Join(dir, "m2.csv")
		code, _, e := runCmd(t, nil, "evaluate", "--embedding", tc.emb, "--in", in, "--id", "id", "--features", "x*", "--label", "label", "--k", "5", "--out", out)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2: %s", tc.name, code, e)
		}
		for _, w := range tc.want {
			if !strings.Contains(e, w) {
				t.Errorf("%s: error lacks %q: %s", tc.name, w, lastLine(e))
			}
		}
	}
}

// TestEvaluateApplyOutput: an apply output records the model's features
// and standardisation and the rows of its in, so evaluating it needs no
// options and gives what the explicit options give; against another
// table it is refused.
func TestEvaluateApplyOutput(t *testing.T) {
	dir := t.TempDir()
	x, cls := population(4, 160)
	train := evalCSV(t, filepath.Join(dir, "train.csv"), x, cls, span(0, 80), nil)
	test := evalCSV(t, filepath.Join(dir, "test.csv"), x, cls, span(80, 160), nil)
	model, placed := filepath.Join(dir, "pca.model.parquet"), filepath.Join(dir, "placed.parquet")
	steps := [][]string{
		{"pca", "--in", train, "--label", "label", "--out", filepath.Join(dir, "pca.parquet"), "--model-out", model},
		{"apply", "--model", model, "--in", test, "--keep", "label", "--out", placed},
	}
	for _, s := range steps {
		if code, _, e := runCmd(t, nil, append(s, "--quiet")...); code != 0 {
			t.Fatalf("%s: exit %d: %s", s[0], code, e)
		}
	}
	p := provenanceOf(t, placed)
	if p.Figures["standardize"] != true || fmt.Sprint(p.Figures["features"]) != "[x1 x2 x3]" {
		t.Errorf("apply output records features %v, standardize %v", p.Figures["features"], p.Figures["standardize"])
	}
	var fp *arrowio.Fingerprint
	for _, in := range p.Inputs {
		if in.Role == "in" {
			fp = in.Fingerprint
		}
	}
	if fp == nil || fp.Rows != 80 || fp.ID != "" || strings.Join(fp.Columns, ",") != "x1,x2,x3" {
		t.Fatalf("apply output fingerprint %+v", fp)
	}
	auto, explicit := filepath.Join(dir, "auto.csv"), filepath.Join(dir, "explicit.csv")
	code, _, e := runCmd(t, nil, "evaluate", "--embedding", placed, "--in", test, "--label", "label", "--k", "5,10", "--out", auto, "--quiet")
	if code != 0 || strings.Contains(e, "records no") {
		t.Fatalf("evaluate of the apply output: exit %d: %s", code, e)
	}
	if code, _, e := runCmd(t, nil, "evaluate", "--embedding", placed, "--in", test, "--label", "label", "--k", "5,10",
		"--features", "x1,x2,x3", "--standardize", "true", "--out", explicit, "--quiet"); code != 0 {
		t.Fatalf("explicit: exit %d: %s", code, e)
	}
	va, ve := metricValues(t, auto), metricValues(t, explicit)
	if len(va) == 0 || len(va) != len(ve) {
		t.Fatalf("metrics %v and %v", va, ve)
	}
	for k, v := range va {
		if ve[k] != v {
			t.Errorf("%s: %v without options, %v with the explicit ones", k, v, ve[k])
		}
	}
	code, _, e = runCmd(t, nil, "evaluate", "--embedding", placed, "--in", train, "--label", "label", "--out", filepath.Join(dir, "wrong.csv"), "--quiet")
	if code != 2 || !strings.Contains(e, "does not hold the rows") {
		t.Errorf("apply output against the training table: exit %d, want 2: %s", code, e)
	}
}

// TestEvaluateSample: --sample N --seed S scores a seeded sample, records
// it in the provenance and the summary, and gives the metrics that blocks
// of the same sample merge into; another seed scores other points.
func TestEvaluateSample(t *testing.T) {
	dir := t.TempDir()
	x, cls := population(5, 300)
	in := evalCSV(t, filepath.Join(dir, "in.csv"), x, cls, span(0, 300), nil)
	emb := filepath.Join(dir, "pca.parquet")
	if code, _, e := runCmd(t, nil, "pca", "--in", in, "--label", "label", "--out", emb, "--quiet"); code != 0 {
		t.Fatalf("pca: exit %d: %s", code, e)
	}
	base := []string{"evaluate", "--embedding", emb, "--in", in, "--label", "label", "--ordinal", "--k", "5,10"}
	run := func(out string, extra ...string) (string, string) {
		t.Helper()
		code, stdout, e := runCmd(t, nil, append(append(append([]string{}, base...), extra...), "--out", out)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, e)
		}
		return stdout, e
	}
	s1 := filepath.Join(dir, "s1.parquet")
	summary, _ := run(s1, "--sample", "60", "--seed", "3")
	if !strings.Contains(summary, "sample of 60 of the 300 rows (seed 3)") {
		t.Errorf("summary does not state the sample:\n%s", summary)
	}
	p := provenanceOf(t, s1)
	if p.Figures["sample_points"] != float64(60) || p.Figures["sample_seed"] != float64(3) || p.Params["sample"] != "60" {
		t.Errorf("provenance: figures %v, params sample %v", p.Figures, p.Params["sample"])
	}
	for b := range 3 {
		run(filepath.Join(dir, fmt.Sprintf("part-%d.parquet", b)), "--sample", "60", "--seed", "3", "--block", fmt.Sprintf("%d/3", b), "--quiet")
	}
	merged := filepath.Join(dir, "merged.csv")
	if code, _, e := runCmd(t, nil, "evaluate", "--partials", filepath.Join(dir, "part-*.parquet"), "--out", merged, "--quiet"); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, e)
	}
	s1csv := filepath.Join(dir, "s1.csv")
	run(s1csv, "--sample", "60", "--seed", "3", "--quiet")
	vs, vm := metricValues(t, s1csv), metricValues(t, merged)
	for k, v := range vs {
		if vm[k] != v {
			t.Errorf("%s: %v sampled, %v merged from blocks", k, v, vm[k])
		}
	}
	other, all := filepath.Join(dir, "s2.csv"), filepath.Join(dir, "all.csv")
	run(other, "--sample", "60", "--seed", "4", "--quiet")
	run(all, "--sample", "0", "--quiet")
	vo, va := metricValues(t, other), metricValues(t, all)
	if vo["trustworthiness/5/all"] == vs["trustworthiness/5/all"] {
		t.Error("seeds 3 and 4 gave the same T(5)")
	}
	for _, k := range []string{"trustworthiness/5/all", "knn_accuracy/10/embedding"} {
		if d := math.Abs(vs[k] - va[k]); d > 0.1 {
			t.Errorf("%s: sample %v, all %v", k, vs[k], va[k])
		}
	}
	if vs["ordinal_spearman/0/all"] != va["ordinal_spearman/0/all"] {
		t.Errorf("ordinal metrics differ with a sample: %v, %v", vs["ordinal_spearman/0/all"], va["ordinal_spearman/0/all"])
	}
	if code, _, e := runCmd(t, nil, append(append([]string{}, base...), "--sample", "-2", "--out", filepath.Join(dir, "x.csv"))...); code != 2 || !strings.Contains(e, "sample") {
		t.Errorf("--sample -2: exit %d, want 2 naming sample: %s", code, e)
	}
}

// TestEvaluateDistanceEmbedding: t-SNE of a distance table is scored
// against that table (evaluate --embedding E --distances D), not against
// features it was never fitted on; a distance table of another run is
// refused.
func TestEvaluateDistanceEmbedding(t *testing.T) {
	dir := t.TempDir()
	sim := "../../testdata/similarity/aural_sonar.parquet"
	d1, d2, emb := filepath.Join(dir, "d1.parquet"), filepath.Join(dir, "d2.parquet"), filepath.Join(dir, "tsne.parquet")
	for _, s := range [][]string{
		{"fisher", "--similarity", sim, "--id", "id", "--label", "label", "--metric", "kernel", "--out", d1},
		{"fisher", "--similarity", sim, "--id", "id", "--label", "label", "--out", d2},
		{"tsne", "--distances", d1, "--labels", sim, "--id", "id", "--label", "label", "--perplexity", "10", "--out", emb},
	} {
		if code, _, e := runCmd(t, nil, append(s, "--quiet")...); code != 0 {
			t.Fatalf("%s: exit %d: %s", s[0], code, e)
		}
	}
	code, _, e := runCmd(t, nil, "evaluate", "--embedding", emb, "--in", sim, "--id", "id", "--label", "label", "--out", filepath.Join(dir, "x.csv"))
	if code != 2 || !strings.Contains(e, "was fitted on the distance table") || !strings.Contains(e, "--distances") {
		t.Errorf("against features: exit %d, want 2 pointing to --distances: %s", code, lastLine(e))
	}
	out := filepath.Join(dir, "m.csv")
	code, _, e = runCmd(t, nil, "evaluate", "--embedding", emb, "--distances", d1, "--in", sim, "--id", "id", "--label", "label", "--k", "5", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("against its distances: exit %d: %s", code, e)
	}
	v := metricValues(t, out)
	for _, k := range []string{"trustworthiness/5/all", "continuity/5/all", "rnx_auc/0/all", "knn_accuracy/5/embedding", "knn_accuracy/5/input"} {
		if x, ok := v[k]; !ok || !(x >= -1 && x <= 1) {
			t.Errorf("%s = %v (present %v)", k, x, ok)
		}
	}
	if v["trustworthiness/5/all"] < 0.8 {
		t.Errorf("T(5) of t-SNE against its own distances: %v", v["trustworthiness/5/all"])
	}
	code, _, e = runCmd(t, nil, "evaluate", "--embedding", emb, "--distances", d2, "--out", filepath.Join(dir, "y.csv"), "--quiet")
	if code != 2 || !strings.Contains(e, "does not hold the rows") {
		t.Errorf("against another run's distances: exit %d, want 2: %s", code, lastLine(e))
	}
}

// TestEvaluateTamperedPartials: a partial with a negative centre order
// (which panicked) or an impossible hit count (which merged with exit 0)
// exits 2 naming the file, and writes nothing.
func TestEvaluateTamperedPartials(t *testing.T) {
	dir := t.TempDir()
	emb := filepath.Join(dir, "pca.parquet")
	if code, _, e := runCmd(t, nil, "pca", "--in", thyroid, "--label", "label", "--out", emb, "--quiet"); code != 0 {
		t.Fatalf("pca: exit %d: %s", code, e)
	}
	part := filepath.Join(dir, "part.csv")
	if code, _, e := runCmd(t, nil, "evaluate", "--embedding", emb, "--in", thyroid, "--label", "label", "--ordinal", "--block", "0/1", "--out", part, "--quiet"); code != 0 {
		t.Fatalf("block: exit %d: %s", code, e)
	}
	good, err := os.ReadFile(part)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, part, want string
		value            func(string) string
	}{
		{"a negative centre order", "center_order", "center_order", func(string) string { return "-3" }},
		{"a hit count +7 beyond the points", "hit_embedding", "hit_embedding", func(string) string { return "222" }},
		{"a negative penalty", "t_penalty", "t_penalty", func(string) string { return "-1" }},
	} {
		var lines []string
		done := false
		for _, l := range strings.Split(strings.TrimSpace(string(good)), "\n") {
			f := strings.Split(l, ",")
			if !done && len(f) == 5 && f[2] == tc.part {
				f[4] = tc.value(f[4])
				done = true
			}
			lines = append(lines, strings.Join(f, ","))
		}
		bad := filepath.Join(dir, "bad-"+tc.part+".csv")
		write(t, bad, strings.Join(lines, "\n")+"\n")
		out := filepath.Join(dir, "m.csv")
		code, _, e := runCmd(t, nil, "evaluate", "--partials", bad, "--out", out)
		if code != 2 || !strings.Contains(e, tc.want) || !strings.Contains(e, filepath.Base(bad)) {
			t.Errorf("%s: exit %d, want 2 naming %s and the file: %s", tc.name, code, tc.want, lastLine(e))
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: wrote %s", tc.name, out)
		}
	}
}

// TestEvaluateShardParts: the outputs of apply --shard i/N, read as one
// folder, are scored against the whole input without options (the parts'
// fingerprints add up to the whole's), as the unsharded output is; one
// part alone is refused.
func TestEvaluateShardParts(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	data, parts := filepath.Join(dir, "data"), filepath.Join(dir, "parts")
	for _, d := range []string{data, parts} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r, err := arrowio.Open(ctx, thyroid, arrowio.WithBatchSize(80))
	if err != nil {
		t.Fatal(err)
	}
	for part := 0; r.Next(); part++ { // three files of up to 80 rows, row groups of 17
		rec := r.RecordBatch()
		w, err := arrowio.Create(ctx, filepath.Join(data, fmt.Sprintf("part-%d.parquet", part)), rec.Schema(), arrowio.WithRowGroupRows(17))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	r.Release()
	model, full := filepath.Join(dir, "bvp.model.parquet"), filepath.Join(dir, "all.parquet")
	steps := [][]string{
		{"bvp", "--in", data, "--label", "label", "--out", filepath.Join(dir, "bvp.parquet"), "--model-out", model},
		{"apply", "--model", model, "--in", data, "--keep", "label", "--out", full},
	}
	for i := range 3 {
		steps = append(steps, []string{"apply", "--model", model, "--in", data, "--keep", "label", "--shard", fmt.Sprintf("%d/3", i),
			"--out", filepath.Join(parts, fmt.Sprintf("part-%d.parquet", i))})
	}
	for _, s := range steps {
		if code, _, e := runCmd(t, nil, append(s, "--quiet")...); code != 0 {
			t.Fatalf("%v: exit %d: %s", s, code, e)
		}
	}
	mAll, mParts := filepath.Join(dir, "m-all.csv"), filepath.Join(dir, "m-parts.csv")
	for _, c := range []struct{ emb, out string }{{full, mAll}, {parts, mParts}} {
		code, _, e := runCmd(t, nil, "evaluate", "--embedding", c.emb, "--in", data, "--label", "label", "--k", "5", "--out", c.out)
		if code != 0 || strings.Contains(e, "cannot be") || !strings.Contains(e, "rows checked") {
			t.Fatalf("%s: exit %d, want 0 with the rows checked: %s", c.emb, code, e)
		}
	}
	va, vp := metricValues(t, mAll), metricValues(t, mParts)
	for k, v := range va {
		if vp[k] != v {
			t.Errorf("%s: %v unsharded, %v from the parts", k, v, vp[k])
		}
	}
	code, _, e := runCmd(t, nil, "evaluate", "--embedding", filepath.Join(parts, "part-1.parquet"), "--in", data, "--label", "label",
		"--out", filepath.Join(dir, "m-one.csv"), "--quiet")
	if code != 2 || !strings.Contains(e, "does not hold the rows") {
		t.Errorf("one part against the whole input: exit %d, want 2: %s", code, lastLine(e))
	}
}
