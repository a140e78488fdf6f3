package transforms

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
)

func testModel() *Affine {
	s := &Scaling{Names: []string{"x1", "x2", "x3"}, Cols: []int{0, 1, 2}, Mean: []float64{1, 2, 3}, Scale: []float64{0.5, 2, 4}}
	axes := mat.NewDense(3, 2, []float64{0.6, 0, 0, 1, 0.8, 0})
	return NewAffine("bvp", s, "", true, []float64{0.1, -0.2, 0.3}, axes, map[string]any{"solver": "svd"})
}

// saveModel writes m to path as the model-out output of a run.
func saveModel(ctx context.Context, path string, m Model) error {
	env := &Env{Tables: &FileTables{Paths: map[string]string{"model-out": path}}}
	env.defaults()
	env.Prov = &arrowio.Provenance{Tool: "ordinate", Stage: m.Header().Stage, Seed: 9, Figures: map[string]any{}}
	return env.WriteModel(ctx, "model-out", m)
}

// loadModel reads the model file at path as the model input of a run.
func loadModel(ctx context.Context, path string) (Model, *arrowio.Provenance, error) {
	env := &Env{Tables: &FileTables{Paths: map[string]string{"model": path}}}
	env.defaults()
	env.Prov = &arrowio.Provenance{Figures: map[string]any{}}
	return env.ReadModel(ctx, "model")
}

func TestModelRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.parquet")
	m := testModel()
	if err := saveModel(ctx, path, m); err != nil {
		t.Fatal(err)
	}
	got, prov, err := loadModel(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if prov == nil || prov.Seed != 9 || prov.Stage != "bvp" {
		t.Errorf("provenance not kept: %+v", prov)
	}
	h := got.Header()
	if h.Stage != "bvp" || h.Dims != 2 || h.Version != ModelVersion || !h.Standardized || h.Params["solver"] != "svd" {
		t.Errorf("header = %+v", h)
	}
	x := []float64{1, 2, 3, 4, 5, 6, -1, 0, 1e3}
	want := m.Transform(nil, x, 3)
	have := got.Transform(nil, x, 3)
	for i := range want {
		if want[i] != have[i] {
			t.Errorf("loaded model gives y[%d] = %v, saved model %v", i, have[i], want[i])
		}
	}
}

func TestLoadModelRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m := testModel()

	// A future format version.
	future := filepath.Join(dir, "future.parquet")
	if err := saveModel(ctx, future, m); err != nil {
		t.Fatal(err)
	}
	rewriteHeader(t, future, `"version":1`, `"version":99`)

	// A table that is not a model.
	plain := filepath.Join(dir, "plain.parquet")
	writeTable(t, plain, nil)

	for _, tc := range []struct {
		name string
		path string
		want error
		text string
	}{
		{"future version", future, ErrModelFormat, "version 99"},
		{"not a model", plain, ErrModel, "model-out"},
		{"missing file", filepath.Join(dir, "none.parquet"), nil, "none.parquet"},
	} {
		_, _, err := loadModel(ctx, tc.path)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v does not wrap %v", tc.name, err, tc.want)
		}
		if !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: error %q lacks %q", tc.name, err, tc.text)
		}
	}
}

// rewriteHeader rewrites a model file with its header edited.
func rewriteHeader(t *testing.T, path, old, new string) {
	t.Helper()
	ctx := context.Background()
	info, err := arrowio.Inspect(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	meta := map[string]string{ModelMetadataKey: strings.Replace(info.Metadata[ModelMetadataKey], old, new, 1)}
	r, err := arrowio.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var recs []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	writeTable(t, path, meta, recs...)
}

// writeTable writes records (or a one-column table when none) with metadata.
func writeTable(t *testing.T, path string, meta map[string]string, recs ...arrow.RecordBatch) {
	t.Helper()
	if len(recs) == 0 {
		b := array.NewFloat64Builder(memory.DefaultAllocator)
		b.AppendValues([]float64{1, 2}, nil)
		col := b.NewArray()
		b.Release()
		schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Float64}}, nil)
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{col}, 2))
		col.Release()
	}
	w, err := arrowio.Create(context.Background(), path, recs[0].Schema())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for k, v := range meta {
		w.SetMetadata(k, v)
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
