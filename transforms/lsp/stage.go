package lsp

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/affine"
	"github.com/ordinate/ordinate/transforms/ckpca"
	"github.com/ordinate/ordinate/transforms/table"
)

// Stage is the lsp stage: one of the two control-point baselines on a
// feature table, writing the embedding and, for the linear map, a model.
type Stage struct{}

// Variant names the method: linear (the minimum-norm linear map, InVis)
// or laplacian (Paulovich et al. 2008).
type Variant string

// The variants.
const (
	VariantLinear    Variant = "linear"
	VariantLaplacian Variant = "laplacian"
)

// Values lists the variants.
func (Variant) Values() []string { return []string{string(VariantLinear), string(VariantLaplacian)} }

// Options are the options of the lsp stage and of Laplacian, which reads
// Neighbors, Tol and Threads. Start from DefaultOptions.
type Options struct {
	transforms.Columns
	transforms.Standardization
	Control   []string `opt:"control" help:"columns of target coordinates, one per output dimension, null on non-control rows"`
	Dims      int      `opt:"dims" range:"[0,)" help:"output dimensions (0: one per control column, or per coordinate column of the control table)"`
	Variant   Variant  `opt:"variant" help:"linear (min-norm map, InVis) or laplacian (Paulovich 2008)"`
	Neighbors int      `opt:"neighbors" range:"[1,)" help:"laplacian: neighbours per row (below N)"`

	// Tol is the relative residual of the normal equations that ends the
	// conjugate gradients (values below 1e-14 act as 1e-14).
	Tol float64 `range:"(0,)"`
	// Threads is the number of goroutines of the neighbour search (≤ 0:
	// GOMAXPROCS); the stage takes the run's.
	Threads int
}

// DefaultOptions returns the defaults: the linear map on standardised
// features; 10 neighbours for the Laplacian variant (Paulovich's k), CG to
// a relative residual of 1e-10.
func DefaultOptions() Options {
	return Options{
		Columns:         transforms.DefaultColumns(),
		Standardization: transforms.Standardization{Standardize: true},
		Variant:         VariantLinear,
		Neighbors:       10,
		Tol:             1e-10,
	}
}

// NewOptions returns DefaultOptions.
func (Stage) NewOptions() transforms.Options {
	o := DefaultOptions()
	return &o
}

// Info describes the stage.
func (Stage) Info() transforms.Info {
	return transforms.Info{
		Name:     "lsp",
		Category: transforms.CategoryMethods,
		Summary:  "control-point baselines: the minimum-norm linear map (InVis) or Paulovich's least square projection",
		Usage:    "ordinate lsp --in T (--control cx,cy | --control-table C --id ID) [--variant linear|laplacian] --out E [--model-out M]",
		Doc: `Two different methods that both go by "LSP", named apart:
  --variant linear     the minimum-norm linear map through the control points,
                       P = pinv(X_cp)·Y, as in the InVis tool; the cKPCA paper's
                       baseline. A linear model: --model-out works.
  --variant laplacian  Paulovich et al. (2008): each row at the weighted mean of its
                       --neighbors nearest rows, control rows at their targets, in the
                       least-squares sense (sparse, conjugate gradients). Every group
                       of rows the neighbour graph connects needs a control row.
Control points are read as for ckpca. Features are standardised unless
--standardize=false.`,
		Examples: []string{
			"ordinate lsp --in testdata/ckpca/thyroid-control.csv --label label --control cx,cy --out /tmp/thyroid-lsp.parquet --model-out /tmp/thyroid-lsp.model.parquet",
			"ordinate lsp --in testdata/ckpca/zoo-unique.csv --id animal_name --label type --control-table testdata/ckpca/zoo-placed.csv --variant laplacian --neighbors 15 --out /tmp/zoo-lsp.parquet",
		},
		Inputs: []transforms.Role{
			{Name: "in", Help: "the feature table (rows to embed), with the control columns", Required: true},
			ckpca.ControlTableInput,
		},
		Outputs: []transforms.Role{
			{Name: "out", Help: "the embedding", Kind: table.Embedding, Required: true},
			{Name: "model-out", Help: "the fitted linear map, for apply (variant linear only)", Kind: table.Model, Models: []string{affine.Kind}},
		},
	}
}

// Run fits the variant on the input and writes the embedding (and the
// model).
func (Stage) Run(ctx context.Context, env *transforms.Env, opts transforms.Options) error {
	o := opts.(*Options)
	if o.Variant == VariantLaplacian && env.Has("model-out") {
		return transforms.Optionf("model-out", "needs variant linear: the Laplacian layout depends on the neighbour graph and has no map for new rows")
	}
	fromTable := env.Has(ckpca.ControlTableRole)
	if len(o.Control) == 0 && !fromTable {
		return transforms.Optionf("control", "lsp needs control points: control or %s", ckpca.ControlTableRole)
	}
	ft, err := env.ReadFeatures(ctx, "in", ckpca.ControlSelection(o.Columns, o.Control, fromTable), o.Standardize)
	if err != nil {
		return err
	}
	defer ft.Release()
	ctrl, dims, err := ckpca.ReadControl(ctx, env, ft.Frame, o.ID, o.Control, o.Dims)
	if err != nil {
		return err
	}
	if len(ctrl.Rows) == 0 {
		return transforms.Errorf(ErrControl, "no control rows in %s (every control value is null)", ft.Source.Path)
	}
	n, p := ft.N, ft.K()
	xs := mat.NewDense(n, p, ft.Z)
	env.Figures(map[string]any{"control_points": len(ctrl.Rows), "dims": dims})
	// The plans that grow faster than the rows: the pseudo-inverse of the
	// m control rows (linear), the graph of k neighbours per row and its
	// system (laplacian).
	if m := len(ctrl.Rows); o.Variant == VariantLinear {
		err = env.Reserve(4*transforms.Float64Bytes(m, p)+2*transforms.Float64Bytes(m, m),
			fmt.Sprintf("the pseudo-inverse of %s control rows over %s features", transforms.Thousands(int64(m)), transforms.Thousands(int64(p))),
			"use fewer control rows or features")
	} else {
		err = env.ReserveOption("neighbors", 4*transforms.Float64Bytes(n, min(o.Neighbors, n)),
			fmt.Sprintf("the graph of %s neighbours per row at N = %s", transforms.Thousands(int64(o.Neighbors)), transforms.Thousands(int64(n))),
			"use fewer neighbors")
	}
	if err != nil {
		return err
	}
	env.Progress.Start("optimising", 0)
	if o.Variant == VariantLinear {
		pm, err := Linear(xs, ctrl.Rows, ctrl.Targets, dims)
		env.Progress.Finish()
		if err != nil {
			return err
		}
		// The shared end of a linear stage: the written embedding is the
		// model's own placement of the raw kept features (not xs·P, equal
		// to rounding), exactly as apply places rows, so apply on the same
		// rows gives the same bits.
		params := map[string]any{"variant": string(o.Variant), "control_points": len(ctrl.Rows)}
		if _, err := affine.Write(ctx, env, "lsp", ft, o.Standardize, make([]float64, p), pm, params); err != nil {
			return err
		}
	} else {
		lo := *o
		lo.Threads = env.Threads
		emb, err := laplacianLayout(ctx, xs, ctrl.Rows, ctrl.Targets, dims, lo)
		env.Progress.Finish()
		if err != nil {
			return err
		}
		if err := env.WriteEmbedding(ctx, "out", ft.Frame, emb, dims); err != nil {
			return err
		}
	}
	env.Log.Info(fmt.Sprintf("lsp (%s): %d rows, %d control points -> %d dims", o.Variant, n, len(ctrl.Rows), dims))
	return nil
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(Stage{})
}
