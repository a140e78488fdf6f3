package transforms

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// toyModel is the least model of the contract: y = x + shift of one
// feature "x", its file one row holding shift. Its kind is whatever the
// test says; the kinds "toy" (any stage) and "toy" of stage "special" are
// registered below, others are not.
type toyModel struct {
	kind, stage string
	shift       float64
}

func (m *toyModel) Header() ModelHeader {
	return ModelHeader{Kind: m.kind, Stage: m.stage, Dims: 1, Features: 1, Params: map[string]any{"toy": true}}
}

func (m *toyModel) InputFeatures() []string { return []string{"x"} }

func (m *toyModel) Transform(_ context.Context, dst, x []float64, n, _ int) error {
	for i := range n {
		dst[i] = x[i] + m.shift
	}
	return nil
}

func (m *toyModel) Record(mem memory.Allocator) (arrow.RecordBatch, error) {
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.Append(m.shift)
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "shift", Type: arrow.PrimitiveTypes.Float64}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{col}, 1), nil
}

func (m *toyModel) Check() error {
	if math.IsNaN(m.shift) || math.IsInf(m.shift, 0) {
		return ModelValueError(m.stage, "shift", 0, "the shift", m.shift)
	}
	return nil
}

// loadToy reads a toy model; loaded marks which registration read it.
func loadToy(loaded string) func(r arrowio.Reader, h ModelHeader) (Model, error) {
	return func(r arrowio.Reader, h ModelHeader) (Model, error) {
		file := ModelFile{Path: r.Source().Path}
		var shift []float64
		for r.Next() {
			v, err := file.Floats(r.RecordBatch(), "shift")
			if err != nil {
				return nil, err
			}
			shift = append(shift, v...)
		}
		if err := r.Err(); err != nil {
			return nil, err
		}
		if len(shift) != 1 || h.Dims != 1 || h.Features != 1 {
			return nil, file.Errorf("%d rows for %d features and %d dims", len(shift), h.Features, h.Dims)
		}
		return &toyModel{kind: h.Kind, stage: h.Stage + "/" + loaded, shift: shift[0]}, nil
	}
}

func init() {
	RegisterModel(ModelKind{Kind: "toy", Doc: "a test model: y = x + shift", Load: loadToy("any")})
	RegisterModel(ModelKind{Kind: "toy", Stage: "special", Doc: "a test model of stage special", Load: loadToy("special")})
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

// TestModelKinds writes models of a registered kind and reads them back
// with the kind registered for their stage, else the kind for any stage,
// with the header and provenance WriteModel wrote.
func TestModelKinds(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, tc := range []struct{ stage, loadedBy string }{{"special", "special"}, {"plain", "any"}, {"", "any"}} {
		path := filepath.Join(dir, "toy-"+tc.stage+".parquet")
		if err := saveModel(ctx, path, &toyModel{kind: "toy", stage: tc.stage, shift: 0.25}); err != nil {
			t.Fatal(err)
		}
		got, prov, err := loadModel(ctx, path)
		if err != nil {
			t.Fatalf("stage %q: %v", tc.stage, err)
		}
		toy, ok := got.(*toyModel)
		if !ok || toy.stage != tc.stage+"/"+tc.loadedBy || toy.shift != 0.25 {
			t.Errorf("stage %q: loaded %#v, want the kind of %s", tc.stage, got, tc.loadedBy)
		}
		if prov == nil || prov.Seed != 9 || prov.Stage != tc.stage {
			t.Errorf("stage %q: provenance not kept: %+v", tc.stage, prov)
		}
		info, err := arrowio.Inspect(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		hdr := info.Metadata[ModelMetadataKey]
		for _, want := range []string{fmt.Sprintf(`"format":%q`, ModelFormat), fmt.Sprintf(`"version":%d`, ModelVersion), `"kind":"toy"`, `"toy":true`} {
			if !strings.Contains(hdr, want) {
				t.Errorf("stage %q: header %s lacks %s", tc.stage, hdr, want)
			}
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a kind registered twice for one stage does not panic")
			}
		}()
		RegisterModel(ModelKind{Kind: "toy", Stage: "special", Load: loadToy("again")})
	}()
}

// WriteModelFile and ReadModelFile, for Go programs outside a stage run:
// the same model back, with the given provenance or a minimal one; a
// failing Check writes nothing.
func TestModelFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, prov := range []*arrowio.Provenance{nil, {Tool: "ordinate", Stage: "special", Seed: 4}} {
		path := filepath.Join(dir, fmt.Sprintf("toy-%v.parquet", prov != nil))
		if err := WriteModelFile(ctx, path, &toyModel{kind: "toy", stage: "special", shift: 1.5}, prov); err != nil {
			t.Fatal(err)
		}
		m, p, err := ReadModelFile(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if toy, ok := m.(*toyModel); !ok || toy.shift != 1.5 || toy.stage != "special/special" {
			t.Errorf("read back %#v", m)
		}
		if p == nil || p.Stage != "special" || p.Kind != "model" || (prov != nil && p.Seed != 4) {
			t.Errorf("provenance %+v (given %+v)", p, prov)
		}
	}
	bad := filepath.Join(dir, "bad.parquet")
	if err := WriteModelFile(ctx, bad, &toyModel{kind: "toy", stage: "plain", shift: math.NaN()}, nil); !errors.Is(err, ErrInvalidData) {
		t.Errorf("a model that fails Check: %v", err)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("the failed model was written: %v", err)
	}
	if _, _, err := ReadModelFile(ctx, filepath.Join(dir, "missing.parquet")); err == nil {
		t.Error("a missing file read without an error")
	}
}

// TestWriteModelChecks: WriteModel refuses a model whose Check fails, and
// writes nothing.
func TestWriteModelChecks(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bad.parquet")
	err := saveModel(ctx, path, &toyModel{kind: "toy", stage: "plain", shift: math.Inf(1)})
	var de *DataError
	if !errors.As(err, &de) || de.Column != "shift" || !errors.Is(err, ErrInvalidData) {
		t.Errorf("%v, want a data error naming the column", err)
	}
	if _, serr := os.Stat(path); serr == nil {
		t.Error("the model was written")
	}
}

// TestLoadModelRefuses: a table that is not a model of this format and
// version, or of a kind no package registers, is refused naming why.
func TestLoadModelRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	save := func(name string, m Model) string {
		path := filepath.Join(dir, name+".parquet")
		if err := saveModel(ctx, path, m); err != nil {
			t.Fatal(err)
		}
		return path
	}
	toy := &toyModel{kind: "toy", stage: "plain", shift: 1}

	// A table that is not a model: no header key.
	plain := filepath.Join(dir, "plain.parquet")
	writeTable(t, plain, nil)
	// A header that is not JSON.
	badJSON := filepath.Join(dir, "json.parquet")
	writeTable(t, badJSON, map[string]string{ModelMetadataKey: `{"format": "ordinate-model",`})
	// Another format.
	other := save("other", toy)
	rewriteHeader(t, other, fmt.Sprintf(`"format":%q`, ModelFormat), `"format":"someone-else"`)
	// A future format version.
	future := save("future", toy)
	rewriteHeader(t, future, fmt.Sprintf(`"version":%d`, ModelVersion), `"version":99`)
	// A kind no package registers.
	unknown := save("unknown", &toyModel{kind: "unregistered", stage: "plain", shift: 1})

	for _, tc := range []struct {
		name string
		path string
		want error
		text string
	}{
		{"not a model", plain, ErrModel, "model-out"},
		{"bad JSON", badJSON, ErrModel, "not valid JSON"},
		{"other format", other, ErrModel, `"someone-else"`},
		{"future version", future, ErrModelFormat, "version 99"},
		{"unknown kind", unknown, ErrModel, `unknown model kind "unregistered"`},
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
	hdr := info.Metadata[ModelMetadataKey]
	if !strings.Contains(hdr, old) {
		t.Fatalf("header %s lacks %s", hdr, old)
	}
	meta := map[string]string{ModelMetadataKey: strings.Replace(hdr, old, new, 1)}
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
