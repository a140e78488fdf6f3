// Command ckpca-table1 reruns the experiment of Table 1 of the cKPCA paper
// (Paurat, Oglic & Gärtner) on the five regression data sets, with our
// stated protocol (BENCHMARKS.md):
//
//   - rows with a missing value dropped, the target column dropped, nominal
//     attributes one-hot (auto93, servo), every feature z-scored (sample std);
//   - the target embedding T is the rows' scores on the 3rd and 4th principal
//     components of the standardised data;
//   - each run draws 5 control rows at random (seed = run number) and places
//     them at their T coordinates;
//   - cKPCA: linear kernel, ν = 1, hard constraints (always feasible here:
//     the constraints need at most the norm of the PC3/PC4 axes, 1);
//     LSP linear (InVis, min-norm map) and LSP Laplacian (Paulovich, k = 10);
//   - P-dist is the mean Euclidean distance over all pairs of embedded rows,
//     rmse is √(mean over rows of ‖Eᵢ − Tᵢ‖²), both averaged over 50 runs
//     (± standard deviation).
//
// Run from the repository root: go run ./scripts/ckpca-table1 [-runs 50]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/ckpca"
	"github.com/ordinate/ordinate/transforms/linear"
	"github.com/ordinate/ordinate/transforms/lsp"
)

func main() {
	dir := flag.String("data", "../shared/datasets/regression", "directory of the regression CSVs")
	runs := flag.Int("runs", 50, "runs per data set")
	flag.Parse()
	ctx := context.Background()
	sets := []string{"auto93.onehot", "autoPrice", "bodyfat", "pollution", "servo.onehot"}
	fmt.Println("| data set (n×D) | P-dist cKPCA | P-dist LSP linear | P-dist LSP Laplacian | rmse cKPCA | rmse LSP linear | rmse LSP Laplacian |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, name := range sets {
		x, err := load(ctx, filepath.Join(*dir, name+".csv"))
		if err != nil {
			log.Fatal(err)
		}
		n, D := x.Dims()
		p, err := linear.PCA(x, 4)
		if err != nil {
			log.Fatal(err)
		}
		scores := p.Transform(nil, x)
		target := mat.DenseCopyOf(scores.Slice(0, n, 2, 4))
		var pd, rm [3][]float64
		for run := range *runs {
			rng := rand.New(rand.NewPCG(uint64(run), 0x636b))
			rows := rng.Perm(n)[:5]
			y := make([]float64, 0, 10)
			for _, r := range rows {
				y = append(y, target.At(r, 0), target.At(r, 1))
			}
			embs := make([]*mat.Dense, 3)
			res, err := ckpca.Fit(x, ckpca.Control{Rows: rows, Targets: y}, ckpca.DefaultOptions())
			if err != nil {
				log.Fatalf("%s run %d: %v", name, run, err)
			}
			embs[0] = res.Embedding
			pl, err := lsp.Linear(x, rows, y, 2)
			if err != nil {
				log.Fatal(err)
			}
			embs[1] = mat.NewDense(n, 2, nil)
			embs[1].Mul(x, pl)
			lap, err := lsp.Laplacian(ctx, x, rows, y, 2, lsp.LaplacianOptions{Neighbors: 10, Tol: 1e-10})
			if err != nil {
				log.Printf("%s run %d: LSP Laplacian: %v", name, run, err)
			} else {
				embs[2] = mat.NewDense(n, 2, lap)
			}
			for m, e := range embs {
				if e == nil {
					continue
				}
				pd[m] = append(pd[m], pdist(e))
				rm[m] = append(rm[m], rmse(e, target))
			}
		}
		fmt.Printf("| %s (%d×%d) | %s | %s | %s | %s | %s | %s |\n", name, n, D,
			ms(pd[0]), ms(pd[1]), ms(pd[2]), ms(rm[0]), ms(rm[1]), ms(rm[2]))
	}
}

// load reads every numeric column except label, drops incomplete rows and
// z-scores the features.
func load(ctx context.Context, path string) (*mat.Dense, error) {
	r, err := arrowio.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	f, err := arrowio.ReadFrame(ctx, r, arrowio.Selection{Label: "label", Keep: []string{}, OnInvalid: arrowio.InvalidDrop})
	if err != nil {
		return nil, err
	}
	defer f.Release()
	s, _ := transforms.FitScaling(f.X, f.N, f.D, f.FeatureNames, true)
	return mat.NewDense(f.N, len(s.Cols), s.Apply(nil, f.X, f.N, f.D)), nil
}

func pdist(e *mat.Dense) float64 {
	n, _ := e.Dims()
	var s float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			s += math.Hypot(e.At(i, 0)-e.At(j, 0), e.At(i, 1)-e.At(j, 1))
		}
	}
	return s / float64(n*(n-1)/2)
}

func rmse(e, t *mat.Dense) float64 {
	n, _ := e.Dims()
	var s float64
	for i := range n {
		a, b := e.At(i, 0)-t.At(i, 0), e.At(i, 1)-t.At(i, 1)
		s += a*a + b*b
	}
	return math.Sqrt(s / float64(n))
}

func ms(v []float64) string {
	if len(v) == 0 {
		return "–"
	}
	var m, s float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	out := fmt.Sprintf("%.2f±%.2f", m, math.Sqrt(s/float64(len(v))))
	if len(v) < 50 {
		out += fmt.Sprintf(" (%d runs)", len(v))
	}
	return out
}
