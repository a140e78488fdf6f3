package main

import (
	_ "embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/urfave/cli/v2"
)

// UCI Zoo (101 animals, 16 attributes and the type; CC BY 4.0), the SCORE
// paper's first data set. testdata/zoo holds the same file.
//
//go:embed demodata/zoo.csv
var demoZoo []byte

// demoScore learns one map per Zoo attribute with SCORE from conditional
// triplets, with half of the animals hidden per aspect, and compares it
// with a single pooled map and independent per-aspect SOE maps.
func demoScore(c *cli.Context, w io.Writer, dir string, run func(...string) error) error {
	p := func(name string) string { return filepath.Join(dir, name) }
	zoo := p("zoo.csv")
	if err := os.WriteFile(zoo, demoZoo, 0o644); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(w, "== Zoo (UCI): 101 animals, one aspect per attribute (17), conditional triplets, half the animals hidden per aspect\n")
	steps := [][]string{
		{"triplets", "--in", zoo, "--exclude", "animal_name,type_name", "--per-aspect", "5000", "--split-objects", "0.5", "--out", p("zoo-triplets.parquet")},
		{"score", "--in", p("zoo-triplets.parquet"), "--out", p("zoo-score-maps.parquet"), "--aspects-out", p("zoo-score-aspects.parquet")},
		{"score", "--in", p("zoo-triplets.parquet"), "--single-map", "--out", p("zoo-single-map.parquet")},
		{"soe", "--in", p("zoo-triplets.parquet"), "--per-aspect", "--out", p("zoo-soe-maps.parquet")},
	}
	for _, m := range []string{"score-maps", "single-map", "soe-maps"} {
		steps = append(steps, []string{"evaluate", "--embedding", p("zoo-" + m + ".parquet"), "--triplets", p("zoo-triplets.parquet"),
			"--out", p("zoo-metrics-" + m + ".parquet")})
	}
	for _, s := range steps {
		if err := run(s...); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "maps\ttriplet accuracy, train\thidden")
	for _, r := range []struct{ label, name string }{
		{"SCORE, one map per aspect", "score-maps"},
		{"SCORE, one pooled map", "single-map"},
		{"SOE, independent map per aspect", "soe-maps"},
	} {
		f, err := readFigures(c, p("zoo-metrics-"+r.name+".parquet"))
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\n", r.label, f["triplet_accuracy/train"], f["triplet_accuracy/hidden"])
	}
	tw.Flush()
	fmt.Fprintf(w, `
SCORE's maps share one sphere, so an animal hidden from one aspect still gets a
sensible place from the others; independent maps cannot place it. The maps table
(%s) has columns aspect, id, emb_0, emb_1: in a BI tool, plot emb_0
against emb_1 and filter or facet by aspect; row i of zoo.csv is id i.

`, p("zoo-score-maps.parquet"))
	return nil
}
