package kernels

import (
	"context"
	"fmt"
	"math"
)

// Rank-one update of a symmetric eigendecomposition (Bunch, Nielsen &
// Sorensen 1978; Gu & Eisenstat 1994), the merge step of TridiagonalEigen
// on its own. Given A = Q·diag(d)·Qᵀ, A + ρ·v·vᵀ = Q·(diag(d) + ρ·w·wᵀ)·Qᵀ
// with w = Qᵀv, and diag(d) + ρ·w·wᵀ = G·diag(λ)·Gᵀ is solved by
// deflation, the secular equation and the Löwner vector as in dandcMerge
// (ρ < 0 by negating d and λ). G is never formed: it is kept as the
// deflation's plane rotations, the poles, the Löwner vector and each root
// as an offset from its pole, and a product with G or Gᵀ recomputes its
// entries ẑ_t/(d_t − λ_i) (O(n²) divisions), so an update costs O(n)
// memory and a chain of updates stays cheap to store.

// Basis is an orthogonal n×n matrix Q known through its products: SymEigen,
// RankOneEigen and IdentityBasis implement it. dst and x may be the same
// slice.
type Basis interface {
	N() int
	MulQ(dst, x []float64)  // dst = Q·x
	MulQT(dst, x []float64) // dst = Qᵀ·x
}

// IdentityBasis is the n×n identity as a Basis: the start of a chain of
// updates of a diagonal matrix.
type IdentityBasis int

// N returns the order.
func (b IdentityBasis) N() int { return int(b) }

// MulQ copies x into dst.
func (b IdentityBasis) MulQ(dst, x []float64) { copy(dst[:b], x[:b]) }

// MulQT copies x into dst.
func (b IdentityBasis) MulQT(dst, x []float64) { copy(dst[:b], x[:b]) }

// RankOneEigen is the eigendecomposition A + ρ·v·vᵀ = (Q·G)·diag(Values)·(Q·G)ᵀ
// made by UpdateEigen. It is a Basis itself (Q·G), so updates chain. It is
// read-only after construction, except NegateVector, and safe for concurrent
// products.
type RankOneEigen struct {
	Values  []float64 // ascending
	q       Basis
	n       int
	threads int
	rot     []planeRotation
	keep    []int     // the poles of the secular equation: indices into the coordinates
	poles   []float64 // sign·d over keep, strictly ascending
	zhat    []float64 // the Löwner vector over keep
	origin  []int32   // root i = poles[origin[i]] + tau[i]
	tau     []float64
	norms   []float64 // 1/‖column i of the rank-one eigenvectors‖
	src     []int     // output column c: root i ≥ 0, or the deflated coordinate −1−src
	sign    []float64 // ±1 per output column (NegateVector)
}

// planeRotation is one deflation rotation: new coordinate axes
// e_p ← c·e_p + s·e_j and e_j ← c·e_j − s·e_p.
type planeRotation struct {
	p, j int
	c, s float64
}

// UpdateEigen returns the eigendecomposition of A + ρ·v·vᵀ for
// A = Q·diag(d)·Qᵀ (d in any order, Q of order len(d)). It returns an
// error wrapping ErrEigen for a non-finite d, ρ or v, and ctx.Err() on
// cancellation; wrong lengths panic. threads (≤ 0: GOMAXPROCS) also serve
// the products of the result; the result is the same bits for any count.
//
// Accuracy is that of a divide-and-conquer merge: eigenvalues within a few
// ε·(max|d| + |ρ|·‖v‖²) and eigenvectors orthogonal to O(n·ε), whatever
// the gaps (tested against EigenSym of the dense matrix).
func UpdateEigen(ctx context.Context, q Basis, d []float64, rho float64, v []float64, threads int) (*RankOneEigen, error) {
	return UpdateEigenLowRank(ctx, q, d, []float64{rho}, [][]float64{v}, threads)
}

// UpdateEigenLowRank returns the eigendecomposition of A + Σ_l ρ_l·v_l·v_lᵀ
// for A = Q·diag(d)·Qᵀ, as UpdateEigen applied for each term in turn (a
// zero ρ_l is skipped; with no term left, one zero update sorts d). The
// vectors still to come are carried through each update together, so
// that they share its divisions; the result is a chain of one factor per
// term. Errors and panics as UpdateEigen.
func UpdateEigenLowRank(ctx context.Context, q Basis, d []float64, rhos []float64, vs [][]float64, threads int) (*RankOneEigen, error) {
	n := q.N()
	if len(d) != n || len(rhos) != len(vs) {
		panic(fmt.Sprintf("kernels: UpdateEigenLowRank: %d values, %d weights and %d vectors for order %d", len(d), len(rhos), len(vs), n))
	}
	for i := range n {
		if math.IsNaN(d[i]) || math.IsInf(d[i], 0) {
			return nil, fmt.Errorf("%w: rank-one update of d[%d] = %v", ErrEigen, i, d[i])
		}
	}
	var ws [][]float64
	var weights []float64
	for l, v := range vs {
		if len(v) != n {
			panic(fmt.Sprintf("kernels: UpdateEigenLowRank: vector %d of length %d for order %d", l, len(v), n))
		}
		if rho := rhos[l]; math.IsNaN(rho) || math.IsInf(rho, 0) {
			return nil, fmt.Errorf("%w: rank-one update with ρ = %v", ErrEigen, rho)
		}
		for i, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%w: rank-one update with v[%d] = %v", ErrEigen, i, x)
			}
		}
		if rhos[l] == 0 {
			continue
		}
		w := make([]float64, n)
		q.MulQT(w, v)
		ws, weights = append(ws, w), append(weights, rhos[l])
	}
	if len(ws) == 0 {
		ws, weights = [][]float64{make([]float64, n)}, []float64{0}
	}
	var r *RankOneEigen
	for l, w := range ws {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var err error
		if r, err = newRankOne(ctx, q, d, weights[l], w, threads); err != nil {
			return nil, err
		}
		if l+1 < len(ws) {
			r.mulGTBlock(ws[l+1:])
		}
		q, d = r, r.Values
	}
	return r, nil
}

// newRankOne is the update of Q·diag(d)·Qᵀ by ρ·(Qw)(Qw)ᵀ, w given in
// Q's coordinates (and overwritten).
func newRankOne(ctx context.Context, q Basis, d []float64, rho float64, w []float64, threads int) (*RankOneEigen, error) {
	n := q.N()
	r := &RankOneEigen{q: q, n: n, threads: threads, sign: make([]float64, n), src: make([]int, n), Values: make([]float64, n)}
	for c := range r.sign {
		r.sign[c] = 1
	}
	// Work with ρ ≥ 0: the poles are sign·d.
	sgn := 1.0
	if rho < 0 {
		sgn = -1
	}
	p := make([]float64, n)
	for i, x := range d {
		p[i] = sgn * x
	}
	var wn float64
	for _, x := range w {
		wn = math.Hypot(wn, x)
	}
	z := w
	if wn > 0 {
		for i := range z {
			z[i] /= wn
		}
	}
	rhoEff := math.Abs(rho) * wn * wn
	order := ascendingOrder(p)
	defl := order
	if wn > 0 && rhoEff > 0 {
		r.keep, defl = deflateSecular(p, z, rhoEff, order, func(pj, j int, c, s float64) {
			r.rot = append(r.rot, planeRotation{p: pj, j: j, c: c, s: s})
		})
	}

	k := len(r.keep)
	lam := make([]float64, k)
	if k > 0 {
		r.poles = make([]float64, k)
		z2 := make([]float64, k)
		for t, j := range r.keep {
			r.poles[t] = p[j]
			z2[t] = z[j] * z[j]
		}
		if err := r.solve(ctx, lam, z, z2, rhoEff); err != nil {
			return nil, err
		}
	}
	// All n eigenpairs in ascending order of sign·λ: roots first, then the
	// deflated coordinates, stably, as in dandcMerge.
	pairs := make([]eigenSource, 0, n)
	for i, l := range lam {
		pairs = append(pairs, eigenSource{sgn * l, i})
	}
	for _, j := range defl {
		pairs = append(pairs, eigenSource{sgn * p[j], -1 - j})
	}
	sortEigenSources(pairs)
	for c, pr := range pairs {
		r.Values[c], r.src[c] = pr.val, pr.src
	}
	return r, nil
}

// solve finds the roots of the secular equation of diag(poles) + ρ·z·zᵀ
// over the kept coordinates (lam, ascending), each as a pole and an offset,
// then the Löwner vector and the column norms of the eigenvector matrix.
func (r *RankOneEigen) solve(ctx context.Context, lam, z, z2 []float64, rho float64) error {
	k := len(r.keep)
	r.origin = make([]int32, k)
	r.tau = make([]float64, k)
	r.zhat = make([]float64, k)
	r.norms = make([]float64, k)
	if k == 1 {
		r.tau[0] = rho * z2[0]
		lam[0] = r.poles[0] + r.tau[0]
		r.zhat[0] = math.Copysign(1, z[r.keep[0]])
		r.norms[0] = r.tau[0] // column 0 is ẑ/(pole − λ) = ∓1/τ
		return nil
	}
	grain := max(1, 4096/k)
	scratch := make([]float64, Workers(k, r.threads, grain)*k)
	if err := ParallelForWorker(ctx, k, r.threads, grain, func(wk, lo, hi int) {
		delta := scratch[wk*k : (wk+1)*k]
		for i := lo; i < hi; i++ {
			o, t := secularRootAt(i, r.poles, z2, rho, delta)
			r.origin[i], r.tau[i] = int32(o), t
			lam[i] = r.poles[o] + t
		}
	}); err != nil {
		return err
	}
	// ẑ_j² = −Π_i (d_j − λ_i) / Π_{i≠j} (d_j − d_i), with the sign of z_j
	// (dandc's secularVectors), every d_j − λ_i from its pole and offset.
	if err := ParallelFor(ctx, k, r.threads, grain, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			dj := r.poles[j]
			pr := r.gap(j, j)
			for i := range k {
				if i != j {
					pr *= r.gap(j, i) / (dj - r.poles[i])
				}
			}
			r.zhat[j] = math.Copysign(math.Sqrt(-pr), z[r.keep[j]])
		}
	}); err != nil {
		return err
	}
	return ParallelFor(ctx, k, r.threads, grain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var s float64
			for j, zj := range r.zhat {
				x := zj / r.gap(j, i)
				s += x * x
			}
			r.norms[i] = 1 / math.Sqrt(s)
		}
	})
}

// gap returns pole j minus root i, to high relative accuracy.
func (r *RankOneEigen) gap(j, i int) float64 {
	o := r.origin[i]
	return (r.poles[j] - r.poles[o]) - r.tau[i]
}

// N returns the order.
func (r *RankOneEigen) N() int { return r.n }

// MulQ sets dst = (Q·G)·x.
func (r *RankOneEigen) MulQ(dst, x []float64) {
	y := make([]float64, r.n)
	r.mulG(y, x)
	r.q.MulQ(dst, y)
}

// MulQT sets dst = (Q·G)ᵀ·x.
func (r *RankOneEigen) MulQT(dst, x []float64) {
	y := make([]float64, r.n)
	r.q.MulQT(y, x)
	r.mulGT(dst, y)
}

// Vector writes eigenvector c (of Values[c]) into dst.
func (r *RankOneEigen) Vector(dst []float64, c int) {
	e := make([]float64, r.n)
	e[c] = 1
	r.MulQ(dst, e)
}

// NegateVector flips the sign of eigenvector c.
func (r *RankOneEigen) NegateVector(c int) { r.sign[c] = -r.sign[c] }

// mulG sets y = G·x (y and x distinct).
func (r *RankOneEigen) mulG(y, x []float64) {
	k := len(r.keep)
	clear(y)
	// The roots' weights, scaled by their column norms.
	yr := make([]float64, k)
	for c, s := range r.src {
		v := r.sign[c] * x[c]
		if s >= 0 {
			yr[s] = v * r.norms[s]
		} else {
			y[-1-s] = v
		}
	}
	if k > 0 {
		// Chunks write disjoint y[keep[j]]: no error but cancellation, and
		// the context is not cancellable.
		_ = ParallelFor(context.Background(), k, r.threads, max(1, 4096/k), func(lo, hi int) {
			for j := lo; j < hi; j++ {
				var s float64
				for i, v := range yr {
					s += v / r.gap(j, i)
				}
				y[r.keep[j]] = r.zhat[j] * s
			}
		})
	}
	for l := len(r.rot) - 1; l >= 0; l-- {
		g := r.rot[l]
		a, b := y[g.p], y[g.j]
		y[g.p] = g.c*a - g.s*b
		y[g.j] = g.s*a + g.c*b
	}
}

// mulGT sets dst = Gᵀ·x (dst may be x).
func (r *RankOneEigen) mulGT(dst, x []float64) {
	y := append([]float64(nil), x[:r.n]...)
	r.mulGTBlock([][]float64{y})
	copy(dst, y)
}

// mulGTBlock overwrites each x in xs with Gᵀ·x; the vectors share each
// entry's division.
func (r *RankOneEigen) mulGTBlock(xs [][]float64) {
	k, nb := len(r.keep), len(xs)
	for _, y := range xs {
		for _, g := range r.rot {
			a, b := y[g.p], y[g.j]
			y[g.p] = g.c*a + g.s*b
			y[g.j] = -g.s*a + g.c*b
		}
	}
	roots := make([]float64, k*nb) // root i, vector v at i*nb + v
	if k > 0 {
		yk := make([]float64, nb*k) // ẑ_j·y[keep[j]] at v*k + j
		for v, y := range xs {
			for j, c := range r.keep {
				yk[v*k+j] = r.zhat[j] * y[c]
			}
		}
		grain := max(1, 4096/(k*nb))
		inv := make([]float64, Workers(k, r.threads, grain)*k)
		_ = ParallelForWorker(context.Background(), k, r.threads, grain, func(wk, lo, hi int) {
			g := inv[wk*k : (wk+1)*k]
			for i := lo; i < hi; i++ {
				for j := range g {
					g[j] = 1 / r.gap(j, i)
				}
				for v := range nb {
					roots[i*nb+v] = dotUnrolled(yk[v*k:(v+1)*k], g) * r.norms[i]
				}
			}
		})
	}
	out := make([]float64, r.n)
	for v, y := range xs {
		for c, s := range r.src {
			if s >= 0 {
				out[c] = r.sign[c] * roots[s*nb+v]
			} else {
				out[c] = r.sign[c] * y[-1-s]
			}
		}
		copy(y, out)
	}
}
