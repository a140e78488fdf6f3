package kernels

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// ErrPerplexity is returned (wrapped) when a perplexity is out of range: it
// must satisfy 1 ≤ perplexity < m, where m is the number of neighbours of a
// point (n−1 for a dense n×n matrix, k for k neighbour lists). Perplexity
// and the neighbour count usually come from the user, so this is an error and
// not a panic.
var ErrPerplexity = errors.New("perplexity out of range")

// DefaultPerplexityTol is the entropy tolerance, in nats, used when a
// tolerance ≤ 0 is passed.
const DefaultPerplexityTol = 1e-5

// perpMaxIter bounds the safeguarded Newton search; bisection alone halves
// the bracket each step, so this is far more than any reachable tolerance
// needs.
const perpMaxIter = 200

// PerplexityRow calibrates one point. d2 holds the squared distances from the
// point to every candidate neighbour (≥ 0, +Inf allowed; NaN is not), and
// self is the position of the point itself in d2, or −1 if d2 excludes it.
// PerplexityRow searches for the precision β so that the conditional
// probabilities
//
//	p_j ∝ exp(−β·d2_j),  j ≠ self,
//
// have entropy −Σ p_j log p_j = log(perplexity) nats to within tol
// (DefaultPerplexityTol when tol ≤ 0), and returns β. If dst is not nil it
// receives the normalised p (dst[self] = 0); dst may be d2 itself. The Gaussian bandwidth is
// σ = (2β)^(−1/2), since exp(−β·d²) = exp(−d²/(2σ²)).
//
// The search is Newton's method on the entropy, dH/dβ = −β·Var_p(d2),
// safeguarded by a bracket that is bisected (or doubled while it is
// unbounded) whenever a Newton step leaves it. Weights are computed as
// exp(−β·(d2_j − min d2)), so they never all underflow. Entries with
// d2 = +Inf get weight 0. Degenerate rows never give NaN:
//
//   - If several neighbours share the smallest distance (duplicate points) and
//     there are at least perplexity of them, the entropy cannot drop to the
//     target; p is uniform over the tied neighbours and β is the finite value
//     at which every other neighbour's relative weight is below e^(−50)
//     (capped at the largest float64).
//   - If all finite distances are equal, p is uniform over them for any β;
//     β = 1/d2 is returned (β = 1 when d2 = 0).
//   - If fewer than perplexity neighbours have a finite distance, the target
//     cannot be reached either; p is uniform over them and β = 0.
//
// It returns an error wrapping ErrPerplexity unless 1 ≤ perplexity < m, with
// m the number of entries of d2 other than self. It panics if dst is not nil
// and len(dst) ≠ len(d2), or if self ≥ len(d2).
func PerplexityRow(dst, d2 []float64, self int, perplexity, tol float64) (beta float64, err error) {
	if dst != nil && len(dst) != len(d2) {
		panic(fmt.Sprintf("kernels: len(dst) = %d, want len(d2) = %d", len(dst), len(d2)))
	}
	if self >= len(d2) {
		panic(fmt.Sprintf("kernels: self = %d out of range [−1, %d)", self, len(d2)))
	}
	m := len(d2)
	if self >= 0 {
		m--
	}
	if err := checkPerplexity(perplexity, m, "neighbours"); err != nil {
		return 0, err
	}
	if tol <= 0 {
		tol = DefaultPerplexityTol
	}
	beta = perpSearch(d2, self, perplexity, tol)
	if dst != nil {
		perpWeights(dst, d2, self, beta)
	}
	return beta, nil
}

func checkPerplexity(perplexity float64, m int, what string) error {
	if !(perplexity >= 1 && perplexity < float64(m)) {
		return fmt.Errorf("kernels: %w: perplexity = %v, want 1 ≤ perplexity < %d (the number of %s)",
			ErrPerplexity, perplexity, m, what)
	}
	return nil
}

// perpStats returns the minimum finite d2 (excluding self), how many
// entries attain it, the smallest finite d2 above it (+Inf if none) and the
// number of finite entries.
func perpStats(d2 []float64, self int) (lo float64, ties int, next float64, finite int) {
	lo, next = math.Inf(1), math.Inf(1)
	for j, v := range d2 {
		if j == self || math.IsInf(v, 1) {
			continue
		}
		finite++
		switch {
		case v < lo:
			next, lo, ties = lo, v, 1
		case v == lo:
			ties++
		case v < next:
			next = v
		}
	}
	return lo, ties, next, finite
}

// perpEntropy returns the entropy (nats) of p_j ∝ exp(−β(d2_j − lo)) and
// Var_p(d2), summing in index order.
func perpEntropy(d2 []float64, self int, lo, beta float64) (h, variance float64) {
	var s, sd, sdd float64
	for j, v := range d2 {
		if j == self || math.IsInf(v, 1) {
			continue
		}
		t := v - lo
		w := math.Exp(-beta * t)
		s += w
		sd += w * t
		sdd += w * t * t
	}
	// s ≥ 1: the minimum has weight exp(0).
	mean := sd / s
	return math.Log(s) + beta*mean, max(sdd/s-mean*mean, 0)
}

// perpSearch finds β; see PerplexityRow for the degenerate cases.
func perpSearch(d2 []float64, self int, perplexity, tol float64) float64 {
	target := math.Log(perplexity)
	lo, ties, next, finite := perpStats(d2, self)
	switch {
	case float64(finite) <= perplexity:
		return 0
	case ties == finite:
		if lo > 0 {
			return 1 / lo
		}
		return 1
	case math.Log(float64(ties)) >= target-tol:
		return min(50/(next-lo), math.MaxFloat64)
	}
	// Start from the β that gives the mean excess distance unit weight
	// exponent; H(β) decreases from log(finite) to log(ties).
	var sum float64
	for j, v := range d2 {
		if j != self && !math.IsInf(v, 1) {
			sum += v - lo
		}
	}
	beta := float64(finite) / sum
	bLo, bHi := 0.0, math.Inf(1)
	for range perpMaxIter {
		h, v := perpEntropy(d2, self, lo, beta)
		diff := h - target
		if math.Abs(diff) <= tol {
			return beta
		}
		if diff > 0 {
			bLo = beta // entropy too high: sharpen
		} else {
			bHi = beta
		}
		next := beta + diff/(beta*v) // Newton: H' = −β·Var
		if !(next > bLo && next < bHi) {
			if math.IsInf(bHi, 1) {
				next = min(2*beta, math.MaxFloat64) // finite: β·0 must stay 0
			} else {
				next = bLo + (bHi-bLo)/2
			}
		}
		if next == beta {
			return beta
		}
		beta = next
	}
	return beta
}

// perpWeights writes the normalised p for β into dst.
func perpWeights(dst, d2 []float64, self int, beta float64) {
	lo, _, _, finite := perpStats(d2, self)
	if finite == 0 {
		clear(dst)
		return
	}
	var s float64
	for j, v := range d2 {
		w := 0.0
		if j != self && !math.IsInf(v, 1) {
			w = math.Exp(-beta * (v - lo))
		}
		dst[j] = w
		s += w
	}
	inv := 1 / s
	for j := range dst {
		dst[j] *= inv
	}
}

// Perplexity calibrates every point of a dense n×n row-major matrix of
// squared distances d2 (the diagonal is ignored): beta[i] receives the β of
// row i (see PerplexityRow, default tolerance) and, if p is not nil, row i of
// the n×n p receives the conditional probabilities p_{j|i} (rows sum to 1,
// zero diagonal); p may be d2 itself, to calibrate in place. Rows are
// independent, so the results do not depend on the thread count. It returns an error wrapping ErrPerplexity unless
// 1 ≤ perplexity < n−1, and ctx.Err() if cancelled. It panics if
// len(d2) ≠ n², len(beta) ≠ n or p is neither nil nor of length n².
func Perplexity(ctx context.Context, beta, p []float64, d2 []float64, n int, perplexity float64, threads int) error {
	if n < 0 || len(d2) != n*n {
		panic(fmt.Sprintf("kernels: len(d2) = %d, want n² = %d", len(d2), n*n))
	}
	checkPerpOut(beta, p, n, n)
	if !(perplexity >= 1 && perplexity < float64(n-1)) {
		return fmt.Errorf("kernels: %w: perplexity = %v, want 1 ≤ perplexity < n−1 = %d",
			ErrPerplexity, perplexity, n-1)
	}
	return ParallelFor(ctx, n, threads, 16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := d2[i*n : (i+1)*n]
			beta[i] = perpSearch(row, i, perplexity, DefaultPerplexityTol)
			if p != nil {
				perpWeights(p[i*n:(i+1)*n], row, i, beta[i])
			}
		}
	})
}

// PerplexitySparse is Perplexity over neighbour lists: d2[i*k:(i+1)*k] holds
// the squared distances from point i to its k neighbours (the point itself
// excluded), and p, if not nil, receives the conditional probabilities in the
// same layout (p may be d2 itself). It returns an error wrapping ErrPerplexity unless
// 1 ≤ perplexity < k, and ctx.Err() if cancelled. It panics if
// len(d2) ≠ n·k, len(beta) ≠ n or p is neither nil nor of length n·k.
func PerplexitySparse(ctx context.Context, beta, p, d2 []float64, n, k int, perplexity float64, threads int) error {
	if n < 0 || k < 1 || len(d2) != n*k {
		panic(fmt.Sprintf("kernels: len(d2) = %d, want n·k = %d·%d", len(d2), n, k))
	}
	checkPerpOut(beta, p, n, k)
	if !(perplexity >= 1 && perplexity < float64(k)) {
		return fmt.Errorf("kernels: %w: perplexity = %v, want 1 ≤ perplexity < k = %d (neighbours per point)",
			ErrPerplexity, perplexity, k)
	}
	return ParallelFor(ctx, n, threads, 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := d2[i*k : (i+1)*k]
			beta[i] = perpSearch(row, -1, perplexity, DefaultPerplexityTol)
			if p != nil {
				perpWeights(p[i*k:(i+1)*k], row, -1, beta[i])
			}
		}
	})
}

func checkPerpOut(beta, p []float64, n, m int) {
	if len(beta) != n {
		panic(fmt.Sprintf("kernels: len(beta) = %d, want n = %d", len(beta), n))
	}
	if p != nil && len(p) != n*m {
		panic(fmt.Sprintf("kernels: len(p) = %d, want %d", len(p), n*m))
	}
}
