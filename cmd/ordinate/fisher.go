package main

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

func fisherCommand() *cli.Command {
	return &cli.Command{
		Name:  "fisher",
		Usage: "Fisher-metric distances in kernel space from a similarity matrix and labels (Schulz & Hammer)",
		UsageText: `ordinate fisher --similarity S [--labels L] [--id COL] --label y --out D
   ordinate fisher --in T --label y --kernel linear|rbf --out D

S is a similarity matrix, either long (columns i, j, s: every pair including the
diagonal, or only i <= j) with labels from --labels L (columns --id and --label),
or square (one row per object, one numeric column per object in the same order,
with --id and --label columns in the same table or in --labels). With --in and
--kernel the similarity is the kernel of the feature rows.

The matrix is symmetrised, its eigenvalues corrected (--correction clip), and
for every pair of objects the Fisher path length of the Parzen class posterior
is computed along the straight line between them in the kernel's feature space
(T = --steps points; --rule trapezoid is symmetric, left is the paper's left sum).
The bandwidth is --sigma, or the mean perplexity bandwidth times --sigma-scale.
With a small bandwidth the posterior at a training point is mostly its own label
and the metric just encodes the labels; --exclude-endpoints drops both end points
from the Parzen sums (use it when the distances feed an evaluation on the same rows).

The output is plain (not squared) distances, long form i, j, distance (--upper:
only i < j), or --format square; --neighbors K keeps each row's K nearest pairs.

Examples:
   ordinate fisher --similarity testdata/similarity/aural_sonar.parquet --id id --label label --out fisher.parquet
   ordinate fisher --similarity sims.parquet --labels labels.csv --id item --label class --exclude-endpoints --upper --out d.parquet
   ordinate fisher --in testdata/ordinal/newthyroid.csv --label label --kernel rbf --out d.parquet`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "similarity", Usage: "similarity table, long (i, j, s) or square"},
			&cli.StringFlag{Name: "labels", Usage: "table of labels with the --id and --label columns (default: --label in the similarity or feature table)"},
			&cli.StringFlag{Name: "in", Usage: "instead of --similarity: a feature table, with --kernel"},
			&cli.StringFlag{Name: "kernel", Usage: "with --in: linear (S = XXᵀ) or rbf (exp(−γ‖x−y‖²))"},
			&cli.Float64Flag{Name: "gamma", Usage: "rbf γ (default 1 / median squared distance)"},
			flagOut, flagID, flagFeatures, flagLabel, flagOrder, flagOnInvalid,
			&cli.StringFlag{Name: "correction", Value: "clip", Usage: "eigenvalue correction of S: clip, flip, shift or none"},
			&cli.Float64Flag{Name: "sigma", Usage: "Parzen bandwidth σ (default: from --perplexity)"},
			&cli.Float64Flag{Name: "perplexity", Value: 30, Usage: "perplexity of the per-point bandwidths whose mean gives σ"},
			&cli.Float64Flag{Name: "sigma-scale", Value: 1, Usage: "factor on the perplexity bandwidth"},
			&cli.IntFlag{Name: "steps", Value: 10, Usage: "path points T"},
			&cli.StringFlag{Name: "rule", Value: "trapezoid", Usage: "trapezoid (symmetric) or left (the paper's left sum; d(i,j) ≠ d(j,i))"},
			&cli.BoolFlag{Name: "exclude-endpoints", Usage: "leave-pair-out Parzen sums: drop i and j from the sums for the pair (i, j)"},
			&cli.IntFlag{Name: "neighbors", Usage: "sparse: only each row's K nearest neighbours in the corrected kernel metric"},
			&cli.StringFlag{Name: "metric", Value: "fisher", Usage: "fisher, or kernel: the corrected kernel distances √(sᵢᵢ + sⱼⱼ − 2sᵢⱼ) themselves (the paper's \"original\")"},
			&cli.BoolFlag{Name: "upper", Usage: "long output: only pairs i < j"},
			&cli.StringFlag{Name: "format", Value: "long", Usage: "output layout: long (i, j, distance) or square"},
		}, flagThreads, flagQuiet, flagLogFormat),
		Action: action(runFisher),
	}
}

// objects are the rows of a similarity matrix: their ids, classes and the
// n×n matrix itself.
type objects struct {
	frame *arrowio.Frame // holds the ids (and labels when they come from it)
	cls   *transforms.Classes
	s     []float64
	n     int
}

func runFisher(c *cli.Context) error {
	e, err := newEnv(c, "fisher")
	if err != nil {
		return err
	}
	out := c.String("out")
	src := c.String("similarity")
	if src == "" {
		src = c.String("in")
	}
	if (c.String("similarity") == "") == (c.String("in") == "") {
		return usagef("give --similarity S, or --in T with --kernel")
	}
	if err := checkOutPath(src, out); err != nil {
		return err
	}
	format := c.String("format")
	if format != "long" && format != "square" {
		return usagef("--format %q: want long or square", format)
	}
	if format == "square" && c.Bool("upper") {
		return usagef("--upper applies to --format long only")
	}
	obj, err := readObjects(e, c)
	if err != nil {
		return err
	}
	defer obj.frame.Release()
	res, err := transforms.FitFisher(e.ctx, obj.s, obj.n, obj.cls.Index, obj.cls.K(), transforms.FisherOptions{
		Correction: c.String("correction"), Sigma: c.Float64("sigma"), Perplexity: c.Float64("perplexity"),
		SigmaScale: c.Float64("sigma-scale"), Steps: c.Int("steps"), Rule: c.String("rule"),
		ExcludeEndpoints: c.Bool("exclude-endpoints"), Neighbors: c.Int("neighbors"), Metric: c.String("metric"),
		Threads: e.threads(), Progress: e.prog,
	})
	if err != nil {
		if e.ctx.Err() != nil {
			return err
		}
		return badInput(err)
	}
	for _, w := range res.Warnings {
		e.warn(w)
	}
	res.Figures["classes"] = obj.cls.Names
	e.log.Info("fisher", "objects", obj.n, "sigma", res.Sigma, "negative_eigenvalue_share", res.Figures["negative_eigenvalue_share"])
	if format == "square" {
		if res.K > 0 {
			return usagef("--format square needs dense distances (no --neighbors)")
		}
		return writeSquare(e, out, obj.frame, res.Dist, obj.n, res.Figures)
	}
	return writePairs(e, out, obj.frame, res, c.Bool("upper"), res.Figures)
}

// readObjects reads the similarity matrix (or builds the kernel matrix) and
// the labels, in one row order.
func readObjects(e *env, c *cli.Context) (*objects, error) {
	sel, err := selection(c)
	if err != nil {
		return nil, err
	}
	sel.Keep = []string{}
	labelsPath := c.String("labels")
	readLabels := func() (*arrowio.Frame, error) {
		if c.String("label") == "" {
			return nil, usagef("--labels needs --label (and --id) naming its columns")
		}
		return e.readFrame("labels", labelsPath, arrowio.Selection{ID: sel.ID, Label: sel.Label, NoFeatures: true, Keep: []string{}, OnInvalid: sel.OnInvalid})
	}
	classes := func(f *arrowio.Frame) (*transforms.Classes, error) {
		cls, err := transforms.NominalClasses(f, splitList(c.String("order")))
		return cls, badInput(err)
	}
	if in := c.String("in"); in != "" {
		kernel := c.String("kernel")
		if kernel != "linear" && kernel != "rbf" {
			return nil, usagef("--in needs --kernel linear or rbf")
		}
		if labelsPath != "" {
			return nil, usagef("with --in the labels come from --label in the same table")
		}
		f, err := e.readFrame("in", in, sel)
		if err != nil {
			return nil, err
		}
		cls, err := classes(f)
		if err != nil {
			f.Release()
			return nil, err
		}
		s, gamma := transforms.KernelMatrix(f.X, f.N, f.D, kernel, c.Float64("gamma"))
		e.prov.Params["gamma"] = gamma
		return &objects{frame: f, cls: cls, s: s, n: f.N}, nil
	}
	path := c.String("similarity")
	r, err := e.open(path)
	if err != nil {
		return nil, err
	}
	long := hasColumns(r.Schema(), "i", "j", "s")
	r.Release()
	if long {
		if labelsPath == "" {
			return nil, usagef("a long similarity table (i, j, s) needs --labels L with --id and --label")
		}
		lf, err := readLabels()
		if err != nil {
			return nil, err
		}
		pairs, err := e.readFrame("similarity", path, arrowio.Selection{ID: "i", Features: []string{"s"}, Keep: []string{"j"}, OnInvalid: arrowio.InvalidError})
		if err != nil {
			lf.Release()
			return nil, err
		}
		defer pairs.Release()
		s, err := table.SimilarityMatrix(pairs, lf)
		if err != nil {
			lf.Release()
			return nil, badInput(err)
		}
		cls, err := classes(lf)
		if err != nil {
			lf.Release()
			return nil, err
		}
		return &objects{frame: lf, cls: cls, s: s, n: lf.N}, nil
	}
	// Square: one row per object.
	if labelsPath != "" {
		sel.Label = ""
	}
	f, err := e.readFrame("similarity", path, sel)
	if err != nil {
		return nil, err
	}
	if f.D != f.N {
		f.Release()
		return nil, badInput(&arrowio.Error{File: path, Row: -1, Err: fmt.Errorf("%w: a square similarity table needs as many numeric columns as rows; it has %d rows and %d feature columns (%s…)",
			arrowio.ErrSelection, f.N, f.D, f.FeatureNames[0])})
	}
	obj := &objects{frame: f, s: f.X, n: f.N}
	if labelsPath == "" {
		if obj.cls, err = classes(f); err != nil {
			f.Release()
			return nil, err
		}
		return obj, nil
	}
	lf, err := readLabels()
	if err != nil {
		f.Release()
		return nil, err
	}
	defer lf.Release()
	idx, _, err := transforms.Align(f, lf)
	if err != nil {
		f.Release()
		return nil, badInput(err)
	}
	lcls, err := classes(lf)
	if err != nil {
		f.Release()
		return nil, err
	}
	obj.cls = &transforms.Classes{Column: lcls.Column, Names: lcls.Names, Index: make([]int, f.N), Counts: make([]int, lcls.K())}
	for i, j := range idx {
		obj.cls.Index[i] = lcls.Index[j]
		obj.cls.Counts[lcls.Index[j]]++
	}
	return obj, nil
}

func hasColumns(s *arrow.Schema, names ...string) bool {
	for _, n := range names {
		if len(s.FieldIndices(n)) != 1 {
			return false
		}
	}
	return true
}

const pairBatch = 1 << 16

// writePairs writes the long distance table i, j, distance in batches.
func writePairs(e *env, out string, f *arrowio.Frame, res *transforms.FisherResult, upper bool, figures map[string]any) error {
	ic := newIDColumn(f.ID)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: ic.typ}, {Name: "j", Type: ic.typ}, {Name: "distance", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	w, err := e.createSchema(out, schema)
	if err != nil {
		return err
	}
	defer w.Abort()
	b := array.NewRecordBuilder(e.mem, schema)
	defer b.Release()
	rows := 0
	flush := func() error {
		if rows == 0 {
			return nil
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		rows = 0
		return w.Write(rec)
	}
	emit := func(i, j int, d float64) error {
		ic.append(b.Field(0), i)
		ic.append(b.Field(1), j)
		b.Field(2).(*array.Float64Builder).Append(d)
		if rows++; rows == pairBatch {
			return flush()
		}
		return nil
	}
	n := res.N
	for i := range n {
		if err := e.ctx.Err(); err != nil {
			return err
		}
		if res.K > 0 {
			for t := range res.K {
				j := int(res.Idx[i*res.K+t])
				if upper && j <= i {
					continue
				}
				if err := emit(i, j, res.Dist[i*res.K+t]); err != nil {
					return err
				}
			}
			continue
		}
		for j := range n {
			if j == i || upper && j < i {
				continue
			}
			if err := emit(i, j, res.Dist[i*n+j]); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return e.finish(w, figures)
}

// writeSquare writes the n×n distances as one row per object: the id column
// and one column per object named by its id.
func writeSquare(e *env, out string, f *arrowio.Frame, dist []float64, n int, figures map[string]any) error {
	ic := newIDColumn(f.ID)
	fields := []arrow.Field{{Name: f.IDName, Type: ic.typ}}
	seen := map[string]bool{f.IDName: true}
	for j := range n {
		name := f.ID.ValueStr(j)
		if seen[name] {
			return usagef("--format square: id %q cannot name a column (duplicate or the id column's name)", name)
		}
		seen[name] = true
		fields = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64})
	}
	return e.writeTable(out, arrow.NewSchema(fields, nil), func(b *array.RecordBuilder) {
		for i := range n {
			ic.append(b.Field(0), i)
			for j := range n {
				b.Field(1 + j).(*array.Float64Builder).Append(dist[i*n+j])
			}
		}
	}, figures)
}
