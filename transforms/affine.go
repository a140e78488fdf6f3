package transforms

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
)

// Model places new rows in a fitted embedding.
type Model interface {
	// Header describes the model (stage, dims, inputs, parameters).
	Header() ModelHeader
	// InputFeatures are the feature columns Transform expects, in order. When
	// Header().FeatureList is set they are the elements of that list column.
	InputFeatures() []string
	// Transform maps the n×D row-major x to the n×d row-major dst and returns
	// dst, allocating it when nil. It is safe for concurrent use.
	Transform(dst, x []float64, n int) []float64
}

// Affine is the model of the linear stages: y = ((x − Mean) ⊘ Scale − Origin)·Axes.
type Affine struct {
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

// NewAffine builds the model from a fitted scaling, the stage's origin (in
// the standardised space) and its D×d axes.
func NewAffine(stage string, s *Scaling, featureList string, standardized bool, origin []float64, axes *mat.Dense, params map[string]any) *Affine {
	m := &Affine{
		Stage: stage, Features: s.Names, FeatureList: featureList, Standardized: standardized,
		Mean: s.Mean, Scale: s.Scale, Origin: origin, Axes: axes, Params: params,
	}
	if err := m.prepare(); err != nil {
		panic(err)
	}
	return m
}

func (m *Affine) prepare() error {
	D := len(m.Features)
	r, d := m.Axes.Dims()
	if r != D || len(m.Mean) != D || len(m.Scale) != D || len(m.Origin) != D {
		return fmt.Errorf("%w: affine model has %d features but axes of %d rows, %d means, %d scales, %d origin values",
			ErrModel, D, r, len(m.Mean), len(m.Scale), len(m.Origin))
	}
	m.w = make([]float64, D*d)
	m.b = make([]float64, d)
	for f := range D {
		if !(m.Scale[f] > 0) {
			return fmt.Errorf("%w: feature %q has scale %g", ErrModel, m.Features[f], m.Scale[f])
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
func (m *Affine) Dims() int { _, d := m.Axes.Dims(); return d }

// InputFeatures implements Model.
func (m *Affine) InputFeatures() []string { return m.Features }

// Header implements Model.
func (m *Affine) Header() ModelHeader {
	return ModelHeader{
		Format: ModelFormat, Version: ModelVersion, Kind: "affine", Stage: m.Stage,
		Dims: m.Dims(), Features: len(m.Features), FeatureList: m.FeatureList,
		Standardized: m.Standardized, Params: m.Params,
	}
}

// Transform implements Model.
func (m *Affine) Transform(dst, x []float64, n int) []float64 {
	D, d := len(m.Features), m.Dims()
	if dst == nil {
		dst = make([]float64, n*d)
	}
	if len(x) != n*D || len(dst) != n*d {
		panic(fmt.Sprintf("transforms: Affine.Transform: x has %d values and dst %d for n=%d, D=%d, d=%d", len(x), len(dst), n, D, d))
	}
	if d == 2 {
		m.transform2(dst, x, n, D)
		return dst
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
	return dst
}

// transform2 is Transform for two dimensions, the usual map: the two sums
// stay in registers (the general loop stores each coordinate after every
// feature), with the same operations in the same order, so the same bits.
func (m *Affine) transform2(dst, x []float64, n, D int) {
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

// TransformColumns is Transform on features given as D columns of n values
// (cols[f][i] is feature f of row i), without the row-major copy: each
// coordinate sums the same products in the same order as Transform, so the
// results are the same bits. dst holds n×d values, row-major.
func (m *Affine) TransformColumns(dst []float64, cols [][]float64, n int) {
	D, d := len(m.Features), m.Dims()
	if len(cols) != D || len(dst) != n*d {
		panic(fmt.Sprintf("transforms: Affine.TransformColumns: %d columns and %d values for n=%d, D=%d, d=%d", len(cols), len(dst), n, D, d))
	}
	for _, c := range cols {
		if len(c) < n {
			panic(fmt.Sprintf("transforms: Affine.TransformColumns: a column of %d values for n=%d", len(c), n))
		}
	}
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

// columns2 is TransformColumns for two dimensions, with the two sums of a
// block in separate arrays (contiguous updates).
func (m *Affine) columns2(dst []float64, cols [][]float64, n int) {
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

// CheckEmbedding refuses an f.N×d row-major embedding with a NaN or ±Inf,
// with a *DataError naming the file, the embedding column, the row and its
// id: an output never holds a non-finite coordinate.
func CheckEmbedding(f *arrowio.Frame, emb []float64, d int) error {
	for p, v := range emb {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			i := p / d
			return &DataError{File: f.Source.Path, Column: fmt.Sprintf("emb_%d", p%d), Row: frameRow(f, i), ID: frameID(f, i),
				Err: fmt.Errorf("%w: the row's coordinate is %g (overflow in placing it); no output was written", arrowio.ErrInvalidValue, v)}
		}
	}
	return nil
}

// WriteLinear finishes a linear stage fitted on ft: it builds the affine
// model from the stage's origin and D×d axes (in ft's standardised space),
// places the training rows with it exactly as apply places new rows (the
// model reads the raw kept features), writes the embedding as role "out"
// and, when the host asks for it, the model as role "model-out". It
// returns the model.
func (env *Env) WriteLinear(ctx context.Context, stage string, ft *FeatureTable, standardized bool, origin []float64, axes *mat.Dense, params map[string]any) (*Affine, error) {
	m := NewAffine(stage, ft.Scaling, ft.FeatureList, standardized, origin, axes, params)
	// A model with a non-finite value is refused before the rows are
	// placed with it; WriteEmbedding and WriteModel check what they write.
	if err := CheckModel(m); err != nil {
		return nil, err
	}
	d := m.Dims()
	env.Progress.Start("placing", int64(ft.N))
	emb := m.Transform(nil, ft.Scaling.Select(nil, ft.X, ft.N, ft.D), ft.N)
	env.Progress.Add(int64(ft.N))
	env.Progress.Finish()
	if err := env.WriteEmbedding(ctx, "out", ft.Frame, emb, d); err != nil {
		return nil, err
	}
	if env.Has("model-out") {
		if err := env.WriteModel(ctx, "model-out", m); err != nil {
			return nil, err
		}
	}
	env.Log.Info(stage, "rows", ft.N, "features", ft.K(), "dims", d)
	return m, nil
}
