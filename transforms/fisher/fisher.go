package fisher

import (
	"context"
	"math"

	"github.com/ordinate/ordinate/transforms"
)

// Stats describes a computation.
type Stats struct {
	Sigma            float64
	Steps            int
	Rule             Rule
	ExcludeEndpoints bool
	Neighbors        int // 0 for dense
	// Fallbacks counts the (pair, path point) evaluations whose weights
	// underflowed (normaliser below 2⁻⁹⁶⁰) and were redone in the log
	// domain.
	Fallbacks int64
	// MaxAsymmetry is max |d(i,j) − d(j,i)| / max d for the Left rule
	// (dense only; 0 for Trapezoid, which is symmetric).
	MaxAsymmetry float64
	// LongSteps counts the pairs whose step length d_ij/T in the kernel
	// metric exceeds σ: there the T-point sum is a coarse approximation of
	// the path integral and T should grow. Dense: unordered pairs; sparse:
	// (row, neighbour) entries.
	LongSteps int64
	// KeptTerms and DenseTerms count the Parzen terms the sparse sums used
	// and would have used without truncation (sparse only).
	KeptTerms, DenseTerms int64
}

// validate checks the inputs shared by both entry points.
func validate(ctx context.Context, s []float64, n int, classes []int, k int, o Options) error {
	if err := checkCounts(n, o); err != nil {
		return err
	}
	if len(s) != n*n {
		return transforms.Errorf(ErrLength, "len(s) = %d, want n² = %d", len(s), n*n)
	}
	for i := range n {
		if i%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		for j := range n {
			v := s[i*n+j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return transforms.MatrixErrorf("s", i, j, ErrNonFinite, "%v", v)
			}
			if j < i && v != s[j*n+i] {
				return transforms.MatrixErrorf("s", i, j, ErrAsymmetric, "%v vs %v", v, s[j*n+i])
			}
		}
	}
	return checkClasses(ctx, classes, n, k)
}

// checkSigma refuses σ = 0, which only Fit resolves (from the perplexity).
func checkSigma(o Options) error {
	if o.Sigma == 0 {
		return transforms.Optionf("sigma", "0: want σ > 0 (Fit derives σ from the perplexity; Distances and SparseDistances need it given)")
	}
	return nil
}

func params(o Options) PathParams {
	return PathParams{
		Sigma: o.Sigma, Steps: o.Steps, ExcludeEndpoints: o.ExcludeEndpoints,
		Threads: o.Threads, Progress: o.Progress, Pairs: o.Pairs,
	}
}

func newStats(o Options) *Stats {
	return &Stats{Sigma: o.Sigma, Steps: o.Steps, Rule: o.Rule, ExcludeEndpoints: o.ExcludeEndpoints, Neighbors: o.Neighbors}
}

// Distances returns the n×n row-major matrix of Fisher path lengths between
// all points of the corrected symmetric kernel s (n×n, row-major) with class
// labels classes[i] ∈ [0, k); the diagonal is 0. With the Trapezoid rule
// the matrix is symmetric bit for bit. See the package documentation for
// the definition and conventions. Start o from DefaultOptions: o.Sigma
// must be > 0 and o.Neighbors 0 (use SparseDistances). An invalid option
// returns a *transforms.OptionError naming it, invalid input an error
// wrapping one of the sentinel errors; a cancelled ctx returns ctx.Err().
func Distances(ctx context.Context, s []float64, n int, classes []int, k int, o Options) ([]float64, *Stats, error) {
	if err := transforms.Validate(&o); err != nil {
		return nil, nil, err
	}
	if err := checkSigma(o); err != nil {
		return nil, nil, err
	}
	if o.Neighbors != 0 {
		return nil, nil, transforms.Optionf("neighbors", "%d: Distances computes all pairs (use SparseDistances)", o.Neighbors)
	}
	if err := validate(ctx, s, n, classes, k, o); err != nil {
		return nil, nil, err
	}
	return distances(ctx, s, n, classes, k, o)
}

// distances is Distances on checked options and input.
func distances(ctx context.Context, s []float64, n int, classes []int, k int, o Options) ([]float64, *Stats, error) {
	st := newStats(o)
	f0 := make([]float64, n*n)
	mid := make([]float64, n*n)
	fb, err := PathSums(ctx, f0, mid, s, n, classes, k, params(o))
	if err != nil {
		return nil, nil, err
	}
	st.Fallbacks = fb
	T := o.Steps
	scale := 1 / (o.Sigma * o.Sigma * float64(T))
	dist := mid // reuse: each entry is read before it is written
	var maxD, maxAsym float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			m := mid[i*n+j]
			a, b := f0[i*n+j], f0[j*n+i]
			if o.Rule == Trapezoid {
				d := (0.5*a + 0.5*b + m) * scale
				dist[i*n+j], dist[j*n+i] = d, d
				maxD = max(maxD, d)
			} else {
				dij, dji := (a+m)*scale, (b+m)*scale
				dist[i*n+j], dist[j*n+i] = dij, dji
				maxD = max(maxD, dij, dji)
				maxAsym = max(maxAsym, math.Abs(dij-dji))
			}
		}
	}
	if maxD > 0 {
		st.MaxAsymmetry = maxAsym / maxD
	}
	st.LongSteps = longSteps(s, n, T, o.Sigma)
	return dist, st, nil
}

// longSteps counts the unordered pairs with d_ij/T > σ.
func longSteps(s []float64, n, T int, sigma float64) int64 {
	lim := sigma * float64(T)
	lim *= lim
	var c int64
	for i := range n {
		for j := i + 1; j < n; j++ {
			if s[i*n+i]+s[j*n+j]-2*s[i*n+j] > lim {
				c++
			}
		}
	}
	return c
}

// SparseDistances returns, for every row i, its K = o.Neighbors nearest
// neighbours in the kernel metric d²_ij = s_ii + s_jj − 2s_ij (ordered by
// (d², index), the point itself excluded) in idx[i·K : (i+1)·K], and the
// Fisher path lengths d(i, idx[i·K+q]) in dist, with Parzen sums truncated
// as described in the package documentation. With the Left rule the path
// runs from i to the neighbour. It requires 1 ≤ K ≤ n−1 and a positive
// semi-definite s (the truncation bound uses the triangle inequality).
// Start o from DefaultOptions: o.Sigma must be > 0. Errors are as for
// Distances.
func SparseDistances(ctx context.Context, s []float64, n int, classes []int, k int, o Options) (idx []int32, dist []float64, st *Stats, err error) {
	if err := transforms.Validate(&o); err != nil {
		return nil, nil, nil, err
	}
	if err := checkSigma(o); err != nil {
		return nil, nil, nil, err
	}
	if K := o.Neighbors; K < 1 || K > n-1 {
		return nil, nil, nil, transforms.Optionf("neighbors", "%d: SparseDistances needs 1 ≤ K < N = %d", K, n)
	}
	if err := validate(ctx, s, n, classes, k, o); err != nil {
		return nil, nil, nil, err
	}
	return sparseDistances(ctx, s, n, classes, k, o)
}

// sparseDistances is SparseDistances on checked options and input.
func sparseDistances(ctx context.Context, s []float64, n int, classes []int, k int, o Options) (idx []int32, dist []float64, st *Stats, err error) {
	K := o.Neighbors
	r, err := SparsePathSums(ctx, s, n, classes, k, K, params(o))
	if err != nil {
		return nil, nil, nil, err
	}
	st = newStats(o)
	st.KeptTerms, st.DenseTerms, st.Fallbacks = r.Kept, r.Dense, r.Fallbacks
	T := o.Steps
	scale := 1 / (o.Sigma * o.Sigma * float64(T))
	dist = r.Mid
	lim := o.Sigma * float64(T)
	lim *= lim
	for q := range dist {
		dist[q] = o.Rule.pathLength(r.F0[q], r.F1[q], r.Mid[q], scale)
		i, j := q/K, int(r.Idx[q])
		if s[i*n+i]+s[j*n+j]-2*s[i*n+j] > lim {
			st.LongSteps++
		}
	}
	return r.Idx, dist, st, nil
}
