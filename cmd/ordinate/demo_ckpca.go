package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
)

// demoControl are the demo's control points: the first patient of each
// thyroid class, dragged to the corners of a triangle.
var demoControl = map[string][2]float64{"1": {0, 1}, "2": {1, -0.5}, "3": {-1, -0.5}}

// demoCKPCA places one patient of each thyroid class at a corner of a
// triangle and compares cKPCA (linear and RBF) with the two LSP baselines.
func demoCKPCA(c *cli.Context, w io.Writer, dir string, run func(...string) error) error {
	p := func(name string) string { return filepath.Join(dir, name) }
	data := p("newthyroid-control.csv")
	rows, err := writeThyroidControl(data)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(w, "== cKPCA: one patient of each thyroid class placed by hand (rows %v) at the corners\nof a triangle; the other 212 rows follow\n", rows)
	common := []string{"--in", data, "--label", "label", "--control", "cx,cy"}
	steps := [][]string{
		append([]string{"ckpca", "--scale", "auto", "--out", p("thyroid-ckpca.parquet"), "--model-out", p("thyroid-ckpca.model.parquet")}, common...),
		append([]string{"ckpca", "--kernel", "rbf", "--scale", "auto", "--out", p("thyroid-ckpca-rbf.parquet")}, common...),
		append([]string{"lsp", "--variant", "linear", "--out", p("thyroid-lsp-linear.parquet")}, common...),
		append([]string{"lsp", "--variant", "laplacian", "--out", p("thyroid-lsp-laplacian.parquet")}, common...),
		{"apply", "--model", p("thyroid-ckpca.model.parquet"), "--in", data, "--out", p("thyroid-ckpca-applied.parquet")},
	}
	methods := []string{"ckpca", "ckpca-rbf", "lsp-linear", "lsp-laplacian"}
	for _, m := range methods {
		steps = append(steps, []string{"evaluate", "--embedding", p("thyroid-" + m + ".parquet"), "--in", data, "--features", "x*",
			"--label", "label", "--k", "10", "--out", p("thyroid-metrics-" + m + ".parquet")})
	}
	for _, s := range steps {
		if err := run(s...); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\tmax |control − target|\tmean pairwise distance\tT(10)\tC(10)\tkNN acc(10)")
	for _, m := range methods {
		emb, err := demoEmbedding(c, p("thyroid-"+m+".parquet"))
		if err != nil {
			return err
		}
		f, err := readFigures(c, p("thyroid-metrics-"+m+".parquet"))
		if err != nil {
			return err
		}
		var worst float64
		for k, r := range rows {
			t := demoControl[fmt.Sprint(k+1)]
			worst = math.Max(worst, math.Max(math.Abs(emb.X[r*2]-t[0]), math.Abs(emb.X[r*2+1]-t[1])))
		}
		fmt.Fprintf(tw, "%s\t%.2g\t%.3f\t%.3f\t%.3f\t%.3f\n", m, worst, pairwiseMean(emb.X, emb.N), f["trustworthiness@10"], f["continuity@10"], f["knn_accuracy@10/embedding"])
		emb.Release()
	}
	tw.Flush()
	diff, err := maxEmbeddingDiff(c, p("thyroid-ckpca.parquet"), p("thyroid-ckpca-applied.parquet"))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\ncKPCA (both kernels) and the linear LSP map meet the control points exactly, the\nLaplacian LSP only in the least-squares sense. Linear cKPCA spends the norm the\nconstraints leave on variance, so it spreads the other rows most (the paper's\nP-dist). apply with the saved cKPCA model: max |difference| = %.2g\n\n", diff)
	return nil
}

// writeThyroidControl writes the bundled thyroid table with control columns
// cx, cy set on the first row of each class, and returns those rows.
func writeThyroidControl(path string) ([]int, error) {
	lines := strings.Split(strings.TrimSpace(string(demoThyroid)), "\n")
	var out bytes.Buffer
	out.WriteString(strings.TrimSpace(lines[0]) + ",cx,cy\n")
	rows := make([]int, 3)
	seen := map[string]bool{}
	for i, line := range lines[1:] {
		line = strings.TrimSpace(line)
		label := line[strings.LastIndex(line, ",")+1:]
		t, ok := demoControl[label]
		if ok && !seen[label] {
			seen[label] = true
			rows[int(label[0]-'1')] = i
			fmt.Fprintf(&out, "%s,%g,%g\n", line, t[0], t[1])
			continue
		}
		out.WriteString(line + ",,\n")
	}
	if len(seen) != 3 {
		return nil, fmt.Errorf("thyroid data without all three classes")
	}
	return rows, os.WriteFile(path, out.Bytes(), 0o644)
}

// demoEmbedding reads the emb_* columns of an embedding table (ids in "row").
func demoEmbedding(c *cli.Context, path string) (*arrowio.Frame, error) {
	r, err := arrowio.Open(c.Context, path)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	return arrowio.ReadFrame(c.Context, r, arrowio.Selection{ID: "row", Features: []string{"emb_*"}, Keep: []string{}})
}

// pairwiseMean is the mean Euclidean distance over all pairs of the n×2 x.
func pairwiseMean(x []float64, n int) float64 {
	var s float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			s += math.Hypot(x[i*2]-x[j*2], x[i*2+1]-x[j*2+1])
		}
	}
	return s / float64(n*(n-1)/2)
}
