package bvp

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/affine"
	"github.com/ordinate/ordinate/transforms/statfit"
)

// Stage is the bvp stage: it reads the feature table of role "in" with an
// ordinal label, fits the best-view projection on the (standardised)
// features, writes the embedding of the rows as role "out" and, when asked,
// the affine model as role "model-out" for the apply stage.
type Stage struct{}

// NewOptions implements transforms.Stage: the defaults.
func (Stage) NewOptions() transforms.Options {
	o := DefaultOptions()
	return &o
}

// Info implements transforms.Stage.
func (Stage) Info() transforms.Info {
	return transforms.Info{
		Name:     "bvp",
		Category: transforms.CategoryMethods,
		Summary:  "best-view projection for ordinal classes (Zine-El-Abidine et al.)",
		Usage: `ordinate bvp --in T --label grade [--order a,b,c] [--solver svd|rgd] [--dims 2] --out E [--model-out M] [--stream auto|on|off]
ordinate bvp --in SHARD --label grade --partials-out P
ordinate bvp --from-partials DIR|GLOB [--order a,b,c] --model-out M [--in T --out E]`,
		Doc: `BVP finds the view in which the centres of adjacent ordinal classes are seen
furthest apart. Numeric labels are ordered ascending; text labels need --order.
--solver svd (default) computes the paper's fixed point exactly (the top right
singular vectors of the matrix of adjacent centre differences); --solver rgd runs
the paper's Algorithm 1 (Riemannian gradient descent with Barzilai-Borwein steps).
Constant feature columns are dropped with a warning; the model saved with --model-out
places new rows with ordinate apply exactly as the fit placed the training rows.

` + statfit.StreamDoc,
		Examples: []string{
			"ordinate bvp --in testdata/ordinal/newthyroid.csv --label label --out thyroid-bvp.parquet --model-out thyroid-bvp.model.parquet",
			"ordinate bvp --in testdata/ordinal/newthyroid.csv --label label --features 'x*' --dims 3 --keep label --out thyroid-bvp3.csv",
			"ordinate bvp --in testdata/ordinal/newthyroid.csv --label label --solver rgd --seed 7 --out thyroid-bvp-rgd.arrow",
			"ordinate bvp --in testdata/ordinal/newthyroid.csv --label label --partials-out thyroid.partials.parquet",
			"ordinate bvp --from-partials thyroid.partials.parquet --model-out thyroid-bvp-merged.model.parquet",
		},
		Inputs:  statfit.InputRoles(),
		Outputs: statfit.OutputRoles(),
	}
}

// Run implements transforms.Stage.
func (Stage) Run(ctx context.Context, env *transforms.Env, o transforms.Options) error {
	opts := o.(*Options)
	// The stage's rule, before any input is read (Fit takes the classes
	// as an argument); partials carry their label.
	if opts.Label == "" && !env.Has("from-partials") {
		return &transforms.OptionError{Option: "label", Err: transforms.ErrNoLabel}
	}
	streamed, err := statfit.Streamed(ctx, env, opts.Stream)
	if err != nil {
		return err
	}
	if streamed {
		return runStreamed(ctx, env, opts)
	}
	ft, err := env.ReadFeatures(ctx, "in", opts.Selection(), opts.Standardize)
	if err != nil {
		return err
	}
	defer ft.Release()
	cls, err := transforms.OrdinalClasses(ft.Frame, opts.Order)
	if err != nil {
		return err
	}
	cls.Record(env)
	if err := ctx.Err(); err != nil {
		return err
	}
	res, err := Fit(mat.NewDense(ft.N, ft.K(), ft.Z), cls.Index, cls.K(), *opts)
	if err != nil {
		return err
	}
	_, err = affine.Write(ctx, env, "bvp", ft, opts.Standardize, res.Origin, res.Axes, record(env, res, opts, cls))
	return err
}

// runStreamed fits from statistics: those of from-partials, or of in
// streamed (statfit.Streamed says when).
func runStreamed(ctx context.Context, env *transforms.Env, opts *Options) error {
	p, err := statfit.Prepare(ctx, env, opts.Selection(), statfit.Classes{By: true, Order: opts.Order, Ordinal: true}, opts.Standardize)
	if err != nil || p == nil {
		return err
	}
	res, err := FitMoments(p.Z, *opts)
	if err != nil {
		return err
	}
	_, err = p.Write(ctx, env, "bvp", opts.Standardize, res.Origin, res.Axes, record(env, res, opts, p.Classes), opts.Selection())
	return err
}

// record gives the fit's warnings and figures, and returns the model's
// parameters.
func record(env *transforms.Env, res *Result, opts *Options, cls *transforms.Classes) map[string]any {
	for _, w := range res.Warnings {
		env.Warn("%s", w)
	}
	env.Figures(map[string]any{
		"singular_values": res.SingularValues,
		"rank":            res.Rank,
		"null_filled":     res.NullFilled,
	})
	if opts.Solver == RGD {
		env.Figure("iterations", res.Iterations)
	}
	return map[string]any{"order": cls.Names, "solver": string(opts.Solver), "standardize": opts.Standardize, "dims": opts.Dims}
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(Stage{})
}
