package oe

import (
	"context"
	"fmt"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
	"github.com/ordinate/ordinate/transforms/triplets"
)

// TSTEStage fits t-STE maps to a triplet table: the tste stage.
type TSTEStage struct{}

// SOEStage fits SOE maps to a triplet table: the soe stage.
type SOEStage struct{}

// NewOptions returns the defaults (DefaultTSTEOptions).
func (TSTEStage) NewOptions() transforms.Options {
	o := DefaultTSTEOptions()
	return &o
}

// NewOptions returns the defaults (DefaultSOEOptions).
func (SOEStage) NewOptions() transforms.Options {
	o := DefaultSOEOptions()
	return &o
}

func oeInfo(name, summary, usage, doc string, examples []string) transforms.Info {
	return transforms.Info{
		Name: name, Category: transforms.CategoryMethods, Summary: summary, Usage: usage, Doc: doc, Examples: examples,
		Inputs: triplets.FitRoles("table naming every object (with --id)"),
		Outputs: []transforms.Role{
			{Name: "out", Help: "maps table (aspect, id, emb_*): aspect \"all\" for one map, or one map per aspect", Kind: table.Maps, Required: true},
		},
	}
}

// Info describes the stage.
func (TSTEStage) Info() transforms.Info {
	return oeInfo("tste", "t-STE ordinal embedding of triplets (van der Maaten & Weinberger), one map or one per aspect",
		"ordinate tste --in TRIPLETS [--per-aspect] [--dims 2] --out MAPS",
		`t-STE: P = K_ji/(K_ji + K_jk) with the Student-t kernel (1 + d²/α)^(−(α+1)/2),
α = dims − 1 (1 for one dimension); cost −Σ log P, minimised with L-BFGS.
Triplets <i, j, k> say that j is more similar to i than to k. The output has
columns aspect, id, emb_*: aspect "all" for one map, or one map per aspect.`,
		[]string{
			"ordinate triplets --in testdata/zoo/zoo.csv --exclude animal_name,type_name --per-aspect 2000 --out zt.parquet",
			"ordinate tste --in zt.parquet --out tste.parquet",
			"ordinate tste --in zt.parquet --per-aspect --out tste-aspects.parquet",
		})
}

// Info describes the stage.
func (SOEStage) Info() transforms.Info {
	return oeInfo("soe", "soft ordinal embedding of triplets (Terada & von Luxburg), one map or one per aspect",
		"ordinate soe --in TRIPLETS [--per-aspect] [--margin 0.1] --out MAPS",
		`SOE: cost Σ max(0, d_ji + margin − d_jk)² on plain (not squared) distances,
minimised with L-BFGS. Output as tste.`,
		[]string{
			"ordinate triplets --in testdata/zoo/zoo.csv --exclude animal_name,type_name --per-aspect 2000 --out zt.parquet",
			"ordinate soe --in zt.parquet --out soe.parquet",
			"ordinate soe --in zt.parquet --per-aspect --out soe-aspects.parquet",
		})
}

// Run fits t-STE and writes the maps.
func (TSTEStage) Run(ctx context.Context, env *transforms.Env, opts transforms.Options) error {
	o := *opts.(*TSTEOptions)
	return runOE(ctx, env, &o)
}

// Run fits SOE and writes the maps.
func (SOEStage) Run(ctx context.Context, env *transforms.Env, opts transforms.Options) error {
	o := *opts.(*SOEOptions)
	return runOE(ctx, env, &o)
}

// runOE is the run of both stages: read the triplets, fit one map or one per
// aspect with the method of m (a copy of the stage's options, validated by
// transforms.Run), write the maps.
func runOE(ctx context.Context, env *transforms.Env, m Method) error {
	o := m.common()
	in, t, err := triplets.ReadFit(ctx, env, o.FitInput)
	if err != nil {
		return err
	}
	o.Threads = env.Threads
	o.Progress = func() { env.Progress.Add(1) } // once per L-BFGS iteration
	n := in.Objects.Len()
	if err := checkInput(n, t); err != nil {
		return err
	}
	// The maps and, while one is fitted, L-BFGS's Store pairs, its own
	// vectors and the evaluator's per-chunk gradients: all n×dims.
	kept := 1
	if o.PerAspect {
		kept = in.Aspects.Len()
	}
	copies := kept + 2*o.Store + 6 + maxChunks
	if err := env.ReserveOption("dims", float64(copies)*transforms.Float64Bytes(n, o.Dims),
		fmt.Sprintf("%d maps of %s objects in %s dimensions and the optimiser's copies (%d in all)", kept, transforms.Thousands(int64(n)), transforms.Thousands(int64(o.Dims)), copies),
		"use fewer dims"); err != nil {
		return err
	}
	if err := transforms.CheckDims(o.Dims, n); err != nil {
		return err
	}
	var maps [][]float64
	aspects := []string{"all"}
	figures := map[string]any{"objects": n, "triplets": t.Len()}
	if o.PerAspect {
		parts := splitByAspect(t, in.Aspects.Len())
		for a := range parts {
			if parts[a].Len() == 0 {
				return transforms.Errorf(ErrNoTriplets, "aspect %q", in.Aspects.Names[a])
			}
		}
		res, err := perAspect(ctx, n, parts, m, func(a int) func() {
			env.Progress.Start(fmt.Sprintf("optimising aspect %d/%d", a+1, len(parts)), int64(o.MaxIter))
			return env.Progress.Finish
		})
		if err != nil {
			return err
		}
		aspects = in.Aspects.Names
		costs := make([]float64, len(res))
		iters := make([]int, len(res))
		status := make([]string, len(res))
		for a, r := range res {
			maps = append(maps, r.Y)
			costs[a], iters[a], status[a] = r.Cost, r.Iterations, r.Status
		}
		figures["cost"], figures["iterations"], figures["status"] = costs, iters, status
	} else {
		env.Progress.Start("optimising", int64(o.MaxIter))
		res, err := fit(ctx, n, t, m, 0)
		env.Progress.Finish()
		if err != nil {
			return err
		}
		maps = [][]float64{res.Y}
		figures["cost"], figures["iterations"], figures["status"] = res.Cost, res.Iterations, res.Status
	}
	env.Figures(figures)
	env.Log.Info(env.Prov.Stage, "objects", n, "triplets", t.Len(), "maps", len(maps))
	rec := table.MapsRecord(env.Mem, aspects, in.Objects.Names, maps, o.Dims)
	defer rec.Release()
	return env.WriteRecord(ctx, "out", rec)
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(TSTEStage{})
	transforms.Register(SOEStage{})
}
