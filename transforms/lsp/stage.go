package lsp

import (
	"context"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/ckpca"
	"github.com/ordinate/ordinate/transforms/table"
)

// Stage is the lsp stage: one of the two control-point baselines on a
// feature table, writing the embedding and, for the linear map, a model.
type Stage struct{}

// Variant names the method: linear (the minimum-norm linear map, InVis)
// or laplacian (Paulovich et al. 2008). The zero value is linear.
type Variant int

// The variants.
const (
	VariantLinear Variant = iota
	VariantLaplacian
)

var variantNames = []string{"linear", "laplacian"}

func (v Variant) Values() []string { return slices.Clone(variantNames) }
func (v Variant) String() string {
	if int(v) >= 0 && int(v) < len(variantNames) {
		return variantNames[v]
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}
func (v Variant) MarshalText() ([]byte, error) { return []byte(v.String()), nil }
func (v *Variant) UnmarshalText(b []byte) error {
	i := slices.Index(variantNames, string(b))
	if i < 0 {
		return fmt.Errorf("%q: want one of %v", b, variantNames)
	}
	*v = Variant(i)
	return nil
}

// StageOptions are the options of the lsp stage.
type StageOptions struct {
	transforms.Columns
	transforms.Standardization
	Control   []string `opt:"control" help:"columns of target coordinates, one per output dimension, null on non-control rows"`
	Dims      int      `opt:"dims" help:"output dimensions (0: one per control column, or per coordinate column of the control table)"`
	Variant   Variant  `opt:"variant" help:"linear (min-norm map, InVis) or laplacian (Paulovich 2008)"`
	Neighbors int      `opt:"neighbors" help:"laplacian: neighbours per row (at least 1, below N)"`
}

// NewOptions returns the defaults: the linear map on standardised
// features; 10 neighbours for the Laplacian variant.
func (Stage) NewOptions() transforms.Options {
	return &StageOptions{Columns: transforms.DefaultColumns(), Standardization: transforms.Standardization{Standardize: true}, Neighbors: 10}
}

// Validate checks the options that need no data.
func (o *StageOptions) Validate() error {
	switch {
	case o.Dims < 0:
		return transforms.Optionf("dims", "%d: want 0 (from the control points) or a positive count", o.Dims)
	case o.Neighbors < 1:
		return transforms.Optionf("neighbors", "%d: want ≥ 1", o.Neighbors)
	}
	return nil
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
			{Name: "model-out", Help: "the fitted linear map, for apply (variant linear only)", Kind: table.Model},
		},
	}
}

// Run fits the variant on the input and writes the embedding (and the
// model).
func (Stage) Run(ctx context.Context, env *transforms.Env, opts transforms.Options) error {
	o := opts.(*StageOptions)
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
		return fmt.Errorf("%w: no control rows in %s (every control value is null)", ErrControl, ft.Source.Path)
	}
	n, p := ft.N, ft.K()
	xs := mat.NewDense(n, p, ft.Z)
	env.Figures(map[string]any{"variant": o.Variant.String(), "control_points": len(ctrl.Rows), "dims": dims})
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
		params := map[string]any{"variant": o.Variant.String(), "control_points": len(ctrl.Rows)}
		if _, err := env.WriteLinear(ctx, "lsp", ft, o.Standardize, make([]float64, p), pm, params); err != nil {
			return err
		}
	} else {
		emb, err := Laplacian(ctx, xs, ctrl.Rows, ctrl.Targets, dims, LaplacianOptions{Neighbors: o.Neighbors, Tol: 1e-10, Threads: env.Threads})
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
