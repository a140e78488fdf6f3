package transforms

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/bvp"
	"github.com/ordinate/ordinate/transforms/linear"
)

// LinearOptions are the options of the linear stages. Fields a stage does
// not use are ignored; zero values mean the stage's default.
type LinearOptions struct {
	Dims        int
	Standardize bool
	Order       []string // class order (ordinal stages; optional for LDA)
	Seed        uint64
	Threads     int

	Solver  string  // BVP: "svd" (default) or "rgd"
	MaxIter int     // BVP rgd
	Tol     float64 // BVP rgd
	Step0   float64 // BVP rgd

	Shrinkage float64 // LDA
}

// LinearFit is a fitted linear stage: its model, the embedding of the
// training rows (f.N×Dims, computed by the model exactly as apply would),
// and what the run should record.
type LinearFit struct {
	Model     *Affine
	Embedding []float64
	Classes   *Classes
	Figures   map[string]any
	Warnings  []string
}

// standardized standardises the frame's features and returns the scaling,
// the standardised matrix and warnings about dropped columns.
func standardized(f *arrowio.Frame, o LinearOptions) (*Scaling, *mat.Dense, []string, error) {
	s, warns := FitScaling(f.X, f.N, f.D, f.FeatureNames, o.Standardize)
	if len(s.Cols) == 0 {
		return nil, nil, warns, fmt.Errorf("%w: every feature is constant", ErrNoFeatures)
	}
	z := s.Apply(nil, f.X, f.N, f.D)
	return s, mat.NewDense(f.N, len(s.Cols), z), warns, nil
}

func finishLinear(stage string, f *arrowio.Frame, o LinearOptions, s *Scaling, origin []float64, axes *mat.Dense,
	params map[string]any, figures map[string]any, cls *Classes, warns []string) *LinearFit {
	params["standardize"] = o.Standardize
	params["dims"] = o.Dims
	m := NewAffine(stage, s, f.FeatureList, o.Standardize, origin, axes, params)
	figures["features"] = s.Names
	if cls != nil {
		figures["classes"] = cls.Names
		figures["class_counts"] = cls.Counts
	}
	return &LinearFit{Model: m, Embedding: m.Transform(nil, f.X, f.N), Classes: cls, Figures: figures, Warnings: warns}
}

// FitBVP fits the best-view projection for the frame's ordinal label.
func FitBVP(ctx context.Context, f *arrowio.Frame, o LinearOptions) (*LinearFit, error) {
	cls, err := OrdinalClasses(f, o.Order)
	if err != nil {
		return nil, err
	}
	var solver bvp.Solver
	switch o.Solver {
	case "", "svd":
		solver, o.Solver = bvp.SVD, "svd"
	case "rgd":
		solver = bvp.RGD
	default:
		return nil, fmt.Errorf("%w: --solver %q: want svd or rgd", ErrOption, o.Solver)
	}
	s, x, warns, err := standardized(f, o)
	if err != nil {
		return nil, err
	}
	res, err := bvp.Fit(x, cls.Index, cls.K(), bvp.Options{
		Dims: o.Dims, Solver: solver, Seed: o.Seed, MaxIter: o.MaxIter, Tol: o.Tol, Step0: o.Step0,
	})
	if err != nil {
		return nil, err
	}
	warns = append(warns, res.Warnings...)
	params := map[string]any{"order": cls.Names, "solver": o.Solver}
	figures := map[string]any{
		"singular_values": res.SingularValues,
		"rank":            res.Rank,
		"null_filled":     res.NullFilled,
	}
	if solver == bvp.RGD {
		figures["iterations"] = res.Iterations
	}
	return finishLinear("bvp", f, o, s, res.Origin, res.Axes, params, figures, cls, warns), nil
}

// FitPCA fits principal component analysis; a label, if any, is ignored.
func FitPCA(ctx context.Context, f *arrowio.Frame, o LinearOptions) (*LinearFit, error) {
	s, x, warns, err := standardized(f, o)
	if err != nil {
		return nil, err
	}
	res, err := linear.PCA(x, o.Dims)
	if err != nil {
		return nil, err
	}
	figures := map[string]any{"variances": res.Variances, "variance_ratio": res.VarianceRatio}
	return finishLinear("pca", f, o, s, res.Origin, res.Axes, map[string]any{}, figures, nil, warns), nil
}

// FitLDA fits Fisher's linear discriminant analysis for the frame's label.
func FitLDA(ctx context.Context, f *arrowio.Frame, o LinearOptions) (*LinearFit, error) {
	cls, err := NominalClasses(f, o.Order)
	if err != nil {
		return nil, err
	}
	s, x, warns, err := standardized(f, o)
	if err != nil {
		return nil, err
	}
	res, err := linear.LDA(x, cls.Index, cls.K(), o.Dims, linear.LDAOptions{Shrinkage: o.Shrinkage})
	if err != nil {
		return nil, err
	}
	warns = append(warns, res.Warnings...)
	params := map[string]any{"order": cls.Names, "shrinkage": res.Shrinkage}
	figures := map[string]any{"eigenvalues": res.Eigenvalues}
	return finishLinear("lda", f, o, s, res.Origin, res.Axes, params, figures, cls, warns), nil
}
