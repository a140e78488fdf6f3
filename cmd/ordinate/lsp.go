package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/lsp"
)

func lspCommand() *cli.Command {
	return &cli.Command{
		Name:  "lsp",
		Usage: "control-point baselines: the minimum-norm linear map (InVis) or Paulovich's least square projection",
		UsageText: `ordinate lsp --in T (--control cx,cy | --control-table C) [--variant linear|laplacian] --out E [--model-out M]

Two different methods that both go by "LSP", named apart:
  --variant linear     the minimum-norm linear map through the control points,
                       P = pinv(X_cp)·Y, as in the InVis tool; the cKPCA paper's
                       baseline. A linear model: --model-out works.
  --variant laplacian  Paulovich et al. (2008): each row at the weighted mean of its
                       --neighbors nearest rows, control rows at their targets, in the
                       least-squares sense (sparse, conjugate gradients). Every group
                       of rows the neighbour graph connects needs a control row.
Control points are read as for ckpca. Features are standardised unless
--standardize=false.

Examples:
   ordinate lsp --in t.parquet --control cx,cy --out lsp.parquet
   ordinate lsp --in t.parquet --control-table placed.csv --id name --variant laplacian --neighbors 15 --out lsp.parquet`,
		Flags: append([]cli.Flag{
			flagIn, flagOut, flagID, flagFeatures, flagLabel, flagKeep, flagOnInvalid, flagDims, flagStd, flagModelOut,
			&cli.StringFlag{Name: "control", Usage: "columns of target coordinates, one per output dimension, null on non-control rows"},
			&cli.StringFlag{Name: "control-table", Usage: "table of control points: the --id column and one coordinate column per dimension"},
			&cli.StringFlag{Name: "variant", Value: "linear", Usage: "linear (min-norm map, InVis) or laplacian (Paulovich 2008)"},
			&cli.IntFlag{Name: "neighbors", Value: 10, Usage: "laplacian: neighbours per row"},
		}, commonFlags()...),
		Action: action(runLSP),
	}
}

func runLSP(c *cli.Context) error {
	e, err := newEnv(c, "lsp")
	if err != nil {
		return err
	}
	in, out := c.String("in"), c.String("out")
	if err := checkOutPaths(in, out, c.String("model-out")); err != nil {
		return err
	}
	variant := c.String("variant")
	switch variant {
	case "linear":
	case "laplacian":
		if c.String("model-out") != "" {
			return usagef("--model-out needs --variant linear: the Laplacian layout depends on the neighbour graph and has no map for new rows")
		}
	default:
		return usagef("--variant %q: want linear or laplacian", variant)
	}
	if c.String("control") == "" && c.String("control-table") == "" {
		return usagef("lsp needs control points: --control or --control-table")
	}
	f, ctrl, dims, err := readControlInput(c, e, false)
	if err != nil {
		return err
	}
	defer f.Release()
	if len(ctrl.Rows) == 0 {
		return badInput(fmt.Errorf("%w: no control rows in %s (every control value is null)", lsp.ErrControl, in))
	}
	scale, warns := transforms.FitScaling(f.X, f.N, f.D, f.FeatureNames, c.Bool("standardize"))
	for _, w := range warns {
		e.warn(w)
	}
	xs := mat.NewDense(f.N, len(scale.Cols), scale.Apply(nil, f.X, f.N, f.D))
	figures := map[string]any{"variant": variant, "control_points": len(ctrl.Rows)}
	var emb []float64
	var model transforms.Model
	if variant == "linear" {
		p, err := lsp.Linear(xs, ctrl.Rows, ctrl.Targets, dims)
		if err != nil {
			return badInput(err)
		}
		var m mat.Dense
		m.Mul(xs, p)
		emb = m.RawMatrix().Data
		model = transforms.NewAffine("lsp", scale, f.FeatureList, c.Bool("standardize"), make([]float64, len(scale.Cols)), p, figures)
	} else {
		figures["neighbors"] = c.Int("neighbors")
		emb, err = lsp.Laplacian(e.ctx, xs, ctrl.Rows, ctrl.Targets, dims, lsp.LaplacianOptions{Neighbors: c.Int("neighbors"), Tol: 1e-10, Threads: e.threads()})
		if err != nil {
			if e.ctx.Err() != nil {
				return err
			}
			return badInput(err)
		}
	}
	if err := e.writeEmbedding(out, f, emb, dims, figures); err != nil {
		return err
	}
	if m := c.String("model-out"); m != "" {
		if err := transforms.SaveModel(e.ctx, m, model, e.prov); err != nil {
			return err
		}
	}
	e.log.Info(fmt.Sprintf("lsp (%s): %d rows, %d control points -> %d dims", variant, f.N, len(ctrl.Rows), dims))
	return nil
}
