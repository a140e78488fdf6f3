package apply_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/apply"
)

// Adding a model kind must not edit the contract (issue 34): this file
// defines a kind of its own, registers it from a test package, and the
// apply stage reads and applies it like any other.

// toyKind is the test's model kind.
const toyKind = "toy-scale-shift"

func init() {
	transforms.RegisterModel(transforms.ModelKind{
		Kind: toyKind,
		Doc:  "a test model: y = x·scale + shift, feature by feature",
		Load: loadToy,
	})
}

// toyModel maps a row x of its features to y = x·scale + shift, one
// coordinate per feature. Its file is one row (scale, shift); the feature
// names are in the header.
type toyModel struct {
	features     []string
	scale, shift float64
}

func (m *toyModel) Header() transforms.ModelHeader {
	return transforms.ModelHeader{Kind: toyKind, Stage: "toy", Dims: len(m.features), Features: len(m.features),
		Params: map[string]any{"features": m.features}}
}

func (m *toyModel) InputFeatures() []string { return m.features }

// toyMap is the toy's map of one value (the explicit conversion keeps the
// product from being fused with the sum: the same bits wherever it runs).
func toyMap(x, scale, shift float64) float64 { return float64(x*scale) + shift }

func (m *toyModel) Transform(_ context.Context, dst, x []float64, n, _ int) error {
	if len(x) != n*len(m.features) || len(dst) != len(x) {
		panic("toy: Transform: wrong lengths")
	}
	for k, v := range x {
		dst[k] = toyMap(v, m.scale, m.shift)
	}
	return nil
}

func (m *toyModel) Record(mem memory.Allocator) (arrow.RecordBatch, error) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "scale", Type: arrow.PrimitiveTypes.Float64},
		{Name: "shift", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.Float64Builder).Append(m.scale)
	b.Field(1).(*array.Float64Builder).Append(m.shift)
	return b.NewRecordBatch(), nil
}

func (m *toyModel) Check() error {
	for _, c := range []struct {
		name string
		v    float64
	}{{"scale", m.scale}, {"shift", m.shift}} {
		if math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return transforms.ModelValueError("toy", c.name, 0, "the "+c.name, c.v)
		}
	}
	return nil
}

// loadToy is the kind's Load: the header names the features, the table
// holds one row of scale and shift.
func loadToy(r arrowio.Reader, h transforms.ModelHeader) (transforms.Model, error) {
	file := transforms.ModelFile{Path: r.Source().Path}
	var p struct {
		Features []string `json:"features"`
	}
	raw, err := json.Marshal(h.Params)
	if err == nil {
		err = json.Unmarshal(raw, &p)
	}
	if err != nil || len(p.Features) == 0 || len(p.Features) != h.Features || h.Dims != h.Features {
		return nil, file.Errorf("header %+v does not name the features (%v)", h, err)
	}
	var scale, shift []float64
	for r.Next() {
		rec := r.RecordBatch()
		a, err := file.Floats(rec, "scale")
		if err != nil {
			return nil, err
		}
		b, err := file.Floats(rec, "shift")
		if err != nil {
			return nil, err
		}
		scale, shift = append(scale, a...), append(shift, b...)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if len(scale) != 1 {
		return nil, file.Errorf("%d rows, want 1", len(scale))
	}
	return &toyModel{features: p.Features, scale: scale[0], shift: shift[0]}, nil
}

// toyInput writes a table of n rows (id, a, b, label) and returns its
// features, row-major.
func toyInput(t *testing.T, path string, n int) []float64 {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "a", Type: arrow.PrimitiveTypes.Float64},
		{Name: "b", Type: arrow.PrimitiveTypes.Float64},
		{Name: "label", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	x := make([]float64, 0, 2*n)
	for i := range n {
		u, v := math.Sqrt(float64(i)+0.1), -1e3/(float64(i)+3)
		x = append(x, u, v)
		b.Field(0).(*array.Int64Builder).Append(int64(100 + i))
		b.Field(1).(*array.Float64Builder).Append(u)
		b.Field(2).(*array.Float64Builder).Append(v)
		b.Field(3).(*array.StringBuilder).Append(fmt.Sprint("c", i%2))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	w, err := arrowio.Create(context.Background(), path, schema)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return x
}

// writeToy writes m as a run's model-out to path.
func writeToy(t *testing.T, path string, m transforms.Model) {
	t.Helper()
	env := &transforms.Env{Tables: &transforms.FileTables{Paths: map[string]string{"model-out": path}},
		Log: slog.New(slog.DiscardHandler), Mem: memory.DefaultAllocator,
		Prov: &arrowio.Provenance{Tool: "ordinate", Stage: "toy", Figures: map[string]any{}}}
	if err := env.WriteModel(context.Background(), "model-out", m); err != nil {
		t.Fatal(err)
	}
}

// applyToy runs the apply stage with the model file model on the table in,
// into out.
func applyToy(model, in, out string, opts map[string]string) error {
	o := apply.Stage{}.NewOptions()
	if err := transforms.SetOptions(o, opts); err != nil {
		return err
	}
	tables := &transforms.FileTables{Paths: map[string]string{"model": model, "in": in, "out": out}}
	return transforms.Run(context.Background(), apply.Stage{}, o, &transforms.Env{Tables: tables, Threads: 2})
}

// TestToyModelKind registers a model kind from a test package and applies
// it: the rows come out as the toy's map of the input rows, bit for bit; a
// bad value in its file is refused as a damaged model; Describe lists the
// kind; options the model cannot use are refused naming them.
func TestToyModelKind(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.parquet")
	const n = 37
	x := toyInput(t, in, n)
	m := &toyModel{features: []string{"a", "b"}, scale: 0.37, shift: -1.25}
	model := filepath.Join(dir, "toy.model.parquet")
	writeToy(t, model, m)

	out := filepath.Join(dir, "out.parquet")
	if err := applyToy(model, in, out, map[string]string{"id": "id", "keep": "label"}); err != nil {
		t.Fatal(err)
	}
	r, err := arrowio.Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	f, err := arrowio.ReadFrame(ctx, r, arrowio.Selection{ID: "id", Features: []string{"emb_*"}, Keep: []string{"label"}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	if f.N != n || !slices.Equal(f.FeatureNames, []string{"emb_0", "emb_1"}) {
		t.Fatalf("output %d rows of %v, want %d of emb_0, emb_1", f.N, f.FeatureNames, n)
	}
	ids, labels := f.ID.(*array.Int64), f.Keep[0].(*array.String)
	for i := range n {
		if ids.Value(i) != int64(100+i) || labels.Value(i) != fmt.Sprint("c", i%2) {
			t.Fatalf("row %d: id %d, label %s", i, ids.Value(i), labels.Value(i))
		}
		for j := range 2 {
			want := toyMap(x[2*i+j], m.scale, m.shift)
			if got := f.X[2*i+j]; math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("row %d: emb_%d = %v, the toy map gives %v", i, j, got, want)
			}
		}
	}
	if p := transforms.TableProvenance(r.Schema()); p == nil || p.Figures["model_stage"] != "toy" {
		t.Errorf("provenance %+v, want the toy's model stage", p)
	}

	// A bad value in the model file (written around WriteModel, which
	// would refuse it) is a damaged model, and the run writes nothing.
	bad := filepath.Join(dir, "bad.model.parquet")
	writeRawToy(t, bad, m.Header(), math.NaN())
	badOut := filepath.Join(dir, "bad-out.parquet")
	if err := applyToy(bad, in, badOut, nil); !errors.Is(err, transforms.ErrModel) {
		t.Errorf("a NaN shift: %v, want ErrModel", err)
	}
	if _, err := os.Stat(badOut); err == nil {
		t.Error("a run with a damaged model wrote its output")
	}

	// Describe lists the kind.
	found := false
	for _, k := range transforms.Describe("test").ModelKinds {
		if k.Kind == toyKind && k.Stage == "" && k.Doc != "" {
			found = true
		}
	}
	if !found {
		t.Errorf("Describe lists the model kinds %+v, without %q", transforms.Describe("test").ModelKinds, toyKind)
	}

	// Options for models the toy is not.
	for _, tc := range []struct {
		option string
		opts   map[string]string
	}{
		{"perplexity", map[string]string{"perplexity": "10"}},
		{"max-iter", map[string]string{"max-iter": "5"}},
		{"label", map[string]string{"label": "label"}},
		{"soft-labels", map[string]string{"soft-labels": "a,b"}},
	} {
		err := applyToy(model, in, filepath.Join(dir, tc.option+".parquet"), tc.opts)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option || !errors.Is(err, transforms.ErrInvalidOption) {
			t.Errorf("%v: %v, want an option error naming %s", tc.opts, err, tc.option)
		}
	}
}

// writeRawToy writes a toy model file with header h and the given shift,
// as WriteModel would but without its check.
func writeRawToy(t *testing.T, path string, h transforms.ModelHeader, shift float64) {
	t.Helper()
	h.Format, h.Version = transforms.ModelFormat, transforms.ModelVersion
	hdr, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := (&toyModel{scale: 1, shift: shift}).Record(memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	w, err := arrowio.Create(context.Background(), path, rec.Schema())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	w.SetMetadata(transforms.ModelMetadataKey, string(hdr))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
