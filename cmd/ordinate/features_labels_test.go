package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// Tests of issue 35's feature selection and labels, end to end: labels
// compared exactly in their own type, ordered dictionaries as class
// orders, duplicate column names, --exclude and pca --order.

// labelTable writes a table of 36 rows: features x1, x2, x3 (three
// separated groups) and the label column lab holding labels[row%3].
func labelTable(t *testing.T, path string, lab arrow.Array) {
	t.Helper()
	mem := memory.DefaultAllocator
	rng := rand.New(rand.NewPCG(35, 5))
	n := lab.Len()
	fields := []arrow.Field{{Name: "lab", Type: lab.DataType()}}
	cols := []arrow.Array{lab}
	for j := range 3 {
		b := array.NewFloat64Builder(mem)
		for i := range n {
			b.Append(float64(i%3)*(1+float64(j)) + 0.3*rng.NormFloat64())
		}
		cols = append(cols, b.NewArray())
		b.Release()
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("x%d", j+1), Type: arrow.PrimitiveTypes.Float64})
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	defer rec.Release()
	for _, c := range cols[1:] {
		c.Release()
	}
	if err := arrowio.WriteRecord(context.Background(), path, rec); err != nil {
		t.Fatal(err)
	}
}

func TestLabelsBeyondFloat64(t *testing.T) {
	dir := t.TempDir()
	const rows = 36
	const p53 = int64(1) << 53
	i64 := func() arrow.Array {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		defer b.Release()
		for i := range rows {
			b.Append(p53 + int64(i%3))
		}
		return b.NewArray()
	}
	u64 := func() arrow.Array {
		b := array.NewUint64Builder(memory.DefaultAllocator)
		defer b.Release()
		for i := range rows {
			b.Append(math.MaxUint64 - uint64(i%3))
		}
		return b.NewArray()
	}
	inputs := []struct {
		name, file string
		col        func() arrow.Array
		classes    []string
	}{
		{"int64 from Parquet", "i64.parquet", i64, []string{"9007199254740992", "9007199254740993", "9007199254740994"}},
		{"int64 from CSV", "i64.csv", i64, []string{"9007199254740992", "9007199254740993", "9007199254740994"}},
		{"uint64 from Parquet", "u64.parquet", u64, []string{"18446744073709551613", "18446744073709551614", "18446744073709551615"}},
		{"uint64 from CSV", "u64.csv", u64, []string{"18446744073709551613", "18446744073709551614", "18446744073709551615"}},
	}
	for _, in := range inputs {
		path := filepath.Join(dir, in.file)
		col := in.col()
		labelTable(t, path, col)
		col.Release()
		lda := filepath.Join(dir, "lda-"+in.file+".parquet")
		stages := []struct {
			stage  string
			args   []string
			out    string
			figure string
		}{
			{"lda", []string{"lda", "--in", path, "--label", "lab", "--out", lda}, lda, "classes"},
			{"bvp", []string{"bvp", "--in", path, "--label", "lab", "--out", filepath.Join(dir, "bvp.parquet")}, filepath.Join(dir, "bvp.parquet"), "classes"},
			{"nerv", []string{"nerv", "--in", path, "--label", "lab", "--max-iter", "20", "--out", filepath.Join(dir, "nerv.parquet")}, filepath.Join(dir, "nerv.parquet"), "classes"},
			{"evaluate", []string{"evaluate", "--embedding", lda, "--in", path, "--label", "lab", "--ordinal", "--k", "5", "--out", filepath.Join(dir, "m.parquet")}, filepath.Join(dir, "m.parquet"), "center_order"},
		}
		for _, s := range stages {
			code, _, stderr := runCmd(t, nil, s.args...)
			if code != 0 {
				t.Errorf("%s, %s: exit %d: %s", in.name, s.stage, code, stderr)
				continue
			}
			got := provenanceOf(t, s.out).Figures[s.figure]
			var names []string
			if l, ok := got.([]any); ok {
				for _, v := range l {
					names = append(names, fmt.Sprint(v))
				}
			}
			if s.figure == "center_order" { // centres in their order along the axis
				slices.Sort(names)
			}
			if !slices.Equal(names, in.classes) {
				t.Errorf("%s, %s: %s %v, want %v", in.name, s.stage, s.figure, got, in.classes)
			}
		}
	}
}

// writeTable writes columns (name, array) as one record batch to path and
// releases the arrays; names may repeat.
func writeTable(t *testing.T, path string, names []string, cols []arrow.Array) {
	t.Helper()
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: names[i], Type: c.DataType()}
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(cols[0].Len()))
	defer rec.Release()
	for _, c := range cols {
		c.Release()
	}
	if err := arrowio.WriteRecord(context.Background(), path, rec); err != nil {
		t.Fatal(err)
	}
}

// gaussCols gives d float64 columns of n rows, shifted by each row's group.
func gaussCols(n, d int, group func(i int) int, seed uint64) []arrow.Array {
	rng := rand.New(rand.NewPCG(seed, 35))
	cols := make([]arrow.Array, d)
	for j := range cols {
		b := array.NewFloat64Builder(memory.DefaultAllocator)
		for i := range n {
			b.Append(float64(group(i))*float64(1+j) + 0.4*rng.NormFloat64())
		}
		cols[j] = b.NewArray()
		b.Release()
	}
	return cols
}

// legendOf lists the names among levels in an SVG's text, in order.
func legendOf(t *testing.T, path string, levels []string) (legend []string, ordinal bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`>([A-Za-z_ ]+)<`).FindAllStringSubmatch(string(b), -1) {
		if slices.Contains(levels, m[1]) {
			legend = append(legend, m[1])
		}
	}
	return legend, strings.Contains(strings.ToLower(string(b)), "#440154") // viridis' dark end
}

// TestOrderedDictionaryLabels: an ordered dictionary (a pandas ordered
// Categorical, as diamonds' cut) is the class order of the ordinal stages
// and of plot's ordinal palette, without --order.
func TestOrderedDictionaryLabels(t *testing.T) {
	dir := t.TempDir()
	cuts := []string{"Fair", "Good", "Very Good", "Premium", "Ideal"}
	const n = 60
	// Rows appear as Ideal, Premium, Good, Very Good, Fair: neither the
	// dictionary order nor byte order.
	appear := []int{4, 3, 1, 2, 0}
	group := func(i int) int { return appear[i%5] }
	cut := func(ordered bool) arrow.Array {
		dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String, Ordered: ordered}
		b := array.NewDictionaryBuilder(memory.DefaultAllocator, dt).(*array.BinaryDictionaryBuilder)
		defer b.Release()
		if err := b.InsertStringDictValues(array.NewStringBuilder(memory.DefaultAllocator).NewStringArray()); err != nil {
			t.Fatal(err)
		}
		for _, c := range cuts { // the dictionary in category order
			if err := b.AppendString(c); err != nil {
				t.Fatal(err)
			}
		}
		a := b.NewDictionaryArray()
		defer a.Release()
		idx := array.NewInt32Builder(memory.DefaultAllocator)
		defer idx.Release()
		for i := range n {
			idx.Append(int32(group(i)))
		}
		ind := idx.NewArray()
		defer ind.Release()
		return array.NewDictionaryArray(dt, ind, a.Dictionary())
	}
	ordered := filepath.Join(dir, "diamonds.parquet")
	writeTable(t, ordered, []string{"cut", "x1", "x2", "x3"}, append([]arrow.Array{cut(true)}, gaussCols(n, 3, group, 1)...))
	plain := filepath.Join(dir, "plain.parquet")
	writeTable(t, plain, []string{"cut", "x1", "x2", "x3"}, append([]arrow.Array{cut(false)}, gaussCols(n, 3, group, 1)...))

	bvp := filepath.Join(dir, "bvp.parquet")
	if code, _, e := runCmd(t, nil, "bvp", "--in", ordered, "--label", "cut", "--out", bvp, "--quiet"); code != 0 {
		t.Fatalf("bvp of an ordered dictionary: exit %d: %s", code, e)
	}
	if got := anyList(provenanceOf(t, bvp).Figures["classes"]); !slices.Equal(got, cuts) {
		t.Errorf("bvp classes %v, want %v", got, cuts)
	}
	m := filepath.Join(dir, "m.parquet")
	if code, _, e := runCmd(t, nil, "evaluate", "--embedding", bvp, "--in", ordered, "--label", "cut", "--ordinal", "--k", "5", "--out", m, "--quiet"); code != 0 {
		t.Errorf("evaluate --ordinal of an ordered dictionary: exit %d: %s", code, e)
	}
	// Without the order: the hint lists every class.
	code, _, e := runCmd(t, nil, "bvp", "--in", plain, "--label", "cut", "--out", filepath.Join(dir, "no.parquet"), "--quiet")
	if code != exitInput || !strings.Contains(e, "--order Ideal,Premium,Good,Very Good,Fair ") {
		t.Errorf("bvp of an unordered dictionary: exit %d: %s", code, e)
	}
	// pca passes the column through; plot reads its order.
	pca := filepath.Join(dir, "pca.parquet")
	if code, _, e := runCmd(t, nil, "pca", "--in", ordered, "--label", "cut", "--out", pca, "--quiet"); code != 0 {
		t.Fatalf("pca: exit %d: %s", code, e)
	}
	svg := filepath.Join(dir, "pca.svg")
	if code, _, e := runCmd(t, nil, "plot", "--in", pca, "--color", "cut", "--out", svg, "--quiet"); code != 0 {
		t.Fatalf("plot: exit %d: %s", code, e)
	}
	if legend, ordinal := legendOf(t, svg, cuts); !slices.Equal(legend, cuts) || !ordinal {
		t.Errorf("plot of an ordered dictionary: legend %v (ordinal palette %v), want %v, ordinal", legend, ordinal, cuts)
	}
}

// anyList reads a JSON list as strings.
func anyList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		out = append(out, fmt.Sprint(e))
	}
	return out
}

// TestPCAOrder: pca --order records the order of the label's classes, so
// that plot draws them in it, with the ordinal palette.
func TestPCAOrder(t *testing.T) {
	dir := t.TempDir()
	grades := []string{"low", "mid", "high"}
	const n = 45
	group := func(i int) int { return []int{1, 2, 0}[i%3] } // mid, high, low
	b := array.NewStringBuilder(memory.DefaultAllocator)
	for i := range n {
		b.Append(grades[group(i)])
	}
	lab := b.NewArray()
	b.Release()
	in := filepath.Join(dir, "grades.parquet")
	writeTable(t, in, []string{"grade", "x1", "x2", "x3"}, append([]arrow.Array{lab}, gaussCols(n, 3, group, 2)...))
	pca := filepath.Join(dir, "pca.parquet")
	if code, _, e := runCmd(t, nil, "pca", "--in", in, "--label", "grade", "--order", "low,mid,high", "--out", pca, "--quiet"); code != 0 {
		t.Fatalf("pca --order: exit %d: %s", code, e)
	}
	if got := anyList(provenanceOf(t, pca).Figures["classes"]); !slices.Equal(got, grades) {
		t.Errorf("recorded classes %v, want %v", got, grades)
	}
	svg := filepath.Join(dir, "pca.svg")
	if code, _, e := runCmd(t, nil, "plot", "--in", pca, "--color", "grade", "--out", svg, "--quiet"); code != 0 {
		t.Fatalf("plot: exit %d: %s", code, e)
	}
	if legend, ordinal := legendOf(t, svg, grades); !slices.Equal(legend, grades) || !ordinal {
		t.Errorf("legend %v (ordinal %v), want %v, ordinal", legend, ordinal, grades)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"order without label", []string{"--order", "low,mid,high"}, "--order"},
		{"order lacking a class", []string{"--label", "grade", "--order", "low,high"}, `label "mid" is not in the class order`},
	} {
		code, _, e := runCmd(t, nil, append([]string{"pca", "--in", in, "--out", filepath.Join(dir, "bad.parquet"), "--quiet"}, tc.args...)...)
		if code != exitInput || !strings.Contains(e, tc.want) {
			t.Errorf("%s: exit %d: %s, want exit 2 naming %s", tc.name, code, e, tc.want)
		}
	}
}

// TestDuplicateColumnsFitApply: a schema that holds a name twice must not
// give a model with two features of one name (which apply cannot read
// back); a glob that reaches a column twice takes it once, and the fitted
// model applies to its own input.
func TestDuplicateColumnsFitApply(t *testing.T) {
	dir := t.TempDir()
	const n = 40
	group := func(i int) int { return i % 2 }
	dup := filepath.Join(dir, "dup.parquet")
	writeTable(t, dup, []string{"x1", "x1", "x2", "x3"}, gaussCols(n, 4, group, 3))
	uniq := filepath.Join(dir, "uniq.parquet")
	writeTable(t, uniq, []string{"x1", "x2", "x3"}, gaussCols(n, 3, group, 4))
	for _, tc := range []struct {
		name     string
		in       string
		args     []string
		features []string // nil: refused, naming x1
	}{
		{"glob reaching a name twice", dup, []string{"--features", "x*"}, nil},
		{"default set with a name twice", dup, nil, nil},
		{"the name excluded", dup, []string{"--features", "x*", "--exclude", "x1"}, []string{"x2", "x3"}},
		{"glob then the name", uniq, []string{"--features", "x*,x1"}, []string{"x1", "x2", "x3"}},
	} {
		emb := filepath.Join(dir, "pca.parquet")
		model := filepath.Join(dir, "pca.model.parquet")
		code, _, e := runCmd(t, nil, append([]string{"pca", "--in", tc.in, "--out", emb, "--model-out", model, "--quiet"}, tc.args...)...)
		if tc.features == nil {
			if code != exitInput || !strings.Contains(e, `"x1"`) || !strings.Contains(e, "2 columns are named") {
				t.Errorf("%s: exit %d: %s, want exit 2 naming x1", tc.name, code, e)
			}
			continue
		}
		if code != 0 {
			t.Errorf("%s: fit: exit %d: %s", tc.name, code, e)
			continue
		}
		if got := anyList(provenanceOf(t, emb).Figures["features"]); !slices.Equal(got, tc.features) {
			t.Errorf("%s: features %v, want %v", tc.name, got, tc.features)
		}
		applied := filepath.Join(dir, "applied.parquet")
		if code, _, e := runCmd(t, nil, "apply", "--model", model, "--in", tc.in, "--out", applied, "--quiet"); code != 0 {
			t.Errorf("%s: apply to its own input: exit %d: %s", tc.name, code, e)
			continue
		}
		fit, got := readEmbedding(t, emb, "row"), readEmbedding(t, applied, "row")
		for i := range fit.X {
			if math.Abs(fit.X[i]-got.X[i]) > 1e-9 {
				t.Errorf("%s: applied coordinate %d is %g, the fit's %g", tc.name, i, got.X[i], fit.X[i])
				break
			}
		}
	}
}

// TestExcludeAndFeatureReport: --exclude on a feature-reading stage, and
// the first line of the output naming every column left out and why, and
// the features used; diamonds' y (a length) is a feature.
func TestExcludeAndFeatureReport(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "d.csv")
	rng := rand.New(rand.NewPCG(35, 7))
	var sb strings.Builder
	sb.WriteString("row_id,carat,depth,x,y,year,target,cut\n")
	for i := range 30 {
		fmt.Fprintf(&sb, "%d,%.2f,%.1f,%.2f,%.2f,%d,%d,c%d\n", i, 0.2+rng.Float64(), 60+4*rng.Float64(), 4+2*rng.Float64(), 4+2*rng.Float64(), 2007+i%3, i%2, i%4)
	}
	write(t, in, sb.String())
	for _, tc := range []struct {
		name     string
		args     []string
		features []string
		first    string // the first line of stderr contains
	}{
		{"default", nil, []string{"carat", "depth", "x", "y", "year"},
			`default features (5): carat, depth, x, y, year; left out: "row_id" looks like an identifier, "target" looks like a target, "cut" is not numeric (utf8)`},
		{"exclude", []string{"--exclude", "year,dep*"}, []string{"carat", "x", "y"},
			`default features (3): carat, x, y; left out: "row_id" looks like an identifier, "target" looks like a target, "depth" is excluded, "year" is excluded, "cut" is not numeric (utf8)`},
	} {
		out := filepath.Join(dir, "tsne.parquet")
		code, _, e := runCmd(t, nil, append([]string{"tsne", "--in", in, "--perplexity", "5", "--out", out}, tc.args...)...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", tc.name, code, e)
			continue
		}
		if got := anyList(provenanceOf(t, out).Figures["features"]); !slices.Equal(got, tc.features) {
			t.Errorf("%s: features %v, want %v", tc.name, got, tc.features)
		}
		first, _, _ := strings.Cut(e, "\n")
		if first = strings.ReplaceAll(first, `\"`, `"`); !strings.Contains(first, tc.first) || !strings.Contains(first, "WARN") {
			t.Errorf("%s: first line %q, want a warning containing %q", tc.name, first, tc.first)
		}
	}
	// Every feature-reading stage has --exclude.
	for _, s := range []string{"bvp", "pca", "lda", "fisher", "tsne", "nerv", "ckpca", "lsp", "evaluate"} {
		code, out, _ := runCmd(t, nil, s, "--help")
		if code != 0 || !strings.Contains(out, "--exclude value") {
			t.Errorf("%s --help: exit %d, no --exclude", s, code)
		}
	}
}
