package main

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/transforms/score"
)

func scoreCommand() *cli.Command {
	return &cli.Command{
		Name:  "score",
		Usage: "SCORE: one map per aspect from conditional ordinal triplets, on a shared sphere (Le & Lauw)",
		UsageText: `ordinate score --in TRIPLETS [--objects OBJ --id COL] [--single-map] --out MAPS [--aspects-out A] [--sphere-out S]

TRIPLETS has columns i, j, k (object ids) and aspect (optional; without it all
triplets form one aspect), and, when written by triplets --split-objects, a split
column: then only the train triplets are fitted (--all fits every triplet).
Objects and aspect poles live on the unit sphere S^K (K = --dims); aspect t's map is
the projection onto the tangent plane at its pole, in an orthonormal basis chosen
so that the maps of different aspects line up. MAPS has columns aspect, id,
emb_0 … emb_{K-1} (filter or facet by aspect in a BI tool); --aspects-out writes
aspect, delta, pole_0 … pole_K; --sphere-out the objects' sphere coordinates.

Examples:
   ordinate triplets --in testdata/zoo/zoo.csv --exclude animal_name,type_name --per-aspect 5000 --out zoo-t.parquet
   ordinate score --in zoo-t.parquet --out zoo-maps.parquet --aspects-out zoo-aspects.parquet
   ordinate score --in zoo-t.parquet --single-map --out zoo-single.parquet`,
		Flags: append([]cli.Flag{
			flagIn, flagOut,
			&cli.StringFlag{Name: "objects", Usage: "table naming every object (with --id), so that objects in no triplet get a place too"},
			&cli.StringFlag{Name: "id", Usage: "id column of --objects"},
			&cli.BoolFlag{Name: "single-map", Usage: "pool all triplets into one map (the paper's single-map comparison)"},
			&cli.BoolFlag{Name: "all", Usage: "fit every triplet, also those marked split = hidden"},
			&cli.StringFlag{Name: "aspects-out", Usage: "write the aspects table (aspect, delta, pole_*) here"},
			&cli.StringFlag{Name: "sphere-out", Usage: "write the objects' sphere coordinates (id, y_*) here"},
			flagDims, flagOnInvalid, flagTripletColumns,
			&cli.Float64Flag{Name: "alpha", Value: 30, Usage: "scaling factor α"},
			&cli.Float64Flag{Name: "learning-rate", Value: 0.05, Usage: "SGD step ε"},
			&cli.Float64Flag{Name: "kappa", Value: 0, Usage: "von Mises-Fisher prior concentration κ (0: flat)"},
			&cli.IntFlag{Name: "epochs", Value: 200, Usage: "maximum epochs"},
			&cli.Float64Flag{Name: "tol", Value: 1e-3, Usage: "stop when the mean log-likelihood changes less than this per epoch"},
			&cli.BoolFlag{Name: "deterministic", Usage: "one ordered SGD stream: bit-identical results for a seed (slower)"},
		}, commonFlags()...),
		Action: action(runScore),
	}
}

func runScore(c *cli.Context) error {
	e, err := newEnv(c, "score")
	if err != nil {
		return err
	}
	in, t, err := readFitTriplets(e, c)
	if err != nil {
		return err
	}
	o := score.Options{
		Dims: c.Int("dims"), Alpha: c.Float64("alpha"), LearningRate: c.Float64("learning-rate"), Kappa: c.Float64("kappa"),
		Epochs: c.Int("epochs"), Tol: c.Float64("tol"), SingleMap: c.Bool("single-map"), Deterministic: c.Bool("deterministic"),
		Threads: e.threads(), Seed: c.Uint64("seed"),
	}
	e.prog.Start("score epochs", int64(o.Epochs))
	o.Progress = func(epoch int, ll float64) { e.prog.Add(1) }
	m, st, err := score.Fit(e.ctx, t, in.Objects.Len(), in.Aspects.Len(), o)
	e.prog.Finish()
	if err != nil {
		if e.ctx.Err() != nil {
			return err
		}
		return badInput(err)
	}
	figures := map[string]any{"epochs": st.Epochs, "converged": st.Converged, "updates": st.Updates,
		"objects": in.Objects.Len(), "aspects": in.Aspects.Names, "triplets": t.Len()}
	if n := len(st.MeanLL); n > 0 {
		figures["mean_log_likelihood"] = st.MeanLL[n-1]
	}
	if !st.Converged {
		e.warn(fmt.Sprintf("SCORE did not converge in %d epochs (--tol %g); raise --epochs", st.Epochs, o.Tol))
	}
	aspectNames := in.Aspects.Names
	if o.SingleMap {
		aspectNames = []string{"all"}
	}
	if err := writeMaps(e, c.String("out"), in.Objects.Names, aspectNames, m.Maps(), m.Dims, figures); err != nil {
		return err
	}
	if p := c.String("aspects-out"); p != "" {
		if err := writeAspects(e, p, aspectNames, m); err != nil {
			return err
		}
	}
	if p := c.String("sphere-out"); p != "" {
		return writeSphere(e, p, in.Objects.Names, m.Y, m.Dims+1)
	}
	return nil
}

func writeAspects(e *env, out string, names []string, m *score.Model) error {
	k1 := m.Dims + 1
	fields := append([]arrow.Field{{Name: "aspect", Type: arrow.BinaryTypes.String}, {Name: "delta", Type: arrow.PrimitiveTypes.Float64}},
		float64Fields("pole_", k1)...)
	return e.writeTable(out, arrow.NewSchema(fields, nil), func(b *array.RecordBuilder) {
		for t, name := range names {
			b.Field(0).(*array.StringBuilder).Append(name)
			b.Field(1).(*array.Float64Builder).Append(m.Delta[t])
			for j := range k1 {
				b.Field(2 + j).(*array.Float64Builder).Append(m.X[t*k1+j])
			}
		}
	}, nil)
}

func writeSphere(e *env, out string, ids []string, y []float64, k1 int) error {
	fields := append([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}, float64Fields("y_", k1)...)
	return e.writeTable(out, arrow.NewSchema(fields, nil), func(b *array.RecordBuilder) {
		for i, id := range ids {
			b.Field(0).(*array.StringBuilder).Append(id)
			for j := range k1 {
				b.Field(1 + j).(*array.Float64Builder).Append(y[i*k1+j])
			}
		}
	}, nil)
}
