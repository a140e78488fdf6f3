package nerv

import (
	"context"
	"fmt"
	"math"

	"github.com/ordinate/ordinate/kernels"
)

// NeRV, ClassNeRV and SoftClassNeRV: exact O(n²) stress and gradient.
//
// Conventions: y is the n×dims row-major embedding, D²_ij its squared
// distances (kernels.EmbedSqDist, inlined; D²_ij = D²_ji bit for bit). Row i of the
// output neighbourhoods is the softmax
//
//	b_ij = exp(−a_ij) / Σ_{k≠i} exp(−a_ik),  a_ij = D²_ij / (2 s_i²),
//
// computed as log b_ij = −(a_ij − min_k a_ik) − log Z_i so that no row
// underflows. With the per-pair trade-off Λ_ij the stress is
//
//	ζ = (1/n) Σ_i Σ_{j≠i} Λ_ij D(β_ij, b_ij) + (1 − Λ_ij) D(b_ij, β_ij),
//	D(p, q) = p log(p/q) + q − p   (generalised KL; 0 log 0 = 0).
//
// The paper (Mustatea et al. 2022, Eq. 4) has no 1/n; the ClassNeRV authors'
// code has it, and it keeps the stress of a point comparable across n and
// across the levels of a multiscale schedule. Its gradient, with
// g_ij = b_ij ∂ζ_i/∂b_ij and ζ_i the row-i part of ζ:
//
//	g_ij = Λ_ij (b_ij − β_ij) + (1 − Λ_ij) b_ij log(b_ij/β_ij),
//	c_ij = ∂ζ_i/∂a_ij = b_ij Σ_k g_ik − g_ij,
//	∂ζ/∂y_l = (1/n) Σ_j (c_lj/s_l² + c_jl/s_j²) (y_l − y_j).
//
// Where log β is needed (the precision term b log(b/β)), β is raised to
// nervBetaFloor, so β = 0 costs about 708·b nats instead of +Inf; the recall term
// β log(β/b) is 0 when β = 0.

// nervGrain is the number of rows per chunk of the first pass (and the
// smallest chunk of the second).
const nervGrain = 16

// nervBetaFloor is the smallest normal float64 (log ≈ −708.4): the floor
// for β inside logarithms.
const nervBetaFloor = 0x1p-1022

// Input holds everything the NeRV-family stress depends on except the
// embedding.
//
// Beta holds the input neighbourhoods β_ij (n×n row-major, rows summing to 1,
// diagonal ignored), as kernels.Perplexity returns them in p. Soft holds the
// n×C soft labels ω (rows summing to 1), or nil for unsupervised NeRV; a row
// whose first entry is NaN is unlabelled (the caller makes sure such rows
// are all NaN). Alpha (supervision) and Gamma (recall vs precision) lie in
// [0, 1]. The per-pair trade-off is
//
//	Λ_ij = (1 − α)γ + α·λ_ij,  λ_ij = 1 − ½ Σ_c |ω_ic − ω_jc|,
//
// computed on the fly (never stored as an n×n matrix), and Λ_ij = γ when
// Soft is nil or i or j is unlabelled. With one-hot ω this is ClassNeRV with
// τ_in = (1 − α)γ + α and τ_out = (1 − α)γ; with Soft nil (or α = 0) it is
// NeRV with trade-off γ. Scale holds the output scales s_i > 0: length N
// (per point, e.g. s_i = σ_i) or length 1 (one global scale).
type Input struct {
	N, C         int
	Beta         []float64
	Soft         []float64
	Alpha, Gamma float64
	Scale        []float64
	// LogBeta, if not nil, holds log(max(βᵢⱼ, floor)) for every entry of
	// Beta (see LogBeta). β is fixed during an optimisation, so caching
	// saves two of the six transcendental calls per pair.
	LogBeta []float64
	// Force, if it has length N², is scratch for the gradient: the first
	// pass keeps each ordered pair's c_ij/s_i² in it, so that the second
	// neither recomputes b_ij nor calls nervPair again (half the
	// exponentials; BENCHMARKS.md, "NeRV (issue 5)", the exact stress
	// rows); nil recomputes them in O(N) memory. Its contents are not part
	// of the input.
	Force []float64
}

// LogBeta fills in.LogBeta from in.Beta (allocating it when nil).
func LogBeta(in *Input) {
	if len(in.LogBeta) != len(in.Beta) {
		in.LogBeta = make([]float64, len(in.Beta))
	}
	for k, b := range in.Beta {
		in.LogBeta[k] = math.Log(max(b, nervBetaFloor))
	}
}

// logBeta is log(max(β, floor)) of entry k, from the cache when there is one.
func (in *Input) logBeta(k int) float64 {
	if in.LogBeta != nil {
		return in.LogBeta[k]
	}
	return math.Log(max(in.Beta[k], nervBetaFloor))
}

func (in *Input) check(y []float64, dims int) {
	n := in.N
	kernels.CheckEmbedding(y, n, dims)
	if len(in.Beta) != n*n {
		panic(fmt.Sprintf("nerv: len(Beta) = %d, want N² = %d", len(in.Beta), n*n))
	}
	if in.Soft != nil && (in.C < 1 || len(in.Soft) != n*in.C) {
		panic(fmt.Sprintf("nerv: len(Soft) = %d, want N·C = %d·%d", len(in.Soft), n, in.C))
	}
	if !(in.Alpha >= 0 && in.Alpha <= 1 && in.Gamma >= 0 && in.Gamma <= 1) {
		panic(fmt.Sprintf("nerv: alpha = %v, gamma = %v, want both in [0, 1]", in.Alpha, in.Gamma))
	}
	if in.Force != nil && len(in.Force) != n*n {
		panic(fmt.Sprintf("nerv: len(Force) = %d, want N² = %d", len(in.Force), n*n))
	}
	if in.LogBeta != nil && len(in.LogBeta) != n*n {
		panic(fmt.Sprintf("nerv: len(LogBeta) = %d, want N² = %d", len(in.LogBeta), n*n))
	}
	if len(in.Scale) != n && len(in.Scale) != 1 {
		panic(fmt.Sprintf("nerv: len(Scale) = %d, want 1 or N = %d", len(in.Scale), n))
	}
	for i, s := range in.Scale {
		if !(s > 0) || math.IsInf(s, 1) {
			panic(fmt.Sprintf("nerv: Scale[%d] = %v, want finite and > 0", i, s))
		}
	}
}

// tradeoff returns Λ_ij.
func (in *Input) tradeoff(i, j int) float64 {
	return pairTradeoff(in.Soft, in.C, in.Alpha, in.Gamma, i, j)
}

// pairTradeoff returns Λ_ij = (1 − α)γ + α·λ_ij for the n×c soft labels,
// or γ without labels or when either row is unlabelled (NaN).
func pairTradeoff(soft []float64, c int, alpha, gamma float64, i, j int) float64 {
	if soft == nil {
		return gamma
	}
	wi, wj := soft[i*c:(i+1)*c], soft[j*c:(j+1)*c]
	if math.IsNaN(wi[0]) || math.IsNaN(wj[0]) {
		return gamma
	}
	return (1-alpha)*gamma + alpha*classCommunity(wi, wj)
}

// classCommunity returns λ = 1 − ½ Σ_c |wi_c − wj_c| (one minus the total
// variation distance), which is Σ_c min(wi_c, wj_c) for probability
// vectors and exactly 0 or 1 for one-hot ones.
func classCommunity(wi, wj []float64) float64 {
	wj = wj[:len(wi)]
	var s float64
	for c, v := range wi {
		s += math.Abs(v - wj[c])
	}
	return 1 - 0.5*s
}

// nervPair returns the stress term and g for one ordered pair with input
// neighbourhood beta (lbeta = log(max(beta, floor))), output neighbourhood
// b = exp(logb) and trade-off lam.
func nervPair(beta, lbeta, b, logb, lam float64) (stress, g float64) {
	var recall float64
	if beta > 0 {
		recall = beta * (lbeta - logb)
	}
	prec := b * (logb - lbeta) // b = 0 gives 0: logb is finite
	stress = lam*(recall+b-beta) + (1-lam)*(prec+beta-b)
	g = lam*(b-beta) + (1-lam)*prec
	return stress, g
}

// nervRows holds the per-row quantities that pass 2 needs to rebuild any
// b_ij and c_ij: h_i = 1/(2s_i²), the row minimum of a_ij, log Z_i and
// G_i = Σ_k g_ik.
type nervRows struct {
	h, amin, logZ, sumG, stress []float64
	hardLabels
}

// tradeoff returns Λ_ij as Input.tradeoff does, bit for bit, without the
// loop over the classes when both labels are one-hot.
func (r *nervRows) tradeoff(in *Input, i, j int) float64 {
	return r.hardLabels.tradeoff(in.Soft, in.C, in.Alpha, in.Gamma, i, j)
}

// hardLabels is the ClassNeRV shortcut for Λ: class is each row's class if its
// label is one-hot, else −1 (see hardClasses; nil without labels), and
// lamSame and lamOther are Λ for two one-hot rows of the same and of
// different classes, where λ_ij is exactly 1 or 0.
type hardLabels struct {
	class             []int32
	lamSame, lamOther float64
}

func newHardLabels(soft []float64, n, c int, alpha, gamma float64) hardLabels {
	return hardLabels{class: hardClasses(soft, n, c),
		lamSame: (1-alpha)*gamma + alpha*1, lamOther: (1-alpha)*gamma + alpha*0}
}

// tradeoff returns Λ_ij of the n×c soft labels (pairTradeoff), bit for
// bit, without the loop over the classes when rows i and j are one-hot.
func (h *hardLabels) tradeoff(soft []float64, c int, alpha, gamma float64, i, j int) float64 {
	if lam, ok := h.pair(i, j); ok {
		return lam
	}
	return pairTradeoff(soft, c, alpha, gamma, i, j)
}

// pair returns Λ_ij when rows i and j are both one-hot (ok), with the bits
// of the loop over the classes.
func (h *hardLabels) pair(i, j int) (lam float64, ok bool) {
	if h.class == nil {
		return 0, false
	}
	ci, cj := h.class[i], h.class[j]
	switch {
	case ci < 0 || cj < 0:
		return 0, false
	case ci == cj:
		return h.lamSame, true
	}
	return h.lamOther, true
}

// hardClasses returns, for the n×c soft labels, each row's class where the
// row is one-hot (one entry 1, the others 0) and −1 otherwise (soft or
// unlabelled rows); nil if soft is nil.
func hardClasses(soft []float64, n, c int) []int32 {
	if soft == nil {
		return nil
	}
	class := make([]int32, n)
	for i := range n {
		class[i] = -1
		ones, zeros := 0, 0
		for k, v := range soft[i*c : (i+1)*c] {
			switch v {
			case 1:
				ones++
				class[i] = int32(k)
			case 0:
				zeros++
			}
		}
		if ones != 1 || zeros != c-1 {
			class[i] = -1
		}
	}
	return class
}

// Stress returns the stress ζ of the embedding y (n×dims) for in (see
// Input and the formulas at the top of stress.go) and, if grad is not nil,
// writes ∂ζ/∂y into grad (n×dims). It takes two passes over blocks of rows.
// The first computes each row's softmax normaliser, Σ_k g_ik and stress
// (summed in row order). The second visits each unordered pair once,
// rebuilding c_lj and c_jl from those row quantities, and adds the pair's
// force to a per-chunk accumulator; the accumulators are summed in chunk
// order (kernels.ParallelSumVec). Results are therefore bit-identical for any
// thread count. It costs O(n²·(dims + C)) time, about four exponentials and
// four logarithms per unordered pair; it never allocates an n×n array (it
// allocates O(n·workers) scratch and at most about 64·n·dims accumulators
// per call), and is finite for duplicate points. It panics on wrong
// lengths, α or γ outside [0, 1] or a scale that is not finite and
// positive, and returns ctx.Err() if cancelled (grad is then unspecified).
func Stress(ctx context.Context, grad, y []float64, dims int, in *Input, threads int) (float64, error) {
	in.check(y, dims)
	n := in.N
	if grad != nil && len(grad) != n*dims {
		panic(fmt.Sprintf("nerv: len(grad) = %d, want n·dims = %d", len(grad), n*dims))
	}
	if n < 2 {
		clear(grad)
		return 0, nil
	}
	r := nervRows{
		h: make([]float64, n), amin: make([]float64, n), logZ: make([]float64, n),
		sumG: make([]float64, n), stress: make([]float64, n),
	}
	for i := range n {
		s := in.Scale[0]
		if len(in.Scale) == n {
			s = in.Scale[i]
		}
		r.h[i] = 1 / (2 * s * s)
	}
	r.hardLabels = newHardLabels(in.Soft, n, in.C, in.Alpha, in.Gamma)
	keep := grad != nil && in.Force != nil
	scratch := make([]float64, kernels.Workers(n, threads, nervGrain)*2*n)
	err := kernels.ParallelForWorker(ctx, n, threads, nervGrain, func(w, lo, hi int) {
		a := scratch[w*2*n : (w+1)*2*n]
		for i := lo; i < hi; i++ {
			var force []float64
			if keep {
				force = in.Force[i*n : (i+1)*n]
			}
			nervRow(&r, a[:n], a[n:], force, y, dims, in, i)
		}
	})
	if err != nil {
		return 0, err
	}
	var stress float64
	for _, v := range r.stress {
		stress += v
	}
	stress /= float64(n)
	if grad == nil {
		return stress, nil
	}
	if keep {
		err = keptForces(ctx, grad, in.Force, y, n, dims, threads)
	} else {
		err = kernels.ParallelSumVec(ctx, grad, n, threads, nervPairGrain(n), func(lo, hi int, acc []float64) {
			nervGradBlock(acc, &r, y, dims, in, lo, hi)
		})
	}
	if err != nil {
		return 0, err
	}
	inv := 1 / float64(n)
	for k := range grad {
		grad[k] *= inv
	}
	return stress, nil
}

// nervPairGrain is the number of rows per chunk of the gradient pass: at
// least nervGrain, and at most about 64 chunks, since each chunk holds a
// full n×dims accumulator.
func nervPairGrain(n int) int {
	return max(nervGrain, (n+63)/64)
}

// nervRow is pass 1 for row i: a and e are scratch of length n. If force
// is not nil it receives c_ij/s_i² = c_ij·2h_i for every j (0 at j = i).
func nervRow(r *nervRows, a, e, force, y []float64, dims int, in *Input, i int) {
	n := in.N
	yi := y[i*dims : (i+1)*dims]
	h := r.h[i]
	amin := math.Inf(1)
	for j := range n {
		if j == i {
			continue
		}
		v := kernels.EmbedSqDist(yi, y[j*dims:(j+1)*dims]) * h
		a[j] = v
		amin = min(amin, v)
	}
	var z float64
	for j := range n {
		if j != i {
			e[j] = math.Exp(amin - a[j])
			z += e[j]
		}
	}
	logZ := math.Log(z)
	beta := in.Beta[i*n : (i+1)*n]
	var st, sg float64
	for j := range n {
		if j == i {
			continue
		}
		b := e[j] / z
		s, g := nervPair(beta[j], in.logBeta(i*in.N+j), b, amin-a[j]-logZ, r.tradeoff(in, i, j))
		st += s
		sg += g
		if force != nil {
			e[j], a[j] = b, g
		}
	}
	r.amin[i], r.logZ[i], r.sumG[i], r.stress[i] = amin, logZ, sg, st
	if force != nil {
		for j := range n {
			force[j] = 2 * h * (e[j]*sg - a[j])
		}
		force[i] = 0
	}
}

// keptForces is pass 2 from the forces of pass 1 (Input.Force): it makes F
// symmetric, F_lj = F_jl ← F_lj + F_jl, in square tiles of the upper
// triangle (each tile pair is written by one worker), then sets
// grad_l = Σ_j F_lj (y_l − y_j) row by row, so rows are independent and
// the result does not depend on the thread count.
func keptForces(ctx context.Context, grad, force, y []float64, n, dims, threads int) error {
	const tile = 64
	nb := (n + tile - 1) / tile
	err := kernels.ParallelFor(ctx, nb, threads, 1, func(lo, hi int) {
		for bi := lo; bi < hi; bi++ {
			for bj := bi; bj < nb; bj++ {
				for l := bi * tile; l < min(bi*tile+tile, n); l++ {
					row := force[l*n : (l+1)*n]
					for j := max(bj*tile, l+1); j < min(bj*tile+tile, n); j++ {
						v := row[j] + force[j*n+l]
						row[j], force[j*n+l] = v, v
					}
				}
			}
		}
	})
	if err != nil {
		return err
	}
	return kernels.ParallelFor(ctx, n, threads, nervGrain, func(lo, hi int) {
		for l := lo; l < hi; l++ {
			row := force[l*n : (l+1)*n]
			yl := y[l*dims : (l+1)*dims]
			gl := grad[l*dims : (l+1)*dims]
			clear(gl)
			for j, f := range row {
				yj := y[j*dims : (j+1)*dims]
				for k := range gl {
					gl[k] += f * (yl[k] - yj[k])
				}
			}
		}
	})
}

// nervGradBlock is pass 2 for the pairs (l, j), l in [lo, hi), j > l: both
// c_lj and c_jl are rebuilt from the row quantities, and the pair's force is
// added to acc for l and subtracted for j, so each unordered pair is visited
// once. acc is the chunk's own n×dims accumulator (see ParallelSumVec).
func nervGradBlock(acc []float64, r *nervRows, y []float64, dims int, in *Input, lo, hi int) {
	n := in.N
	for l := lo; l < hi; l++ {
		yl := y[l*dims : (l+1)*dims]
		gl := acc[l*dims : (l+1)*dims]
		hl, aminl, logZl, sgl := r.h[l], r.amin[l], r.logZ[l], r.sumG[l]
		betal := in.Beta[l*n : (l+1)*n]
		for j := l + 1; j < n; j++ {
			yj := y[j*dims : (j+1)*dims]
			d2 := kernels.EmbedSqDist(yl, yj)
			lam := r.tradeoff(in, l, j)
			logblj := aminl - d2*hl - logZl
			blj := math.Exp(logblj)
			_, glj := nervPair(betal[j], in.logBeta(l*n+j), blj, logblj, lam)
			logbjl := r.amin[j] - d2*r.h[j] - r.logZ[j]
			bjl := math.Exp(logbjl)
			_, gjl := nervPair(in.Beta[j*n+l], in.logBeta(j*n+l), bjl, logbjl, lam)
			f := 2 * ((blj*sgl-glj)*hl + (bjl*r.sumG[j]-gjl)*r.h[j])
			gj := acc[j*dims : (j+1)*dims]
			for k := range gl {
				t := f * (yl[k] - yj[k])
				gl[k] += t
				gj[k] -= t
			}
		}
	}
}
