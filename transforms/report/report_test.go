package report

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/apply"
	"github.com/ordinate/ordinate/transforms/figure"
	"github.com/ordinate/ordinate/transforms/table"
	"github.com/ordinate/ordinate/transforms/tsne"
)

// rec builds a record of float64 columns (string columns for "class" and
// "id") with n rows, carrying provenance p (nil: none).
func rec(t *testing.T, fields []string, n int, p *arrowio.Provenance) arrow.RecordBatch {
	t.Helper()
	var fs []arrow.Field
	var cols []arrow.Array
	for _, f := range fields {
		if f == "class" || f == "id" {
			b := array.NewStringBuilder(memory.DefaultAllocator)
			for i := range n {
				b.Append([]string{"a", "b"}[i%2])
			}
			fs = append(fs, arrow.Field{Name: f, Type: arrow.BinaryTypes.String})
			cols = append(cols, b.NewArray())
			b.Release()
			continue
		}
		b := array.NewFloat64Builder(memory.DefaultAllocator)
		for i := range n {
			b.Append(float64(i*i%7) + 0.5*float64(len(f)))
		}
		fs = append(fs, arrow.Field{Name: f, Type: arrow.PrimitiveTypes.Float64})
		cols = append(cols, b.NewArray())
		b.Release()
	}
	var md *arrow.Metadata
	if p != nil {
		m, err := p.Metadata()
		if err != nil {
			t.Fatal(err)
		}
		md = &m
	}
	r := array.NewRecordBatch(arrow.NewSchema(fs, md), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return r
}

func schemaOf(fields []string) *arrow.Schema {
	var fs []arrow.Field
	for _, f := range fields {
		t := arrow.DataType(arrow.PrimitiveTypes.Float64)
		if f == "class" || f == "id" {
			t = arrow.BinaryTypes.String
		}
		fs = append(fs, arrow.Field{Name: f, Type: t})
	}
	return arrow.NewSchema(fs, nil)
}

// TestColourSpec checks the preference order: the stage's soft labels, its
// label column, any p_* columns, the first text column.
func TestColourSpec(t *testing.T) {
	emb := []string{"id", "class", "p_a", "p_b", "emb_0", "emb_1"}
	for _, tc := range []struct {
		name   string
		fields []string
		params map[string]any
		color  string
		soft   bool
	}{
		{"stage soft labels", emb, map[string]any{"soft_labels": []any{"p_*"}, "label": "", "id": "id"}, "", true},
		{"stage label", emb, map[string]any{"label": "class", "id": "id"}, "class", false},
		{"p_ columns, no supervision", emb, map[string]any{"id": "id"}, "", true},
		{"first text column", []string{"id", "class", "emb_0", "emb_1"}, map[string]any{"id": "id"}, "class", false},
		{"nothing", []string{"emb_0", "emb_1"}, nil, "", false},
	} {
		var p *arrowio.Provenance
		if tc.params != nil {
			p = &arrowio.Provenance{Params: tc.params}
		}
		s := colourSpec(schemaOf(tc.fields), p)
		if s.Color != tc.color || (s.SoftLabels != nil) != tc.soft {
			t.Errorf("%s: colour %q, soft %v; want %q, %v", tc.name, s.Color, s.SoftLabels, tc.color, tc.soft)
		}
		if tc.soft && !slices.Equal(s.SoftLabels, []string{"p_a", "p_b"}) {
			t.Errorf("%s: soft labels %v", tc.name, s.SoftLabels)
		}
	}
}

// TestStageKinds runs the stage on tables in memory: an embedding with its
// metrics attached (by the metrics' embedding input), a table without a
// kind (schema only, with a note), a table whose columns look like an
// embedding but whose kind says triplets (not drawn: no sniffing), and text
// from the provenance that must come out escaped.
func TestStageKinds(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	emb := rec(t, []string{"id", "class", "emb_0", "emb_1"}, 20, &arrowio.Provenance{Stage: "pca", Kind: table.Embedding,
		Params: map[string]any{"label": "class", "id": "id", "note": "<script>alert(1)</script>"}})
	defer emb.Release()
	metrics := rec(t, []string{"metric", "k", "value"}, 3, &arrowio.Provenance{Stage: "evaluate", Kind: table.Metrics,
		Params: map[string]any{}, Inputs: []arrowio.InputInfo{{Role: "embedding", Path: "memory:in#0"}}})
	defer metrics.Release()
	plain := rec(t, []string{"x", "emb_0", "emb_1"}, 5, nil)
	defer plain.Release()
	trip := rec(t, []string{"emb_0", "emb_1"}, 5, &arrowio.Provenance{Stage: "triplets", Kind: table.Triplets, Params: map[string]any{}})
	defer trip.Release()
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in#0": emb, "in#1": metrics, "in#2": plain, "in#3": trip}, "out")
	opts := Stage{}.NewOptions().(*Options)
	opts.Title = "a <b>title</b>"
	if err := transforms.Run(context.Background(), Stage{}, opts, &transforms.Env{Tables: tables, Mem: mem}); err != nil {
		t.Fatal(err)
	}
	page := string(tables.File("out"))
	for _, want := range []string{
		`content="1"`, "Quality (memory:in#1)", "a &lt;b&gt;title&lt;/b&gt;", "&lt;script&gt;alert(1)&lt;/script&gt;",
		"records no kind", "<th>column</th>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>") || strings.Contains(page, "<b>title") {
		t.Error("text from the tables is not escaped")
	}
	if got := strings.Count(page, `<section class="table"`); got != 3 {
		t.Errorf("%d sections, want 3 (embedding with metrics, plain table, triplets)", got)
	}
	if got := strings.Count(page, "<svg"); got != 1 {
		t.Errorf("%d figures, want 1", got)
	}
}

func TestNoTables(t *testing.T) {
	err := transforms.Run(context.Background(), Stage{}, Stage{}.NewOptions(), &transforms.Env{Tables: transforms.NewMemTables(nil, "out")})
	if !errors.Is(err, ErrNoFiles) || !errors.Is(err, transforms.ErrInvalidOption) {
		t.Errorf("no tables: %v", err)
	}
}

func TestShort(t *testing.T) {
	long := make([]byte, 400)
	for i := range long {
		long[i] = 'x'
	}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{"a", "a"}, {0.1234567891, "0.123457"}, {[]any{1.0, "b"}, `[1,"b"]`}, {string(long), string(long[:300]) + "…"},
	} {
		if got := short(tc.v); got != tc.want {
			t.Errorf("short(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestThin(t *testing.T) {
	n := 2*maxPoints + 5
	p := &figure.Points{X: make([]float64, n), Y: make([]float64, n), Category: make([]string, n), Soft: make([]float64, 2*n), Classes: []string{"a", "b"}}
	for i := range n {
		p.X[i] = float64(i)
		p.Soft[2*i] = float64(i)
	}
	var o figure.Style
	thin(p, &o)
	if len(p.X) > maxPoints || len(p.Y) != len(p.X) || len(p.Category) != len(p.X) || len(p.Soft) != 2*len(p.X) {
		t.Fatalf("thinned to %d x, %d y, %d categories, %d soft values", len(p.X), len(p.Y), len(p.Category), len(p.Soft))
	}
	for k := range p.X {
		if p.Soft[2*k] != p.X[k] {
			t.Fatalf("point %d: soft row %v does not follow x %v", k, p.Soft[2*k], p.X[k])
		}
	}
	if o.Subtitle == "" {
		t.Error("no note of the thinning")
	}
}

// fitProv is a fitted embedding's provenance (run id run), applyProv that
// of rows placed with the model of run id model.
func fitProv(run string) *arrowio.Provenance {
	return &arrowio.Provenance{Stage: "tsne", Kind: table.Embedding, RunID: run, Params: map[string]any{"label": "class", "id": "id"}}
}

func applyProv(model string) *arrowio.Provenance {
	return &arrowio.Provenance{Stage: "apply", Kind: table.Embedding, RunID: "apply-" + model, Params: map[string]any{"iterations": 0.0},
		Inputs: []arrowio.InputInfo{{Role: "model", Path: "m.parquet", Kind: table.Model, Stage: "tsne", RunID: model}, {Role: "in", Path: "new.csv"}}}
}

// runReport runs the report stage on the records in order (roles in#0,
// in#1, …) and returns the page.
func runReport(t *testing.T, mem memory.Allocator, recs ...arrow.RecordBatch) string {
	t.Helper()
	in := map[string]arrow.RecordBatch{}
	for k, r := range recs {
		in[fmt.Sprintf("in#%d", k)] = r
	}
	tables := transforms.NewMemTables(in, "out")
	if err := transforms.Run(context.Background(), Stage{}, Stage{}.NewOptions(), &transforms.Env{Tables: tables, Mem: mem}); err != nil {
		t.Fatal(err)
	}
	return string(tables.File("out"))
}

// rings counts the placed rows' rings in a page (their dark edges: one per
// placed row drawn, and the legend's).
func rings(page string) int { return strings.Count(page, "stroke:#222222;") }

// TestPlacedOnMap: apply outputs whose model the run of an embedding in the
// report made are drawn on that embedding's figure, listed under it with
// their parameters and metrics, and get no section of their own; one whose
// map is not in the report, or whose columns differ from the first placed
// table's, keeps its own.
func TestPlacedOnMap(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	emb := []string{"id", "class", "emb_0", "emb_1"}
	fit := rec(t, emb, 40, fitProv("r1"))
	defer fit.Release()
	placed := rec(t, emb, 9, applyProv("r1"))
	defer placed.Release()
	more := rec(t, emb, 4, applyProv("r1"))
	defer more.Release()
	bare := rec(t, []string{"id", "emb_0", "emb_1"}, 5, applyProv("r1")) // other columns than placed's
	defer bare.Release()
	stray := rec(t, emb, 6, applyProv("r9")) // its map is not in the report
	defer stray.Release()
	metrics := rec(t, []string{"metric", "k", "value"}, 3, &arrowio.Provenance{Stage: "evaluate", Kind: table.Metrics,
		Params: map[string]any{}, Inputs: []arrowio.InputInfo{{Role: "embedding", Path: "memory:in#1"}}})
	defer metrics.Release()

	for _, tc := range []struct {
		name     string
		recs     []arrow.RecordBatch
		sections int
		figures  int
		rings    int
		want     []string
	}{
		{"map and placed rows", []arrow.RecordBatch{fit, placed, metrics}, 1, 1, 9 + 1, []string{
			"placed: memory:in#1, 9 rows", ">placed (9 rows)<", "Quality of the placed rows memory:in#1 (memory:in#2)",
			"Parameters of apply for the placed rows memory:in#1, 9 rows",
		}},
		{"placed rows first", []arrow.RecordBatch{placed, fit}, 1, 1, 9 + 1, []string{"placed: memory:in#0, 9 rows"}},
		{"two placed tables", []arrow.RecordBatch{fit, placed, more}, 1, 1, 13 + 1, []string{
			"placed: memory:in#1, 9 rows", "placed: memory:in#2, 4 rows", ">placed (13 rows)<",
		}},
		{"placed tables with other columns", []arrow.RecordBatch{fit, placed, bare}, 2, 2, 9 + 1, []string{"placed: memory:in#1, 9 rows"}},
		{"map not in the report", []arrow.RecordBatch{fit, stray}, 2, 2, 0, nil},
		{"placed rows alone", []arrow.RecordBatch{placed}, 1, 1, 0, nil},
	} {
		page := runReport(t, mem, tc.recs...)
		if got := strings.Count(page, `<section class="table"`); got != tc.sections {
			t.Errorf("%s: %d sections, want %d", tc.name, got, tc.sections)
		}
		if got := strings.Count(page, "<svg"); got != tc.figures || !strings.Contains(page, fmt.Sprintf(`content="%d"`, tc.figures)) {
			t.Errorf("%s: %d figures, want %d (and as many in the page's meta tag)", tc.name, got, tc.figures)
		}
		if got := rings(page); got != tc.rings {
			t.Errorf("%s: %d ring edges, want %d", tc.name, got, tc.rings)
		}
		for _, w := range tc.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the page lacks %q", tc.name, w)
			}
		}
	}
}

// TestReportHeldOut is the demo's use, with the stages themselves: t-SNE
// fitted on 80 % of four clusters with a model, the model applied to the
// other 20 % keeping the class, and both tables in one report: one section,
// one figure, the 20 % drawn as rings in it.
func TestReportHeldOut(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(13, 13))
	const n, held = 100, 20
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "x1", Type: arrow.PrimitiveTypes.Float64}, {Name: "x2", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x3", Type: arrow.PrimitiveTypes.Float64}, {Name: "class", Type: arrow.BinaryTypes.String},
	}, nil)
	fitB, newB := array.NewRecordBuilder(memory.DefaultAllocator, schema), array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer fitB.Release()
	defer newB.Release()
	for i := range n {
		b := fitB
		if i%(n/held) == 0 {
			b = newB
		}
		k := i % 4
		for d := range 3 {
			b.Field(d).(*array.Float64Builder).Append(4*float64((k>>d)&1) + rng.NormFloat64())
		}
		b.Field(3).(*array.StringBuilder).Append(string(rune('a' + k)))
	}
	fitRec, newRec := fitB.NewRecordBatch(), newB.NewRecordBatch()
	defer fitRec.Release()
	defer newRec.Release()

	fit := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": fitRec}, "out", "model-out")
	defer fit.Release()
	to := tsne.Stage{}.NewOptions().(*tsne.Options)
	to.Label, to.MaxIter, to.Perplexity = "class", 300, 10
	// The fit and apply run on the default allocator: apply keeps a t-SNE
	// model's row column (80 int64) past its run. Only the report's own
	// allocations are checked.
	if err := transforms.Run(ctx, tsne.Stage{}, to, &transforms.Env{Tables: fit}); err != nil {
		t.Fatal(err)
	}
	place := &transforms.MemTables{In: map[string][]arrow.RecordBatch{"model": fit.Out("model-out").Records, "in": {newRec}}, Want: []string{"out"}}
	defer place.Release()
	ao := apply.Stage{}.NewOptions().(*apply.Options)
	ao.Keep = []string{"class"}
	if err := transforms.Run(ctx, apply.Stage{}, ao, &transforms.Env{Tables: place}); err != nil {
		t.Fatal(err)
	}

	page := &transforms.MemTables{In: map[string][]arrow.RecordBatch{"in#0": fit.Out("out").Records, "in#1": place.Out("out").Records}, Want: []string{"out"}}
	if err := transforms.Run(ctx, Stage{}, Stage{}.NewOptions(), &transforms.Env{Tables: page, Mem: mem}); err != nil {
		t.Fatal(err)
	}
	html := string(page.File("out"))
	if s, f := strings.Count(html, `<section class="table"`), strings.Count(html, "<svg"); s != 1 || f != 1 {
		t.Errorf("%d sections and %d figures, want 1 and 1: the placed rows belong on their map", s, f)
	}
	if got := rings(html); got != held+1 {
		t.Errorf("%d ring edges, want %d placed rows and the legend's", got, held)
	}
	for _, w := range []string{fmt.Sprintf("placed: memory:in#1, %d rows", held), fmt.Sprintf(">placed (%d rows)<", held)} {
		if !strings.Contains(html, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	// The rings take the class colours of the map's legend (c is #009E73).
	if !strings.Contains(html, "stroke:#009E73;stroke-width:0.9") {
		t.Error("no ring in the colour of class c")
	}
}

// TestThinPlaced: the placed rows are thinned by the same rule as the map's
// and the subtitle says so for each.
func TestThinPlaced(t *testing.T) {
	n, m := maxPoints+10, 3*maxPoints
	p := &figure.Points{X: make([]float64, n), Y: make([]float64, n),
		Placed: &figure.Points{X: make([]float64, m), Y: make([]float64, m), Value: make([]float64, m)}}
	o := figure.Style{Subtitle: "e.parquet"}
	thin(p, &o)
	if len(p.X) > maxPoints || len(p.Placed.X) > maxPoints || len(p.Placed.Value) != len(p.Placed.X) {
		t.Errorf("thinned to %d points and %d placed (%d values)", len(p.X), len(p.Placed.X), len(p.Placed.Value))
	}
	want := fmt.Sprintf("e.parquet · every 2-th of %d points shown · every 3-th of %d placed rows shown", n, m)
	if o.Subtitle != want {
		t.Errorf("subtitle %q, want %q", o.Subtitle, want)
	}
}

// TestDistanceSection: the section of a long distance table counts its
// pairs and objects, not its rows.
func TestDistanceSection(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	p := &arrowio.Provenance{Stage: "fisher", Kind: table.DistancePairs, Params: map[string]any{}}
	md, err := p.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	const n = 4
	ib, jb, db := array.NewInt64Builder(memory.DefaultAllocator), array.NewInt64Builder(memory.DefaultAllocator), array.NewFloat64Builder(memory.DefaultAllocator)
	for i := range n {
		for j := range n {
			if i != j {
				ib.Append(int64(i))
				jb.Append(int64(j))
				db.Append(float64(i + j))
			}
		}
	}
	cols := []arrow.Array{ib.NewArray(), jb.NewArray(), db.NewArray()}
	pairs := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "j", Type: arrow.PrimitiveTypes.Int64},
		{Name: "distance", Type: arrow.PrimitiveTypes.Float64}}, &md), cols, n*(n-1))
	for _, c := range cols {
		c.Release()
	}
	defer pairs.Release()
	page := runReport(t, mem, pairs)
	if !strings.Contains(page, "12 pairs of 4 objects") || strings.Contains(page, "12 rows") {
		t.Errorf("the distance table's section does not say 12 pairs of 4 objects")
	}
}
