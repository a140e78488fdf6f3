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
// (the data are in testdata/regression; see its SOURCE.md). main_test.go
// checks the linear LSP's P-dist against the paper's numbers.
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

// sets are the data sets of Table 1, as files in the data folder.
var sets = []string{"auto93.onehot", "autoPrice", "bodyfat", "pollution", "servo.onehot"}

// methods are the columns of the table.
var methods = []string{"cKPCA", "LSP linear", "LSP Laplacian"}

// result holds one data set's P-dist and rmse per method and run.
type result struct {
	name       string
	n, d       int
	pdist, rms [3][]float64
	failed     []string // runs a method could not do, with the reason
}

func main() {
	dir := flag.String("data", "testdata/regression", "directory of the regression CSVs")
	runs := flag.Int("runs", 50, "runs per data set")
	flag.Parse()
	fmt.Println("| data set (n×D) | P-dist cKPCA | P-dist LSP linear | P-dist LSP Laplacian | rmse cKPCA | rmse LSP linear | rmse LSP Laplacian |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, name := range sets {
		r, err := experiment(context.Background(), filepath.Join(*dir, name+".csv"), *runs, true)
		if err != nil {
			log.Fatal(err)
		}
		for _, f := range r.failed {
			log.Print(f)
		}
		fmt.Printf("| %s (%d×%d) | %s | %s | %s | %s | %s | %s |\n", name, r.n, r.d,
			ms(r.pdist[0]), ms(r.pdist[1]), ms(r.pdist[2]), ms(r.rms[0]), ms(r.rms[1]), ms(r.rms[2]))
	}
}

// experiment runs the protocol on one data set; laplacian adds the third
// method.
func experiment(ctx context.Context, path string, runs int, laplacian bool) (*result, error) {
	x, err := load(ctx, path)
	if err != nil {
		return nil, err
	}
	n, D := x.Dims()
	p, err := linear.PCA(x, 4)
	if err != nil {
		return nil, err
	}
	target := mat.DenseCopyOf(p.Transform(nil, x).Slice(0, n, 2, 4))
	res := &result{name: filepath.Base(path), n: n, d: D}
	for run := range runs {
		rng := rand.New(rand.NewPCG(uint64(run), 0x636b))
		rows := rng.Perm(n)[:5]
		y := make([]float64, 0, 10)
		for _, r := range rows {
			y = append(y, target.At(r, 0), target.At(r, 1))
		}
		embs := make([]*mat.Dense, 3)
		fit, err := ckpca.Fit(x, ckpca.Control{Rows: rows, Targets: y}, ckpca.DefaultOptions())
		if err != nil {
			return nil, fmt.Errorf("%s run %d: %w", res.name, run, err)
		}
		embs[0] = fit.Embedding
		pl, err := lsp.Linear(x, rows, y, 2)
		if err != nil {
			return nil, fmt.Errorf("%s run %d: %w", res.name, run, err)
		}
		embs[1] = mat.NewDense(n, 2, nil)
		embs[1].Mul(x, pl)
		if laplacian {
			lap, err := lsp.Laplacian(ctx, x, rows, y, 2, lsp.DefaultOptions())
			if err != nil {
				res.failed = append(res.failed, fmt.Sprintf("%s run %d: LSP Laplacian: %v", res.name, run, err))
			} else {
				embs[2] = mat.NewDense(n, 2, lap)
			}
		}
		for m, e := range embs {
			if e != nil {
				res.pdist[m] = append(res.pdist[m], pdist(e))
				res.rms[m] = append(res.rms[m], rmse(e, target))
			}
		}
	}
	return res, nil
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

// meanStd returns the mean and (population) standard deviation of v.
func meanStd(v []float64) (m, s float64) {
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return m, math.Sqrt(s / float64(len(v)))
}

func ms(v []float64) string {
	if len(v) == 0 {
		return "–"
	}
	m, s := meanStd(v)
	out := fmt.Sprintf("%.2f±%.2f", m, s)
	if len(v) < 50 {
		out += fmt.Sprintf(" (%d runs)", len(v))
	}
	return out
}
