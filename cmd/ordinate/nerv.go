package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/nerv"
)

func nervCommand() *cli.Command {
	def := nerv.DefaultOptions()
	return &cli.Command{
		Name:  "nerv",
		Usage: "SoftClassNeRV embedding with soft class labels; ClassNeRV with hard labels, NeRV without (Mustatea et al.)",
		UsageText: `ordinate nerv --in T [--soft-labels 'p_*' | --label y] [--alpha 0.5] [--gamma 0.5] --out E

Neighbour retrieval visualisation: the stress trades recall (weight Λ) against
precision (1 − Λ) per pair, with Λ = (1 − α)γ + α·λ and λ the class community of
the two points' label distributions (1 − half the L1 distance). Soft labels are
one column per class of non-negative weights, normalised per row (an all-null row
is unlabelled and uses Λ = γ); --label gives hard one-hot labels (ClassNeRV with
τ_in = (1 − α)γ + α, τ_out = (1 − α)γ); with neither it is NeRV with trade-off γ.
Input widths from per-point perplexity; output widths transferred (sᵢ = σᵢ) or
one global width; PCA start; L-BFGS; multiscale perplexities N/2, N/4, … down to
--perplexity. The exact method costs O(N²) time and memory per iteration (a few
thousand rows); --method bh uses sparse input neighbourhoods (the 3K nearest
neighbours, β floored outside them), a Barnes–Hut sum over the embedding and one
global output width, for tens of thousands of rows (its multiscale schedule
starts at the first level at or below perplexity 100).

Examples:
   ordinate nerv --in testdata/ordinal/newthyroid.csv --label label --out nerv.parquet
   ordinate nerv --in cells.parquet --soft-labels 'p_*' --alpha 0.7 --out softclassnerv.parquet
   ordinate nerv --in t.parquet --features 'x*' --gamma 0.3 --out nerv.parquet
   ordinate nerv --in big.parquet --label y --method bh --out classnerv.parquet`,
		Flags: append([]cli.Flag{
			flagIn, flagOut, flagID, flagFeatures, flagLabel,
			&cli.StringFlag{Name: "soft-labels", Usage: "soft label columns, one per class (names and globs)"},
			flagKeep, flagOnInvalid, flagDims,
			&cli.Float64Flag{Name: "alpha", Value: def.Alpha, Usage: "weight of the class community in Λ, in [0, 1]"},
			&cli.Float64Flag{Name: "gamma", Value: def.Gamma, Usage: "recall/precision trade-off without classes, in [0, 1]"},
			&cli.Float64Flag{Name: "perplexity", Value: def.Perplexity, Usage: "effective number of neighbours K"},
			&cli.BoolFlag{Name: "multiscale", Value: true, Usage: "perplexity schedule max(N/2^h, K), warm-started (--multiscale=false: K only)"},
			&cli.StringFlag{Name: "method", Value: "exact", Usage: "exact (O(N²)) or bh (sparse input, Barnes–Hut, global width)"},
			&cli.Float64Flag{Name: "bh-tol", Value: nerv.DefaultBHTol, Usage: "Barnes–Hut: largest error of a cell's kernel sum relative to the row's neighbour kernels (0: exact sums)"},
			&cli.StringFlag{Name: "output-scale", Usage: "transfer (sᵢ = σᵢ) or global (one width) (default: transfer, global with --method bh)"},
			&cli.IntFlag{Name: "max-iter", Value: def.MaxIter, Usage: "L-BFGS iterations per scale"},
			&cli.Float64Flag{Name: "tol", Value: def.Tol, Usage: "relative stress decrease over 10 iterations that ends a scale"},
		}, commonFlags()...),
		Action: action(runNeRV),
	}
}

func runNeRV(c *cli.Context) error {
	e, err := newEnv(c, "nerv")
	if err != nil {
		return err
	}
	if err := checkOutPath(c.String("in"), c.String("out")); err != nil {
		return err
	}
	if c.String("label") != "" && c.String("soft-labels") != "" {
		return usagef("give --label (hard) or --soft-labels (soft), not both")
	}
	sel, err := selection(c)
	if err != nil {
		return err
	}
	f, err := e.readFrame("in", c.String("in"), sel)
	if err != nil {
		return err
	}
	defer f.Release()
	o := nerv.DefaultOptions()
	o.Dims, o.Alpha, o.Gamma, o.Perplexity = c.Int("dims"), c.Float64("alpha"), c.Float64("gamma"), c.Float64("perplexity")
	o.Multiscale, o.MaxIter, o.Tol, o.Threads = c.Bool("multiscale"), c.Int("max-iter"), c.Float64("tol"), e.threads()
	o.BHTol = c.Float64("bh-tol")
	switch m := c.String("method"); m {
	case "exact":
		o.Method = nerv.Exact
	case "bh":
		o.Method, o.OutputScale = nerv.BarnesHut, nerv.Global
	default:
		return usagef("--method %q: want exact or bh", m)
	}
	switch s := c.String("output-scale"); s {
	case "":
	case "transfer":
		if o.Method == nerv.BarnesHut {
			return usagef("--output-scale transfer needs --method exact: Barnes–Hut sums need one global width")
		}
		o.OutputScale = nerv.Transfer
	case "global":
		o.OutputScale = nerv.Global
	default:
		return usagef("--output-scale %q: want transfer or global", s)
	}
	var soft []float64
	var classes []string
	mode := "nerv"
	switch {
	case f.Soft != nil:
		soft, classes, mode = f.Soft, f.SoftNames, "softclassnerv"
	case f.Label != nil:
		cls, err := transforms.NominalClasses(f, nil)
		if err != nil {
			return badInput(err)
		}
		classes, mode = cls.Names, "classnerv"
		soft = make([]float64, f.N*cls.K())
		for i, k := range cls.Index {
			soft[i*cls.K()+k] = 1
		}
	}
	if o.Method == nerv.Exact && f.N > 10000 {
		e.warn(fmt.Sprintf("the exact method holds three N×N matrices (%.1f GB at N = %d) and costs O(N²) per iteration; --method bh scales to larger N",
			3*8*float64(f.N)*float64(f.N)/1e9, f.N))
	}
	e.prog.Start("nerv scales", int64(len(o.Levels(f.N))))
	o.Progress = func(perp, stress float64, iters int) {
		e.prog.Add(1)
		e.log.Info("scale done", "perplexity", perp, "stress", stress, "iterations", iters)
	}
	res, err := nerv.Fit(e.ctx, f.X, f.N, f.D, soft, len(classes), o)
	e.prog.Finish()
	if err != nil {
		if e.ctx.Err() != nil {
			return err
		}
		return badInput(err)
	}
	figures := map[string]any{"mode": mode, "method": c.String("method"), "stress": res.Stress, "levels": res.Levels, "classes": classes}
	e.log.Info(fmt.Sprintf("%s: %d rows, %d features -> %d dims", mode, f.N, f.D, o.Dims), "stress", res.Stress)
	return e.writeEmbedding(c.String("out"), f, res.Y, o.Dims, figures)
}
