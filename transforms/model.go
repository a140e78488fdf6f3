package transforms

import (
	"context"
	"encoding/json"
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
	Kind         string         `json:"kind"` // "affine", "kernel" or "placement"
	Stage        string         `json:"stage"`
	Dims         int            `json:"dims"`
	Features     int            `json:"features"`
	FeatureList  string         `json:"feature_list,omitempty"`
	Standardized bool           `json:"standardized"`
	Params       map[string]any `json:"params,omitempty"`
}

// WriteModel writes m (an *Affine or a *KernelModel) as the output table of
// role (kind table.Model), with its header and the run's provenance. A
// model with a non-finite value is refused (CheckModel) and not written.
func (env *Env) WriteModel(ctx context.Context, role string, m Model) error {
	if err := CheckModel(m); err != nil {
		return err
	}
	if p, ok := m.(*Placement); ok && p.SizeBytes() > LargeModelBytes {
		env.Warn("the %s model holds all %d reference rows and takes %.1f GB; apply loads all of it (fit on a sample to make it smaller)",
			p.Stage, p.N(), float64(p.SizeBytes())/1e9)
	}
	rec, err := modelRecord(env.Mem, m)
	if err != nil {
		return err
	}
	defer rec.Release()
	hdr, err := json.Marshal(m.Header())
	if err != nil {
		return fmt.Errorf("transforms: encoding model header: %w", err)
	}
	w, err := env.Create(ctx, role, rec.Schema())
	if err != nil {
		return err
	}
	defer w.Abort()
	w.SetMetadata(ModelMetadataKey, string(hdr))
	if err := w.Write(rec); err != nil {
		return err
	}
	return env.Close(role, w)
}

// CheckModel refuses a fitted model that holds a NaN or ±Inf (a mean,
// scale, origin, axis, reference row or coefficient) or a scale that is not
// positive, with a *DataError (ErrInvalidData) naming the model column and
// the feature or reference row: such a model would place rows wrongly, or
// be refused by apply, so it is never written.
func CheckModel(m Model) error {
	bad := func(column string, row int, what string, v float64) error {
		return &DataError{Matrix: m.Header().Stage + " model", Column: column, Row: int64(row),
			Err: fmt.Errorf("%w: %s is %g; the fit overflowed and the model is not written (rescale the features, or standardise them)", arrowio.ErrInvalidValue, what, v)}
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	scales := func(names []string, mean, scale []float64) error {
		for f, name := range names {
			if !finite(mean[f]) {
				return bad("mean", f, fmt.Sprintf("the mean of feature %q", name), mean[f])
			}
			if !finite(scale[f]) || !(scale[f] > 0) {
				return bad("scale", f, fmt.Sprintf("the scale of feature %q", name), scale[f])
			}
		}
		return nil
	}
	dense := func(prefix string, a *mat.Dense, what string) error {
		r, c := a.Dims()
		for i := range r {
			for j := range c {
				if v := a.At(i, j); !finite(v) {
					return bad(fmt.Sprintf("%s%d", prefix, j), i, fmt.Sprintf("%s %d, column %d", what, i, j), v)
				}
			}
		}
		return nil
	}
	switch m := m.(type) {
	case *Affine:
		if err := scales(m.Features, m.Mean, m.Scale); err != nil {
			return err
		}
		for f, v := range m.Origin {
			if !finite(v) {
				return bad("origin", f, fmt.Sprintf("the origin of feature %q", m.Features[f]), v)
			}
		}
		return dense("axis_", m.Axes, "axis row")
	case *KernelModel:
		if err := scales(m.Scaling.Names, m.Scaling.Mean, m.Scaling.Scale); err != nil {
			return err
		}
		if err := dense("ref_", m.Ref, "reference row"); err != nil {
			return err
		}
		return dense("alpha_", m.Alpha, "coefficient row")
	case *Placement:
		if m.Scaling != nil {
			if err := scales(m.Scaling.Names, m.Scaling.Mean, m.Scaling.Scale); err != nil {
				return err
			}
		}
		return checkPlacement(m, bad)
	}
	return nil
}

// modelRecord is the table of a model: one row per input feature for an
// affine model, one per reference row for a kernel model.
func modelRecord(mem memory.Allocator, m Model) (arrow.RecordBatch, error) {
	switch m := m.(type) {
	case *Affine:
		return affineRecord(mem, m), nil
	case *KernelModel:
		return kernelRecord(mem, m), nil
	case *Placement:
		return placementRecord(mem, m), nil
	}
	panic(fmt.Sprintf("transforms: unsupported model %T", m))
}

func affineRecord(mem memory.Allocator, m *Affine) arrow.RecordBatch {
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
	return b.NewRecordBatch()
}

// ReadModel reads the model table of role (written by WriteModel, or by
// --model-out of a fitting stage) and records it as an input of the run. It
// returns the model and the provenance of the run that fitted it (nil when
// the table carries none). A table that is not a model, or a model of
// another format version, is refused with an error wrapping ErrModel or
// ErrModelFormat (both ErrInvalidData).
func (env *Env) ReadModel(ctx context.Context, role string) (Model, *arrowio.Provenance, error) {
	r, err := env.Open(ctx, role)
	if err != nil {
		return nil, nil, err
	}
	defer r.Release()
	m, rows, err := readModel(r)
	if err != nil {
		return nil, nil, err
	}
	if p, ok := m.(*Placement); ok && p.SizeBytes() > LargeModelBytes {
		env.Warn("%s: the %s model holds %d reference rows and takes %.1f GB in memory", r.Source().Path, p.Stage, p.N(), float64(p.SizeBytes())/1e9)
	}
	prov := TableProvenance(r.Schema())
	env.Input(role, r.Source(), rows, 0, prov)
	return m, prov, nil
}

// readModel reads a model from r: the header from the schema metadata, the
// body from its batches. It returns the model and the rows read.
func readModel(r arrowio.Reader) (Model, int64, error) {
	path := r.Source().Path
	md := r.Schema().Metadata()
	i := md.FindKey(ModelMetadataKey)
	if i < 0 {
		return nil, 0, fmt.Errorf("%s: %w: no %q key in the table metadata; is this a model written by a stage's model-out?", path, ErrModel, ModelMetadataKey)
	}
	var h ModelHeader
	if err := json.Unmarshal([]byte(md.Values()[i]), &h); err != nil {
		return nil, 0, fmt.Errorf("%s: %w: model header is not valid JSON: %v", path, ErrModel, err)
	}
	if h.Format != ModelFormat {
		return nil, 0, fmt.Errorf("%s: %w: format %q, want %q", path, ErrModel, h.Format, ModelFormat)
	}
	if h.Version != ModelVersion {
		return nil, 0, fmt.Errorf("%s: %w: the model has format version %d; this ordinate reads version %d (use the ordinate version that wrote it, or fit the model again)",
			path, ErrModelFormat, h.Version, ModelVersion)
	}
	switch h.Kind {
	case "affine":
		m, err := loadAffine(r, h)
		if err != nil {
			return nil, 0, err
		}
		return m, int64(len(m.Features)), nil // one row per feature
	case "kernel":
		m, err := loadKernelModel(r, h)
		if err != nil {
			return nil, 0, err
		}
		rows, _ := m.Ref.Dims() // one row per reference row
		return m, int64(rows), nil
	case "placement":
		m, err := loadPlacement(r, h)
		if err != nil {
			return nil, 0, err
		}
		return m, int64(m.N()), nil // one row per reference row
	}
	return nil, 0, fmt.Errorf("%s: %w: unknown model kind %q", path, ErrModel, h.Kind)
}

// loadAffine reads the body of an affine model from r.
func loadAffine(r arrowio.Reader, h ModelHeader) (*Affine, error) {
	path := r.Source().Path
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
			vals, err := modelFloats(a, name, bad)
			*dst = append(*dst, vals...)
			return err
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

// modelFloats returns the values of column name of a model table, which
// must be non-null, finite float64; bad formats the error.
func modelFloats(a arrow.Array, name string, bad func(format string, a ...any) error) ([]float64, error) {
	fa, ok := a.(*array.Float64)
	if !ok || fa.NullN() > 0 {
		return nil, bad("column %q must be non-null float64", name)
	}
	for _, v := range fa.Float64Values() {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, bad("column %q holds %v", name, v)
		}
	}
	return fa.Float64Values(), nil
}
