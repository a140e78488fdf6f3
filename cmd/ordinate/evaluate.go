package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/quality"
	"github.com/ordinate/ordinate/transforms/table"
)

func evaluateCommand() *cli.Command {
	return &cli.Command{
		Name:  "evaluate",
		Usage: "quality metrics of an embedding against its input table",
		UsageText: `ordinate evaluate --embedding E --in T [--id COL] [--features SPEC] [--label y] [--order a,b,c | --ordinal] [--k 5,10,30] --out M
   ordinate evaluate --distances D --in T --id COL --label y [--k 5,10] --out M
   ordinate evaluate --embedding MAPS --triplets TRIPLETS --out M

Rows of E are matched to rows of T by --id (default: the row column that ordinate
writes when no id was given). Metrics: trustworthiness and continuity (overall, and
the class-aware inter/intra parts), R_NX(k) and its AUC, and with labels k-NN
accuracy, leave-one-out 1-NN error and KNN gain; with --order or --ordinal the
ordinal metrics (Spearman's rho of class rank along the best axis, order of the
class centres). The long table has columns metric, k, subset, value.

With --distances D (a long table i, j, distance over the ids of T, as fisher
writes; a table of the pairs i < j only is mirrored) it reports the leave-one-out
1-NN error and k-NN accuracy of the distances (subset "distances").

With --triplets T and a maps table (aspect, id, emb_*: score, tste, soe) it reports
triplet_accuracy, the share of triplets <i, j, k> with d(j, i) < d(j, k) in the
aspect's map (Le & Lauw, Eq. 10): subset all, train and hidden (when T has a split
column), and per aspect as subset/aspect; the means are over aspects. With
--split S (from triplets --split-out) and --attributes ATTRS it adds
hidden_knn_accuracy: each object hidden from an aspect is classified by majority
vote of its k nearest observed objects in that aspect's map (k = 10 unless --k
gives one value), against its attribute value.

Examples:
   ordinate evaluate --embedding e.parquet --in newthyroid.csv --label label --ordinal --out metrics.parquet
   ordinate evaluate --embedding e.parquet --in grades.parquet --id student --label grade --order low,mid,high --k 10 --out m.csv`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "embedding", Usage: "embedding table written by a stage (emb_* columns)"},
			&cli.StringFlag{Name: "triplets", Usage: "with --embedding MAPS (aspect, id, emb_*): score the maps against this triplet table (triplet accuracy per aspect, and on train/hidden with a split column)"},
			&cli.StringFlag{Name: "split", Usage: "with --triplets: the observed-objects table of triplets --split-out; adds the k-NN (default 10) classification of hidden objects by attribute value"},
			&cli.StringFlag{Name: "attributes", Usage: "with --split: the attribute table the triplets were made from"},
			flagTripletColumns,
			&cli.StringFlag{Name: "distances", Usage: "instead of --embedding: a long distance table (i, j, distance) over the ids of --in; gives nn_error and knn_accuracy"},
			&cli.StringFlag{Name: "in", Usage: "the input table the embedding was made from (not needed with --triplets)"},
			flagOut, flagID, flagFeatures, flagLabel, flagOrder, flagOnInvalid,
			&cli.BoolFlag{Name: "ordinal", Usage: "labels are ordinal (numeric ascending, or --order): add the ordinal metrics"},
			&cli.StringFlag{Name: "k", Value: "5,10,30", Usage: "neighbourhood sizes, comma list"},
			&cli.StringFlag{Name: "emb", Value: "emb_*", Usage: "embedding columns of E"},
		}, flagThreads, flagQuiet, flagLogFormat),
		Action: action(runEvaluate),
	}
}

func runEvaluate(c *cli.Context) error {
	e, err := newEnv(c, "evaluate")
	if err != nil {
		return err
	}
	in, out := c.String("in"), c.String("out")
	if err := checkOutPath(in, out); err != nil {
		return err
	}
	ks, err := parseKs(c.String("k"))
	if err != nil {
		return err
	}
	sel, err := selection(c)
	if err != nil {
		return err
	}
	sel.Keep = []string{}
	if c.String("triplets") != "" {
		if c.String("embedding") == "" {
			return usagef("--triplets needs --embedding MAPS (a maps table: aspect, id, emb_*)")
		}
		return evaluateTriplets(e, c)
	}
	if in == "" {
		return usagef("--in T is required (the table the embedding or distances were made from)")
	}
	switch emb, dist := c.String("embedding"), c.String("distances"); {
	case emb == "" && dist == "":
		return usagef("give --embedding E (an embedding table) or --distances D (a distance table)")
	case emb != "" && dist != "":
		return usagef("give either --embedding or --distances, not both")
	case dist != "":
		return evaluateDistances(e, c, sel, ks)
	}
	inFrame, err := e.readFrame("in", in, sel)
	if err != nil {
		return err
	}
	defer inFrame.Release()
	embID := c.String("id")
	if embID == "" {
		embID = "row"
	}
	embFrame, err := e.readFrame("embedding", c.String("embedding"), arrowio.Selection{
		ID: embID, Features: splitList(c.String("emb")), Keep: []string{}, OnInvalid: sel.OnInvalid})
	if err != nil {
		return err
	}
	defer embFrame.Release()
	idx, unmatched, err := transforms.Align(embFrame, inFrame)
	if err != nil {
		return badInput(err)
	}
	if unmatched > 0 {
		e.warn(fmt.Sprintf("%d input rows have no embedding row and are left out", unmatched))
	}
	n, D, d := embFrame.N, inFrame.D, embFrame.D
	x := make([]float64, n*D)
	for i, j := range idx {
		copy(x[i*D:(i+1)*D], inFrame.X[j*D:(j+1)*D])
	}
	var classes []int
	opts := quality.Options{Ks: ks, Threads: e.threads()}
	var cls *transforms.Classes
	if inFrame.Label != nil {
		order := splitList(c.String("order"))
		opts.Ordinal = c.Bool("ordinal") || len(order) > 0
		if opts.Ordinal {
			cls, err = transforms.OrdinalClasses(inFrame, order)
		} else {
			cls, err = transforms.NominalClasses(inFrame, order)
		}
		if err != nil {
			return badInput(err)
		}
		classes = make([]int, n)
		for i, j := range idx {
			classes[i] = cls.Index[j]
		}
	} else if c.Bool("ordinal") {
		return usagef("--ordinal needs --label")
	}
	e.prog.Start("metrics", 0)
	rep, err := quality.Evaluate(e.ctx, x, D, embFrame.X, d, classes, opts)
	e.prog.Finish()
	if err != nil {
		if e.ctx.Err() != nil {
			return err
		}
		return badInput(err)
	}
	if err := writeMetrics(e, out, rep); err != nil {
		return err
	}
	summary := e.stdout
	if out == "-" {
		summary = e.stderr
	}
	if !c.Bool("quiet") {
		printSummary(summary, c.String("embedding"), rep, cls)
	}
	return nil
}

// evaluateDistances scores a precomputed distance table by the classes of
// the input table's rows.
func evaluateDistances(e *env, c *cli.Context, sel arrowio.Selection, ks []int) error {
	if sel.Label == "" {
		return usagef("--distances needs --label")
	}
	if c.Bool("ordinal") {
		return usagef("--ordinal needs embedding coordinates; it does not apply to --distances")
	}
	sel.NoFeatures, sel.Features = true, nil
	inFrame, err := e.readFrame("in", c.String("in"), sel)
	if err != nil {
		return err
	}
	defer inFrame.Release()
	dFrame, err := e.readFrame("distances", c.String("distances"), arrowio.Selection{
		ID: "i", Features: []string{"distance"}, Keep: []string{"j"}, OnInvalid: arrowio.InvalidError})
	if err != nil {
		return err
	}
	defer dFrame.Release()
	dist, err := table.DistanceMatrix(dFrame, inFrame)
	if err != nil {
		return badInput(err)
	}
	cls, err := transforms.NominalClasses(inFrame, splitList(c.String("order")))
	if err != nil {
		return badInput(err)
	}
	rep, err := quality.EvaluateDistances(e.ctx, dist, inFrame.N, cls.Index, quality.Options{Ks: ks, Threads: e.threads()})
	if err != nil {
		if e.ctx.Err() != nil {
			return err
		}
		return badInput(err)
	}
	out := c.String("out")
	if err := writeMetrics(e, out, rep); err != nil {
		return err
	}
	if !c.Bool("quiet") {
		summary := e.stdout
		if out == "-" {
			summary = e.stderr
		}
		printSummary(summary, c.String("distances"), rep, nil)
	}
	return nil
}

func parseKs(s string) ([]int, error) {
	var ks []int
	for _, p := range splitList(s) {
		var k int
		if _, err := fmt.Sscanf(p, "%d", &k); err != nil || k < 1 {
			return nil, usagef("--k %q: want positive whole numbers, e.g. 5,10,30", s)
		}
		ks = append(ks, k)
	}
	if len(ks) == 0 {
		return nil, usagef("--k: give at least one neighbourhood size")
	}
	return ks, nil
}

func metricsSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "metric", Type: arrow.BinaryTypes.String},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "subset", Type: arrow.BinaryTypes.String},
		{Name: "value", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
}

func writeMetrics(e *env, out string, rep *quality.Report) error {
	figures := map[string]any{"n": rep.N}
	if rep.CenterOrder != nil {
		figures["center_order"] = rep.CenterOrder
	}
	return e.writeTable(out, metricsSchema(), func(b *array.RecordBuilder) {
		for _, r := range rep.Rows {
			b.Field(0).(*array.StringBuilder).Append(r.Metric)
			b.Field(1).(*array.Int64Builder).Append(int64(r.K))
			b.Field(2).(*array.StringBuilder).Append(r.Subset)
			b.Field(3).(*array.Float64Builder).Append(r.Value)
			figures[metricKey(r)] = r.Value
		}
	}, figures)
}

func metricKey(r quality.Row) string {
	k := r.Metric
	if r.K > 0 {
		k += fmt.Sprintf("@%d", r.K)
	}
	if r.Subset != "" && r.Subset != "all" {
		k += "/" + r.Subset
	}
	return k
}

// printSummary prints the metrics as a small table, one row per metric and
// subset, one column per k.
func printSummary(w io.Writer, name string, rep *quality.Report, cls *transforms.Classes) {
	type key struct{ metric, subset string }
	var order []key
	vals := map[key]map[int]float64{}
	kset := map[int]bool{}
	for _, r := range rep.Rows {
		kk := key{r.Metric, r.Subset}
		if vals[kk] == nil {
			vals[kk] = map[int]float64{}
			order = append(order, kk)
		}
		vals[kk][r.K] = r.Value
		kset[r.K] = true
	}
	var ks []int
	for k := range kset {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	fmt.Fprintf(w, "quality of %s (%d rows)\n", name, rep.N)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"metric", "subset"}
	for _, k := range ks {
		if k == 0 {
			head = append(head, "-")
		} else {
			head = append(head, fmt.Sprintf("k=%d", k))
		}
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, kk := range order {
		row := []string{kk.metric, kk.subset}
		for _, k := range ks {
			if v, ok := vals[kk][k]; ok && !math.IsNaN(v) {
				row = append(row, fmt.Sprintf("%.4f", v))
			} else {
				row = append(row, "")
			}
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	if rep.CenterOrder != nil && cls != nil {
		names := make([]string, len(rep.CenterOrder))
		for i, k := range rep.CenterOrder {
			names[i] = cls.Names[k]
		}
		fmt.Fprintf(w, "class centres along the best axis: %s\n", strings.Join(names, " < "))
	}
}
