package main

import (
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/table"
	"github.com/ordinate/ordinate/transforms/tsne"
)

func tsneCommand() *cli.Command {
	return &cli.Command{
		Name:  "tsne",
		Usage: "t-SNE of feature rows or of a distance table (e.g. Fisher distances)",
		UsageText: `ordinate tsne --in T [--features SPEC] [--id COL] [--label y] --out E
   ordinate tsne --distances D [--labels L --id COL --label y] --out E

--distances takes a long table i, j, distance of PLAIN (not squared) distances:
all pairs (or i < j only) for exact t-SNE, or each row's K nearest neighbours
(as fisher --neighbors writes) for Barnes-Hut. Affinities use exp(−β·d²), so
squared distances would be squared twice. --labels adds the label column (and
the row order) from a table with --id and --label.

Examples:
   ordinate tsne --in testdata/ordinal/newthyroid.csv --label label --out tsne.parquet
   ordinate fisher --similarity testdata/similarity/aural_sonar.parquet --id id --label label --out f.parquet
   ordinate tsne --distances f.parquet --labels testdata/similarity/aural_sonar.parquet --id id --label label --out ftsne.parquet`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "in", Usage: "feature table (Euclidean distances)"},
			&cli.StringFlag{Name: "distances", Usage: "instead of --in: a long distance table i, j, distance (plain distances)"},
			&cli.StringFlag{Name: "labels", Usage: "with --distances: table with the --id and --label columns, for row order and pass-through"},
			flagOut, flagID, flagFeatures, flagLabel, flagKeep, flagOnInvalid, flagDims,
			&cli.Float64Flag{Name: "perplexity", Value: 30, Usage: "perplexity of the input affinities (below N − 1; 3·perplexity ≤ N − 1 for Barnes-Hut)"},
			&cli.StringFlag{Name: "method", Value: "auto", Usage: "exact, bh (Barnes-Hut) or auto"},
			&cli.Float64Flag{Name: "theta", Value: 0.5, Usage: "Barnes-Hut accuracy (0: exact repulsion)"},
			&cli.IntFlag{Name: "iterations", Value: 1000, Usage: "gradient iterations"},
			&cli.Float64Flag{Name: "learning-rate", Usage: "step size (0: max(N/12, 50))"},
			&cli.Float64Flag{Name: "early-exaggeration", Value: 12, Usage: "P is multiplied by this for the first 250 iterations"},
			&cli.StringFlag{Name: "init", Value: "pca", Usage: "pca (classical MDS for distances), scaled to std 1e-4, or random"},
		}, commonFlags()...),
		Action: action(runTSNE),
	}
}

func runTSNE(c *cli.Context) error {
	e, err := newEnv(c, "tsne")
	if err != nil {
		return err
	}
	in, dpath, out := c.String("in"), c.String("distances"), c.String("out")
	if (in == "") == (dpath == "") {
		return usagef("give --in T (features) or --distances D")
	}
	if err := checkOutPath(in+dpath, out); err != nil {
		return err
	}
	o, err := tsneOptions(c, e)
	if err != nil {
		return err
	}
	var (
		rows *arrowio.Frame
		res  *tsne.Result
	)
	e.prog.Start("tsne", int64(o.Iterations))
	o.Progress = func(iter int, kl float64) { e.prog.Add(1) }
	if in != "" {
		sel, err := selection(c)
		if err != nil {
			return err
		}
		if rows, err = e.readFrame("in", in, sel); err != nil {
			return err
		}
		defer rows.Release()
		res, err = tsne.FromFeatures(e.ctx, rows.X, rows.N, rows.D, o)
		if err != nil {
			e.prog.Finish()
			return tsneError(e, err)
		}
	} else {
		pairs, err := e.readFrame("distances", dpath, arrowio.Selection{ID: "i", Features: []string{"distance"}, Keep: []string{"j"}})
		if err != nil {
			return err
		}
		defer pairs.Release()
		if lp := c.String("labels"); lp != "" {
			if rows, err = e.readFrame("labels", lp, arrowio.Selection{ID: c.String("id"), Label: c.String("label"), NoFeatures: true}); err != nil {
				return err
			}
		} else {
			rows = distinctIDs(pairs)
		}
		defer rows.Release()
		res, err = tsneFromPairs(e, pairs, rows, o)
		if err != nil {
			e.prog.Finish()
			return err
		}
	}
	e.prog.Finish()
	figures := map[string]any{"kl": res.KL, "iterations": res.Iterations, "method": res.Method,
		"learning_rate": res.LearningRate, "perplexity": res.Perplexity}
	e.log.Info("tsne", "rows", rows.N, "kl", res.KL, "method", res.Method)
	return e.writeEmbedding(out, rows, res.Y, o.Dims, figures)
}

func tsneOptions(c *cli.Context, e *env) (tsne.Options, error) {
	o := tsne.Options{
		Dims: c.Int("dims"), Perplexity: c.Float64("perplexity"), Theta: c.Float64("theta"),
		Iterations: c.Int("iterations"), LearningRate: c.Float64("learning-rate"),
		EarlyExaggeration: c.Float64("early-exaggeration"), Seed: c.Uint64("seed"), Threads: e.threads(),
	}
	switch m := c.String("method"); m {
	case "auto":
		o.Method = tsne.Auto
	case "exact":
		o.Method = tsne.Exact
	case "bh":
		o.Method = tsne.BH
	default:
		return o, usagef("--method %q: want auto, exact or bh", m)
	}
	switch i := c.String("init"); i {
	case "pca":
		o.Init = tsne.InitPCA
	case "random":
		o.Init = tsne.InitRandom
	default:
		return o, usagef("--init %q: want pca or random", i)
	}
	if o.Dims < 1 || o.Iterations < 1 {
		return o, usagef("--dims and --iterations must be at least 1")
	}
	return o, nil
}

func tsneError(e *env, err error) error {
	if e.ctx.Err() != nil {
		return err
	}
	return badInput(err)
}

// tsneFromPairs runs t-SNE on a long distance table: dense when every pair
// is there, sparse (Barnes-Hut) when every row has the same number of
// neighbours.
func tsneFromPairs(e *env, pairs, rows *arrowio.Frame, o tsne.Options) (*tsne.Result, error) {
	n := rows.N
	if pairs.N >= n*(n-1)/2 {
		dist, err := table.DistanceMatrix(pairs, rows)
		if err != nil {
			return nil, badInput(err)
		}
		res, err := tsne.FromDistances(e.ctx, dist, n, o)
		if err != nil {
			return nil, tsneError(e, err)
		}
		return res, nil
	}
	idx, dist, k, err := table.NeighborLists(pairs, rows)
	if err != nil {
		return nil, badInput(err)
	}
	res, err := tsne.FromNeighbors(e.ctx, idx, dist, n, k, o)
	if err != nil {
		return nil, tsneError(e, err)
	}
	return res, nil
}

// distinctIDs makes a frame of the distinct ids of a pair table (i and j),
// in order of first appearance, to carry the ids of a distance-only input.
// The i and j columns must have the same type.
func distinctIDs(pairs *arrowio.Frame) *arrowio.Frame {
	ic := newIDColumn(pairs.ID)
	var b array.Builder
	if ic.int64 != nil {
		b = array.NewInt64Builder(memory.DefaultAllocator)
	} else {
		b = array.NewStringBuilder(memory.DefaultAllocator)
	}
	defer b.Release()
	jc := newIDColumn(pairs.Keep[0])
	seen := map[string]bool{}
	var rows []int64
	add := func(col idColumn, r int) {
		if v := col.ids.ValueStr(r); !seen[v] {
			seen[v] = true
			col.append(b, r)
			rows = append(rows, int64(len(rows)))
		}
	}
	for r := range pairs.N {
		add(ic, r)
		add(jc, r)
	}
	return &arrowio.Frame{Source: pairs.Source, N: len(rows), IDName: "id", ID: b.NewArray(), Rows: rows}
}
