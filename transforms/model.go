package transforms

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
)

// Model file format identifiers.
const (
	ModelFormat      = "ordinate-model"
	ModelVersion     = 1
	ModelMetadataKey = "ordinate.model"
)

// ModelHeader is the JSON stored under ModelMetadataKey in a model file.
type ModelHeader struct {
	Format       string         `json:"format"`
	Version      int            `json:"version"`
	Kind         string         `json:"kind"` // "affine" or "kernel"
	Stage        string         `json:"stage"`
	Dims         int            `json:"dims"`
	Features     int            `json:"features"`
	FeatureList  string         `json:"feature_list,omitempty"`
	Standardized bool           `json:"standardized"`
	Params       map[string]any `json:"params,omitempty"`
}

// SaveModel writes m (an *Affine or a *KernelModel) to a Parquet model file
// at path, atomically, with the run's provenance in the footer.
func SaveModel(ctx context.Context, path string, m Model, prov *arrowio.Provenance) error {
	switch m := m.(type) {
	case *Affine:
		return saveAffine(ctx, path, m, prov)
	case *KernelModel:
		return saveKernelModel(ctx, path, m, prov)
	}
	panic(fmt.Sprintf("transforms: SaveModel: unsupported model %T", m))
}

func saveAffine(ctx context.Context, path string, m *Affine, prov *arrowio.Provenance) error {
	mem := memory.DefaultAllocator
	D, d := len(m.Features), m.Dims()
	fields := []arrow.Field{
		{Name: "feature", Type: arrow.BinaryTypes.String},
		{Name: "mean", Type: arrow.PrimitiveTypes.Float64},
		{Name: "scale", Type: arrow.PrimitiveTypes.Float64},
		{Name: "origin", Type: arrow.PrimitiveTypes.Float64},
	}
	for j := range d {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("axis_%d", j), Type: arrow.PrimitiveTypes.Float64})
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues(m.Features, nil)
	b.Field(1).(*array.Float64Builder).AppendValues(m.Mean, nil)
	b.Field(2).(*array.Float64Builder).AppendValues(m.Scale, nil)
	b.Field(3).(*array.Float64Builder).AppendValues(m.Origin, nil)
	for j := range d {
		col := make([]float64, D)
		for f := range D {
			col[f] = m.Axes.At(f, j)
		}
		b.Field(4+j).(*array.Float64Builder).AppendValues(col, nil)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return writeModelFile(ctx, path, schema, rec, m.Header(), prov, int64(D))
}

// writeModelFile writes one record batch with the model header and the
// provenance in the footer.
func writeModelFile(ctx context.Context, path string, schema *arrow.Schema, rec arrow.RecordBatch, h ModelHeader, prov *arrowio.Provenance, rows int64) error {
	hdr, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("transforms: encoding model header: %w", err)
	}
	w, err := arrowio.Create(ctx, path, schema, arrowio.WithFormat(arrowio.FormatParquet))
	if err != nil {
		return err
	}
	defer w.Abort()
	w.SetMetadata(ModelMetadataKey, string(hdr))
	if err := w.Write(rec); err != nil {
		return err
	}
	if prov != nil {
		prov.RowsWritten = rows
		js, err := prov.JSON()
		if err != nil {
			return err
		}
		w.SetMetadata(arrowio.MetadataKey, js)
	}
	return w.Close()
}

// LoadModel reads a model file written by SaveModel.
func LoadModel(ctx context.Context, path string) (Model, *arrowio.FileInfo, error) {
	info, err := arrowio.Inspect(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	raw, ok := info.Metadata[ModelMetadataKey]
	if !ok {
		return nil, nil, fmt.Errorf("%s: %w: no %q key in the file metadata; is this a model written with --model-out?", path, ErrModel, ModelMetadataKey)
	}
	var h ModelHeader
	if err := json.Unmarshal([]byte(raw), &h); err != nil {
		return nil, nil, fmt.Errorf("%s: %w: model header is not valid JSON: %v", path, ErrModel, err)
	}
	if h.Format != ModelFormat {
		return nil, nil, fmt.Errorf("%s: %w: format %q, want %q", path, ErrModel, h.Format, ModelFormat)
	}
	if h.Version != ModelVersion {
		return nil, nil, fmt.Errorf("%s: %w: the model has format version %d; this ordinate reads version %d (use the ordinate version that wrote it, or fit the model again)",
			path, ErrModelFormat, h.Version, ModelVersion)
	}
	switch h.Kind {
	case "affine":
		m, err := loadAffine(ctx, path, h)
		if err != nil {
			return nil, nil, err
		}
		return m, info, nil
	case "kernel":
		m, err := loadKernelModel(ctx, path, h)
		if err != nil {
			return nil, nil, err
		}
		return m, info, nil
	default:
		return nil, nil, fmt.Errorf("%s: %w: unknown model kind %q", path, ErrModel, h.Kind)
	}
}

func loadAffine(ctx context.Context, path string, h ModelHeader) (*Affine, error) {
	r, err := arrowio.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	m := &Affine{Stage: h.Stage, FeatureList: h.FeatureList, Standardized: h.Standardized, Params: h.Params}
	axes := make([][]float64, h.Dims)
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %w: %s", path, ErrModel, fmt.Sprintf(format, a...))
	}
	for r.Next() {
		rec := r.RecordBatch()
		col := func(name string) (arrow.Array, error) {
			idx := rec.Schema().FieldIndices(name)
			if len(idx) != 1 {
				return nil, bad("column %q missing", name)
			}
			return rec.Column(idx[0]), nil
		}
		fa, err := col("feature")
		if err != nil {
			return nil, err
		}
		names, ok := fa.(*array.String)
		if !ok || names.NullN() > 0 {
			return nil, bad("column \"feature\" must be non-null text")
		}
		for i := range names.Len() {
			m.Features = append(m.Features, names.Value(i))
		}
		floats := func(name string, dst *[]float64) error {
			a, err := col(name)
			if err != nil {
				return err
			}
			fa, ok := a.(*array.Float64)
			if !ok || fa.NullN() > 0 {
				return bad("column %q must be non-null float64", name)
			}
			for _, v := range fa.Float64Values() {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return bad("column %q holds %v", name, v)
				}
			}
			*dst = append(*dst, fa.Float64Values()...)
			return nil
		}
		for _, c := range []struct {
			name string
			dst  *[]float64
		}{{"mean", &m.Mean}, {"scale", &m.Scale}, {"origin", &m.Origin}} {
			if err := floats(c.name, c.dst); err != nil {
				return nil, err
			}
		}
		for j := range h.Dims {
			if err := floats(fmt.Sprintf("axis_%d", j), &axes[j]); err != nil {
				return nil, err
			}
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	D := len(m.Features)
	if D == 0 || D != h.Features || h.Dims < 1 {
		return nil, bad("header says %d features and %d dims, the table has %d rows", h.Features, h.Dims, D)
	}
	m.Axes = mat.NewDense(D, h.Dims, nil)
	for j := range h.Dims {
		for f := range D {
			m.Axes.Set(f, j, axes[j][f])
		}
	}
	if err := m.prepare(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// IsModelError reports whether err is about a bad or unsupported model file.
func IsModelError(err error) bool {
	return errors.Is(err, ErrModel) || errors.Is(err, ErrModelFormat)
}
