package transforms

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms/table"
)

// meanStage is a minimal stage for the contract's tests: it embeds every
// row as the mean of its features.
type meanStage struct{}

type meanOptions struct {
	Columns
	Standardize bool    `opt:"standardize" help:"z-score the features"`
	Scale       float64 `opt:"scale" help:"multiply the output"`
}

func (o *meanOptions) Validate() error {
	if !(o.Scale > 0) {
		return Optionf("scale", "%g: want a positive number", o.Scale)
	}
	return nil
}

func (meanStage) Info() Info {
	return Info{Name: "mean", Summary: "row means",
		Inputs:  []Role{{Name: "in", Help: "feature table", Required: true}},
		Outputs: []Role{{Name: "out", Help: "embedding", Kind: table.Embedding, Required: true}}}
}

func (meanStage) NewOptions() Options { return &meanOptions{Columns: DefaultColumns(), Scale: 1} }

func (meanStage) Run(ctx context.Context, env *Env, opts Options) error {
	o := opts.(*meanOptions)
	ft, err := env.ReadFeatures(ctx, "in", o.Selection(), o.Standardize)
	if err != nil {
		return err
	}
	defer ft.Release()
	emb := make([]float64, ft.N)
	for i := range emb {
		for j := range ft.K() {
			emb[i] += ft.Z[i*ft.K()+j]
		}
		emb[i] *= o.Scale / float64(ft.K())
	}
	env.Figure("nan_figure", math.NaN())
	return env.WriteEmbedding(ctx, "out", ft.Frame, emb, 1)
}

// record builds a record of float64 columns (and int64 for names ending in
// "id").
func record(t *testing.T, mem memory.Allocator, cols map[string][]float64, order []string) arrow.RecordBatch {
	t.Helper()
	var fields []arrow.Field
	var arrs []arrow.Array
	n := 0
	for _, name := range order {
		v := cols[name]
		n = len(v)
		if strings.HasSuffix(name, "id") {
			b := array.NewInt64Builder(mem)
			for _, x := range v {
				b.Append(int64(x))
			}
			arrs = append(arrs, b.NewArray())
			b.Release()
			fields = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int64})
			continue
		}
		b := array.NewFloat64Builder(mem)
		b.AppendValues(v, nil)
		arrs = append(arrs, b.NewArray())
		b.Release()
		fields = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64})
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n))
	for _, a := range arrs {
		a.Release()
	}
	return rec
}

func TestRunStageInMemory(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := record(t, mem, map[string][]float64{
		"id":       {10, 11, 12, 13},
		"x":        {1, 2, 3, 4},
		"constant": {5, 5, 5, 5},
		"target":   {0, 1, 0, 1},
		"emb_0":    {9, 9, 8, 8},
		"z":        {4, 3, 2, 2},
	}, []string{"id", "x", "constant", "target", "emb_0", "z"})
	defer rec.Release()
	var logs bytes.Buffer
	tables := NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
	defer tables.Release()
	env := &Env{Tables: tables, Mem: mem, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	if err := Run(context.Background(), meanStage{}, &meanOptions{Columns: DefaultColumns(), Scale: 2}, env); err != nil {
		t.Fatal(err)
	}
	out := tables.Out("out")
	if out == nil || out.NumRows() != 4 {
		t.Fatalf("output %v", out)
	}
	// Default features: x and z; id (identifier), target, emb_0
	// (earlier embedding) left out with a warning; constant dropped.
	emb := out.Records[0].Column(out.Records[0].Schema().FieldIndices("emb_0")[0]).(*array.Float64).Float64Values()
	want := []float64{5, 5, 5, 6} // 2·(x+z)/2
	if !slices.Equal(emb, want) {
		t.Errorf("embedding %v, want %v", emb, want)
	}
	p := out.Provenance()
	if p == nil || p.Kind != table.Embedding || p.Stage != "mean" || p.RowsWritten != 4 {
		t.Fatalf("provenance %+v", p)
	}
	if got := p.Figures["features"]; !slices.Equal(anyStrings(got), []string{"x", "z"}) {
		t.Errorf("recorded features %v, want [x z]", got)
	}
	if v, ok := p.Figures["nan_figure"]; !ok || v != nil {
		t.Errorf("NaN figure recorded as %v, want null", v)
	}
	if p.Params["scale"] != 2.0 || p.Params["on_invalid"] != "error" {
		t.Errorf("params %v", p.Params)
	}
	warned := strings.Join(p.Warnings, "\n")
	for _, w := range []string{`"id" looks like an identifier`, `"target" looks like a target`, `"emb_0" is an earlier stage's embedding`, `"constant" is constant`} {
		if !strings.Contains(warned, w) {
			t.Errorf("warnings %q lack %q", warned, w)
		}
	}
}

func TestRunStageErrors(t *testing.T) {
	mem := memory.NewGoAllocator()
	rec := record(t, mem, map[string][]float64{"a": {1, 1, 1}, "b": {2, 2, 2}}, []string{"a", "b"})
	defer rec.Release()
	tests := []struct {
		name     string
		in       map[string]arrow.RecordBatch
		want     []string
		opts     *meanOptions
		kind     error
		contains string
	}{
		{"invalid option", map[string]arrow.RecordBatch{"in": rec}, []string{"out"}, &meanOptions{Columns: DefaultColumns(), Scale: -1}, ErrInvalidOption, `option "scale"`},
		{"missing input", nil, []string{"out"}, &meanOptions{Columns: DefaultColumns(), Scale: 1}, ErrNoTable, `option "in"`},
		{"missing output", map[string]arrow.RecordBatch{"in": rec}, nil, &meanOptions{Columns: DefaultColumns(), Scale: 1}, ErrInvalidOption, `option "out"`},
		{"every feature constant", map[string]arrow.RecordBatch{"in": rec}, []string{"out"}, &meanOptions{Columns: DefaultColumns(), Scale: 1}, ErrInvalidData, "every feature column is constant"},
		{"missing column", map[string]arrow.RecordBatch{"in": rec}, []string{"out"}, &meanOptions{Scale: 1, Columns: Columns{Features: []string{"nope"}, OnInvalid: "error"}}, ErrInvalidData, "nope"},
	}
	for _, tc := range tests {
		tables := NewMemTables(tc.in, tc.want...)
		err := Run(context.Background(), meanStage{}, tc.opts, &Env{Tables: tables})
		tables.Release()
		if err == nil || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.contains) {
			t.Errorf("%s: error %v, want one matching %v and containing %q", tc.name, err, tc.kind, tc.contains)
		}
		if !IsInputError(err) {
			t.Errorf("%s: %v is not an input error", tc.name, err)
		}
	}
}

func TestRunStageCancelled(t *testing.T) {
	mem := memory.NewGoAllocator()
	rec := record(t, mem, map[string][]float64{"a": {1, 2, 3}}, []string{"a"})
	defer rec.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tables := NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
	defer tables.Release()
	err := Run(ctx, meanStage{}, &meanOptions{Columns: DefaultColumns(), Scale: 1}, &Env{Tables: tables})
	if !errors.Is(err, context.Canceled) || IsInputError(err) {
		t.Errorf("cancelled run: %v", err)
	}
	if tables.Out("out") != nil {
		t.Errorf("a cancelled run wrote its output")
	}
}

func anyStrings(v any) []string {
	switch s := v.(type) {
	case []string:
		return s
	case []any:
		out := make([]string, len(s))
		for i, e := range s {
			out[i], _ = e.(string)
		}
		return out
	}
	return nil
}
