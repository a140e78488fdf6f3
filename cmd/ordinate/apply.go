package main

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

func applyCommand() *cli.Command {
	return &cli.Command{
		Name:  "apply",
		Usage: "place new rows with a saved model, streaming batch by batch",
		UsageText: `ordinate apply --model M --in T --out E [--id COL] [--keep COLS] [--on-invalid error|drop]

The model (written by --model-out of bvp, pca, lda, ckpca or lsp) names its input features;
apply reads them from T, one record batch at a time, so memory does not grow with
the number of rows. The output has the same layout as the fitting stage's.

Examples:
   ordinate bvp --in train.parquet --label grade --out train-emb.parquet --model-out bvp.model.parquet
   ordinate apply --model bvp.model.parquet --in 'incoming/*.parquet' --id id --out incoming-emb.parquet
   cat batch.arrows | ordinate apply --model bvp.model.parquet --in - --out - > emb.arrows`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "model", Usage: "model file written with --model-out", Required: true},
			flagIn, flagOut, flagID, flagKeep, flagOnInvalid,
		}, flagQuiet, flagLogFormat),
		Action: action(func(c *cli.Context) error {
			e, err := newEnv(c, "apply")
			if err != nil {
				return err
			}
			in, out, mpath := c.String("in"), c.String("out"), c.String("model")
			if err := checkOutPath(in, out); err != nil {
				return err
			}
			m, info, err := transforms.LoadModel(e.ctx, mpath)
			if err != nil {
				return badInput(err)
			}
			e.prov.Inputs = append(e.prov.Inputs, arrowio.InputInfo{Role: "model", Path: mpath, Rows: info.Rows, Bytes: info.Bytes})
			h := m.Header()
			e.prov.Params["model_stage"] = h.Stage
			e.prov.Params["dims"] = h.Dims
			if info.Provenance != nil {
				e.prov.Seed = info.Provenance.Seed
			}
			sel, err := selection(c)
			if err != nil {
				return err
			}
			r, err := e.open(in)
			if err != nil {
				return err
			}
			defer r.Release()
			var w arrowio.Writer
			defer func() {
				if w != nil {
					w.Abort()
				}
			}()
			create := func(s *arrow.Schema) (arrowio.Writer, error) {
				var err error
				w, err = e.createSchema(out, s)
				return w, err
			}
			st, err := transforms.Apply(e.ctx, m, r, sel, create, e.prog)
			if err != nil {
				if w == nil || isDataError(err) {
					return badInput(err)
				}
				return err
			}
			src := r.Source()
			e.prov.Inputs = append(e.prov.Inputs, arrowio.InputInfo{Role: "in", Path: in, Files: src.Files,
				Rows: st.Rows + st.Dropped, Bytes: src.Bytes, Dropped: st.Dropped})
			if st.Dropped > 0 {
				e.warn("dropped rows with NaN, ±Inf or null in a used column (--on-invalid drop): " + itoa(st.Dropped))
			}
			return e.finish(w, map[string]any{"batches": st.Batches})
		}),
	}
}
