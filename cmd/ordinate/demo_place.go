package main

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
)

// demoPlace fits t-SNE and ClassNeRV on 80 % of newthyroid, saves the maps
// as models, and places the other 20 % into them with apply, as a team
// would place next week's rows; the report draws the placed rows on their
// map.
func demoPlace(c *cli.Context, w io.Writer, dir string, run func(...string) error) error {
	p := func(name string) string { return filepath.Join(dir, name) }
	fit, held := p("thyroid-fit.csv"), p("thyroid-new.csv")
	nFit, nHeld, err := splitCSV(demoThyroid, fit, held, 0.2)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(w, "== placing new rows into fitted maps: t-SNE and ClassNeRV fitted on %d of newthyroid's rows,\nthe other %d placed with apply (each row by itself, against the fixed map)\n", nFit, nHeld)
	methods := []string{"tsne", "classnerv"}
	for _, m := range methods {
		stage, extra := m, []string{}
		if m == "classnerv" {
			stage, extra = "nerv", []string{"--perplexity", "20"}
		}
		args := append([]string{stage, "--in", fit, "--label", "label", "--keep", "label", "--standardize",
			"--out", p("thyroid-" + m + ".parquet"), "--model-out", p("thyroid-" + m + ".model.parquet")}, extra...)
		if err := run(args...); err != nil {
			return err
		}
		if err := run("apply", "--model", p("thyroid-"+m+".model.parquet"), "--in", held, "--keep", "label",
			"--out", p("thyroid-"+m+"-placed.parquet")); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "map\tplaced rows\t10-NN class accuracy among the map's rows")
	for _, m := range methods {
		acc, n, err := placedAccuracy(c, p("thyroid-"+m+".parquet"), p("thyroid-"+m+"-placed.parquet"), 10)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\n", m, n, acc)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nThe report draws the placed rows as rings on their map.")
	fmt.Fprintln(w)
	return nil
}

// splitCSV writes the rows of csv to two files: a seeded random share
// frac of them to held, the rest to fit (both with the header).
func splitCSV(csv []byte, fit, held string, frac float64) (nFit, nHeld int, err error) {
	lines := bytes.Split(bytes.TrimRight(csv, "\n"), []byte("\n"))
	header, rows := lines[0], lines[1:]
	perm := rand.New(rand.NewPCG(13, 13)).Perm(len(rows))
	nHeld = int(frac * float64(len(rows)))
	isHeld := make([]bool, len(rows))
	for _, r := range perm[:nHeld] {
		isHeld[r] = true
	}
	var a, b bytes.Buffer
	a.Write(header)
	b.Write(header)
	for r, line := range rows {
		dst := &a
		if isHeld[r] {
			dst = &b
		}
		dst.WriteByte('\n')
		dst.Write(line)
	}
	a.WriteByte('\n')
	b.WriteByte('\n')
	if err := os.WriteFile(fit, a.Bytes(), 0o644); err != nil {
		return 0, 0, err
	}
	return len(rows) - nHeld, nHeld, os.WriteFile(held, b.Bytes(), 0o644)
}

// placedAccuracy is the share of placed rows whose class is the majority
// class of their k nearest rows of the map (ties to the class seen first).
func placedAccuracy(c *cli.Context, mapPath, placedPath string, k int) (float64, int, error) {
	read := func(path string) (*arrowio.Frame, error) {
		r, err := arrowio.Open(c.Context, path)
		if err != nil {
			return nil, err
		}
		defer r.Release()
		return arrowio.ReadFrame(c.Context, r, arrowio.Selection{Features: []string{"emb_*"}, Label: "label"})
	}
	ref, err := read(mapPath)
	if err != nil {
		return 0, 0, err
	}
	defer ref.Release()
	placed, err := read(placedPath)
	if err != nil {
		return 0, 0, err
	}
	defer placed.Release()
	d := ref.D
	var hits int
	for i := range placed.N {
		q := placed.X[i*d : (i+1)*d]
		order := make([]int, ref.N)
		dist := make([]float64, ref.N)
		for j := range ref.N {
			order[j] = j
			for c := range d {
				dist[j] += (ref.X[j*d+c] - q[c]) * (ref.X[j*d+c] - q[c])
			}
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch {
			case dist[a] < dist[b]:
				return -1
			case dist[a] > dist[b]:
				return 1
			}
			return 0
		})
		votes := map[string]int{}
		best := ""
		for _, j := range order[:min(k, ref.N)] {
			v := ref.Label.Text(j)
			votes[v]++
			if best == "" || votes[v] > votes[best] {
				best = v
			}
		}
		if best == placed.Label.Text(i) {
			hits++
		}
	}
	return float64(hits) / float64(placed.N), placed.N, nil
}
