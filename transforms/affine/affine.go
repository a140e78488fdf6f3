package affine

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// Kind is the model kind of affine maps, for any stage.
const Kind = "affine"

func init() {
	transforms.RegisterModel(transforms.ModelKind{
		Kind: Kind,
		Doc:  "an affine map y = ((x − mean) ⊘ scale − origin)·axes of the input features, in closed form (bvp, pca, lda, linear ckpca and lsp)",
		Load: load,
	})
}

// Model is an affine map: y = ((x − Mean) ⊘ Scale − Origin)·Axes.
type Model struct {
	Stage        string
	Features     []string // input features in column order of Axes' rows
	FeatureList  string   // list column the features come from, or ""
	Standardized bool
	Mean, Scale  []float64
	Origin       []float64
	Axes         *mat.Dense // D×d
	Params       map[string]any

	// y = x·w − b with w = Axes ⊘ Scale (row-wise) and b = (Mean ⊘ Scale + Origin)·Axes,
	// so that Transform is one pass over x.
	w []float64 // D×d row-major
	b []float64 // d
}

// New builds the model from a fitted scaling, the stage's origin (in the
// standardised space) and its D×d axes. It panics when their sizes
// disagree or a scale is not positive (a programmer error; Check refuses
// non-finite values).
func New(stage string, s *transforms.Scaling, featureList string, standardized bool, origin []float64, axes *mat.Dense, params map[string]any) *Model {
	m := &Model{
		Stage: stage, Features: s.Names, FeatureList: featureList, Standardized: standardized,
		Mean: s.Mean, Scale: s.Scale, Origin: origin, Axes: axes, Params: params,
	}
	if err := m.prepare(); err != nil {
		panic(err)
	}
	return m
}

func (m *Model) prepare() error {
	D := len(m.Features)
	r, d := m.Axes.Dims()
	if r != D || len(m.Mean) != D || len(m.Scale) != D || len(m.Origin) != D {
		return fmt.Errorf("%w: affine model has %d features but axes of %d rows, %d means, %d scales, %d origin values",
			transforms.ErrModel, D, r, len(m.Mean), len(m.Scale), len(m.Origin))
	}
	m.w = make([]float64, D*d)
	m.b = make([]float64, d)
	for f := range D {
		if !(m.Scale[f] > 0) {
			return fmt.Errorf("%w: feature %q has scale %g", transforms.ErrModel, m.Features[f], m.Scale[f])
		}
		shift := m.Mean[f]/m.Scale[f] + m.Origin[f]
		for j := range d {
			a := m.Axes.At(f, j)
			m.w[f*d+j] = a / m.Scale[f]
			m.b[j] += shift * a
		}
	}
	return nil
}

// Dims is the output dimension d.
func (m *Model) Dims() int { _, d := m.Axes.Dims(); return d }

// InputFeatures implements transforms.Model.
func (m *Model) InputFeatures() []string { return m.Features }

// Header implements transforms.Model.
func (m *Model) Header() transforms.ModelHeader {
	return transforms.ModelHeader{
		Format: transforms.ModelFormat, Version: transforms.ModelVersion, Kind: Kind, Stage: m.Stage,
		Dims: m.Dims(), Features: len(m.Features), FeatureList: m.FeatureList,
		Standardized: m.Standardized, Params: m.Params,
	}
}

// grain is the block of rows of one goroutine: 2 MiB of 32 float64
// features.
const grain = 8192

// Transform implements transforms.Model: one pass over x per row, rows in
// blocks on up to threads goroutines (each row's sums in the same order,
// so the same bits for any thread count).
func (m *Model) Transform(ctx context.Context, dst, x []float64, n, threads int) error {
	D, d := len(m.Features), m.Dims()
	if len(x) != n*D || len(dst) != n*d {
		panic(fmt.Sprintf("affine: Transform: x has %d values and dst %d for n=%d, D=%d, d=%d", len(x), len(dst), n, D, d))
	}
	return kernels.ParallelFor(ctx, n, threads, grain, func(lo, hi int) {
		m.rows(dst[lo*d:hi*d], x[lo*D:hi*D], hi-lo)
	})
}

// rows is Transform of n rows on one goroutine.
func (m *Model) rows(dst, x []float64, n int) {
	D, d := len(m.Features), m.Dims()
	if d == 2 {
		m.rows2(dst, x, n, D)
		return
	}
	for i := range n {
		out := dst[i*d : (i+1)*d]
		for j := range out {
			out[j] = -m.b[j]
		}
		row := x[i*D : (i+1)*D]
		for f, v := range row {
			wf := m.w[f*d : (f+1)*d]
			for j := range out {
				out[j] += v * wf[j]
			}
		}
	}
}

// rows2 is rows for two dimensions, the usual map: the two sums stay in
// registers (the general loop stores each coordinate after every
// feature), with the same operations in the same order, so the same bits.
func (m *Model) rows2(dst, x []float64, n, D int) {
	w := m.w[:2*D]
	for i := range n {
		s0, s1 := -m.b[0], -m.b[1]
		row := x[i*D : (i+1)*D]
		for f, v := range row {
			s0 += v * w[2*f]
			s1 += v * w[2*f+1]
		}
		dst[2*i], dst[2*i+1] = s0, s1
	}
}

// columnBlock is the number of rows TransformColumns sums at a time: its
// d sums per row stay in L1 while the D columns stream past.
const columnBlock = 1024

// TransformColumns is Transform on features given as D columns of at
// least n values (cols[f][i] is feature f of row i), without a row-major
// copy: each coordinate sums the same products in the same order as
// Transform, so the results are the same bits. dst holds n×d values,
// row-major. Apply uses it for batches of float64 columns without nulls.
func (m *Model) TransformColumns(ctx context.Context, dst []float64, cols [][]float64, n, threads int) error {
	D, d := len(m.Features), m.Dims()
	if len(cols) != D || len(dst) != n*d {
		panic(fmt.Sprintf("affine: TransformColumns: %d columns and %d values for n=%d, D=%d, d=%d", len(cols), len(dst), n, D, d))
	}
	for _, c := range cols {
		if len(c) < n {
			panic(fmt.Sprintf("affine: TransformColumns: a column of %d values for n=%d", len(c), n))
		}
	}
	return kernels.ParallelFor(ctx, n, threads, grain, func(lo, hi int) {
		block := make([][]float64, len(cols))
		for f, c := range cols {
			block[f] = c[lo:hi]
		}
		m.columns(dst[lo*d:hi*d], block, hi-lo)
	})
}

func (m *Model) columns(dst []float64, cols [][]float64, n int) {
	d := m.Dims()
	if d == 2 {
		m.columns2(dst, cols, n)
		return
	}
	for lo := 0; lo < n; lo += columnBlock {
		hi := min(lo+columnBlock, n)
		out := dst[lo*d : hi*d]
		for i := 0; i < len(out); i += d {
			copy(out[i:i+d], m.b)
			for j := range d {
				out[i+j] = -out[i+j]
			}
		}
		for f, c := range cols {
			wf := m.w[f*d : (f+1)*d]
			for i, v := range c[lo:hi] {
				o := out[i*d : (i+1)*d]
				for j := range o {
					o[j] += v * wf[j]
				}
			}
		}
	}
}

// columns2 is columns for two dimensions, with the two sums of a block in
// separate arrays (contiguous updates).
func (m *Model) columns2(dst []float64, cols [][]float64, n int) {
	var s0, s1 [columnBlock]float64
	for lo := 0; lo < n; lo += columnBlock {
		hi := min(lo+columnBlock, n)
		a, b := s0[:hi-lo], s1[:hi-lo]
		for i := range a {
			a[i], b[i] = -m.b[0], -m.b[1]
		}
		for f, c := range cols {
			w0, w1 := m.w[2*f], m.w[2*f+1]
			for i, v := range c[lo:hi] {
				a[i] += v * w0
				b[i] += v * w1
			}
		}
		out := dst[2*lo : 2*hi]
		for i := range a {
			out[2*i], out[2*i+1] = a[i], b[i]
		}
	}
}

// Check implements transforms.Model: every mean, scale, origin and axis
// value finite, every scale positive.
func (m *Model) Check() error {
	s := &transforms.Scaling{Names: m.Features, Mean: m.Mean, Scale: m.Scale}
	if err := transforms.CheckScaling(m.Stage, s); err != nil {
		return err
	}
	for f, v := range m.Origin {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return transforms.ModelValueError(m.Stage, "origin", f, fmt.Sprintf("the origin of feature %q", m.Features[f]), v)
		}
	}
	r, c := m.Axes.Dims()
	for i := range r {
		for j := range c {
			if v := m.Axes.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return transforms.ModelValueError(m.Stage, fmt.Sprintf("axis_%d", j), i, fmt.Sprintf("axis row %d, column %d", i, j), v)
			}
		}
	}
	return nil
}

// Record implements transforms.Model: one row per input feature (feature,
// mean, scale, origin, axis_0 …).
func (m *Model) Record(mem memory.Allocator) (arrow.RecordBatch, error) {
	D, d := len(m.Features), m.Dims()
	fields := []arrow.Field{{Name: "feature", Type: arrow.BinaryTypes.String}}
	fields = append(fields, arrow.Field{Name: "mean", Type: arrow.PrimitiveTypes.Float64},
		arrow.Field{Name: "scale", Type: arrow.PrimitiveTypes.Float64},
		arrow.Field{Name: "origin", Type: arrow.PrimitiveTypes.Float64})
	fields = append(fields, transforms.Float64Fields("axis_", d)...)
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
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
	return b.NewRecordBatch(), nil
}

// load reads the body of an affine model from r.
func load(r arrowio.Reader, h transforms.ModelHeader) (transforms.Model, error) {
	file := transforms.ModelFile{Path: r.Source().Path}
	m := &Model{Stage: h.Stage, FeatureList: h.FeatureList, Standardized: h.Standardized, Params: h.Params}
	if h.Dims < 1 {
		return nil, file.Errorf("header says %d dims", h.Dims)
	}
	// The header's dims must be the table's axes, before anything is
	// allocated by them.
	if err := file.CheckColumns(r.Schema(), "axis_", h.Dims, "dims"); err != nil {
		return nil, err
	}
	axes := make([][]float64, h.Dims)
	for r.Next() {
		rec := r.RecordBatch()
		fa, err := file.Column(rec, "feature")
		if err != nil {
			return nil, err
		}
		names, ok := fa.(*array.String)
		if !ok || names.NullN() > 0 {
			return nil, file.Errorf("column \"feature\" must be non-null text")
		}
		for i := range names.Len() {
			m.Features = append(m.Features, names.Value(i))
		}
		for _, c := range []struct {
			name string
			dst  *[]float64
		}{{"mean", &m.Mean}, {"scale", &m.Scale}, {"origin", &m.Origin}} {
			v, err := file.Floats(rec, c.name)
			if err != nil {
				return nil, err
			}
			*c.dst = append(*c.dst, v...)
		}
		for j := range h.Dims {
			v, err := file.Floats(rec, fmt.Sprintf("axis_%d", j))
			if err != nil {
				return nil, err
			}
			axes[j] = append(axes[j], v...)
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	D := len(m.Features)
	if D == 0 || D != h.Features {
		return nil, file.Errorf("header says %d features and %d dims, the table has %d rows", h.Features, h.Dims, D)
	}
	if err := file.CheckFeatures(r.Schema(), m.Features); err != nil {
		return nil, err
	}
	m.Axes = mat.NewDense(D, h.Dims, nil)
	for j := range h.Dims {
		for f := range D {
			m.Axes.Set(f, j, axes[j][f])
		}
	}
	if err := m.prepare(); err != nil {
		return nil, fmt.Errorf("%s: %w", file.Path, err)
	}
	return m, nil
}
