package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/internal/synth"
	"github.com/ordinate/ordinate/transforms/table"
)

// The demo's data: the ORCA copy of UCI "thyroid gland" (newthyroid), 215
// patients, 5 blood-test features, 3 ordinal classes (hypo < normal < hyper
// in ORCA's coding 1 < 2 < 3). testdata/ordinal holds the same file.
//
//go:embed demodata/newthyroid.csv
var demoThyroid []byte

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "run BVP, PCA, LDA, Fisher t-SNE, SCORE and SoftClassNeRV on bundled data, apply a saved model, compare quality metrics",
		UsageText: `ordinate demo [--out DIR] [--threads N]

Writes the bundled newthyroid data set (215 rows, 5 features, 3 ordinal classes)
to DIR, runs the same commands a user would (shown as they run), and prints a
comparison. Every output is a Parquet file with provenance: try ordinate inspect.
--threads N is passed to every step.

Examples:
   ordinate demo
   ordinate demo --out /tmp/ordinate-demo --threads 2`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Value: "ordinate-demo", Usage: "folder for the outputs (created if missing)"},
			&cli.IntFlag{Name: "threads", Value: 0, Usage: "worker threads of every step (0: all cores)"},
		},
		Action: action(runDemo),
	}
}

func runDemo(c *cli.Context) error {
	dir := c.String("out")
	w := c.App.Writer
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	thyroid := p("newthyroid.csv")
	if err := os.WriteFile(thyroid, demoThyroid, 0o644); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	gauss := p("gaussians.parquet")
	if err := writeGaussians(c.Context, gauss); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if c.Int("threads") < 0 {
		return usagef("--threads: %d: want 0 (all cores) or a positive count", c.Int("threads"))
	}
	run := func(args ...string) error {
		if c.IsSet("threads") {
			// Right after the command: report takes positional files.
			args = append([]string{args[0], "--threads", strconv.Itoa(c.Int("threads"))}, args[1:]...)
		}
		fmt.Fprintf(w, "$ ordinate %s\n", shellJoin(args))
		// --quiet right after the command: report takes positional files.
		full := append([]string{"ordinate", args[0], "--quiet"}, args[1:]...)
		if err := newApp(c.App.Reader, io.Discard, c.App.ErrWriter).RunContext(c.Context, full); err != nil {
			return fmt.Errorf("demo step %q: %w", args[0], err)
		}
		return nil
	}
	sets := []struct {
		name, title, in string
		methods         []string
	}{
		{"thyroid", "newthyroid (UCI via ORCA): 215 patients, 5 blood tests, classes 1 < 2 < 3", thyroid, []string{"bvp", "pca", "lda"}},
		{"gaussians", "the BVP paper's synthetic set: 5 ordinal Gaussian classes x 100 points in 3-D,\nordinal direction only the third axis of variance (seed 1)", gauss, []string{"bvp", "pca", "lda"}},
	}
	for _, set := range sets {
		fmt.Fprintf(w, "== %s\n", set.title)
		for _, m := range set.methods {
			args := []string{m, "--in", set.in, "--label", "label", "--out", p(set.name + "-" + m + ".parquet")}
			if m == "bvp" {
				args = append(args, "--model-out", p(set.name+"-bvp.model.parquet"))
			}
			if err := run(args...); err != nil {
				return err
			}
		}
		if err := run("apply", "--model", p(set.name+"-bvp.model.parquet"), "--in", set.in, "--out", p(set.name+"-bvp-applied.parquet")); err != nil {
			return err
		}
		for _, m := range set.methods {
			if err := run("evaluate", "--embedding", p(set.name+"-"+m+".parquet"), "--in", set.in, "--label", "label",
				"--ordinal", "--k", "5,10,30", "--out", p(set.name+"-metrics-"+m+".parquet")); err != nil {
				return err
			}
		}
		diff, err := maxEmbeddingDiff(c, p(set.name+"-bvp.parquet"), p(set.name+"-bvp-applied.parquet"))
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\napply with the saved BVP model reproduces the fitted embedding: max |difference| = %.2g\n\n", diff)
		if err := printComparison(c, w, set.methods, func(m string) string { return p(set.name + "-metrics-" + m + ".parquet") }); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	bv, err := readFigures(c, p("gaussians-metrics-bvp.parquet"))
	if err != nil {
		return err
	}
	pc, err := readFigures(c, p("gaussians-metrics-pca.parquet"))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "On the synthetic set the ordinal direction carries little variance, so PCA discards it:\n")
	fmt.Fprintf(w, "Spearman's rho between class rank and the best axis is %.2f for BVP and %.2f for PCA.\n\n",
		bv["ordinal_spearman"], pc["ordinal_spearman"])
	if err := demoFisher(c, w, dir, run); err != nil {
		return err
	}
	if err := demoScore(c, w, dir, run); err != nil {
		return err
	}
	if err := demoNeRV(c, w, dir, run); err != nil {
		return err
	}
	if err := demoCKPCA(c, w, dir, run); err != nil {
		return err
	}
	if err := demoPlace(c, w, dir, run); err != nil {
		return err
	}
	outputs, err := demoOutputs(dir)
	if err != nil {
		return err
	}
	if err := run(append([]string{"report", "--out", p("report.html"), "--title", "ordinate demo"}, outputs...)...); err != nil {
		return err
	}
	fmt.Fprintf(w, "Outputs in %s: <set>-<method>.parquet (embeddings, distances), <set>-bvp.model.parquet,\n", dir)
	fmt.Fprintf(w, "<set>-metrics-<method>.parquet (long form: metric, k, subset, value).\n")
	fmt.Fprintf(w, "Look inside one with: ordinate inspect %s\n", p("thyroid-bvp.parquet"))
	fmt.Fprintf(w, "\nReport with every plot, parameter and metric: %s\n", p("report.html"))
	return nil
}

// demoOutputs lists the Parquet outputs of the stages in dir (not the
// generated inputs, which carry no provenance, nor the model files).
func demoOutputs(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range paths {
		base := filepath.Base(p)
		// Model files go in too: the report lists them.
		if slices.Contains(demoInputs, base) {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// demoInputs are the tables the demo generates as inputs.
var demoInputs = []string{"gaussians.parquet", "four-clusters.parquet", "similarity.parquet"}

// printComparison prints one row of key metrics per method.
func printComparison(c *cli.Context, w io.Writer, methods []string, metricsPath func(string) string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	cols := []struct{ label, key string }{
		{"T(10)", "trustworthiness@10"}, {"C(10)", "continuity@10"}, {"kNN acc(10)", "knn_accuracy@10/embedding"},
		{"KNN gain(10)", "knn_gain@10"}, {"Spearman rank~axis", "ordinal_spearman"}, {"centre order rho", "center_spearman"},
	}
	head := []string{"method"}
	for _, col := range cols {
		head = append(head, col.label)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, m := range methods {
		vals, err := readFigures(c, metricsPath(m))
		if err != nil {
			return err
		}
		row := []string{m}
		for _, col := range cols {
			if v, ok := vals[col.key]; ok {
				row = append(row, fmt.Sprintf("%.3f", v))
			} else {
				row = append(row, "-")
			}
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// writeGaussians writes the BVP paper's synthetic ordinal Gaussians (our
// seeded reconstruction, see internal/synth) as a Parquet table.
func writeGaussians(ctx context.Context, path string) error {
	x, classes := synth.OrdinalGaussians(rand.New(rand.NewPCG(1, 42)), synth.GaussianPerClass)
	n, d := x.Dims()
	fields := make([]arrow.Field, 0, d+1)
	for j := range d {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("x%d", j+1), Type: arrow.PrimitiveTypes.Float64})
	}
	fields = append(fields, arrow.Field{Name: "label", Type: arrow.PrimitiveTypes.Int64})
	schema := arrow.NewSchema(fields, nil)
	return writeDemoTable(ctx, path, schema, func(b *array.RecordBuilder) {
		for i := range n {
			for j := range d {
				b.Field(j).(*array.Float64Builder).Append(x.At(i, j))
			}
			b.Field(d).(*array.Int64Builder).Append(int64(classes[i] + 1))
		}
	})
}

// readFigures reads a metrics table into "metric@k/subset" keys, as in the
// provenance figures (table.MetricRow.Key).
func readFigures(c *cli.Context, path string) (map[string]float64, error) {
	r, err := arrowio.Open(c.Context, path)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	rows, err := table.ReadMetrics(c.Context, r)
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(rows))
	for _, row := range rows {
		out[row.Key()] = row.Value
	}
	return out, nil
}

// maxEmbeddingDiff compares the emb_* columns of two embedding tables.
func maxEmbeddingDiff(c *cli.Context, a, b string) (float64, error) {
	fa, err := demoEmbedding(c, a)
	if err != nil {
		return 0, err
	}
	defer fa.Release()
	fb, err := demoEmbedding(c, b)
	if err != nil {
		return 0, err
	}
	defer fb.Release()
	if fa.N != fb.N || fa.D != fb.D {
		return 0, errors.New("demo: fitted and applied embeddings differ in shape")
	}
	var m float64
	for i := range fa.X {
		m = math.Max(m, math.Abs(fa.X[i]-fb.X[i]))
	}
	return m, nil
}

// writeDemoTable writes one batch, built by fill, as a Parquet input file of
// the demo (no provenance: it is data, not a stage's output).
func writeDemoTable(ctx context.Context, path string, schema *arrow.Schema, fill func(b *array.RecordBuilder)) error {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	fill(b)
	rec := b.NewRecordBatch()
	defer rec.Release()
	return arrowio.WriteRecord(ctx, path, rec)
}

// shellJoin quotes args so that the printed command can be pasted into a
// POSIX shell as it is: a word with anything but safe characters goes in
// single quotes (globs such as x* included).
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
