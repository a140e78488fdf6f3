package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

type fitFunc func(context.Context, *arrowio.Frame, transforms.LinearOptions) (*transforms.LinearFit, error)

// linearCommand builds the command of a linear stage (bvp, pca, lda): read,
// fit, write the embedding and, with --model-out, the model.
func linearCommand(name, usage, text string, extra []cli.Flag, fit fitFunc) *cli.Command {
	flags := []cli.Flag{flagIn, flagOut, flagID, flagFeatures, flagLabel, flagOrder, flagKeep, flagOnInvalid, flagDims, flagStd, flagModelOut}
	flags = append(flags, extra...)
	flags = append(flags, commonFlags()...)
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		UsageText: text,
		Flags:     flags,
		Action: action(func(c *cli.Context) error {
			e, err := newEnv(c, name)
			if err != nil {
				return err
			}
			in, out := c.String("in"), c.String("out")
			if err := checkOutPath(in, out); err != nil {
				return err
			}
			if m := c.String("model-out"); m != "" {
				if err := checkOutPath(in, m); err != nil {
					return err
				}
			}
			if c.Int("dims") < 1 {
				return usagef("--dims %d: want at least 1", c.Int("dims"))
			}
			sel, err := selection(c)
			if err != nil {
				return err
			}
			f, err := e.readFrame("in", in, sel)
			if err != nil {
				return err
			}
			defer f.Release()
			opts := transforms.LinearOptions{
				Dims:        c.Int("dims"),
				Standardize: c.Bool("standardize"),
				Order:       splitList(c.String("order")),
				Seed:        c.Uint64("seed"),
				Threads:     e.threads(),
				Solver:      stringFlag(c, "solver"),
				MaxIter:     intFlag(c, "max-iter"),
				Tol:         floatFlag(c, "tol"),
				Step0:       floatFlag(c, "step0"),
				Shrinkage:   floatFlag(c, "shrinkage"),
			}
			res, err := fit(e.ctx, f, opts)
			if err != nil {
				return badInput(err)
			}
			for _, w := range res.Warnings {
				e.warn(w)
			}
			if err := e.writeEmbedding(out, f, res.Embedding, opts.Dims, res.Figures); err != nil {
				return err
			}
			if m := c.String("model-out"); m != "" {
				if err := transforms.SaveModel(e.ctx, m, res.Model, e.prov); err != nil {
					return err
				}
				e.log.Info("wrote model", "model", m, "features", len(res.Model.Features))
			}
			e.log.Info(fmt.Sprintf("%s: %d rows, %d features -> %d dims", name, f.N, len(res.Model.Features), opts.Dims))
			return nil
		}),
	}
}

func stringFlag(c *cli.Context, name string) string {
	if !hasFlag(c, name) {
		return ""
	}
	return c.String(name)
}

func intFlag(c *cli.Context, name string) int {
	if !hasFlag(c, name) {
		return 0
	}
	return c.Int(name)
}

func floatFlag(c *cli.Context, name string) float64 {
	if !hasFlag(c, name) {
		return 0
	}
	return c.Float64(name)
}

func bvpCommand() *cli.Command {
	return linearCommand("bvp", "best-view projection for ordinal classes (Zine-El-Abidine et al.)",
		`ordinate bvp --in T --label grade [--order a,b,c] [--solver svd|rgd] [--dims 2] --out E [--model-out M]

BVP finds the view in which the centres of adjacent ordinal classes are seen
furthest apart. Numeric labels are ordered ascending; text labels need --order.
--solver svd (default) computes the paper's fixed point exactly (the top right
singular vectors of the matrix of adjacent centre differences); --solver rgd runs
the paper's Algorithm 1 (Riemannian gradient descent with Barzilai-Borwein steps).

Examples:
   ordinate bvp --in newthyroid.csv --label label --out e.parquet
   ordinate bvp --in 'grades/*.parquet' --id student --label grade --order low,mid,high \
       --features 'score_*' --out e.parquet --model-out bvp.model.parquet
   ordinate bvp --in t.csv --label y --solver rgd --seed 7 --out e.csv`,
		[]cli.Flag{
			&cli.StringFlag{Name: "solver", Value: "svd", Usage: "svd (exact) or rgd (the paper's Algorithm 1)"},
			&cli.IntFlag{Name: "max-iter", Value: 100, Usage: "rgd: iterations per deflation step"},
			&cli.Float64Flag{Name: "tol", Value: 1e-5, Usage: "rgd: stop when the angle between iterates is below this (radians)"},
			&cli.Float64Flag{Name: "step0", Value: 0.05, Usage: "rgd: first step size γ₀"},
		},
		transforms.FitBVP)
}

func pcaCommand() *cli.Command {
	return linearCommand("pca", "principal component analysis (unsupervised baseline)",
		`ordinate pca --in T [--label y] --out E [--model-out M]

The label, if given, is only passed through to the output (for colouring).

Examples:
   ordinate pca --in newthyroid.csv --label label --out pca.parquet
   ordinate pca --in t.parquet --features 'x*' --dims 3 --standardize=false --out pca.arrow`,
		nil, transforms.FitPCA)
}

func ldaCommand() *cli.Command {
	return linearCommand("lda", "Fisher linear discriminant analysis (supervised baseline)",
		`ordinate lda --in T --label y [--order a,b,c] --out E [--model-out M]

At most (classes − 1) axes are discriminant; further axes are filled with the
directions of largest remaining variance, with a warning.

Examples:
   ordinate lda --in newthyroid.csv --label label --out lda.parquet
   ordinate lda --in t.parquet --label species --shrinkage 1e-3 --out lda.parquet --model-out lda.model.parquet`,
		[]cli.Flag{
			&cli.Float64Flag{Name: "shrinkage", Value: 0, Usage: "ridge ε added to the within-class scatter (0: 1e-6·trace/D)"},
		},
		transforms.FitLDA)
}
