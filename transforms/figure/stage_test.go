package figure

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// TestStagePlaced runs the plot stage with input "placed": the rings and
// legend entry in the figure, the run's figure "placed", a warning when the
// rows were placed into another run's map, and the errors for placed rows
// that are not an embedding of the map's dimensions or a map that is a
// heat map.
func TestStagePlaced(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	labels := []string{"a", "b", "c"}
	emb := embTable(t, 30, 2, labels, false, fitProv("r1"))
	defer emb.Release()
	for _, tc := range []struct {
		name   string
		in     *arrowio.Provenance // nil: emb
		placed arrow.RecordBatch
		err    error  // nil: draws
		warn   string // a warning that must be given, or ""
	}{
		{"same run", nil, embTable(t, 7, 2, labels, false, applyProv("r1")), nil, ""},
		{"placed without labels", nil, embTable(t, 7, 2, nil, false, applyProv("r1")), nil, ""},
		{"another run's model", nil, embTable(t, 7, 2, labels, false, applyProv("r2")), nil, "model of run r2"},
		{"metrics", nil, embTable(t, 7, 2, nil, false, &arrowio.Provenance{Stage: "evaluate", Kind: table.Metrics, Params: map[string]any{}}),
			transforms.ErrInvalidData, ""},
		{"three dimensions", nil, embTable(t, 7, 3, labels, false, applyProv("r1")), transforms.ErrInvalidData, ""},
		{"over a heat map", &arrowio.Provenance{Stage: "fisher", Kind: table.DistancePairs, Params: map[string]any{}},
			embTable(t, 7, 2, labels, false, applyProv("r1")), transforms.ErrInvalidOption, ""},
	} {
		defer tc.placed.Release()
		in := emb
		if tc.in != nil {
			in = embTable(t, 4, 2, nil, false, tc.in)
			defer in.Release()
		}
		tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": in, "placed": tc.placed}, "out")
		opts := Stage{}.NewOptions().(*Options)
		opts.Color = "label"
		env := &transforms.Env{Tables: tables, Mem: mem}
		err := transforms.Run(context.Background(), Stage{}, opts, env)
		if tc.err != nil {
			if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), "placed") {
				t.Errorf("%s: error %v, want %v naming the placed rows", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		svg := string(tables.File("out"))
		if got := strings.Count(svg, "stroke:#222222;"); got != 8 {
			t.Errorf("%s: %d ring edges, want 7 placed rows and the legend's", tc.name, got)
		}
		if !strings.Contains(svg, ">placed (7 rows)<") {
			t.Errorf("%s: no legend entry for the placed rows", tc.name)
		}
		if env.Prov.Figures["placed"] != 7 || env.Prov.Figures["points"] != 30 {
			t.Errorf("%s: figures placed %v, points %v; want 7, 30", tc.name, env.Prov.Figures["placed"], env.Prov.Figures["points"])
		}
		warned := strings.Join(env.Prov.Warnings, "\n")
		if (tc.warn == "") != (warned == "") || !strings.Contains(warned, tc.warn) {
			t.Errorf("%s: warnings %q, want %q", tc.name, warned, tc.warn)
		}
	}
}

// TestStageHeatMapSubtitle: the heat map of a long distance table says how
// many pairs and objects it draws, not "rows".
func TestStageHeatMapSubtitle(t *testing.T) {
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
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "j", Type: arrow.PrimitiveTypes.Int64},
		{Name: "distance", Type: arrow.PrimitiveTypes.Float64}}, &md), cols, n*(n-1))
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
	defer tables.Release()
	if err := transforms.Run(context.Background(), Stage{}, Stage{}.NewOptions(), &transforms.Env{Tables: tables}); err != nil {
		t.Fatal(err)
	}
	svg := string(tables.File("out"))
	if !strings.Contains(svg, "12 pairs of 4 objects") || strings.Contains(svg, "12 rows") {
		t.Errorf("the heat map's subtitle does not say 12 pairs of 4 objects")
	}
}
