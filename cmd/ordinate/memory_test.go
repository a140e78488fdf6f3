package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// blobsCSV writes n rows of d Gaussian features in four classes (a seeded
// PCG stream) to a CSV file in dir.
func blobsCSV(t *testing.T, dir string, n, d int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(35, uint64(n)))
	var b strings.Builder
	for j := range d {
		fmt.Fprintf(&b, "x%d,", j+1)
	}
	b.WriteString("label\n")
	for i := range n {
		for j := range d {
			fmt.Fprintf(&b, "%.5f,", rng.NormFloat64()+float64(3*(i%4)*(j%2)))
		}
		fmt.Fprintf(&b, "%d\n", i%4)
	}
	path := filepath.Join(dir, fmt.Sprintf("blobs-%d-%d.csv", n, d))
	write(t, path, b.String())
	return path
}

// wideParquet writes rows rows of one list column "v" of width elements
// (seeded values) and a label, as a Parquet file in dir: a few hundred kB
// that are width features.
func wideParquet(t *testing.T, dir string, rows, width int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(35, 7))
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "v", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64)},
		{Name: "label", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	lb := b.Field(0).(*array.ListBuilder)
	vb := lb.ValueBuilder().(*array.Float64Builder)
	for i := range rows {
		lb.Append(true)
		for range width {
			vb.Append(rng.NormFloat64())
		}
		b.Field(1).(*array.Int64Builder).Append(int64(i % 2))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	path := filepath.Join(dir, "wide.parquet")
	if err := arrowio.WriteRecord(context.Background(), path, rec); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMemoryGuard runs stages whose plans grow faster than their rows, or
// take their size from an option or a file, under a small --memory-limit
// (or on sizes no machine has): each is refused before it allocates, exit
// 2, naming the size, the limit and what would fit, with no output
// written; without the limit the same small runs succeed. Before the
// guard these ran out of memory (a Go "fatal error" and a goroutine dump),
// swapped for hours, or stalled.
// TestDimsAboveObjects: a dims option that fits in memory but exceeds the
// objects is refused at once (it ran for hours at --dims 1000000).
func TestDimsAboveObjects(t *testing.T) {
	dir := t.TempDir()
	triplets := filepath.Join(dir, "t.parquet")
	if code, _, errOut := runCmd(t, nil, "triplets", "--in", "../../testdata/zoo/zoo.csv", "--exclude", "animal_name,type_name",
		"--per-aspect", "200", "--out", triplets, "--quiet"); code != 0 {
		t.Fatalf("triplets: exit %d: %s", code, errOut)
	}
	for _, stage := range []string{"score", "soe", "tste"} {
		out := filepath.Join(dir, stage+".parquet")
		code, _, errOut := runCmd(t, nil, stage, "--in", triplets, "--dims", "102", "--out", out, "--quiet")
		if code != 2 || !strings.Contains(errOut, "--dims: 102 dimensions for 101 objects") {
			t.Errorf("%s --dims 102: exit %d, %q; want exit 2 naming the dims and the objects", stage, code, errOut)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s --dims 102: wrote %s", stage, out)
		}
	}
}

func TestMemoryGuard(t *testing.T) {
	dir := t.TempDir()
	blobs := blobsCSV(t, dir, 1200, 3)
	small := blobsCSV(t, dir, 60, 3)
	wide := wideParquet(t, dir, 4, 100_000)
	triplets := filepath.Join(dir, "t.parquet")
	if code, _, errOut := runCmd(t, nil, "triplets", "--in", "../../testdata/zoo/zoo.csv", "--exclude", "animal_name,type_name",
		"--per-aspect", "200", "--out", triplets, "--quiet"); code != 0 {
		t.Fatalf("triplets: exit %d: %s", code, errOut)
	}
	out := filepath.Join(dir, "out.parquet")
	for _, c := range []struct {
		name string
		args []string
		want []string // in the message, besides "not enough memory"
	}{
		{"nerv exact", []string{"nerv", "--in", blobs, "--label", "label", "--method", "exact", "--memory-limit", "20MB"},
			[]string{"exact method's 4 N×N matrices at N = 1,200", "46.6 MB", "20.0 MB", "--memory-limit", "--method grid"}},
		{"nerv auto (grid, and no room for the cut-off)", []string{"nerv", "--in", blobs, "--label", "label", "--memory-limit", "8MB"},
			[]string{"method grid's lists of 225 neighbours per row at N = 1,200 and its grids", "8.0 MB", "--memory-limit"}},
		{"tsne exact", []string{"tsne", "--in", blobs, "--method", "exact", "--memory-limit", "5MB"},
			[]string{"N×N affinities at N = 1,200", "11.6 MB", "--method bh"}},
		{"nerv dims", []string{"nerv", "--in", small, "--dims", "1000000", "--memory-limit", "1GB"}, []string{"--dims", "1,000,000 dimensions"}},
		{"tsne dims", []string{"tsne", "--in", small, "--dims", "1000000", "--perplexity", "5", "--init", "random", "--memory-limit", "1GB"}, []string{"--dims", "1,000,000 dimensions"}},
		{"tste dims", []string{"tste", "--in", triplets, "--dims", "1000000", "--memory-limit", "1GB"}, []string{"--dims", "use fewer dims"}},
		{"soe dims", []string{"soe", "--in", triplets, "--dims", "1000000", "--memory-limit", "1GB"}, []string{"--dims"}},
		{"score dims", []string{"score", "--in", triplets, "--dims", "1000000", "--memory-limit", "1GB"}, []string{"--dims"}},
		{"ckpca dims", []string{"ckpca", "--in", small, "--dims", "1000000", "--memory-limit", "1GB"}, []string{"--dims", "1,000,000 dimensions"}},
		{"ckpca rbf", []string{"ckpca", "--in", blobs, "--kernel", "rbf", "--memory-limit", "50MB"}, []string{"rbf kernel's N×N matrix", "--landmarks"}},
		{"ckpca landmarks", []string{"ckpca", "--in", blobs, "--kernel", "rbf", "--landmarks", "1000", "--memory-limit", "30MB"}, []string{"--landmarks", "1,000 landmarks"}},
		{"lda wide list column", []string{"lda", "--in", wide, "--features", "v", "--label", "label"}, []string{"100,000 features", "240.0 GB", "fewer features"}},
		{"ckpca wide list column", []string{"ckpca", "--in", wide, "--features", "v"}, []string{"100,000 features"}},
		{"fisher steps", []string{"fisher", "--in", small, "--kernel", "rbf", "--label", "label", "--steps", "1000000000"}, []string{"--steps", "use fewer steps"}},
		{"features", []string{"pca", "--in", blobs, "--memory-limit", "50kB"}, []string{"features as read", "1,200 rows × 3 columns"}},
		{"lsp neighbours", []string{"lsp", "--in", "../../testdata/ckpca/thyroid-control.csv", "--control", "cx,cy", "--variant", "laplacian", "--neighbors", "200", "--memory-limit", "1MB"}, []string{"--neighbors", "200 neighbours per row"}},
	} {
		args := append(append([]string{}, c.args...), "--out", out, "--quiet")
		code, _, errOut := runCmd(t, nil, args...)
		if code != 2 || !strings.Contains(errOut, "not enough memory") {
			t.Errorf("%s: exit %d, %q; want exit 2 and a memory refusal", c.name, code, errOut)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: %q does not say %q", c.name, strings.TrimSpace(errOut), w)
			}
		}
		if strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
			t.Errorf("%s: %s", c.name, errOut)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: the output was written", c.name)
			os.Remove(out)
		}
	}
	// With room for the cut-off's lists but not the grid's grids, auto
	// runs the cut-off and says so.
	code, _, errOut := runCmd(t, nil, "nerv", "--in", blobs, "--label", "label", "--memory-limit", "20MB", "--max-iter", "5", "--coarse-max-iter", "2", "--out", out)
	if code != 0 || !strings.Contains(errOut, "method=cutoff") || !strings.Contains(errOut, "method grid would need more than the memory the run may use (20.0 MB)") {
		t.Errorf("nerv auto under 20MB: exit %d, %q; want method cutoff and a warning", code, errOut)
	}
	os.Remove(out)
	// Under a limit they fit, the same stages run.
	for _, args := range [][]string{
		{"nerv", "--in", small, "--label", "label", "--method", "exact", "--memory-limit", "20MB"},
		{"tsne", "--in", small, "--perplexity", "5", "--method", "exact", "--memory-limit", "5MB"},
	} {
		if code, _, errOut := runCmd(t, nil, append(args, "--out", out, "--quiet")...); code != 0 {
			t.Errorf("%s: exit %d: %s", args[0], code, errOut)
		}
	}
	for _, bad := range []string{"8XB", "-1GB", "0"} {
		if code, _, errOut := runCmd(t, nil, "pca", "--in", small, "--memory-limit", bad, "--out", out); code != 2 || !strings.Contains(errOut, "--memory-limit") {
			t.Errorf("--memory-limit %s: exit %d, %q; want exit 2 naming the flag", bad, code, errOut)
		}
	}
}

// TestNervMethodAuto: nerv's default method is auto, the exact method up to
// AutoExactMax rows, grid above (cutoff in three dimensions), recorded as
// the figure "method" and logged as the plan; at 50,000 rows the default no
// longer plans the exact method's 80 GB.
func TestNervMethodAuto(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		n    int
		dims string
		want string
	}{{60, "2", "exact"}, {480, "2", "grid"}, {480, "3", "cutoff"}} {
		in := blobsCSV(t, dir, c.n, 3)
		out := filepath.Join(dir, fmt.Sprintf("nerv-%d-%s.parquet", c.n, c.dims))
		code, _, errOut := runCmd(t, nil, "nerv", "--in", in, "--label", "label", "--dims", c.dims, "--max-iter", "5", "--coarse-max-iter", "2", "--out", out)
		if code != 0 {
			t.Fatalf("N = %d: exit %d: %s", c.n, code, errOut)
		}
		if !strings.Contains(errOut, "nerv plan") || !strings.Contains(errOut, "method="+c.want) {
			t.Errorf("N = %d: the log does not give the plan with method %s:\n%s", c.n, c.want, errOut)
		}
		if neighbours := "neighbours=0 knn=\"\""; c.want != "exact" {
			if !strings.Contains(errOut, "knn=exact") || strings.Contains(errOut, neighbours) {
				t.Errorf("N = %d: the plan does not give the exact search of its neighbours:\n%s", c.n, errOut)
			}
		} else if !strings.Contains(errOut, neighbours) {
			t.Errorf("N = %d: the exact method's plan lists neighbours:\n%s", c.n, errOut)
		}
		r, err := arrowio.Open(context.Background(), out)
		if err != nil {
			t.Fatal(err)
		}
		prov := transforms.TableProvenance(r.Schema())
		r.Release()
		if prov == nil || prov.Figures["method"] != c.want || prov.Params["method"] != "auto" {
			t.Errorf("N = %d: provenance method %v (param %v), want %s (auto)", c.n, prov.Figures["method"], prov.Params["method"], c.want)
		}
		plan, _ := prov.Figures["plan"].(map[string]any)
		if bytes, _ := plan["memory_bytes"].(float64); plan["method"] != c.want || !(bytes > 0) {
			t.Errorf("N = %d: provenance plan %v, want method %s and its memory", c.n, prov.Figures["plan"], c.want)
		}
		if secs, _ := plan["seconds"].([]any); len(secs) != 2 || !strings.Contains(errOut, " time=") {
			t.Errorf("N = %d: provenance plan %v and the log line, want the expected time (seconds, low and high):\n%s", c.n, prov.Figures["plan"], errOut)
		} else if lo, _ := secs[0].(float64); secs[1].(float64) < lo {
			t.Errorf("N = %d: plan seconds %v, want low ≤ high", c.n, secs)
		}
	}
}

// tamperModel rewrites the model file at path as a hostile user would,
// with no pyarrow: it reads the table, lets header change the model header
// (its JSON) and body the record, and writes it back with arrowio, the
// provenance kept as it was.
func tamperModel(t *testing.T, path string, header func(h map[string]any), body func(rec arrow.RecordBatch) arrow.RecordBatch) {
	t.Helper()
	ctx := context.Background()
	r, err := arrowio.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	schema := r.Schema()
	var parts []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		parts = append(parts, rec)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	r.Release()
	if len(parts) != 1 {
		t.Fatalf("%s: %d batches, want one", path, len(parts))
	}
	rec := parts[0]
	defer rec.Release()
	md := schema.Metadata()
	keys, vals := md.Keys(), md.Values()
	i := md.FindKey(transforms.ModelMetadataKey)
	if i < 0 {
		t.Fatalf("%s: no model header", path)
	}
	var h map[string]any
	if err := json.Unmarshal([]byte(vals[i]), &h); err != nil {
		t.Fatal(err)
	}
	if header != nil {
		header(h)
	}
	js, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	vals = append([]string(nil), vals...)
	vals[i] = string(js)
	if body != nil {
		rec = body(rec)
		defer rec.Release()
	}
	meta := arrow.NewMetadata(keys, vals)
	out := array.NewRecordBatch(arrow.NewSchema(rec.Schema().Fields(), &meta), rec.Columns(), rec.NumRows())
	defer out.Release()
	w, err := arrowio.Create(ctx, path, out.Schema())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(out); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// replaceColumn returns rec with column name replaced by a.
func replaceColumn(rec arrow.RecordBatch, name string, a arrow.Array) arrow.RecordBatch {
	cols := append([]arrow.Array(nil), rec.Columns()...)
	cols[rec.Schema().FieldIndices(name)[0]] = a
	return array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
}

// TestTamperedModels fits a model of each kind, rewrites its header or
// body as the hostile battery did, and applies it: every one is refused
// with exit 2 and a message naming the fault, never a crash, an
// allocation the file does not justify, or a silently wrong placement.
// Before: dims 2·10⁸ and 10¹² and graph_degree 10⁹ ended in Go's fatal
// out-of-memory, dims −5 panicked, the rest ran and placed rows wrongly.
func TestTamperedModels(t *testing.T) {
	dir := t.TempDir()
	thyroid := "../../testdata/ordinal/newthyroid.csv"
	fit := func(name string, args ...string) string {
		m := filepath.Join(dir, name+".model.parquet")
		all := append(append([]string{}, args...), "--out", filepath.Join(dir, name+".parquet"), "--model-out", m, "--quiet")
		if code, _, errOut := runCmd(t, nil, all...); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		return m
	}
	params := func(h map[string]any) map[string]any { return h["params"].(map[string]any) }
	fisherOut := filepath.Join(dir, "fisher.parquet")
	if code, _, errOut := runCmd(t, nil, "fisher", "--similarity", "../../testdata/similarity/aural_sonar.parquet", "--id", "id", "--label", "label", "--out", fisherOut, "--quiet"); code != 0 {
		t.Fatalf("fisher: exit %d: %s", code, errOut)
	}
	swapFeatures := func(rec arrow.RecordBatch) arrow.RecordBatch {
		names := rec.Column(rec.Schema().FieldIndices("feature")[0]).(*array.String)
		b := array.NewStringBuilder(memory.DefaultAllocator)
		defer b.Release()
		for i := range names.Len() {
			j := i
			if i < 2 {
				j = 1 - i
			}
			b.Append(names.Value(j))
		}
		a := b.NewArray()
		defer a.Release()
		return replaceColumn(rec, "feature", a)
	}
	for _, c := range []struct {
		name   string
		fit    []string
		header func(h map[string]any)
		body   func(rec arrow.RecordBatch) arrow.RecordBatch
		apply  []string // instead of --in thyroid
		want   string
	}{
		{name: "bvp dims 2e8", fit: []string{"bvp", "--in", thyroid, "--label", "label"}, header: func(h map[string]any) { h["dims"] = 2e8 }, want: "dims 200000000"},
		{name: "bvp dims 1e12", fit: []string{"bvp", "--in", thyroid, "--label", "label"}, header: func(h map[string]any) { h["dims"] = 1e12 }, want: "dims 1000000000000"},
		{name: "bvp dims -5", fit: []string{"bvp", "--in", thyroid, "--label", "label"}, header: func(h map[string]any) { h["dims"] = -5 }, want: "-5 dims"},
		{name: "bvp dims 1, two axes", fit: []string{"bvp", "--in", thyroid, "--label", "label"}, header: func(h map[string]any) { h["dims"] = 1 }, want: `column "axis_1"`},
		{name: "bvp swapped features", fit: []string{"bvp", "--in", thyroid, "--label", "label"}, body: swapFeatures, want: "changed after it was written"},
		{name: "ckpca dims 1e12", fit: []string{"ckpca", "--in", thyroid, "--kernel", "rbf"}, header: func(h map[string]any) { h["dims"] = 1e12 }, want: "dims 1000000000000"},
		{name: "ckpca dims 2e8", fit: []string{"ckpca", "--in", thyroid, "--kernel", "rbf"}, header: func(h map[string]any) { h["dims"] = 2e8 }, want: "dims 200000000"},
		{name: "ckpca dims -5", fit: []string{"ckpca", "--in", thyroid, "--kernel", "rbf"}, header: func(h map[string]any) { h["dims"] = -5 }, want: "-5 dims"},
		{name: "ckpca poly degree -3", fit: []string{"ckpca", "--in", thyroid, "--kernel", "poly"},
			header: func(h map[string]any) { params(h)["kernel_spec"].(map[string]any)["Degree"] = -3 }, want: "degree -3"},
		{name: "ckpca swapped features", fit: []string{"ckpca", "--in", thyroid, "--kernel", "rbf"},
			header: func(h map[string]any) {
				n := params(h)["feature_names"].([]any)
				n[0], n[1] = n[1], n[0]
			}, want: "changed after it was written"},
		{name: "tsne graph_degree 1e9", fit: []string{"tsne", "--in", thyroid}, header: func(h map[string]any) { params(h)["graph_degree"] = 1e9 }, want: "graph_degree 1000000000"},
		{name: "tsne dims 1e12", fit: []string{"tsne", "--in", thyroid}, header: func(h map[string]any) { h["dims"] = 1e12 }, want: "dims 1000000000000"},
		{name: "tsne field 240 GB", fit: []string{"tsne", "--in", thyroid},
			header: func(h map[string]any) {
				params(h)["tsne"].(map[string]any)["field"] = map[string]any{"spacing": 1e-9, "max_nodes": 100000}
			}, want: "MaxNodes = 100000"},
		{name: "nerv swapped features", fit: []string{"nerv", "--in", thyroid, "--label", "label"},
			header: func(h map[string]any) {
				n := params(h)["feature_names"].([]any)
				n[0], n[1] = n[1], n[0]
			}, want: "changed after it was written"},
		{name: "tsne distances, duplicated reference id", fit: []string{"tsne", "--distances", fisherOut, "--perplexity", "10"},
			body: func(rec arrow.RecordBatch) arrow.RecordBatch {
				ids := rec.Column(rec.Schema().FieldIndices("id")[0])
				b := array.NewBuilder(memory.DefaultAllocator, ids.DataType())
				defer b.Release()
				for i := range ids.Len() {
					j := i
					if i == 1 {
						j = 0 // row 1 gets row 0's id
					}
					if err := b.AppendValueFromString(ids.ValueStr(j)); err != nil {
						t.Fatal(err)
					}
				}
				a := b.NewArray()
				defer a.Release()
				return replaceColumn(rec, "id", a)
			},
			apply: []string{"--distances", fisherOut}, want: "is in rows 0 and 1"},
	} {
		m := fit(strings.ReplaceAll(c.name, " ", "-"), c.fit...)
		tamperModel(t, m, c.header, c.body)
		out := filepath.Join(dir, "applied.parquet")
		args := []string{"apply", "--model", m, "--out", out, "--quiet"}
		if c.apply != nil {
			args = append(args, c.apply...)
		} else {
			args = append(args, "--in", thyroid)
		}
		code, _, errOut := runCmd(t, nil, args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, %q; want exit 2 saying %q", c.name, code, strings.TrimSpace(errOut), c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: the output was written", c.name)
			os.Remove(out)
		}
	}
}

// bigParquet writes rows seeded rows of d features and a label of four
// classes as Parquet in row groups of 65,536 rows, a batch at a time.
func bigParquet(t *testing.T, path string, rows, d int) {
	t.Helper()
	fields := make([]arrow.Field, 0, d+1)
	for j := range d {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("x%d", j), Type: arrow.PrimitiveTypes.Float64})
	}
	schema := arrow.NewSchema(append(fields, arrow.Field{Name: "label", Type: arrow.PrimitiveTypes.Int64}), nil)
	w, err := arrowio.Create(context.Background(), path, schema, arrowio.WithRowGroupRows(65536))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	rng := rand.New(rand.NewPCG(38, uint64(rows)))
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for lo := 0; lo < rows; lo += 65536 {
		for i := lo; i < min(lo+65536, rows); i++ {
			c := rng.IntN(4)
			for j := range d {
				b.Field(j).(*array.Float64Builder).Append(rng.NormFloat64() + float64(c*(j%3)))
			}
			b.Field(d).(*array.Int64Builder).Append(int64(c))
		}
		rec := b.NewRecordBatch()
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestStreamedFitUnderMemoryLimit: bvp fits a Parquet table of 1,000,000
// rows × 16 features (136 MB of values) with --memory-limit 100MB, below
// the table's size: the default --stream auto sees from the footer that
// the rows would not fit (3 copies, 384 MB) and fits from streamed
// statistics; the process's peak resident memory stays under the 384 MB
// that the fit in memory plans for its three copies of the rows (it peaks
// near 880 MB; the streamed fit near 140 MB, measured by peakRSS's
// launcher so that this process's own peak is not charged to it), and
// every row is placed. With --stream off the same run is refused before
// it reads a row.
func TestStreamedFitUnderMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the ordinate binary and writes a 130 MB Parquet table to measure a process's peak memory; go test without -short (as CI does) runs it")
	}
	bin, _ := binaryAndModel(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "big.parquet")
	const rows = 1_000_000
	bigParquet(t, in, rows, 16)
	out := filepath.Join(dir, "e.parquet")
	peak, msg, err := peakRSS(t, bin, "bvp", "--in", in, "--label", "label", "--out", out, "--memory-limit", "100MB", "--quiet")
	if err != nil {
		t.Fatalf("bvp under 100MB: %v\n%s", err, msg)
	}
	t.Logf("peak resident memory %d MB for %d rows", peak>>20, rows)
	if peak > 384<<20 {
		t.Errorf("peak resident memory %d MB, want under 384 MB", peak>>20)
	}
	f := readEmbedding(t, out, "row")
	if f.N != rows {
		t.Errorf("%d rows placed, want %d", f.N, rows)
	}
	f.Release()
	prov := demoProvenance(t, out)
	if prov.Params["stream"] != "auto" {
		t.Errorf("provenance records stream %v, want auto", prov.Params["stream"])
	}
	code, _, errOut := runCmd(t, nil, "bvp", "--in", in, "--label", "label", "--out", out, "--memory-limit", "100MB", "--stream", "off", "--quiet")
	if code != 2 || !strings.Contains(errOut, "not enough memory") {
		t.Errorf("--stream off under 100MB: exit %d, %q; want a memory refusal", code, errOut)
	}
}

// TestRuntimeLimit: the Go runtime's soft limit is --memory-limit's bytes,
// the system's figure for auto, and left alone for none.
func TestRuntimeLimit(t *testing.T) {
	sys, _ := transforms.SystemMemory()
	for _, tc := range []struct {
		name string
		v    int64
		want int64
	}{
		{"8GB", 8e9, 8e9}, {"none", -1, 0}, {"auto", 0, sys},
	} {
		if got := runtimeLimit(tc.v); got != tc.want {
			t.Errorf("%s: runtimeLimit(%d) = %d, want %d", tc.name, tc.v, got, tc.want)
		}
	}
}
