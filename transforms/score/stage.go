package score

import (
	"context"
	"fmt"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
	"github.com/ordinate/ordinate/transforms/triplets"
)

// Stage fits SCORE maps to a triplet table: the score stage.
type Stage struct{}

// NewOptions returns the defaults (DefaultOptions: the paper's settings).
func (Stage) NewOptions() transforms.Options {
	o := DefaultOptions()
	return &o
}

// Info describes the stage.
func (Stage) Info() transforms.Info {
	return transforms.Info{
		Name:     "score",
		Category: transforms.CategoryMethods,
		Summary:  "SCORE: one map per aspect from conditional ordinal triplets, on a shared sphere (Le & Lauw)",
		Usage:    "ordinate score --in TRIPLETS [--objects OBJ --id COL] [--single-map] --out MAPS [--aspects-out A] [--sphere-out S]",
		Doc: `TRIPLETS has columns i, j, k (object ids) and aspect (optional; without it all
triplets form one aspect), and, when written by triplets --split-objects, a split
column: then only the train triplets are fitted (--all fits every triplet).
Objects and aspect poles live on the unit sphere S^K (K = --dims); aspect t's map is
the projection onto the tangent plane at its pole, in an orthonormal basis chosen
so that the maps of different aspects line up. MAPS has columns aspect, id,
emb_0 … emb_{K-1} (filter or facet by aspect in a BI tool); --aspects-out writes
aspect, delta, pole_0 … pole_K; --sphere-out the objects' sphere coordinates.`,
		Examples: []string{
			"ordinate triplets --in testdata/zoo/zoo.csv --exclude animal_name,type_name --per-aspect 5000 --out zoo-t.parquet",
			"ordinate score --in zoo-t.parquet --out zoo-maps.parquet --aspects-out zoo-aspects.parquet",
			"ordinate score --in zoo-t.parquet --single-map --out zoo-single.parquet",
		},
		Inputs: triplets.FitRoles("table naming every object (with --id), so that objects in no triplet get a place too"),
		Outputs: []transforms.Role{
			{Name: "out", Help: "maps table (aspect, id, emb_*)", Kind: table.Maps, Required: true},
			{Name: "aspects-out", Help: "the aspects table (aspect, delta, pole_*)", Kind: table.Aspects},
			{Name: "sphere-out", Help: "the objects' sphere coordinates (id, y_*)", Kind: table.Sphere},
		},
	}
}

// Run fits SCORE and writes the maps, and the aspects and the sphere when
// they are wanted.
func (Stage) Run(ctx context.Context, env *transforms.Env, opts transforms.Options) error {
	so := opts.(*Options)
	in, t, err := triplets.ReadFit(ctx, env, so.FitInput)
	if err != nil {
		return err
	}
	o := *so
	o.Threads = env.Threads
	// The sphere positions (n×(dims+1)), a replica per worker and the
	// fitted model, and the per-aspect maps written out (n×dims each).
	n, a := in.Objects.Len(), in.Aspects.Len()
	if err := env.ReserveOption("dims", float64(env.Threads+3)*transforms.Float64Bytes(n+a, o.Dims+1)+float64(a+1)*transforms.Float64Bytes(n, o.Dims),
		fmt.Sprintf("%s maps of %s objects on the sphere in %s dimensions, with the optimiser's copies", transforms.Thousands(int64(a)), transforms.Thousands(int64(n)), transforms.Thousands(int64(o.Dims))),
		"use fewer dims"); err != nil {
		return err
	}
	if err := transforms.CheckDims(o.Dims, n); err != nil {
		return err
	}
	env.Progress.Start("optimising", int64(o.MaxIter))
	o.Progress = func(epoch int, ll float64) { env.Progress.Add(1) }
	m, st, err := Fit(ctx, t, in.Objects.Len(), in.Aspects.Len(), o)
	env.Progress.Finish()
	if err != nil {
		return err
	}
	figures := map[string]any{"epochs": st.Epochs, "converged": st.Converged, "updates": st.Updates,
		"objects": in.Objects.Len(), "aspects": in.Aspects.Names, "triplets": t.Len()}
	if n := len(st.MeanLL); n > 0 {
		figures["mean_log_likelihood"] = st.MeanLL[n-1]
	}
	env.Figures(figures)
	if !st.Converged {
		env.Warn("SCORE did not converge in %d epochs (tol %g); raise max-iter", st.Epochs, o.Tol)
	}
	names := in.Aspects.Names
	if o.SingleMap {
		names = []string{"all"}
	}
	rec := table.MapsRecord(env.Mem, names, in.Objects.Names, m.Maps(), m.Dims)
	defer rec.Release()
	if err := env.WriteRecord(ctx, "out", rec); err != nil {
		return err
	}
	if env.Has("aspects-out") {
		rec := table.AspectsRecord(env.Mem, names, m.Delta, m.X, m.Dims+1)
		defer rec.Release()
		if err := env.WriteRecord(ctx, "aspects-out", rec); err != nil {
			return err
		}
	}
	if env.Has("sphere-out") {
		rec := table.SphereRecord(env.Mem, in.Objects.Names, m.Y, m.Dims+1)
		defer rec.Release()
		return env.WriteRecord(ctx, "sphere-out", rec)
	}
	return nil
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(Stage{})
}
