package ckpca

import (
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// KernelKind is the kernel of the stage: linear, rbf, poly, cosine, or
// precomputed (the selected columns, or the similarity table, are the n×n
// kernel matrix).
type KernelKind string

// The kernels.
const (
	Linear      KernelKind = "linear"
	RBF         KernelKind = "rbf"
	Poly        KernelKind = "poly"
	Cosine      KernelKind = "cosine"
	Precomputed KernelKind = "precomputed"
)

// Values lists the kernels.
func (KernelKind) Values() []string {
	return []string{string(Linear), string(RBF), string(Poly), string(Cosine), string(Precomputed)}
}

// Path is how a linear kernel is solved: auto (the default) works in
// feature space (primal, D×D, the n×n kernel is never formed) for the
// linear kernel and with the n×n kernel matrix (dual) otherwise; primal
// and dual force one or the other (primal needs the linear kernel).
type Path string

// The paths.
const (
	PathAuto   Path = "auto"
	PathPrimal Path = "primal"
	PathDual   Path = "dual"
)

// Values lists the paths.
func (Path) Values() []string {
	return []string{string(PathAuto), string(PathPrimal), string(PathDual)}
}

// ScaleMode says what to do with targets that exceed the norm budget.
type ScaleMode string

const (
	// ScaleNone uses the targets as given (infeasible targets are an error).
	ScaleNone ScaleMode = "none"
	// ScaleAuto rescales the targets to use Options.Budget of the squared
	// norm, and scales the result back.
	ScaleAuto ScaleMode = "auto"
)

// Values lists the scale modes.
func (ScaleMode) Values() []string { return []string{string(ScaleNone), string(ScaleAuto)} }

// Correction is the eigenvalue correction of a precomputed kernel before
// the positive semi-definiteness check: none (an indefinite matrix is an
// error), clip, flip or shift (see kernels.CorrectSpectrum).
type Correction string

// The corrections.
const (
	CorrectNone  Correction = "none"
	CorrectClip  Correction = "clip"
	CorrectFlip  Correction = "flip"
	CorrectShift Correction = "shift"
)

// Values lists the corrections.
func (Correction) Values() []string {
	return []string{string(CorrectNone), string(CorrectClip), string(CorrectFlip), string(CorrectShift)}
}

// spectrum is the correction as kernels.CorrectSpectrum takes it.
func (c Correction) spectrum() kernels.Correction {
	switch c {
	case CorrectClip:
		return kernels.Clip
	case CorrectFlip:
		return kernels.Flip
	case CorrectShift:
		return kernels.Shift
	}
	return kernels.None
}

// Options are the options of the ckpca stage and of the matrix core (Fit,
// FitContext, FitFeatures), which reads Dims, Nu, Scale, Budget and Soft;
// the other fields are the stage's (columns, control points, the kernel and
// how it is solved). Start from DefaultOptions.
type Options struct {
	transforms.Columns
	transforms.Standardization
	Control []string `opt:"control" help:"columns of target coordinates, one per output dimension, null on non-control rows"`
	// Dims is the output dimension d; 0 takes one per control column
	// (Fit: the targets' columns), 2 without control points.
	Dims int `opt:"dims" range:"[0,)" help:"output dimensions (0: one per control column, or per coordinate column of the control table; 2 without control points)"`

	Kernel KernelKind `opt:"kernel" help:"kernel on the (standardised) features, or precomputed: the selected columns (or the similarity table) are the n×n kernel matrix"`
	Gamma  float64    `opt:"gamma" range:"[0,)" help:"rbf: exp(−γ‖a − b‖²), 0: 1/median squared distance; poly: γ·aᵀb, 0: 1/D (the value used is recorded as the figure resolved_gamma)"`
	Degree int        `opt:"degree" range:"[1,)" help:"poly degree"`
	Coef0  float64    `opt:"coef0" help:"poly: (γ·aᵀb + coef0)^degree; any finite number"`
	Path   Path       `opt:"path" help:"auto: the linear kernel in feature space (D×D, never forming the n×n kernel), other kernels with the kernel matrix; primal or dual force one"`

	// Nu is ν, the weight of the soft orthogonality term.
	Nu float64 `opt:"nu" range:"[0,)" help:"ν: penalty on overlap with earlier dimensions (the paper's soft orthogonality)"`
	// Scale is ScaleNone or ScaleAuto.
	Scale ScaleMode `opt:"scale" help:"none (infeasible targets are an error) or auto (rescale the targets, solve, scale back)"`
	// Budget is φ: the squared-norm share of the constraints under
	// ScaleAuto.
	Budget float64 `opt:"budget" range:"(0,1)" help:"with scale auto: share of the squared norm the constraints may use"`
	// Soft > 0 is a penalty weight instead of hard constraints.
	Soft       float64    `opt:"soft" range:"[0,)" help:"penalty weight for soft constraints instead of exact ones (0: exact)"`
	Landmarks  int        `opt:"landmarks" range:"[0,)" help:"Nyström approximation with this many random landmark rows, at most the rows (0: exact)"`
	Correction Correction `opt:"correction" help:"precomputed kernel: eigenvalue correction before the PSD check (none: an indefinite matrix is an error)"`
	Seed       uint64     `opt:"seed" help:"random seed (landmark choice)"`
}

// DefaultOptions are the paper's settings (ν = 1, exact constraints, no
// rescaling; Budget 0.5 applies under ScaleAuto), dims from the control
// points, the linear kernel solved in feature space, standardised
// features.
func DefaultOptions() Options {
	return Options{
		Columns:         transforms.DefaultColumns(),
		Standardization: transforms.Standardization{Standardize: true},
		Kernel:          Linear,
		Degree:          3,
		Coef0:           1,
		Path:            PathAuto,
		Nu:              1,
		Scale:           ScaleNone,
		Budget:          0.5,
		Correction:      CorrectNone,
		Seed:            1,
	}
}

// Validate checks the rules that tie options together (transforms.Validate
// checks the ranges and values first).
func (o *Options) Validate() error {
	switch {
	case o.Soft > 0 && o.Scale == ScaleAuto:
		return transforms.Optionf("soft", "soft and scale auto do not combine (soft constraints are always feasible)")
	case o.Path == PathPrimal && o.Kernel != Linear:
		return transforms.Optionf("path", "primal needs the linear kernel, not %s", o.Kernel)
	case o.Path != PathAuto && o.Landmarks > 0:
		return transforms.Optionf("path", "%s does not combine with landmarks (the Nyström path)", o.Path)
	case o.Kernel == Precomputed && o.Landmarks > 0:
		return transforms.Optionf("landmarks", "needs features, not a precomputed kernel")
	}
	return nil
}
