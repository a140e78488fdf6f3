package linear

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/affine"
	"github.com/ordinate/ordinate/transforms/statfit"
)

// PCAStage is the pca stage: it reads the feature table of role "in",
// fits principal component analysis on the (standardised) features, writes
// the embedding as role "out" and, when asked, the affine model as role
// "model-out" for the apply stage. A label, if given, is only passed
// through to the output (for colouring).
type PCAStage struct{}

// LDAStage is the lda stage: as PCAStage, with Fisher's linear discriminant
// analysis of the label's classes.
type LDAStage struct{}

// NewOptions implements transforms.Stage: the defaults.
func (PCAStage) NewOptions() transforms.Options {
	o := DefaultPCAOptions()
	return &o
}

// NewOptions implements transforms.Stage: the defaults.
func (LDAStage) NewOptions() transforms.Options {
	o := DefaultLDAOptions()
	return &o
}

// Info implements transforms.Stage.
func (PCAStage) Info() transforms.Info {
	return transforms.Info{
		Name:     "pca",
		Category: transforms.CategoryMethods,
		Summary:  "principal component analysis (unsupervised baseline)",
		Usage: `ordinate pca --in T [--label y [--order a,b,c]] --out E [--model-out M] [--stream auto|on|off]
ordinate pca --in SHARD --partials-out P
ordinate pca --from-partials DIR|GLOB --model-out M [--in T --out E]`,
		Doc: `The label, if given, is only passed through to the output (for colouring);
--order records the order of its classes, so that plot and report colour them in
that order with an ordered palette. Constant feature columns are dropped with a
warning.

` + statfit.StreamDoc,
		Examples: []string{
			"ordinate pca --in testdata/ordinal/newthyroid.csv --label label --out thyroid-pca.parquet",
			"ordinate pca --in testdata/ordinal/newthyroid.csv --label label --order 1,2,3 --out thyroid-pca-ordered.parquet",
			"ordinate pca --in testdata/ordinal/newthyroid.csv --features 'x*' --dims 3 --standardize=false --out thyroid-pca.arrow --model-out thyroid-pca.model.parquet",
			"ordinate pca --in testdata/ordinal/newthyroid.csv --stream on --out thyroid-pca-streamed.parquet",
		},
		Inputs: statfit.InputRoles(), Outputs: statfit.OutputRoles(),
	}
}

// Info implements transforms.Stage.
func (LDAStage) Info() transforms.Info {
	return transforms.Info{
		Name:     "lda",
		Category: transforms.CategoryMethods,
		Summary:  "Fisher linear discriminant analysis (supervised baseline)",
		Usage: `ordinate lda --in T --label y [--order a,b,c] --out E [--model-out M] [--stream auto|on|off]
ordinate lda --in SHARD --label y --partials-out P
ordinate lda --from-partials DIR|GLOB [--order a,b,c] --model-out M [--in T --out E]`,
		Doc: `At most (classes − 1) axes are discriminant; further axes are filled with the
directions of largest remaining variance, with a warning. Constant feature columns
are dropped with a warning.

` + statfit.StreamDoc,
		Examples: []string{
			"ordinate lda --in testdata/ordinal/newthyroid.csv --label label --out thyroid-lda.parquet",
			"ordinate lda --in testdata/zoo/zoo.csv --label type --shrinkage 1e-3 --out zoo-lda.parquet --model-out zoo-lda.model.parquet",
			"ordinate lda --in testdata/zoo/zoo.csv --label type --partials-out zoo.partials.arrow",
		},
		Inputs: statfit.InputRoles(), Outputs: statfit.OutputRoles(),
	}
}

// Run implements transforms.Stage.
func (PCAStage) Run(ctx context.Context, env *transforms.Env, o transforms.Options) error {
	opts := o.(*PCAOptions)
	if len(opts.Order) > 0 && opts.Label == "" && !env.Has("from-partials") {
		return transforms.Optionf("order", "orders the classes of the label: give label too")
	}
	streamed, err := statfit.Streamed(ctx, env, opts.Stream)
	if err != nil {
		return err
	}
	if streamed {
		return runPCAStreamed(ctx, env, opts)
	}
	ft, err := env.ReadFeatures(ctx, "in", opts.Selection(), opts.Standardize)
	if err != nil {
		return err
	}
	defer ft.Release()
	params := map[string]any{"standardize": opts.Standardize, "dims": opts.Dims}
	if len(opts.Order) > 0 {
		// Checked against the labels and recorded (figure classes, param
		// order), so that plot and report draw the classes in this order.
		cls, err := transforms.NominalClasses(ft.Frame, opts.Order)
		if err != nil {
			return err
		}
		cls.Record(env)
		params["order"] = cls.Names
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	res, err := PCA(mat.NewDense(ft.N, ft.K(), ft.Z), opts.Dims)
	if err != nil {
		return err
	}
	env.Figures(map[string]any{"variances": res.Variances, "variance_ratio": res.VarianceRatio})
	_, err = affine.Write(ctx, env, "pca", ft, opts.Standardize, res.Origin, res.Axes, params)
	return err
}

// Run implements transforms.Stage.
func (LDAStage) Run(ctx context.Context, env *transforms.Env, o transforms.Options) error {
	opts := o.(*LDAOptions)
	if !env.Has("from-partials") {
		if err := requireLabel(opts.Label); err != nil {
			return err
		}
	}
	streamed, err := statfit.Streamed(ctx, env, opts.Stream)
	if err != nil {
		return err
	}
	if streamed {
		return runLDAStreamed(ctx, env, opts)
	}
	ft, err := env.ReadFeatures(ctx, "in", opts.Selection(), opts.Standardize)
	if err != nil {
		return err
	}
	defer ft.Release()
	cls, err := transforms.NominalClasses(ft.Frame, opts.Order)
	if err != nil {
		return err
	}
	cls.Record(env)
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := env.ReserveSquare(ft.N, ft.K(), 3, "lda's within-class scatter, its Cholesky factor and the whitened classes"); err != nil {
		return err
	}
	res, err := LDA(mat.NewDense(ft.N, ft.K(), ft.Z), cls.Index, cls.K(), *opts)
	if err != nil {
		return err
	}
	_, err = affine.Write(ctx, env, "lda", ft, opts.Standardize, res.Origin, res.Axes, recordLDA(env, res, opts, cls))
	return err
}

// recordLDA gives the fit's warnings and figures, and returns the model's
// parameters.
func recordLDA(env *transforms.Env, res *LDAResult, opts *LDAOptions, cls *transforms.Classes) map[string]any {
	for _, w := range res.Warnings {
		env.Warn("%s", w)
	}
	env.Figures(map[string]any{"eigenvalues": res.Eigenvalues, "shrinkage": res.Shrinkage})
	return map[string]any{"order": cls.Names, "shrinkage": res.Shrinkage, "standardize": opts.Standardize, "dims": opts.Dims}
}

// runPCAStreamed fits PCA from statistics: those of from-partials, or of
// in streamed (statfit.Streamed says when).
func runPCAStreamed(ctx context.Context, env *transforms.Env, opts *PCAOptions) error {
	// The label's classes matter only with an order to check and record:
	// without one, statistics by class would cost K D×D matrices for
	// nothing (its rows are still checked, and it is passed through).
	p, err := statfit.Prepare(ctx, env, opts.Selection(), statfit.Classes{By: len(opts.Order) > 0, Order: opts.Order}, opts.Standardize)
	if err != nil || p == nil {
		return err
	}
	params := map[string]any{"standardize": opts.Standardize, "dims": opts.Dims}
	if p.Classes != nil {
		params["order"] = p.Classes.Names
	}
	res, err := PCAMoments(p.Z, opts.Dims)
	if err != nil {
		return err
	}
	env.Figures(map[string]any{"variances": res.Variances, "variance_ratio": res.VarianceRatio})
	_, err = p.Write(ctx, env, "pca", opts.Standardize, res.Origin, res.Axes, params, opts.Selection())
	return err
}

// runLDAStreamed fits LDA from statistics: those of from-partials, or of
// in streamed (statfit.Streamed says when).
func runLDAStreamed(ctx context.Context, env *transforms.Env, opts *LDAOptions) error {
	p, err := statfit.Prepare(ctx, env, opts.Selection(), statfit.Classes{By: true, Order: opts.Order}, opts.Standardize)
	if err != nil || p == nil {
		return err
	}
	if err := env.ReserveSquare(0, p.Z.D, 3+p.Z.K, "lda's scatter matrices, their factor and the class statistics"); err != nil {
		return err
	}
	res, err := LDAMoments(p.Z, *opts)
	if err != nil {
		return err
	}
	_, err = p.Write(ctx, env, "lda", opts.Standardize, res.Origin, res.Axes, recordLDA(env, res, opts, p.Classes), opts.Selection())
	return err
}

// requireLabel refuses a stage run without a label column before any
// input is read. It is the stage's rule, not the options': the core takes
// the classes as an argument.
func requireLabel(label string) error {
	if label == "" {
		return &transforms.OptionError{Option: "label", Err: transforms.ErrNoLabel}
	}
	return nil
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(PCAStage{})
	transforms.Register(LDAStage{})
}
