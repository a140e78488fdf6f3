package main

import (
	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/transforms/oe"
)

// oeCommand builds tste and soe: single-map ordinal embedding baselines.
func oeCommand(name, usage, text string, method oe.Method, extra []cli.Flag) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		UsageText: text,
		Flags: append(append([]cli.Flag{
			flagIn, flagOut,
			&cli.StringFlag{Name: "objects", Usage: "table naming every object (with --id)"},
			&cli.StringFlag{Name: "id", Usage: "id column of --objects"},
			&cli.BoolFlag{Name: "per-aspect", Usage: "one independent map per aspect (the paper's disjoint learning)"},
			&cli.BoolFlag{Name: "all", Usage: "fit every triplet, also those marked split = hidden"},
			&cli.IntFlag{Name: "max-iter", Value: 1000, Usage: "L-BFGS iterations"},
			flagDims, flagOnInvalid, flagTripletColumns,
		}, extra...), commonFlags()...),
		Action: action(func(c *cli.Context) error {
			e, err := newEnv(c, name)
			if err != nil {
				return err
			}
			in, t, err := readFitTriplets(e, c)
			if err != nil {
				return err
			}
			o := oe.Options{Dims: c.Int("dims"), MaxIter: c.Int("max-iter"), Seed: c.Uint64("seed"), Threads: e.threads()}
			if hasFlag(c, "alpha") {
				o.Alpha = c.Float64("alpha")
			}
			if hasFlag(c, "margin") {
				o.Margin = c.Float64("margin")
			}
			n := in.Objects.Len()
			var maps [][]float64
			aspects := []string{"all"}
			figures := map[string]any{"objects": n, "triplets": t.Len()}
			if c.Bool("per-aspect") {
				res, err := oe.PerAspect(e.ctx, n, in.Aspects.Len(), t, method, o)
				if err != nil {
					return fitError(e, err)
				}
				aspects = in.Aspects.Names
				costs := make([]float64, len(res))
				for a, r := range res {
					maps = append(maps, r.Y)
					costs[a] = r.Cost
				}
				figures["cost"] = costs
			} else {
				res, err := method(e.ctx, n, t, o)
				if err != nil {
					return fitError(e, err)
				}
				maps = [][]float64{res.Y}
				figures["cost"], figures["iterations"], figures["status"] = res.Cost, res.Iterations, res.Status
			}
			e.log.Info(name, "objects", n, "triplets", t.Len(), "maps", len(maps))
			return writeMaps(e, c.String("out"), in.Objects.Names, aspects, maps, o.Dims, figures)
		}),
	}
}

func fitError(e *env, err error) error {
	if e.ctx.Err() != nil {
		return err
	}
	return badInput(err)
}

func tsteCommand() *cli.Command {
	return oeCommand("tste", "t-STE ordinal embedding of triplets (van der Maaten & Weinberger), one map or one per aspect",
		`ordinate tste --in TRIPLETS [--per-aspect] [--dims 2] --out MAPS

t-STE: P = K_ji/(K_ji + K_jk) with the Student-t kernel (1 + d²/α)^(−(α+1)/2),
α = dims − 1 (1 for one dimension); cost −Σ log P, minimised with L-BFGS.
Triplets <i, j, k> say that j is more similar to i than to k. The output has
columns aspect, id, emb_*: aspect "all" for one map, or one map per aspect.

Examples:
   ordinate triplets --in testdata/zoo/zoo.csv --exclude animal_name,type_name --per-aspect 2000 --out zt.parquet
   ordinate tste --in zt.parquet --out tste.parquet
   ordinate tste --in zt.parquet --per-aspect --out tste-aspects.parquet`,
		oe.TSTE, []cli.Flag{&cli.Float64Flag{Name: "alpha", Usage: "Student-t degrees of freedom (0: dims − 1)"}})
}

func soeCommand() *cli.Command {
	return oeCommand("soe", "soft ordinal embedding of triplets (Terada & von Luxburg), one map or one per aspect",
		`ordinate soe --in TRIPLETS [--per-aspect] [--margin 0.1] --out MAPS

SOE: cost Σ max(0, d_ji + margin − d_jk)² on plain (not squared) distances,
minimised with L-BFGS. Output as tste.

Examples:
   ordinate soe --in zt.parquet --out soe.parquet
   ordinate soe --in zt.parquet --per-aspect --out soe-aspects.parquet`,
		oe.SOE, []cli.Flag{&cli.Float64Flag{Name: "margin", Value: 0.1, Usage: "hinge margin δ"}})
}
