package transforms

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms/ckpca"
)

// CKPCAOptions configure FitCKPCA.
type CKPCAOptions struct {
	ckpca.Options
	Standardize bool
	// Kernel is the kernel on the (standardised) features; Kind
	// "precomputed" reads the selected feature columns as the n×n kernel
	// matrix (row i, column j = k(xᵢ, xⱼ)).
	Kernel kernels.Kernel
	// Landmarks > 0 uses the Nyström approximation with that many landmark
	// rows, drawn with Seed.
	Landmarks int
	Seed      uint64
	// Primal, for the linear kernel, works in feature space (D×D) and never
	// forms the n×n kernel matrix; it is the default for "linear".
	Primal bool
	// Similarity, if not nil, is the precomputed n×n kernel matrix (rows in
	// the frame's order, e.g. from SimilarityMatrix); otherwise a
	// precomputed kernel is the frame's selected feature columns.
	Similarity []float64
	// Correction, for a precomputed kernel, is the eigenvalue correction
	// applied before the PSD check: "none" (default: an indefinite matrix
	// is an error), "clip", "flip" or "shift", as in fisher.
	Correction string
}

// CKPCAFit is the result of FitCKPCA.
type CKPCAFit struct {
	Embedding []float64 // N×d row-major
	Model     Model     // nil for a precomputed kernel
	Figures   map[string]any
	Warnings  []string
}

// ErrControlColumn reports a control column that cannot be read.
var ErrControlColumn = errors.New("bad control column")

// ControlFromColumns reads the control targets from the frame's pass-through
// columns named names: a row whose values are all null is not a control
// row; a row with some but not all of them null, or a NaN/Inf target, is an
// error naming the row and column.
func ControlFromColumns(f *arrowio.Frame, names []string) (ckpca.Control, error) {
	var ctrl ckpca.Control
	cols := make([]arrow.Array, len(names))
	for k, name := range names {
		for j, fl := range f.KeepFields {
			if fl.Name == name {
				cols[k] = f.Keep[j]
			}
		}
		if cols[k] == nil {
			return ctrl, fmt.Errorf("%w: column %q not found", ErrControlColumn, name)
		}
	}
	vals := make([]float64, len(names))
	for i := range f.N {
		nulls := 0
		for k, a := range cols {
			v, ok, err := floatAt(a, i)
			if err != nil {
				return ctrl, fmt.Errorf("%w: column %q: %w", ErrControlColumn, names[k], err)
			}
			if !ok {
				nulls++
				continue
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return ctrl, &arrowio.Error{File: f.Source.Path, Column: names[k], Row: f.Rows[i], ID: idString(f, i),
					Err: fmt.Errorf("%w: control target %v", arrowio.ErrInvalidValue, v)}
			}
			vals[k] = v
		}
		switch nulls {
		case len(names):
		case 0:
			ctrl.Rows = append(ctrl.Rows, i)
			ctrl.Targets = append(ctrl.Targets, vals...)
		default:
			return ctrl, &arrowio.Error{File: f.Source.Path, Column: names[0], Row: f.Rows[i], ID: idString(f, i),
				Err: fmt.Errorf("%w: %d of the %d control columns are null: a control row needs all of %v", arrowio.ErrInvalidValue, nulls, len(names), names)}
		}
	}
	return ctrl, nil
}

func idString(f *arrowio.Frame, i int) string {
	if f.ID == nil {
		return ""
	}
	return f.ID.ValueStr(i)
}

// floatAt returns element i of an integer or float array and whether it is
// valid; other types are an error.
func floatAt(a arrow.Array, i int) (float64, bool, error) {
	if a.IsNull(i) {
		return 0, false, nil
	}
	switch c := a.(type) {
	case *array.Float64:
		return c.Value(i), true, nil
	case *array.Float32:
		return float64(c.Value(i)), true, nil
	case *array.Int64:
		return float64(c.Value(i)), true, nil
	case *array.Int32:
		return float64(c.Value(i)), true, nil
	case *array.Int16:
		return float64(c.Value(i)), true, nil
	case *array.Int8:
		return float64(c.Value(i)), true, nil
	case *array.Uint64:
		return float64(c.Value(i)), true, nil
	case *array.Uint32:
		return float64(c.Value(i)), true, nil
	case *array.Uint16:
		return float64(c.Value(i)), true, nil
	case *array.Uint8:
		return float64(c.Value(i)), true, nil
	}
	return 0, false, fmt.Errorf("type %s is not numeric", a.DataType())
}

// ControlFromTable matches the rows of a control table (ids and d
// coordinate columns, as a frame whose features are the coordinates) to
// the rows of f by id.
func ControlFromTable(f, table *arrowio.Frame) (ckpca.Control, error) {
	var ctrl ckpca.Control
	pos := make(map[string]int, f.N)
	for i := range f.N {
		pos[f.ID.ValueStr(i)] = i
	}
	seen := make(map[int]bool)
	for r := range table.N {
		id := table.ID.ValueStr(r)
		i, ok := pos[id]
		if !ok {
			return ctrl, &arrowio.Error{File: table.Source.Path, Column: table.IDName, Row: table.Rows[r], ID: id,
				Err: fmt.Errorf("%w: id %s is not in the input table", arrowio.ErrInvalidValue, id)}
		}
		if seen[i] {
			return ctrl, &arrowio.Error{File: table.Source.Path, Column: table.IDName, Row: table.Rows[r], ID: id,
				Err: fmt.Errorf("%w: id %s appears twice", arrowio.ErrInvalidValue, id)}
		}
		seen[i] = true
		ctrl.Rows = append(ctrl.Rows, i)
		ctrl.Targets = append(ctrl.Targets, table.X[r*table.D:(r+1)*table.D]...)
	}
	return ctrl, nil
}

// FitCKPCA standardises the features (unless the kernel is precomputed),
// builds the feature map the options ask for and fits cKPCA.
func FitCKPCA(f *arrowio.Frame, ctrl ckpca.Control, o CKPCAOptions) (*CKPCAFit, error) {
	res := &CKPCAFit{Figures: map[string]any{}}
	n := f.N
	var (
		xs    *mat.Dense
		scale *Scaling
		feat  *ckpca.Features
		err   error
	)
	kern := o.Kernel
	if kern.Kind == "precomputed" {
		data := o.Similarity
		if data == nil {
			if f.D != n {
				return nil, fmt.Errorf("%w: a precomputed kernel needs one column per row: %d rows, %d columns", ckpca.ErrKernel, n, f.D)
			}
			data = f.X
		}
		if len(data) != n*n {
			return nil, fmt.Errorf("%w: %d similarity values for %d rows", ckpca.ErrKernel, len(data), n)
		}
		if o.Landmarks > 0 {
			return nil, fmt.Errorf("%w: --landmarks needs features, not a precomputed kernel", ckpca.ErrOption)
		}
		km := mat.NewDense(n, n, slices.Clone(data))
		if err := ckpca.CheckSymmetric(km); err != nil {
			return nil, err
		}
		name := o.Correction
		if name == "" {
			name = "none"
		}
		corr, err := parseCorrection(name)
		if err != nil {
			return nil, err
		}
		if corr != kernels.None {
			share, err := kernels.CorrectSpectrum(km.RawMatrix().Data, slices.Clone(km.RawMatrix().Data), n, corr)
			if err != nil {
				return nil, err
			}
			res.Figures["correction"], res.Figures["negative_share"] = name, share
			if share > 0 {
				res.Warnings = append(res.Warnings, fmt.Sprintf("the kernel matrix had negative eigenvalues (%.3g of the spectrum's absolute mass); corrected with %s", share, name))
			}
		}
		feat, err = ckpca.KernelFeatures(km)
		if err != nil {
			return nil, err
		}
	} else {
		var warns []string
		scale, warns = FitScaling(f.X, n, f.D, f.FeatureNames, o.Standardize)
		res.Warnings = append(res.Warnings, warns...)
		if len(scale.Cols) == 0 {
			return nil, fmt.Errorf("%w: no non-constant feature left", ckpca.ErrOption)
		}
		xs = mat.NewDense(n, len(scale.Cols), scale.Apply(nil, f.X, n, f.D))
		if kern, err = kern.Resolve(xs.RawMatrix().Data, n, len(scale.Cols)); err != nil {
			return nil, fmt.Errorf("%w (or precomputed)", err)
		}
		switch {
		case o.Landmarks > 0:
			if o.Landmarks > n {
				return nil, fmt.Errorf("%w: %d landmarks for %d rows", ckpca.ErrOption, o.Landmarks, n)
			}
			lm := rand.New(rand.NewPCG(o.Seed, 0x6c616e64)).Perm(n)[:o.Landmarks]
			slices.Sort(lm)
			feat, err = ckpca.NystromFeatures(xs, lm, kern)
		case kern.Kind == "linear" && o.Primal:
			feat = &ckpca.Features{F: xs, Rank: len(scale.Cols)}
		default:
			var g []float64
			if g, err = kern.Gram(context.Background(), nil, xs.RawMatrix().Data, n, xs.RawMatrix().Data, n, len(scale.Cols), 0); err == nil {
				feat, err = ckpca.KernelFeatures(mat.NewDense(n, n, g))
			}
		}
		if err != nil {
			return nil, err
		}
	}
	fit, err := ckpca.Fit(feat.F, ctrl, o.Options)
	if err != nil {
		return nil, err
	}
	d := o.Dims
	res.Embedding = make([]float64, n*d)
	for i := range n {
		for s := range d {
			res.Embedding[i*d+s] = fit.Embedding.At(i, s)
		}
	}
	params := map[string]any{"kernel": kern.Kind, "nu": o.Nu, "control_points": len(ctrl.Rows)}
	switch kern.Kind {
	case "rbf":
		params["gamma"] = kern.Gamma
	case "poly":
		params["gamma"], params["degree"], params["coef0"] = kern.Gamma, kern.Degree, kern.Coef0
	}
	if o.Soft > 0 {
		params["soft"] = o.Soft
	}
	if o.Landmarks > 0 {
		params["landmarks"] = o.Landmarks
	}
	res.Figures["components"] = fit.Components
	res.Figures["target_scale"] = fit.TargetScale
	res.Figures["rank"] = feat.Rank
	for k, v := range params {
		res.Figures[k] = v
	}
	if scale == nil {
		return res, nil
	}
	// The model: the linear primal path is an affine map; every other path
	// evaluates f_s(x) = Σⱼ α_sj k(rⱼ, x) over reference rows.
	if feat.Coef == nil {
		res.Model = NewAffine("ckpca", scale, f.FeatureList, o.Standardize, make([]float64, len(scale.Cols)), mat.DenseCopyOf(fit.U), params)
		return res, nil
	}
	var alpha mat.Dense
	alpha.Mul(feat.Coef, fit.U)
	ref := xs
	if feat.Ref != nil {
		ref = mat.NewDense(len(feat.Ref), len(scale.Cols), nil)
		for r, i := range feat.Ref {
			ref.SetRow(r, xs.RawRowView(i))
		}
	}
	res.Model = &KernelModel{Stage: "ckpca", Scaling: scale, FeatureList: f.FeatureList, Standardized: o.Standardize,
		Kernel: kern, Ref: ref, Alpha: &alpha, Params: params}
	return res, nil
}
