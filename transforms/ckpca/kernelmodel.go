package ckpca

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
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// ModelKind is the model kind of a non-linear cKPCA map.
const ModelKind = "kernel"

func init() {
	transforms.RegisterModel(transforms.ModelKind{
		Kind: ModelKind,
		Doc:  "a kernel expansion f(x) = Σⱼ αⱼ·k(rⱼ, x) over reference rows (training rows or landmarks) of the standardised features, in closed form (ckpca with a non-linear kernel, or landmarks)",
		Load: loadKernelModel,
	})
}

// KernelModel is the model of cKPCA with a non-linear kernel, or any kernel
// with landmarks: after standardising x,
//
//	f_s(x) = Σⱼ α_js · k(rⱼ, x)
//
// over the reference rows rⱼ (training rows or landmarks, standardised).
// Its file holds one row per reference row (columns ref_0 … and alpha_0 …);
// the feature names, means, scales and the kernel are in the header.
type KernelModel struct {
	Stage        string
	Scaling      *transforms.Scaling
	FeatureList  string
	Standardized bool
	Kernel       kernels.Kernel
	Ref          *mat.Dense // r×D, standardised
	Alpha        *mat.Dense // r×d
	Params       map[string]any
}

// Dims is the output dimension d.
func (m *KernelModel) Dims() int { _, d := m.Alpha.Dims(); return d }

// InputFeatures implements transforms.Model.
func (m *KernelModel) InputFeatures() []string { return m.Scaling.Names }

// Header implements transforms.Model.
func (m *KernelModel) Header() transforms.ModelHeader {
	p := map[string]any{}
	for k, v := range m.Params {
		p[k] = v
	}
	p["feature_names"] = m.Scaling.Names
	p["mean"] = m.Scaling.Mean
	p["scale"] = m.Scaling.Scale
	p["kernel_spec"] = m.Kernel
	return transforms.ModelHeader{
		Format: transforms.ModelFormat, Version: transforms.ModelVersion, Kind: ModelKind, Stage: m.Stage,
		Dims: m.Dims(), Features: len(m.Scaling.Names), FeatureList: m.FeatureList,
		Standardized: m.Standardized, Params: p,
	}
}

// kernelGrain is the block of rows of one goroutine: each row costs r
// kernel evaluations.
const kernelGrain = 256

// Transform implements transforms.Model.
func (m *KernelModel) Transform(ctx context.Context, dst, x []float64, n, threads int) error {
	D, d := len(m.Scaling.Names), m.Dims()
	if len(x) != n*D || len(dst) != n*d {
		panic(fmt.Sprintf("ckpca: KernelModel.Transform: x has %d values and dst %d for n=%d, D=%d, d=%d", len(x), len(dst), n, D, d))
	}
	r, _ := m.Ref.Dims()
	return kernels.ParallelFor(ctx, n, threads, kernelGrain, func(lo, hi int) {
		z := make([]float64, D)
		for i := lo; i < hi; i++ {
			for j := range D {
				z[j] = m.Scaling.Standardize(j, x[i*D+j])
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
	})
}

// Check implements transforms.Model: the standardisation, every reference
// value and every coefficient finite.
func (m *KernelModel) Check() error {
	if err := transforms.CheckScaling(m.Stage, m.Scaling); err != nil {
		return err
	}
	for _, c := range []struct {
		prefix, what string
		a            *mat.Dense
	}{{"ref_", "reference row", m.Ref}, {"alpha_", "coefficient row", m.Alpha}} {
		r, cols := c.a.Dims()
		for i := range r {
			for j := range cols {
				if v := c.a.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					return transforms.ModelValueError(m.Stage, fmt.Sprintf("%s%d", c.prefix, j), i, fmt.Sprintf("%s %d, column %d", c.what, i, j), v)
				}
			}
		}
	}
	return nil
}

// Record implements transforms.Model: one row per reference row, ref_0 …
// then alpha_0 ….
func (m *KernelModel) Record(mem memory.Allocator) (arrow.RecordBatch, error) {
	_, D := m.Ref.Dims()
	d := m.Dims()
	fields := transforms.Float64Fields("ref_", D)
	fields = append(fields, transforms.Float64Fields("alpha_", d)...)
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	for j := range D {
		b.Field(j).(*array.Float64Builder).AppendValues(mat.Col(nil, j, m.Ref), nil)
	}
	for s := range d {
		b.Field(D+s).(*array.Float64Builder).AppendValues(mat.Col(nil, s, m.Alpha), nil)
	}
	return b.NewRecordBatch(), nil
}

// checkKernel refuses a kernel read from a model header that the fit
// could not have resolved: an unknown kind, a width γ that is not finite
// and positive (rbf, poly), a poly degree below 1 or a coef0 that is not
// finite.
func checkKernel(k kernels.Kernel) error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch k.Kind {
	case "linear", "cosine":
	case "rbf":
		if !(k.Gamma > 0) || !finite(k.Gamma) {
			return fmt.Errorf("rbf kernel with gamma %g, want a finite value > 0", k.Gamma)
		}
	case "poly":
		switch {
		case !(k.Gamma > 0) || !finite(k.Gamma):
			return fmt.Errorf("poly kernel with gamma %g, want a finite value > 0", k.Gamma)
		case k.Degree < 1:
			return fmt.Errorf("poly kernel of degree %d, want at least 1", k.Degree)
		case !finite(k.Coef0):
			return fmt.Errorf("poly kernel with coef0 %g", k.Coef0)
		}
	default:
		return fmt.Errorf("unknown kernel %q", k.Kind)
	}
	return nil
}

// loadKernelModel reads the body of a kernel model from rd.
func loadKernelModel(rd arrowio.Reader, h transforms.ModelHeader) (transforms.Model, error) {
	file := transforms.ModelFile{Path: rd.Source().Path}
	var spec struct {
		Names  []string       `json:"feature_names"`
		Mean   []float64      `json:"mean"`
		Scale  []float64      `json:"scale"`
		Kernel kernels.Kernel `json:"kernel_spec"`
	}
	raw, err := json.Marshal(h.Params)
	if err == nil {
		err = json.Unmarshal(raw, &spec)
	}
	if err != nil {
		return nil, file.Errorf("header parameters: %v", err)
	}
	D := len(spec.Names)
	if D == 0 || D != h.Features || h.Dims < 1 {
		return nil, file.Errorf("header has %d feature names for %d features and %d dims", D, h.Features, h.Dims)
	}
	if err := file.CheckScaling(spec.Names, spec.Mean, spec.Scale); err != nil {
		return nil, err
	}
	if err := checkKernel(spec.Kernel); err != nil {
		return nil, file.Errorf("%v", err)
	}
	// The header's counts must be the table's columns, before anything is
	// allocated by them.
	schema := rd.Schema()
	if err := file.CheckColumns(schema, "ref_", D, "features"); err != nil {
		return nil, err
	}
	if err := file.CheckColumns(schema, "alpha_", h.Dims, "dims"); err != nil {
		return nil, err
	}
	if err := file.CheckFeatures(schema, spec.Names); err != nil {
		return nil, err
	}
	cols := make([][]float64, D+h.Dims)
	for rd.Next() {
		rec := rd.RecordBatch()
		for c := range cols {
			name := fmt.Sprintf("ref_%d", c)
			if c >= D {
				name = fmt.Sprintf("alpha_%d", c-D)
			}
			v, err := file.Floats(rec, name)
			if err != nil {
				return nil, err
			}
			cols[c] = append(cols[c], v...)
		}
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	r := len(cols[0])
	if r == 0 {
		return nil, file.Errorf("no reference rows")
	}
	ref, alpha := mat.NewDense(r, D, nil), mat.NewDense(r, h.Dims, nil)
	for c, v := range cols {
		if c < D {
			ref.SetCol(c, v)
		} else {
			alpha.SetCol(c-D, v)
		}
	}
	idx := make([]int, D)
	for j := range idx {
		idx[j] = j
	}
	return &KernelModel{
		Stage: h.Stage, FeatureList: h.FeatureList, Standardized: h.Standardized, Kernel: spec.Kernel,
		Scaling: &transforms.Scaling{Names: spec.Names, Cols: idx, Mean: spec.Mean, Scale: spec.Scale},
		Ref:     ref, Alpha: alpha, Params: h.Params,
	}, nil
}
