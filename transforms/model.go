package transforms

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/table"
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
	Kind         string         `json:"kind"` // a registered ModelKind: "affine", "kernel", "placement"
	Stage        string         `json:"stage"`
	Dims         int            `json:"dims"`
	Features     int            `json:"features"`
	FeatureList  string         `json:"feature_list,omitempty"`
	Standardized bool           `json:"standardized"`
	Params       map[string]any `json:"params,omitempty"`
}

// Model places new rows in a fitted embedding. Each kind of model lives
// with the methods that fit it and registers how it is read (ModelKind);
// the contract knows only this interface. A host places rows with package
// apply, which also uses the optional capabilities a model may have (see
// apply's doc: columns, labels, distances, placement settings).
type Model interface {
	// Header describes the model (kind, stage, dims, inputs, parameters).
	Header() ModelHeader
	// InputFeatures are the feature columns Transform expects, in order
	// (nil for a model that places objects by their distances). When
	// Header().FeatureList is set they are the elements of that list
	// column.
	InputFeatures() []string
	// Transform maps the n×D row-major x (raw features, in InputFeatures
	// order) to the n×d row-major dst, on up to threads goroutines (≤ 0:
	// all cores). A row's result depends on the model and that row alone.
	// A row that cannot be placed fails the call with an *ItemError naming
	// it. It is safe for concurrent use.
	Transform(ctx context.Context, dst, x []float64, n, threads int) error
	// Record is the model's table: one row per feature or reference row,
	// as the model's kind lays it out. WriteModel adds the header.
	Record(mem memory.Allocator) (arrow.RecordBatch, error)
	// Check refuses a model with a NaN or ±Inf (or a scale that is not
	// positive) with a *DataError naming the model column and row
	// (ModelValueError): such a model would place rows wrongly, so it is
	// never written.
	Check() error
}

// ItemError is the failure of one row (or object) of a Transform call, by
// its index in the call. Hosts name the row of the input it came from.
type ItemError struct {
	Item int
	Err  error
}

func (e *ItemError) Error() string { return fmt.Sprintf("item %d: %v", e.Item, e.Err) }
func (e *ItemError) Unwrap() error { return e.Err }

// LargeModelBytes is the model size above which writing or loading one is
// a warning: a model that keeps its reference rows grows with them.
const LargeModelBytes = 1 << 30

// sizer is a model that knows its size in memory (one that keeps its
// reference rows).
type sizer interface{ SizeBytes() int64 }

// WriteModel writes m as the output table of role (kind table.Model), with
// its header and the run's provenance. A model with a non-finite value is
// refused (Model.Check) and not written.
func (env *Env) WriteModel(ctx context.Context, role string, m Model) error {
	if err := m.Check(); err != nil {
		return err
	}
	h := m.Header()
	if s, ok := m.(sizer); ok && s.SizeBytes() > LargeModelBytes {
		env.Warn("the %s model takes %.1f GB; apply loads all of it (fit on a sample to make it smaller)",
			h.Stage, float64(s.SizeBytes())/1e9)
	}
	rec, err := m.Record(env.Mem)
	if err != nil {
		return err
	}
	defer rec.Release()
	h.Format, h.Version = ModelFormat, ModelVersion
	hdr, err := json.Marshal(h)
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

// ReadModel reads the model table of role (written by WriteModel, or by
// --model-out of a fitting stage) with the kind registered for it, and
// records it as an input of the run. It returns the model and the
// provenance of the run that fitted it (nil when the table carries none).
// A table that is not a model, a model of another format version or of a
// kind no imported package registers is refused with an error wrapping
// ErrModel or ErrModelFormat (both ErrInvalidData).
func (env *Env) ReadModel(ctx context.Context, role string) (Model, *arrowio.Provenance, error) {
	r, err := env.Open(ctx, role)
	if err != nil {
		return nil, nil, err
	}
	defer r.Release()
	cr := &rowCounter{Reader: r}
	m, err := LoadModel(cr)
	if err != nil {
		return nil, nil, err
	}
	if s, ok := m.(sizer); ok && s.SizeBytes() > LargeModelBytes {
		env.Warn("%s: the %s model takes %.1f GB in memory", r.Source().Path, m.Header().Stage, float64(s.SizeBytes())/1e9)
	}
	prov := TableProvenance(r.Schema())
	env.Input(role, r.Source(), cr.rows, 0, prov)
	return m, prov, nil
}

// WriteModelFile writes m to the model file at path outside a stage run
// (a Go program that fitted or changed a model itself), atomically, with
// prov as its provenance when not nil. A stage writes its model with
// WriteModel instead, which records the run.
func WriteModelFile(ctx context.Context, path string, m Model, prov *arrowio.Provenance) error {
	env := &Env{Tables: &FileTables{Paths: map[string]string{"model-out": path}}}
	env.defaults()
	env.info = Info{Outputs: []Role{{Name: "model-out", Kind: table.Model}}}
	env.Prov = prov
	if env.Prov == nil {
		env.Prov = &arrowio.Provenance{Tool: "ordinate", Version: env.Version, Stage: m.Header().Stage}
	}
	if env.Prov.Figures == nil {
		env.Prov.Figures = map[string]any{}
	}
	return env.WriteModel(ctx, "model-out", m)
}

// ReadModelFile reads the model file at path (any registered kind), and
// the provenance of the run that wrote it (nil when it carries none).
func ReadModelFile(ctx context.Context, path string) (Model, *arrowio.Provenance, error) {
	r, err := arrowio.Open(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	defer r.Release()
	m, err := LoadModel(r)
	if err != nil {
		return nil, nil, err
	}
	return m, TableProvenance(r.Schema()), nil
}

// rowCounter counts the rows a model's loader reads.
type rowCounter struct {
	arrowio.Reader
	rows int64
}

func (c *rowCounter) Next() bool {
	if !c.Reader.Next() {
		return false
	}
	c.rows += c.Reader.RecordBatch().NumRows()
	return true
}

// LoadModel reads a model from r: the header from the schema metadata, the
// body with the registered kind's Load.
func LoadModel(r arrowio.Reader) (Model, error) {
	path := r.Source().Path
	md := r.Schema().Metadata()
	i := md.FindKey(ModelMetadataKey)
	if i < 0 {
		return nil, fmt.Errorf("%s: %w: no %q key in the table metadata; is this a model written by a stage's model-out?", path, ErrModel, ModelMetadataKey)
	}
	var h ModelHeader
	if err := json.Unmarshal([]byte(md.Values()[i]), &h); err != nil {
		return nil, fmt.Errorf("%s: %w: model header is not valid JSON: %v", path, ErrModel, err)
	}
	if h.Format != ModelFormat {
		return nil, fmt.Errorf("%s: %w: format %q, want %q", path, ErrModel, h.Format, ModelFormat)
	}
	if h.Version != ModelVersion {
		return nil, fmt.Errorf("%s: %w: the model has format version %d; this ordinate reads version %d (use the ordinate version that wrote it, or fit the model again)",
			path, ErrModelFormat, h.Version, ModelVersion)
	}
	k, ok := lookupModel(h.Kind, h.Stage)
	if !ok {
		return nil, fmt.Errorf("%s: %w: unknown model kind %q of stage %q (a program that reads it must import the package that registers it; the CLI knows every kind)", path, ErrModel, h.Kind, h.Stage)
	}
	return k.Load(r, h)
}

// ModelValueError is the error of Model.Check for a bad value of a model:
// a *DataError naming the model (matrix "<stage> model"), its column and
// row, and what the value is.
func ModelValueError(stage, column string, row int, what string, v float64) error {
	return &DataError{Matrix: stage + " model", Column: column, Row: int64(row),
		Err: fmt.Errorf("%w: %s is %g; the fit overflowed and the model is not written (rescale the features, or standardise them)", arrowio.ErrInvalidValue, what, v)}
}

// CheckScaling is Model.Check for a model's standardisation: every mean
// finite and every scale finite and positive.
func CheckScaling(stage string, s *Scaling) error {
	for f, name := range s.Names {
		if v := s.Mean[f]; math.IsNaN(v) || math.IsInf(v, 0) {
			return ModelValueError(stage, "mean", f, fmt.Sprintf("the mean of feature %q", name), v)
		}
		if v := s.Scale[f]; math.IsNaN(v) || math.IsInf(v, 0) || !(v > 0) {
			return ModelValueError(stage, "scale", f, fmt.Sprintf("the scale of feature %q", name), v)
		}
	}
	return nil
}

// ModelFile is how a model kind's Load reads a model table: its path for
// messages, and the columns of one batch by name, as non-null finite
// float64 values.
type ModelFile struct {
	Path string
}

// Errorf is an error about a damaged model file: it wraps ErrModel and
// names the file.
func (f ModelFile) Errorf(format string, a ...any) error {
	return fmt.Errorf("%s: %w: %s", f.Path, ErrModel, fmt.Sprintf(format, a...))
}

// Column returns the column name of rec, or an error when it is missing.
func (f ModelFile) Column(rec arrow.RecordBatch, name string) (arrow.Array, error) {
	idx := rec.Schema().FieldIndices(name)
	if len(idx) != 1 {
		return nil, f.Errorf("column %q missing", name)
	}
	return rec.Column(idx[0]), nil
}

// Floats returns the values of column name of rec, which must be
// non-null, finite float64.
func (f ModelFile) Floats(rec arrow.RecordBatch, name string) ([]float64, error) {
	a, err := f.Column(rec, name)
	if err != nil {
		return nil, err
	}
	fa, ok := a.(*array.Float64)
	if !ok || fa.NullN() > 0 {
		return nil, f.Errorf("column %q must be non-null float64", name)
	}
	for _, v := range fa.Float64Values() {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, f.Errorf("column %q holds %v", name, v)
		}
	}
	return fa.Float64Values(), nil
}

// Params decodes the header's params into dst (a struct with JSON tags).
func (f ModelFile) Params(h ModelHeader, dst any) error {
	raw, err := json.Marshal(h.Params)
	if err == nil {
		err = json.Unmarshal(raw, dst)
	}
	if err != nil {
		return f.Errorf("header parameters: %v", err)
	}
	return nil
}

// Int32s returns the values of column name of rec, which must be
// non-null int32.
func (f ModelFile) Int32s(rec arrow.RecordBatch, name string) ([]int32, error) {
	a, err := f.Column(rec, name)
	if err != nil {
		return nil, err
	}
	ia, ok := a.(*array.Int32)
	if !ok || ia.NullN() > 0 {
		return nil, f.Errorf("column %q must be non-null int32", name)
	}
	return ia.Int32Values(), nil
}

// JoinIDs is the id columns of a model's batches as one array (the caller
// keeps its references to the parts).
func (f ModelFile) JoinIDs(ids []arrow.Array) (arrow.Array, error) {
	if len(ids) == 1 {
		ids[0].Retain()
		return ids[0], nil
	}
	a, err := array.Concatenate(ids, memory.DefaultAllocator)
	if err != nil {
		return nil, f.Errorf("ids: %v", err)
	}
	return a, nil
}

// CheckScaling refuses a standardisation read from a model header whose
// names, means and scales disagree in length or hold a bad value.
func (f ModelFile) CheckScaling(names []string, mean, scale []float64) error {
	if len(mean) != len(names) || len(scale) != len(names) {
		return f.Errorf("header has %d feature names, %d means and %d scales", len(names), len(mean), len(scale))
	}
	for j, s := range scale {
		if !(s > 0) || math.IsInf(s, 1) || math.IsNaN(mean[j]) || math.IsInf(mean[j], 0) {
			return f.Errorf("feature %q has mean %g and scale %g", names[j], mean[j], s)
		}
	}
	return nil
}

// Float64Fields are the float64 fields prefix0 … prefix{n−1} of a model
// table.
func Float64Fields(prefix string, n int) []arrow.Field {
	f := make([]arrow.Field, n)
	for j := range f {
		f[j] = arrow.Field{Name: fmt.Sprintf("%s%d", prefix, j), Type: arrow.PrimitiveTypes.Float64}
	}
	return f
}
