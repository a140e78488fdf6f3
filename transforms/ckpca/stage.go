package ckpca

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/affine"
	"github.com/ordinate/ordinate/transforms/table"
)

// Stage is the ckpca stage: constrained kernel PCA through control points
// on a feature table (or a precomputed kernel), writing the embedding and,
// for a kernel on features, a model that places new rows.
type Stage struct{}

// NewOptions returns DefaultOptions: the paper's settings (ν = 1, exact
// constraints, no rescaling), the linear kernel in feature space,
// standardised features.
func (Stage) NewOptions() transforms.Options {
	o := DefaultOptions()
	return &o
}

// Info describes the stage.
func (Stage) Info() transforms.Info {
	return transforms.Info{
		Name:     "ckpca",
		Category: transforms.CategoryMethods,
		Summary:  "constrained kernel PCA through user-placed control points (Paurat, Oglic & Gärtner)",
		Usage:    "ordinate ckpca --in T (--control cx,cy | --control-table C --id ID) [--kernel linear] --out E [--model-out M]",
		Doc: `Each output dimension is a unit-norm function in the kernel's feature space that
passes exactly through the control points and otherwise has the largest variance,
with a soft penalty ν for repeating earlier dimensions. Control points come from
columns of the input (--control cx,cy: the target coordinates on the control rows,
null on all other rows) or from a table of ids and coordinates (--control-table,
matched by --id). Without control points the first dimension is kernel PCA's first
component.

Targets that would need a function of norm above 1 are an error that says by how
much; --scale auto rescales them (the constraints then use --budget of the squared
norm), solves, and scales the result back; --soft W replaces the exact constraints
by the penalty W·‖f(control rows) − targets‖².

Kernels: linear (solved in feature space, D×D, never forming the n×n kernel), rbf
(--gamma, default 1/median squared distance), poly (--gamma, --degree, --coef0),
cosine, and precomputed: the selected columns are the n×n kernel matrix (as in the
square similarity tables of fisher), or --similarity S gives it as a long table
(i, j, s, every pair and the diagonal, ids from --id). --correction clip|flip|shift
makes an indefinite similarity positive semi-definite first; otherwise it is an
error. --landmarks M uses the Nyström approximation with M random landmark rows, for
large n. Features are standardised unless --standardize=false; the γ used is
recorded in the provenance as the figure resolved_gamma.`,
		Examples: []string{
			"ordinate ckpca --in testdata/ckpca/thyroid-control.csv --label label --control cx,cy --scale auto --out /tmp/thyroid-ckpca.parquet --model-out /tmp/thyroid-ckpca.model.parquet",
			"ordinate ckpca --in testdata/ckpca/zoo-unique.csv --id animal_name --label type --control-table testdata/ckpca/zoo-placed.csv --kernel rbf --scale auto --out /tmp/zoo-ckpca.parquet",
			"ordinate ckpca --in testdata/ckpca/thyroid-control.csv --label label --control cx,cy --kernel rbf --landmarks 100 --scale auto --out /tmp/thyroid-ckpca-nystrom.parquet",
		},
		Inputs: []transforms.Role{
			{Name: "in", Help: "the feature table (rows to embed), with the control columns", Required: true},
			ControlTableInput,
			{Name: "similarity", Help: "precomputed kernel as a long table (i, j, s; ids as in id, every pair with the diagonal); in then holds the rows"},
		},
		Outputs: []transforms.Role{
			{Name: "out", Help: "the embedding", Kind: table.Embedding, Required: true},
			{Name: "model-out", Help: "the fitted model, for apply (not for a precomputed kernel)", Kind: table.Model, Models: []string{affine.Kind, ModelKind}},
		},
	}
}

// Run fits cKPCA on the input and writes the embedding (and the model).
func (Stage) Run(ctx context.Context, env *transforms.Env, opts transforms.Options) error {
	o := opts.(*Options)
	kind := o.Kernel
	similarity := env.Has("similarity")
	if similarity {
		if kind != Linear && kind != Precomputed {
			return transforms.Optionf("similarity", "similarity is a precomputed kernel; it does not combine with kernel %s", kind)
		}
		if o.ID == "" {
			return transforms.Optionf("id", "similarity needs id: its i and j name the rows of in by that column")
		}
		kind = Precomputed
	}
	if kind == Precomputed && env.Has("model-out") {
		return transforms.Optionf("model-out", "needs a kernel on features; a precomputed kernel cannot be evaluated on new rows")
	}
	if kind == Precomputed && o.Path != PathAuto {
		return transforms.Optionf("path", "%s needs a kernel on features, not a precomputed kernel", o.Path)
	}
	sel := ControlSelection(o.Columns, o.Control, env.Has(ControlTableRole))
	var (
		f  *arrowio.Frame
		ft *transforms.FeatureTable
	)
	if kind == Precomputed {
		sel.NoFeatures = similarity
		fr, err := env.ReadFrame(ctx, "in", sel)
		if err != nil {
			return err
		}
		f = fr
	} else {
		t, err := env.ReadFeatures(ctx, "in", sel, o.Standardize)
		if err != nil {
			return err
		}
		ft, f = t, t.Frame
	}
	defer f.Release()
	ctrl, dims, err := ReadControl(ctx, env, f, o.ID, o.Control, o.Dims)
	if err != nil {
		return err
	}
	if len(ctrl.Rows) == 0 {
		env.Warn("no control points: the result is kernel PCA with the soft orthogonality penalty ν")
	}
	fo := *o
	fo.Dims = dims
	var res *stageFit
	if kind == Precomputed {
		data := f.X
		if similarity {
			pairs, err := env.ReadFrame(ctx, "similarity", arrowio.Selection{ID: "i", Features: []string{"s"}, Keep: []string{"j"}, OnInvalid: arrowio.InvalidError})
			if err != nil {
				return err
			}
			if err := reserveFit(env, f.N, f.N, fo, Precomputed); err != nil {
				pairs.Release()
				return err
			}
			data, err = table.SimilarityMatrix(pairs, f)
			pairs.Release()
			if err != nil {
				return err
			}
		} else if f.D != f.N {
			return transforms.Errorf(ErrKernel, "a precomputed kernel needs one column per row: %d rows, %d columns", f.N, f.D)
		}
		res, err = fitPrecomputed(ctx, env, data, f.N, ctrl, fo)
	} else {
		res, err = fitKernel(ctx, env, ft, ctrl, fo, kind)
	}
	if err != nil {
		return err
	}
	env.Figures(res.figures)
	if err := env.WriteEmbedding(ctx, "out", f, res.embedding, dims); err != nil {
		return err
	}
	if env.Has("model-out") {
		if err := env.WriteModel(ctx, "model-out", res.model); err != nil {
			return err
		}
	}
	env.Log.Info(fmt.Sprintf("ckpca: %d rows, %d control points -> %d dims", f.N, len(ctrl.Rows), dims), "kernel", string(kind), "path", res.figures["path"])
	return nil
}

// stageFit is a fitted cKPCA as the stage writes it.
type stageFit struct {
	embedding []float64  // n×d row-major: the model's placement of the rows (place); Fit's F·U for a precomputed kernel
	u         *mat.Dense // p×d coordinates in feature space
	model     transforms.Model
	figures   map[string]any
}

// fitPrecomputed fits on the n×n kernel matrix data (after the
// correction fo.Correction); fo.Dims is resolved.
func fitPrecomputed(ctx context.Context, env *transforms.Env, data []float64, n int, ctrl Control, fo Options) (*stageFit, error) {
	res := &stageFit{figures: map[string]any{"kernel": string(Precomputed), "path": "precomputed"}}
	corr := fo.Correction
	if len(data) != n*n {
		return nil, transforms.Errorf(ErrKernel, "%d similarity values for %d rows", len(data), n)
	}
	if err := reserveFit(env, n, n, fo, Precomputed); err != nil {
		return nil, err
	}
	km := mat.NewDense(n, n, slices.Clone(data))
	if err := CheckSymmetric(km); err != nil {
		return nil, err
	}
	if corr != CorrectNone {
		share, err := kernels.CorrectSpectrumContext(ctx, km.RawMatrix().Data, slices.Clone(km.RawMatrix().Data), n, corr.spectrum(), env.Threads)
		if err != nil && ctx.Err() != nil {
			return nil, err
		}
		if err != nil {
			return nil, transforms.Errorf(ErrNumerical, "%w", err)
		}
		res.figures["negative_share"] = share
		if share > 0 {
			env.Warn("the kernel matrix had negative eigenvalues (%.3g of the spectrum's absolute mass); corrected with %s", share, corr)
		}
	}
	env.Progress.Start("eigendecomposition", 0)
	feat, err := KernelFeaturesContext(ctx, km)
	env.Progress.Finish()
	if err != nil {
		return nil, err
	}
	emb, err := res.fit(ctx, env, feat, ctrl, fo)
	if err != nil {
		return nil, err
	}
	// Without a model the written embedding is Fit's own F·U.
	n, d := emb.Dims()
	res.embedding = make([]float64, n*d)
	for i := range n {
		for s := range d {
			res.embedding[i*d+s] = emb.At(i, s)
		}
	}
	return res, nil
}

// fitKernel builds the feature map the options ask for on the
// (standardised) features with the kernel kind and fits; fo.Dims is
// resolved. The model is affine on the primal path and a kernel model
// otherwise.
func fitKernel(ctx context.Context, env *transforms.Env, ft *transforms.FeatureTable, ctrl Control, fo Options, kind KernelKind) (*stageFit, error) {
	n, p := ft.N, ft.K()
	xs := mat.NewDense(n, p, ft.Z)
	kern, err := kernels.Kernel{Kind: string(kind), Gamma: fo.Gamma, Degree: fo.Degree, Coef0: fo.Coef0}.Resolve(ft.Z, n, p)
	if err != nil {
		return nil, transforms.Errorf(ErrKernel, "%w", err)
	}
	if err := reserveFit(env, n, p, fo, kind); err != nil {
		return nil, err
	}
	res := &stageFit{figures: map[string]any{"kernel": kern.Kind}}
	var feat *Features
	switch {
	case fo.Landmarks > 0:
		if fo.Landmarks > n {
			return nil, transforms.Optionf("landmarks", "%d landmarks for %d rows", fo.Landmarks, n)
		}
		lm := rand.New(rand.NewPCG(fo.Seed, 0x6c616e64)).Perm(n)[:fo.Landmarks]
		slices.Sort(lm)
		env.Progress.Start("kernel matrix", int64(n))
		feat, err = NystromFeaturesContext(ctx, xs, lm, kern, env.Threads)
		env.Progress.Finish()
		res.figures["path"] = "nystrom"
	case kind == Linear && fo.Path != PathDual:
		feat = &Features{F: xs, Rank: p}
		res.figures["path"] = "primal"
	default:
		env.Progress.Start("kernel matrix", int64(n))
		var g []float64
		g, err = kern.Gram(ctx, nil, ft.Z, n, ft.Z, n, p, env.Threads)
		env.Progress.Add(int64(n))
		env.Progress.Finish()
		if err == nil {
			env.Progress.Start("eigendecomposition", 0)
			feat, err = KernelFeaturesContext(ctx, mat.NewDense(n, n, g))
			env.Progress.Finish()
		}
		res.figures["path"] = "dual"
	}
	if err != nil {
		return nil, err
	}
	if _, err := res.fit(ctx, env, feat, ctrl, fo); err != nil {
		return nil, err
	}
	// The model's parameters, as the model header records them.
	params := map[string]any{"kernel": kern.Kind, "nu": fo.Nu, "control_points": len(ctrl.Rows)}
	switch kern.Kind {
	case "rbf":
		params["gamma"] = kern.Gamma
		res.figures["resolved_gamma"] = kern.Gamma
	case "poly":
		params["gamma"], params["degree"], params["coef0"] = kern.Gamma, kern.Degree, kern.Coef0
		res.figures["resolved_gamma"] = kern.Gamma
	}
	if fo.Soft > 0 {
		params["soft"] = fo.Soft
	}
	if fo.Landmarks > 0 {
		params["landmarks"] = fo.Landmarks
	}
	// The linear primal path is an affine map; every other path evaluates
	// f_s(x) = Σⱼ α_sj k(rⱼ, x) over reference rows.
	if feat.Coef == nil {
		res.model = affine.New("ckpca", ft.Scaling, ft.FeatureList, fo.Standardize, make([]float64, p), mat.DenseCopyOf(res.u), params)
	} else {
		var alpha mat.Dense
		alpha.Mul(feat.Coef, res.u)
		ref := xs
		if feat.Ref != nil {
			ref = mat.NewDense(len(feat.Ref), p, nil)
			for r, i := range feat.Ref {
				ref.SetRow(r, xs.RawRowView(i))
			}
		}
		res.model = &KernelModel{Stage: "ckpca", Scaling: ft.Scaling, FeatureList: ft.FeatureList, Standardized: fo.Standardize,
			Kernel: kern, Ref: ref, Alpha: &alpha, Params: params}
	}
	// The written embedding is the model's own placement of the training
	// rows, not Fit's F·U: the two agree to rounding, and this way apply
	// on the same rows gives the same bits.
	if res.embedding, err = place(ctx, env, res.model, ft); err != nil {
		return nil, err
	}
	return res, nil
}

// place returns the n×d row-major embedding of the training rows of ft as
// the model m places them: m.Transform on the raw kept features, exactly
// as apply places rows, so that apply on the same rows is bit-identical to
// the stage's own output by construction.
func place(ctx context.Context, env *transforms.Env, m transforms.Model, ft *transforms.FeatureTable) ([]float64, error) {
	n, d := ft.N, m.Header().Dims
	x := ft.Scaling.Select(nil, ft.X, ft.N, ft.D)
	emb := make([]float64, n*d)
	env.Progress.Start("placing", int64(n))
	defer env.Progress.Finish()
	if err := m.Transform(ctx, emb, x, n, env.Threads); err != nil {
		return nil, err
	}
	env.Progress.Add(int64(n))
	return emb, nil
}

// fit solves cKPCA on the feature map, records the coordinates and the
// figures, and returns Fit's n×d embedding F·U.
func (r *stageFit) fit(ctx context.Context, env *transforms.Env, feat *Features, ctrl Control, fo Options) (*mat.Dense, error) {
	// Components past the feature space's dimension have nothing left to
	// span (and a million of them took hours).
	if _, p := feat.F.Dims(); fo.Dims > p {
		return nil, transforms.Optionf("dims", "%d, but the feature space has %d dimensions (the features on the primal path, the kernel's rank otherwise)", fo.Dims, p)
	}
	env.Progress.Start("optimising", int64(fo.Dims))
	fit, err := fitFeatures(ctx, feat, ctrl, fo)
	env.Progress.Add(int64(fo.Dims))
	env.Progress.Finish()
	if err != nil {
		return nil, err
	}
	_, d := fit.Embedding.Dims()
	r.u = fit.U
	r.figures["dims"] = d
	r.figures["control_points"] = len(ctrl.Rows)
	r.figures["components"] = fit.Components
	r.figures["target_scale"] = fit.TargetScale
	r.figures["rank"] = feat.Rank
	return fit.Embedding, nil
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(Stage{})
}
