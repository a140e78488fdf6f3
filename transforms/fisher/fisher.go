package fisher

import (
	"context"
	"fmt"
	"math"
)

// Rule selects the quadrature of the path integral.
type Rule int

const (
	// Trapezoid is the symmetric rule: the mean of the two Left directions,
	// (σ²T)⁻¹[½F(0) + Σ_{t=1}^{T−1} F(t/T) + ½F(1)].
	Trapezoid Rule = iota
	// Left is the paper's Eq. 3: J evaluated at the start of each segment,
	// (σ²T)⁻¹ Σ_{t=0}^{T−1} F(t/T); d(i, j) ≠ d(j, i) in general.
	Left
)

// String returns "trapezoid" or "left".
func (r Rule) String() string {
	switch r {
	case Trapezoid:
		return "trapezoid"
	case Left:
		return "left"
	}
	return fmt.Sprintf("Rule(%d)", int(r))
}

// DefaultSteps is the number of path segments T when Options.Steps is 0.
const DefaultSteps = 10

// Options configures Distances and SparseDistances.
type Options struct {
	Sigma            float64 // Parzen bandwidth σ of exp(−‖x−x_l‖²/(2σ²)); required, > 0
	Steps            int     // path segments T; 0 means DefaultSteps
	Rule             Rule    // Trapezoid (default) or Left
	ExcludeEndpoints bool    // leave-pair-out: drop l = i and l = j from the Parzen sums of (i, j)
	Neighbors        int     // K for SparseDistances; must be 0 for Distances
	Threads          int     // ≤ 0: GOMAXPROCS
	// Pairs, if not nil, restricts Distances to the unordered pairs {a, b}
	// for which it returns true (see PathParams.Pairs); the other entries
	// of the result are meaningless.
	Pairs func(a, b int) bool
	// Progress, if not nil, receives the work done and its total (pairs
	// i < j for Distances, rows for SparseDistances). Calls come from worker
	// goroutines but never concurrently, with done increasing; keep it fast.
	Progress func(done, total int64)
}

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

// steps resolves the default.
func (o Options) steps() int {
	if o.Steps == 0 {
		return DefaultSteps
	}
	return o.Steps
}

// validate checks the inputs shared by both entry points.
func validate(ctx context.Context, s []float64, n int, classes []int, k int, o Options) error {
	if n < 2 {
		return wrapf(ErrTooFew, "n = %d, need at least 2", n)
	}
	if o.ExcludeEndpoints && n < 3 {
		return wrapf(ErrTooFew, "n = %d, need at least 3 with ExcludeEndpoints", n)
	}
	if len(s) != n*n {
		return wrapf(ErrLength, "len(s) = %d, want n² = %d", len(s), n*n)
	}
	if len(classes) != n {
		return wrapf(ErrLength, "len(classes) = %d, want n = %d", len(classes), n)
	}
	if !(o.Sigma > 0) || math.IsInf(o.Sigma, 1) {
		return wrapf(ErrOption, "Sigma = %v, want finite > 0", o.Sigma)
	}
	if o.steps() < 1 {
		return wrapf(ErrOption, "Steps = %d, want ≥ 1", o.Steps)
	}
	if o.Rule != Trapezoid && o.Rule != Left {
		return wrapf(ErrOption, "unknown rule %d", int(o.Rule))
	}
	for i := range n {
		if i%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		for j := range n {
			v := s[i*n+j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return inputError("s", i, j, ErrNonFinite)
			}
			if j < i && v != s[j*n+i] {
				return inputError("s", i, j, fmt.Errorf("%w: %v vs %v", ErrAsymmetric, v, s[j*n+i]))
			}
		}
	}
	if k < 1 {
		return wrapf(ErrOption, "k = %d classes", k)
	}
	seen := make([]bool, k)
	present := 0
	for i, c := range classes {
		if c < 0 || c >= k {
			return inputError("classes", i, -1, fmt.Errorf("%w: %d not in [0, %d)", ErrClassRange, c, k))
		}
		if !seen[c] {
			seen[c] = true
			present++
		}
	}
	if present < 2 {
		return wrapf(ErrTooFewClasses, "%d class present", present)
	}
	return nil
}

func params(o Options) PathParams {
	return PathParams{
		Sigma: o.Sigma, Steps: o.steps(), ExcludeEndpoints: o.ExcludeEndpoints,
		Threads: o.Threads, Progress: o.Progress, Pairs: o.Pairs,
	}
}

func newStats(o Options) *Stats {
	return &Stats{Sigma: o.Sigma, Steps: o.steps(), Rule: o.Rule, ExcludeEndpoints: o.ExcludeEndpoints, Neighbors: o.Neighbors}
}

// Distances returns the n×n row-major matrix of Fisher path lengths between
// all points of the corrected symmetric kernel s (n×n, row-major) with class
// labels classes[i] ∈ [0, k); the diagonal is 0. With the Trapezoid rule
// the matrix is symmetric bit for bit. See the package documentation for
// the definition and conventions. Options.Neighbors must be 0 (use
// SparseDistances). Invalid input returns an error wrapping one of the
// sentinel errors; a cancelled ctx returns ctx.Err().
func Distances(ctx context.Context, s []float64, n int, classes []int, k int, o Options) ([]float64, *Stats, error) {
	if err := validate(ctx, s, n, classes, k, o); err != nil {
		return nil, nil, err
	}
	if o.Neighbors != 0 {
		return nil, nil, wrapf(ErrOption, "Neighbors = %d: use SparseDistances", o.Neighbors)
	}
	st := newStats(o)
	f0 := make([]float64, n*n)
	mid := make([]float64, n*n)
	fb, err := PathSums(ctx, f0, mid, s, n, classes, k, params(o))
	if err != nil {
		return nil, nil, err
	}
	st.Fallbacks = fb
	T := o.steps()
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
func SparseDistances(ctx context.Context, s []float64, n int, classes []int, k int, o Options) (idx []int32, dist []float64, st *Stats, err error) {
	if err := validate(ctx, s, n, classes, k, o); err != nil {
		return nil, nil, nil, err
	}
	K := o.Neighbors
	if K < 1 || K > n-1 {
		return nil, nil, nil, wrapf(ErrOption, "Neighbors = %d, want 1…%d", K, n-1)
	}
	r, err := SparsePathSums(ctx, s, n, classes, k, K, params(o))
	if err != nil {
		return nil, nil, nil, err
	}
	st = newStats(o)
	st.KeptTerms, st.DenseTerms, st.Fallbacks = r.Kept, r.Dense, r.Fallbacks
	T := o.steps()
	scale := 1 / (o.Sigma * o.Sigma * float64(T))
	dist = r.Mid
	lim := o.Sigma * float64(T)
	lim *= lim
	for q := range dist {
		if o.Rule == Trapezoid {
			dist[q] = (0.5*r.F0[q] + 0.5*r.F1[q] + r.Mid[q]) * scale
		} else {
			dist[q] = (r.F0[q] + r.Mid[q]) * scale
		}
		i, j := q/K, int(r.Idx[q])
		if s[i*n+i]+s[j*n+j]-2*s[i*n+j] > lim {
			st.LongSteps++
		}
	}
	return r.Idx, dist, st, nil
}
