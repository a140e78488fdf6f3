package transforms

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
)

// KernelModel is the model of a kernel stage (cKPCA with a non-linear
// kernel, or any kernel with landmarks): after standardising x,
//
//	f_s(x) = Σⱼ α_js · k(rⱼ, x)
//
// over the reference rows rⱼ (training rows or landmarks, standardised).
// Its file holds one row per reference row (columns ref_0 … and alpha_0 …);
// the feature names, means, scales and the kernel are in the header.
type KernelModel struct {
	Stage        string
	Scaling      *Scaling
	FeatureList  string
	Standardized bool
	Kernel       kernels.Kernel
	Ref          *mat.Dense // r×D, standardised
	Alpha        *mat.Dense // r×d
	Params       map[string]any
}

// Dims is the output dimension d.
func (m *KernelModel) Dims() int { _, d := m.Alpha.Dims(); return d }

// InputFeatures implements Model.
func (m *KernelModel) InputFeatures() []string { return m.Scaling.Names }

// Header implements Model.
func (m *KernelModel) Header() ModelHeader {
	p := map[string]any{}
	for k, v := range m.Params {
		p[k] = v
	}
	p["feature_names"] = m.Scaling.Names
	p["mean"] = m.Scaling.Mean
	p["scale"] = m.Scaling.Scale
	p["kernel_spec"] = m.Kernel
	return ModelHeader{
		Format: ModelFormat, Version: ModelVersion, Kind: "kernel", Stage: m.Stage,
		Dims: m.Dims(), Features: len(m.Scaling.Names), FeatureList: m.FeatureList,
		Standardized: m.Standardized, Params: p,
	}
}

// Transform implements Model.
func (m *KernelModel) Transform(dst, x []float64, n int) []float64 {
	D, d := len(m.Scaling.Names), m.Dims()
	if dst == nil {
		dst = make([]float64, n*d)
	}
	if len(x) != n*D || len(dst) != n*d {
		panic(fmt.Sprintf("transforms: KernelModel.Transform: x has %d values and dst %d for n=%d, D=%d, d=%d", len(x), len(dst), n, D, d))
	}
	r, _ := m.Ref.Dims()
	z := make([]float64, D)
	for i := range n {
		for j := range D {
			z[j] = standardized(x[i*D+j], m.Scaling.Mean[j], m.Scaling.Scale[j])
		}
		out := dst[i*d : (i+1)*d]
		clear(out)
		for q := range r {
			kv := m.Kernel.Eval(m.Ref.RawRowView(q), z)
			for s, a := range m.Alpha.RawRowView(q) {
				out[s] += kv * a
			}
		}
	}
	return dst
}

func kernelRecord(mem memory.Allocator, m *KernelModel) arrow.RecordBatch {
	_, D := m.Ref.Dims()
	d := m.Dims()
	fields := float64Columns("ref_", D)
	fields = append(fields, float64Columns("alpha_", d)...)
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for j := range D {
		b.Field(j).(*array.Float64Builder).AppendValues(mat.Col(nil, j, m.Ref), nil)
	}
	for s := range d {
		b.Field(D+s).(*array.Float64Builder).AppendValues(mat.Col(nil, s, m.Alpha), nil)
	}
	return b.NewRecordBatch()
}

func float64Columns(prefix string, n int) []arrow.Field {
	f := make([]arrow.Field, n)
	for j := range f {
		f[j] = arrow.Field{Name: fmt.Sprintf("%s%d", prefix, j), Type: arrow.PrimitiveTypes.Float64}
	}
	return f
}

// loadKernelModel reads the body of a kernel model from rd.
func loadKernelModel(rd arrowio.Reader, h ModelHeader) (*KernelModel, error) {
	path := rd.Source().Path
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %w: %s", path, ErrModel, fmt.Sprintf(format, a...))
	}
	var spec struct {
		Names  []string       `json:"feature_names"`
		Mean   []float64      `json:"mean"`
		Scale  []float64      `json:"scale"`
		Kernel kernels.Kernel `json:"kernel_spec"`
	}
	raw, err := json.Marshal(h.Params)
	if err != nil {
		return nil, bad("header parameters: %v", err)
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil, bad("header parameters: %v", err)
	}
	D := len(spec.Names)
	if D == 0 || D != h.Features || len(spec.Mean) != D || len(spec.Scale) != D || h.Dims < 1 {
		return nil, bad("header has %d feature names, %d means, %d scales for %d features and %d dims", D, len(spec.Mean), len(spec.Scale), h.Features, h.Dims)
	}
	for j, s := range spec.Scale {
		if !(s > 0) || math.IsInf(s, 1) || math.IsNaN(spec.Mean[j]) || math.IsInf(spec.Mean[j], 0) {
			return nil, bad("feature %q has mean %g and scale %g", spec.Names[j], spec.Mean[j], s)
		}
	}
	switch spec.Kernel.Kind {
	case "linear", "rbf", "poly", "cosine":
	default:
		return nil, bad("unknown kernel %q", spec.Kernel.Kind)
	}
	cols := make([][]float64, D+h.Dims)
	for rd.Next() {
		rec := rd.RecordBatch()
		for c := range cols {
			name := fmt.Sprintf("ref_%d", c)
			if c >= D {
				name = fmt.Sprintf("alpha_%d", c-D)
			}
			idx := rec.Schema().FieldIndices(name)
			if len(idx) != 1 {
				return nil, bad("column %q missing", name)
			}
			vals, err := modelFloats(rec.Column(idx[0]), name, bad)
			if err != nil {
				return nil, err
			}
			cols[c] = append(cols[c], vals...)
		}
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	r := len(cols[0])
	if r == 0 {
		return nil, bad("no reference rows")
	}
	ref, alpha := mat.NewDense(r, D, nil), mat.NewDense(r, h.Dims, nil)
	for c, v := range cols {
		if c < D {
			ref.SetCol(c, v)
		} else {
			alpha.SetCol(c-D, v)
		}
	}
	cols2 := make([]int, D)
	for j := range cols2 {
		cols2[j] = j
	}
	return &KernelModel{
		Stage: h.Stage, FeatureList: h.FeatureList, Standardized: h.Standardized, Kernel: spec.Kernel,
		Scaling: &Scaling{Names: spec.Names, Cols: cols2, Mean: spec.Mean, Scale: spec.Scale},
		Ref:     ref, Alpha: alpha, Params: h.Params,
	}, nil
}
