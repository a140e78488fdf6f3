package nerv

import (
	"context"
	"math"

	"github.com/ordinate/ordinate/internal/lbfgs"
	"github.com/ordinate/ordinate/kernels"
)

// Early exaggeration of the full map after the sample start (doc.go,
// "Start").
//
// The recall term of pair (i, j), Λ_ij β_ij log(β_ij/b_ij), contains the
// attraction Λ_ij β_ij a_ij (a_ij = h·D²_ij, h = 1/(2s²)). The exaggerated
// stress multiplies that attraction by E, as t-SNE's early exaggeration
// multiplies P, by adding
//
//	X(y) = (E − 1)·(1/n)·Σ_i Σ_{j∈N_i} Λ_ij β_ij h D²_ij,
//	∂X/∂y_i = (E − 1)·(2h/n)·(Σ_{j∈N_i} w_ij (y_i − y_j) − Σ_{j: i∈N_j} w_ji (y_j − y_i)),
//
// with w_ij = Λ_ij β_ij, over the listed pairs of the sparse input (the
// 1/n is the stress's mean over rows). X is a sum of springs, convex, and
// costs O(N·K) per evaluation, nothing beside the stress's own sums. With
// the t kernel the attraction is Λ_ij β_ij log(1 + a_ij), so X sums
// (E − 1)·(1/n)·Λ_ij β_ij log(1 + h D²_ij), each pair's force divided by
// 1 + a_ij.

const (
	// startExaggeration is E for the full map after the sample start and
	// startExaggerationIter its iterations (at most half of the level's
	// cap). Measured on the four clusters of 62,500 rows (BENCHMARKS.md,
	// "Where the quality goes at large N"): E = 4 for 30 iterations ended
	// at a stress 3.6 % below the plain sample start's (5.084 against
	// 5.271) and 2.3 % below the PCA start's, with the PCA start's class
	// structure at the 100-neighbour scale. At 250,000 rows with 60
	// iterations it lifted 10-NN class accuracy from 0.778 to 0.870; at
	// 10⁶ rows with 50 it did not help (stress 10.11 against 9.06), and
	// its iterations cost more at every size, the map being denser.
	// Above startExaggerationRows rows the iterations grow (see
	// exaggerationIters).
	startExaggeration     = 4
	startExaggerationIter = 30
	startExaggerationRows = 250_000
	// exaggerationChunks is the fixed number of row chunks of X's
	// gradient, each with its own n×dims accumulator, so that the sums do
	// not depend on the thread count.
	exaggerationChunks = 4
)

// exaggeration evaluates X for one sparse input; its accumulators are
// kept between evaluations. Λ_ij β_ij is recomputed at every evaluation
// (one comparison per pair of one-hot rows, c subtractions otherwise)
// rather than cached: a cache would hold n·K floats, 768 MB at 10⁶ rows
// and 96 neighbours, for 30 iterations.
type exaggeration struct {
	in        *SparseInput
	hard      hardLabels
	dims      int
	coef      float64 // (E − 1)·h/n
	h         float64
	t         bool // the t kernel's log(1 + a) attraction
	threads   int
	acc, part []float64
}

func newExaggeration(in *SparseInput, dims int, e float64, kernel Kernel, threads int) *exaggeration {
	h := 1 / (2 * in.Scale * in.Scale)
	return &exaggeration{in: in, hard: newHardLabels(in.Soft, in.N, in.C, in.Alpha, in.Gamma), dims: dims,
		coef: (e - 1) * h / float64(in.N), h: h, t: kernel == KernelT, threads: threads}
}

// add adds X(y) to the returned value and its gradient to grad (n×dims).
func (x *exaggeration) add(ctx context.Context, grad, y []float64) (float64, error) {
	in, dims := x.in, x.dims
	n, k := in.N, in.K
	m := n * dims
	grain := (n + exaggerationChunks - 1) / exaggerationChunks
	chunks := kernels.NumChunks(n, grain)
	x.acc = kernels.Grow(x.acc, chunks*m)
	x.part = kernels.Grow(x.part, chunks)
	err := kernels.ParallelFor(ctx, n, x.threads, grain, func(lo, hi int) {
		c := lo / grain
		acc := x.acc[c*m : (c+1)*m]
		clear(acc)
		var s float64
		for i := lo; i < hi; i++ {
			yi := y[i*dims : (i+1)*dims]
			for q := i * k; q < (i+1)*k; q++ {
				j := int(in.Idx[q])
				w := x.coef * x.hard.tradeoff(in.Soft, in.C, in.Alpha, in.Gamma, i, j) * in.Beta[q]
				yj := y[j*dims : (j+1)*dims]
				if x.t {
					a := x.h * kernels.EmbedSqDist(yi, yj)
					s += w * math.Log1p(a) / x.h
					f := 2 * w / (1 + a)
					for t, v := range yi {
						dv := v - yj[t]
						acc[i*dims+t] += f * dv
						acc[j*dims+t] -= f * dv
					}
					continue
				}
				for t, v := range yi {
					dv := v - yj[t]
					s += w * dv * dv
					acc[i*dims+t] += 2 * w * dv
					acc[j*dims+t] -= 2 * w * dv
				}
			}
		}
		x.part[c] = s
	})
	if err != nil {
		return 0, err
	}
	err = kernels.ParallelFor(ctx, m, x.threads, max(1024, m/16), func(lo, hi int) {
		for c := range chunks {
			for p, v := range x.acc[c*m+lo : c*m+hi] {
				grad[lo+p] += v
			}
		}
	})
	var s float64
	for _, v := range x.part[:chunks] {
		s += v
	}
	return s, err
}

// exaggerationIters is the exaggerated iterations of a level of n rows
// capped at maxIter: startExaggerationIter up to startExaggerationRows
// rows, times √(n/startExaggerationRows) above (the map's side, in output
// widths, grows as √n, and the classes gather across it), at most half of
// maxIter. At 10⁶ rows (four clusters, 60 iterations against 30) the 10-NN
// class accuracy on a 5,000-row sample rose from 0.825 to 0.881, above the
// input's 0.863; without any it fell to 0.795 (BENCHMARKS.md).
func exaggerationIters(n, maxIter int) int {
	f := math.Sqrt(max(1, float64(n)/startExaggerationRows))
	return min(int(math.Round(startExaggerationIter*f)), maxIter/2)
}

// exaggerate runs the first exaggerationIters(n, maxIter) L-BFGS
// iterations of the level of in from y on its stress (eval) plus X, the
// first step scaled by scale0 (lbfgs.Settings.InitialScale), and returns
// the map, the iterations and evaluations run and L-BFGS's scale at the
// end (for the plain iterations that follow); tick is called after each
// iteration.
func exaggerate(ctx context.Context, eval func(y, g []float64) float64, in *SparseInput, y []float64, o Options, maxIter int, scale0 float64, tick func()) (_ []float64, iters, evals int, scale float64, _ error) {
	iters = exaggerationIters(in.N, maxIter)
	if iters == 0 {
		return y, 0, 0, scale0, nil
	}
	x := newExaggeration(in, o.Dims, startExaggeration, o.kernel(), o.Threads)
	exag := func(y, g []float64) float64 {
		s := eval(y, g)
		v, err := x.add(ctx, g, y)
		if err != nil {
			return s // NaN when cancelled: eval saw the same context
		}
		return s + v
	}
	// tol 0: the phase always runs its iterations unless the line
	// search fails, which ends it early.
	r, err := lbfgs.Run(ctx, exag, y, lbfgs.Settings{MaxIter: iters, Store: 10, InitialScale: scale0, Step: func(int, float64) { tick() }})
	if err != nil {
		return nil, 0, 0, 0, err
	}
	return r.X, r.Iterations, r.Evaluations, r.Scale, nil
}
