package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/internal/synth"
)

// demoFisher runs the Fisher t-SNE pipeline on a synthetic indefinite
// similarity matrix: kernel distances, Fisher distances, t-SNE of both.
func demoFisher(c *cli.Context, w io.Writer, dir string, run func(...string) error) error {
	p := func(name string) string { return filepath.Join(dir, name) }
	sim := p("similarity.parquet")
	if err := writeSimilarity(c.Context, sim); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(w, "== a synthetic indefinite similarity matrix: 150 objects, 3 classes (seed 1)\n")
	obj := []string{"--similarity", sim, "--id", "id", "--label", "label"}
	lab := []string{"--labels", sim, "--id", "id", "--label", "label"}
	steps := [][]string{
		append([]string{"fisher", "--metric", "kernel", "--out", p("sim-kernel.parquet")}, obj...),
		append([]string{"fisher", "--out", p("sim-fisher.parquet")}, obj...),
		append([]string{"fisher", "--exclude-endpoints", "--out", p("sim-fisherx.parquet")}, obj...),
		append([]string{"tsne", "--distances", p("sim-kernel.parquet"), "--out", p("sim-tsne.parquet")}, lab...),
		append([]string{"tsne", "--distances", p("sim-fisher.parquet"), "--out", p("sim-fisher-tsne.parquet")}, lab...),
		append([]string{"tsne", "--distances", p("sim-fisherx.parquet"), "--out", p("sim-fisherx-tsne.parquet")}, lab...),
		{"evaluate", "--distances", p("sim-kernel.parquet"), "--in", sim, "--id", "id", "--label", "label", "--k", "5", "--out", p("sim-metrics-kernel.parquet")},
	}
	for _, m := range []string{"tsne", "fisher-tsne", "fisherx-tsne"} {
		steps = append(steps, []string{"evaluate", "--embedding", p("sim-" + m + ".parquet"), "--in", sim, "--id", "id", "--label", "label",
			"--features", "s_*", "--k", "5", "--out", p("sim-metrics-" + m + ".parquet")})
	}
	for _, s := range steps {
		if err := run(s...); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "distances\t1-NN error\tkNN acc(5)")
	for _, r := range []struct{ label, file, subset string }{
		{"kernel (clipped), high-dimensional", "sim-metrics-kernel.parquet", "distances"},
		{"t-SNE of the kernel distances", "sim-metrics-tsne.parquet", "embedding"},
		{"Fisher t-SNE", "sim-metrics-fisher-tsne.parquet", "embedding"},
		{"Fisher t-SNE, --exclude-endpoints", "sim-metrics-fisherx-tsne.parquet", "embedding"},
	} {
		f, err := readFigures(c, p(r.file))
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\n", r.label, f["nn_error@1/"+r.subset], f["knn_accuracy@5/"+r.subset])
	}
	tw.Flush()
	fmt.Fprintln(w, strings.TrimSpace(`
The Fisher metric stretches the space where the class posterior changes, so t-SNE
of Fisher distances separates the classes. Its in-sample error is optimistic: the
Parzen posterior at an object sees the object's own label. --exclude-endpoints
leaves both end points out of the Parzen sums and gives the honest figure.`))
	fmt.Fprintln(w)
	return nil
}

// writeSimilarity writes synth.IndefiniteSimilarity as a square table: id,
// label, s_0 … s_{n−1}.
func writeSimilarity(ctx context.Context, path string) error {
	const n = 150
	s, classes := synth.IndefiniteSimilarity(rand.New(rand.NewPCG(1, 7)), n, 3, 0.3)
	fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "label", Type: arrow.PrimitiveTypes.Int64}}
	for j := range n {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("s_%d", j), Type: arrow.PrimitiveTypes.Float64})
	}
	schema := arrow.NewSchema(fields, nil)
	return writeDemoTable(ctx, path, schema, func(b *array.RecordBuilder) {
		for i := range n {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.Int64Builder).Append(int64(classes[i] + 1))
			for j := range n {
				b.Field(2 + j).(*array.Float64Builder).Append(s[i*n+j])
			}
		}
	})
}
