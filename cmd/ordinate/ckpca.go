package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/ckpca"
	"github.com/ordinate/ordinate/transforms/table"
)

func ckpcaCommand() *cli.Command {
	def := ckpca.DefaultOptions()
	return &cli.Command{
		Name:  "ckpca",
		Usage: "constrained kernel PCA through user-placed control points (Paurat, Oglic & Gärtner)",
		UsageText: `ordinate ckpca --in T (--control cx,cy | --control-table C) [--kernel linear] --out E [--model-out M]

Each output dimension is a unit-norm function in the kernel's feature space that
passes exactly through the control points and otherwise has the largest variance,
with a soft penalty ν for repeating earlier dimensions. Control points come from
columns of the input (--control cx,cy: the target coordinates on the control rows,
null on all other rows) or from a table of ids and coordinates (--control-table,
matched by --id). Without control points the first dimension is kernel PCA's first
component.

Targets that would need a function of norm above 1 are an error that says by how
much; --scale auto rescales them (the constraints then use --budget of the squared
norm), solves, and scales the result back; --soft W replaces the exact constraints
by the penalty W·‖f(control rows) − targets‖².

Kernels: linear (solved in feature space, D×D, never forming the n×n kernel), rbf
(--gamma, default 1/median squared distance), poly (--gamma, --degree, --coef0),
cosine, and precomputed: the selected columns are the n×n kernel matrix (as in the
square similarity tables of fisher), or --similarity S gives it as a long table
(i, j, s, every pair and the diagonal, ids from --id). --correction clip|flip|shift
makes an indefinite similarity positive semi-definite first; otherwise it is an error. --landmarks M uses the Nyström approximation
with M random landmark rows, for large n.

Examples:
   ordinate ckpca --in t.parquet --control cx,cy --out e.parquet
   ordinate ckpca --in t.parquet --control-table placed.csv --id name --kernel rbf --out e.parquet --model-out m.parquet
   ordinate ckpca --in big.parquet --control cx,cy --kernel rbf --landmarks 500 --scale auto --out e.parquet`,
		Flags: append([]cli.Flag{
			flagIn, flagOut, flagID, flagFeatures, flagLabel, flagKeep, flagOnInvalid, flagDims, flagStd, flagModelOut,
			&cli.StringFlag{Name: "control", Usage: "columns of target coordinates, one per output dimension, null on non-control rows"},
			&cli.StringFlag{Name: "control-table", Usage: "table of control points: the --id column and one coordinate column per dimension (--control names them; default: every numeric column)"},
			&cli.StringFlag{Name: "kernel", Value: "linear", Usage: "linear, rbf, poly, cosine or precomputed"},
			&cli.Float64Flag{Name: "gamma", Usage: "rbf: exp(−γ‖a − b‖²), default 1/median squared distance; poly: γ·aᵀb, default 1/D"},
			&cli.IntFlag{Name: "degree", Value: 3, Usage: "poly degree"},
			&cli.Float64Flag{Name: "coef0", Value: 1, Usage: "poly: (γ·aᵀb + coef0)^degree"},
			&cli.Float64Flag{Name: "nu", Value: def.Nu, Usage: "ν: penalty on overlap with earlier dimensions (the paper's soft orthogonality)"},
			&cli.StringFlag{Name: "scale", Value: "none", Usage: "none (infeasible targets are an error) or auto (rescale the targets, scale back)"},
			&cli.Float64Flag{Name: "budget", Value: def.Budget, Usage: "with --scale auto: share of the squared norm the constraints may use, in (0, 1)"},
			&cli.Float64Flag{Name: "soft", Usage: "penalty weight for soft constraints instead of exact ones (0: exact)"},
			&cli.IntFlag{Name: "landmarks", Usage: "Nyström approximation with this many random landmark rows (0: exact)"},
			&cli.StringFlag{Name: "similarity", Usage: "precomputed kernel as a long table (i, j, s; ids as in --id, every pair with the diagonal); --in then holds the rows"},
			&cli.StringFlag{Name: "correction", Value: "none", Usage: "precomputed kernel: eigenvalue correction before the PSD check: none (indefinite is an error), clip, flip or shift"},
		}, commonFlags()...),
		Action: action(runCKPCA),
	}
}

func runCKPCA(c *cli.Context) error {
	e, err := newEnv(c, "ckpca")
	if err != nil {
		return err
	}
	in, out := c.String("in"), c.String("out")
	if err := checkOutPaths(in, out, c.String("model-out")); err != nil {
		return err
	}
	o := transforms.CKPCAOptions{Options: ckpca.DefaultOptions(), Standardize: c.Bool("standardize"), Seed: c.Uint64("seed"), Primal: true}
	o.Nu, o.Budget, o.Soft, o.Landmarks = c.Float64("nu"), c.Float64("budget"), c.Float64("soft"), c.Int("landmarks")
	o.Correction = c.String("correction")
	o.Kernel = kernels.Kernel{Kind: c.String("kernel"), Gamma: c.Float64("gamma"), Degree: c.Int("degree"), Coef0: c.Float64("coef0")}
	switch s := c.String("scale"); s {
	case "none":
	case "auto":
		o.Scale = ckpca.ScaleAuto
	default:
		return usagef("--scale %q: want none or auto", s)
	}
	simPath := c.String("similarity")
	if simPath != "" {
		if c.IsSet("kernel") && o.Kernel.Kind != "precomputed" {
			return usagef("--similarity is a precomputed kernel; it does not combine with --kernel %s", o.Kernel.Kind)
		}
		if c.String("id") == "" {
			return usagef("--similarity needs --id: its i and j name the rows of --in by that column")
		}
		o.Kernel.Kind = "precomputed"
	}
	if o.Kernel.Kind == "precomputed" && c.String("model-out") != "" {
		return usagef("--model-out needs a kernel on features; a precomputed kernel cannot be evaluated on new rows")
	}
	f, ctrl, dims, err := readControlInput(c, e, simPath != "")
	if err != nil {
		return err
	}
	defer f.Release()
	o.Dims = dims
	if simPath != "" {
		pairs, err := e.readFrame("similarity", simPath, arrowio.Selection{ID: "i", Features: []string{"s"}, Keep: []string{"j"}, OnInvalid: arrowio.InvalidError})
		if err != nil {
			return err
		}
		o.Similarity, err = table.SimilarityMatrix(pairs, f)
		pairs.Release()
		if err != nil {
			return badInput(err)
		}
	}
	if len(ctrl.Rows) == 0 {
		e.warn("no control points: the result is kernel PCA with the soft orthogonality penalty ν")
	}
	e.prog.Start("ckpca", 0)
	res, err := transforms.FitCKPCA(f, ctrl, o)
	e.prog.Finish()
	if err != nil {
		return badInput(err)
	}
	for _, w := range res.Warnings {
		e.warn(w)
	}
	if err := e.writeEmbedding(out, f, res.Embedding, o.Dims, res.Figures); err != nil {
		return err
	}
	if m := c.String("model-out"); m != "" {
		if err := transforms.SaveModel(e.ctx, m, res.Model, e.prov); err != nil {
			return err
		}
		e.log.Info("wrote model", "model", m)
	}
	e.log.Info(fmt.Sprintf("ckpca: %d rows, %d control points -> %d dims", f.N, len(ctrl.Rows), o.Dims), "kernel", o.Kernel.Kind)
	return nil
}

// readControlInput reads --in and the control points from --control columns
// or a --control-table, and returns the output dimension: the number of
// control columns, or --dims without control points.
func readControlInput(c *cli.Context, e *env, noFeatures bool) (*arrowio.Frame, ckpca.Control, int, error) {
	var ctrl ckpca.Control
	control := splitList(c.String("control"))
	table := c.String("control-table")
	dims := c.Int("dims")
	if len(control) > 0 && table == "" {
		if c.IsSet("dims") && dims != len(control) {
			return nil, ctrl, 0, usagef("--dims %d but --control names %d columns: one control column per output dimension", dims, len(control))
		}
		dims = len(control)
	}
	if table != "" && c.String("id") == "" {
		return nil, ctrl, 0, usagef("--control-table needs --id to match its rows to the input's")
	}
	sel, err := selection(c)
	if err != nil {
		return nil, ctrl, 0, err
	}
	sel.NoFeatures = noFeatures
	if table == "" && len(control) > 0 {
		if !c.IsSet("keep") && sel.Label != "" {
			sel.Keep = append(sel.Keep, sel.Label)
		}
		sel.Keep = append(sel.Keep, control...)
	}
	f, err := e.readFrame("in", c.String("in"), sel)
	if err != nil {
		return nil, ctrl, 0, err
	}
	switch {
	case table != "":
		tf, err := e.readFrame("control", table, arrowio.Selection{ID: c.String("id"), Features: control, Keep: []string{}})
		if err != nil {
			f.Release()
			return nil, ctrl, 0, err
		}
		defer tf.Release()
		if c.IsSet("dims") && dims != tf.D {
			f.Release()
			return nil, ctrl, 0, usagef("--dims %d but the control table has %d coordinate columns", dims, tf.D)
		}
		dims = tf.D
		ctrl, err = transforms.ControlFromTable(f, tf)
		if err != nil {
			f.Release()
			return nil, ctrl, 0, badInput(err)
		}
	case len(control) > 0:
		if ctrl, err = transforms.ControlFromColumns(f, control); err != nil {
			f.Release()
			return nil, ctrl, 0, badInput(err)
		}
	}
	return f, ctrl, dims, nil
}
