package figure

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// embTable is a table of n rows with provenance p (nil: none): the text
// column label (values labels[i%len]) when labels is not nil, soft-label
// columns p_a and p_b when soft, and dims emb_* columns.
func embTable(t *testing.T, n, dims int, labels []string, soft bool, p *arrowio.Provenance) arrow.RecordBatch {
	t.Helper()
	var fs []arrow.Field
	var cols []arrow.Array
	if labels != nil {
		b := array.NewStringBuilder(memory.DefaultAllocator)
		for i := range n {
			b.Append(labels[i%len(labels)])
		}
		fs = append(fs, arrow.Field{Name: "label", Type: arrow.BinaryTypes.String})
		cols = append(cols, b.NewArray())
		b.Release()
	}
	var names []string
	if soft {
		names = append(names, "p_a", "p_b")
	}
	for d := range dims {
		names = append(names, "emb_"+string(rune('0'+d)))
	}
	for c, name := range names {
		b := array.NewFloat64Builder(memory.DefaultAllocator)
		for i := range n {
			b.Append(float64((i*(c+3))%11) + 0.1*float64(c))
		}
		fs = append(fs, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64})
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

// fitProv is the provenance of a fitted map of run id run, applyProv that
// of rows placed with the model of run id model.
func fitProv(run string) *arrowio.Provenance {
	return &arrowio.Provenance{Stage: "tsne", Kind: table.Embedding, RunID: run, Params: map[string]any{"label": "label"}}
}

func applyProv(model string) *arrowio.Provenance {
	return &arrowio.Provenance{Stage: "apply", Kind: table.Embedding, RunID: "apply-" + model, Params: map[string]any{},
		Inputs: []arrowio.InputInfo{{Role: "model", Path: "m.parquet", Kind: table.Model, RunID: model}, {Role: "in", Path: "new.csv"}}}
}

func frameOf(t *testing.T, rec arrow.RecordBatch, sel arrowio.Selection) *arrowio.Frame {
	t.Helper()
	f, err := arrowio.ReadFrame(context.Background(), arrowio.NewRecordsReader("memory", rec.Schema(), []arrow.RecordBatch{rec}), sel)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPointsWithPlaced reads a map and placed rows as the plot stage does:
// the category order covers both tables' classes, the placed rows take the
// map's colour scale, and they go uncoloured when they lack the column.
func TestPointsWithPlaced(t *testing.T) {
	emb := embTable(t, 9, 2, []string{"2", "1", "2"}, true, fitProv("r1"))
	defer emb.Release()
	for _, tc := range []struct {
		name     string
		placed   arrow.RecordBatch
		spec     Spec
		order    []string // the map's category order after reading
		category bool     // the placed rows have categories
		soft     bool     // the placed rows have soft labels
	}{
		{"classes of both", embTable(t, 4, 2, []string{"3", "1"}, false, applyProv("r1")), Spec{Color: "label"}, []string{"1", "2", "3"}, true, false},
		{"given order", embTable(t, 4, 2, []string{"1"}, false, applyProv("r1")), Spec{Color: "label", Order: []string{"2", "1"}}, []string{"2", "1"}, true, false},
		{"placed rows without the column", embTable(t, 4, 2, nil, false, applyProv("r1")), Spec{Color: "label"}, []string{"1", "2"}, false, false},
		{"soft labels", embTable(t, 4, 2, nil, true, applyProv("r1")), Spec{SoftLabels: []string{"p_*"}}, nil, false, true},
		{"placed rows without soft labels", embTable(t, 4, 2, []string{"1"}, false, applyProv("r1")), Spec{SoftLabels: []string{"p_*"}}, nil, false, false},
		// The demo's cKPCA map: control points in the map, an apply output
		// without the control columns.
		{"control points in the map only", embTable(t, 4, 2, nil, false, applyProv("r1")), Spec{Control: []string{"p_a", "p_b"}}, nil, false, false},
	} {
		defer tc.placed.Release()
		f := frameOf(t, emb, tc.spec.Selection())
		q := frameOf(t, tc.placed, tc.spec.ForPlaced(tc.placed.Schema()).Selection())
		p, err := PointsWithPlaced(f, q, tc.spec)
		f.Release()
		q.Release()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if p.Placed == nil || len(p.Placed.X) != 4 {
			t.Fatalf("%s: placed points %v", tc.name, p.Placed)
		}
		if !slices.Equal(p.Order, tc.order) {
			t.Errorf("%s: order %v, want %v", tc.name, p.Order, tc.order)
		}
		if got := p.Placed.Category != nil; got != tc.category {
			t.Errorf("%s: placed categories %v, want present %v", tc.name, p.Placed.Category, tc.category)
		}
		if got := p.Placed.Soft != nil; got != tc.soft || (tc.soft && !slices.Equal(p.Placed.Classes, p.Classes)) {
			t.Errorf("%s: placed soft labels %v (classes %v), want present %v", tc.name, p.Placed.Soft, p.Placed.Classes, tc.soft)
		}
		if err := Scatter(&strings.Builder{}, "svg", p, Style{}); err != nil {
			t.Errorf("%s: drawing: %v", tc.name, err)
		}
	}

	// An integer column with few values in the map (categories, by auto)
	// and many among the placed rows (a number, by auto on its own) is
	// read as categories in both.
	grades := func(g []int64, p *arrowio.Provenance) arrow.RecordBatch {
		md, err := p.Metadata()
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
			{Name: "grade", Type: arrow.PrimitiveTypes.Int64},
			{Name: "emb_0", Type: arrow.PrimitiveTypes.Float64},
			{Name: "emb_1", Type: arrow.PrimitiveTypes.Float64},
		}, &md))
		defer b.Release()
		for i, v := range g {
			b.Field(0).(*array.Int64Builder).Append(v)
			b.Field(1).(*array.Float64Builder).Append(float64(i))
			b.Field(2).(*array.Float64Builder).Append(float64(i % 3))
		}
		return b.NewRecordBatch()
	}
	many := make([]int64, 20)
	for i := range many {
		many[i] = int64(i)
	}
	m, pl := grades([]int64{1, 2, 3, 1}, fitProv("r1")), grades(many, applyProv("r1"))
	defer m.Release()
	defer pl.Release()
	spec := Spec{Color: "grade", ColorScale: ScaleAuto}
	f := frameOf(t, m, spec.Selection())
	defer f.Release()
	q := frameOf(t, pl, spec.ForPlaced(pl.Schema()).Selection())
	defer q.Release()
	p, err := PointsWithPlaced(f, q, spec)
	if err != nil {
		t.Fatal(err)
	}
	if p.Category == nil || p.Placed.Category == nil || len(p.Order) != 20 {
		t.Errorf("grade: map categories %v, placed categories %v, order %v; want categories in both, 20 levels",
			p.Category, p.Placed.Category, p.Order)
	}
}

func TestCheckPlaced(t *testing.T) {
	emb := embTable(t, 5, 2, nil, false, fitProv("r1"))
	defer emb.Release()
	for _, tc := range []struct {
		name   string
		placed arrow.RecordBatch
		ok     bool
		says   string
	}{
		{"apply output", embTable(t, 3, 2, nil, false, applyProv("r1")), true, ""},
		{"no provenance", embTable(t, 3, 2, nil, false, nil), false, "records no kind"},
		{"metrics", embTable(t, 3, 2, nil, false, &arrowio.Provenance{Stage: "evaluate", Kind: table.Metrics, Params: map[string]any{}}), false, "metrics table"},
		{"three dimensions", embTable(t, 3, 3, nil, false, applyProv("r1")), false, "3 embedding dimensions"},
	} {
		defer tc.placed.Release()
		err := CheckPlaced(emb.Schema(), tc.placed.Schema(), "e.parquet", "p.parquet")
		if tc.ok {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if !errors.Is(err, transforms.ErrInvalidData) || !strings.Contains(err.Error(), "p.parquet") || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: error %v, want ErrInvalidData naming p.parquet and saying %q", tc.name, err, tc.says)
		}
	}
}

func TestModelRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *arrowio.Provenance
		want string
	}{
		{"apply output", applyProv("r7"), "r7"},
		{"fit", fitProv("r7"), ""},
		{"none", nil, ""},
	} {
		if got := ModelRun(tc.p); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestScatterPlacedBeneath: the placed rows' rings are drawn beneath the
// map's dots (every ring before the last dot in the SVG, the legend's
// excepted), so that the map stays whole where rings fall on it, and the
// rings are thin: their dark edge is at most 1.6 pt wide.
func TestScatterPlacedBeneath(t *testing.T) {
	p := testPoints()
	q := placedPoints(p)
	var buf bytes.Buffer
	pts := onlyPlaced(p, q, "", true)
	if err := Scatter(&buf, "svg", pts, Style{Title: "placed", NoFontEmbedding: true}); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	c := okabeIto[4]
	dot := fmt.Sprintf("style=\"fill:#%02X%02X%02X", c.R, c.G, c.B)
	lastRing, lastDot := strings.LastIndex(s, "stroke:#222222;"), strings.LastIndex(s, dot)
	if lastRing < 0 || lastDot < 0 {
		t.Fatalf("no ring (%d) or no map dot %s (%d) in the SVG", lastRing, dot, lastDot)
	}
	if lastRing > lastDot {
		t.Errorf("a ring is drawn after the map's last dot (at byte %d, the dot at %d): rings hide the map", lastRing, lastDot)
	}
	for _, m := range regexp.MustCompile(`stroke:#222222;stroke-width:([0-9.]+)`).FindAllStringSubmatch(s, -1) {
		if w, _ := strconv.ParseFloat(m[1], 64); w > 1.6 {
			t.Errorf("a ring edge %s pt wide, want at most 1.6", m[1])
			break
		}
	}
}
