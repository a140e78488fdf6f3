package report

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/figure"
	"github.com/ordinate/ordinate/transforms/table"
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
		js, err := p.JSON()
		if err != nil {
			t.Fatal(err)
		}
		m := arrow.NewMetadata([]string{arrowio.MetadataKey}, []string{js})
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
	opts := Stage{}.NewOptions().(*StageOptions)
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
	if got := strings.Count(page, "<section"); got != 3 {
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
	var o figure.Options
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
