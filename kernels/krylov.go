package kernels

import (
	"context"
	"math"
	"math/rand/v2"
)

// KrylovSettings tune EigenSymExtreme. Zero fields take the defaults.
type KrylovSettings struct {
	// Block is the block size b ≥ k (default k + 8): larger blocks converge
	// in fewer products when the wanted eigenvalues sit in a cluster.
	Block int
	// Steps is the number of block products per restart cycle (default
	// 12): the Krylov basis holds b·(Steps + 1) vectors.
	Steps int
	// Tol is the residual ‖A·v − λ·v‖ asked of every returned pair,
	// relative to the largest Ritz value in magnitude, an estimate of ‖A‖
	// from below (default 1e-10).
	Tol float64
	// MaxCycles bounds the restart cycles (default 30).
	MaxCycles int
	// Seed seeds the random start block.
	Seed uint64
}

// KrylovResult reports how EigenSymExtreme ended.
type KrylovResult struct {
	// Residuals holds ‖A·v_i − λ_i·v_i‖ of each returned pair. Each λ_i is
	// within Residuals[i] of an eigenvalue of A, and the angle between v_i
	// and the eigenspace of that eigenvalue is at most Residuals[i]/gap,
	// where gap is the distance from λ_i to the rest of the spectrum.
	Residuals []float64
	// Norm is the largest Ritz value in magnitude, ‖A‖₂ from below.
	Norm float64
	// Products is the number of block products with A, Cycles the
	// restart cycles; Converged whether every residual met Tol·Norm.
	Products, Cycles int
	Converged        bool
}

// EigenSymExtreme computes the k largest (largest = true) or smallest
// eigenvalues of the symmetric n×n row-major matrix a (every entry is
// read; a must be exactly symmetric) into values, ascending, and their
// orthonormal eigenvectors as the columns of the row-major n×k vectors
// (nil: values only), by the block Lanczos method with full
// reorthogonalisation and restarts (a randomized block Krylov method: the
// start block is random, seeded by set.Seed). Each cycle builds the basis
// Q = [X, AX, …, A^s X] block by block, orthogonalised twice against all
// earlier blocks (Gemm products), takes the Ritz pairs of QᵀAQ, and
// restarts from the b wanted Ritz vectors until every residual is below
// set.Tol times the largest Ritz value in magnitude. Krylov subspaces
// converge to both ends of the spectrum at a rate set by the gap between
// the wanted eigenvalues and the rest relative to the spectrum's width,
// not by their ratio as plain subspace iteration does.
//
// It costs one n×n×b product per step and O(n·m²) for the basis
// (m = b·(Steps + 1)), against about 9n³ for EigenSym; when m ≥ n/2 it
// calls EigenSym instead. The result does not depend on threads. Errors
// are ctx.Err() and those of EigenSym on the small projected problem;
// Converged = false (not an error) says the cycles ran out. Wrong lengths
// or k outside [1, n] panic.
func EigenSymExtreme(ctx context.Context, values, vectors, a []float64, n, k int, largest bool, threads int, set KrylovSettings) (KrylovResult, error) {
	if n < 1 || k < 1 || k > n || len(a) != n*n || len(values) != k || (vectors != nil && len(vectors) != n*k) {
		panic("kernels: EigenSymExtreme: bad size")
	}
	set = set.withDefaults(k)
	b := min(set.Block, n)
	m := b * (set.Steps + 1)
	if 2*m >= n {
		return extremeDense(ctx, values, vectors, a, n, k, largest, threads)
	}
	ks := &krylov{a: a, n: n, b: b, m: m, threads: threads, q: make([]float64, n*m), aq: make([]float64, n*m),
		rng: rand.New(rand.NewPCG(set.Seed, 0x6b72796c6f76))}
	x := make([]float64, n*b) // the start block, n×b
	for i := range x {
		x[i] = ks.rng.NormFloat64()
	}
	var res KrylovResult
	theta := make([]float64, m)
	s := make([]float64, m*m)
	t := make([]float64, m*m)
	sb := make([]float64, m*b) // s restricted to sel, m×b
	av := make([]float64, n*b) // A·V
	// The wanted end: columns sel[0…b) of s, the first k of them returned.
	sel := make([]int, b)
	for i := range sel {
		if largest {
			sel[i] = m - 1 - i
		} else {
			sel[i] = i
		}
	}
	for cycle := 1; ; cycle++ {
		res.Cycles = cycle
		if err := ks.basis(ctx, x); err != nil {
			return res, err
		}
		res.Products += set.Steps + 1
		// T = QᵀAQ, symmetrised, and its eigenpairs.
		if err := Gemm(ctx, threads, true, false, m, m, n, 1, ks.q, m, ks.aq, m, 0, t, m); err != nil {
			return res, err
		}
		for i := range m {
			for j := range i {
				v := 0.5 * (t[i*m+j] + t[j*m+i])
				t[i*m+j], t[j*m+i] = v, v
			}
		}
		if err := EigenSym(ctx, theta, s, t, m, threads); err != nil {
			return res, err
		}
		res.Norm = max(math.Abs(theta[0]), math.Abs(theta[m-1]))
		for r := range m {
			for c, col := range sel {
				sb[r*b+c] = s[r*m+col]
			}
		}
		// Ritz vectors V = Q·S_b and residuals AQ·S_b − V·Θ.
		if err := Gemm(ctx, threads, false, false, n, b, m, 1, ks.q, m, sb, b, 0, x, b); err != nil {
			return res, err
		}
		if err := Gemm(ctx, threads, false, false, n, b, m, 1, ks.aq, m, sb, b, 0, av, b); err != nil {
			return res, err
		}
		res.Residuals = make([]float64, k)
		res.Converged = true
		for c := range k {
			var r2 float64
			th := theta[sel[c]]
			for r := range n {
				d := av[r*b+c] - th*x[r*b+c]
				r2 += d * d
			}
			res.Residuals[c] = math.Sqrt(r2)
			if res.Residuals[c] > set.Tol*res.Norm {
				res.Converged = false
			}
		}
		if res.Converged || cycle == set.MaxCycles {
			// Ascending order: the wanted end reversed for largest.
			for i := range k {
				c := i
				if largest {
					c = k - 1 - i
				}
				values[i] = theta[sel[c]]
				if vectors != nil {
					for r := range n {
						vectors[r*k+i] = x[r*b+c]
					}
				}
			}
			if largest {
				for i, j := 0, k-1; i < j; i, j = i+1, j-1 {
					res.Residuals[i], res.Residuals[j] = res.Residuals[j], res.Residuals[i]
				}
			}
			return res, nil
		}
	}
}

func (s KrylovSettings) withDefaults(k int) KrylovSettings {
	if s.Block < k {
		s.Block = k + 8
	}
	if s.Steps <= 0 {
		s.Steps = 12
	}
	if s.Tol <= 0 {
		s.Tol = 1e-10
	}
	if s.MaxCycles <= 0 {
		s.MaxCycles = 30
	}
	return s
}

// extremeDense is EigenSymExtreme by a full EigenSym, for small n.
func extremeDense(ctx context.Context, values, vectors, a []float64, n, k int, largest bool, threads int) (KrylovResult, error) {
	all := make([]float64, n)
	var vecs []float64
	if vectors != nil {
		vecs = make([]float64, n*n)
	}
	if err := EigenSym(ctx, all, vecs, a, n, threads); err != nil {
		return KrylovResult{}, err
	}
	first := 0
	if largest {
		first = n - k
	}
	copy(values, all[first:first+k])
	if vectors != nil {
		for r := range n {
			copy(vectors[r*k:(r+1)*k], vecs[r*n+first:r*n+first+k])
		}
	}
	return KrylovResult{Residuals: make([]float64, k), Norm: max(math.Abs(all[0]), math.Abs(all[n-1])), Converged: true}, nil
}

// krylov is the state of one EigenSymExtreme: the basis q (n×m) and a·q.
type krylov struct {
	a       []float64
	n, b, m int
	threads int
	q, aq   []float64
	rng     *rand.Rand
	coef    []float64
}

// basis fills q with an orthonormal basis of [x, Ax, …, A^s x] and aq with
// A·q.
func (ks *krylov) basis(ctx context.Context, x []float64) error {
	n, b, m := ks.n, ks.b, ks.m
	for r := range n {
		copy(ks.q[r*m:r*m+b], x[r*b:(r+1)*b])
	}
	if err := ks.orthogonalise(ctx, 0); err != nil {
		return err
	}
	for c0 := 0; c0 < m; c0 += b {
		// A·Q_j into aq's block j, then, but for the last, as Q_{j+1}.
		if err := Gemm(ctx, ks.threads, false, false, n, b, n, 1, ks.a, n, ks.q[c0:], m, 0, ks.aq[c0:], m); err != nil {
			return err
		}
		if c0+b == m {
			break
		}
		for r := range n {
			copy(ks.q[r*m+c0+b:r*m+c0+2*b], ks.aq[r*m+c0:r*m+c0+b])
		}
		if err := ks.orthogonalise(ctx, c0+b); err != nil {
			return err
		}
	}
	return nil
}

// orthogonalise makes columns [c0, c0+b) of q orthonormal and orthogonal
// to columns [0, c0): two passes of block Gram–Schmidt against the earlier
// columns (Gemm), then two of modified Gram–Schmidt inside the block. A
// column that loses all but 1e-10 of its norm (the Krylov space is
// exhausted there) is replaced by a random one.
func (ks *krylov) orthogonalise(ctx context.Context, c0 int) error {
	n, b, m := ks.n, ks.b, ks.m
	ks.coef = Grow(ks.coef, max(c0, 1)*b)
	blk := ks.q[c0:]
	for range 2 {
		if c0 == 0 {
			break
		}
		if err := Gemm(ctx, ks.threads, true, false, c0, b, n, 1, ks.q, m, blk, m, 0, ks.coef, b); err != nil {
			return err
		}
		if err := Gemm(ctx, ks.threads, false, false, n, b, c0, -1, ks.q, m, ks.coef, b, 1, blk, m); err != nil {
			return err
		}
	}
	for c := c0; c < c0+b; c++ {
		before := ks.colNorm(c)
		for pass := 0; pass < 2; pass++ {
			for p := c0; p < c; p++ {
				ks.project(c, p)
			}
		}
		after := ks.colNorm(c)
		if !(after > 1e-10*before) {
			// Replace by a random column orthogonal to all before it.
			for r := range n {
				ks.q[r*m+c] = ks.rng.NormFloat64()
			}
			for pass := 0; pass < 2; pass++ {
				for p := range c {
					ks.project(c, p)
				}
			}
			after = ks.colNorm(c)
		}
		inv := 1 / after
		for r := range n {
			ks.q[r*m+c] *= inv
		}
	}
	return nil
}

// project removes from column c of q its component along unit column p.
func (ks *krylov) project(c, p int) {
	n, m := ks.n, ks.m
	var d float64
	for r := range n {
		d += ks.q[r*m+p] * ks.q[r*m+c]
	}
	for r := range n {
		ks.q[r*m+c] -= d * ks.q[r*m+p]
	}
}

func (ks *krylov) colNorm(c int) float64 {
	var s float64
	for r := range ks.n {
		v := ks.q[r*ks.m+c]
		s += v * v
	}
	return math.Sqrt(s)
}
