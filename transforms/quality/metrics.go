package quality

import (
	"context"
	"math"
	"math/bits"
)

// normaliser is Venna and Kaski's G(k) for m query points among n: the
// reciprocal of the worst possible rank penalty sum, m times the worst of
// one point, so that T and C are in [0, 1] (m = n: every point).
func normaliser(n, m, k int) float64 {
	N, M, K := float64(n), float64(m), float64(k)
	if 2*k < n {
		return 2 / (M * K * (2*N - 3*K - 1))
	}
	return 2 / (M * (N - K) * (N - K - 1))
}

// pointPenaltyMax is the worst rank penalty sum of one point at k:
// k(2n − 3k − 1)/2 for k < n/2, (n − k)(n − k − 1)/2 above (the
// reciprocal of G(k)/n).
func pointPenaltyMax(n, k int64) int64 {
	if 2*k < n {
		return k * (2*n - 3*k - 1) / 2
	}
	return (n - k) * (n - k - 1) / 2
}

// rnx returns R_NX(k) = ((N−1) Q_NX(k) − k) / (N−1−k) with
// Q_NX(k) = overlap / (kM) for M query points, evaluated as one ratio of
// exact integers (in 128 bits, so that no N overflows it), each rounded
// once to float64.
func rnx(n, m, k int, overlap int64) float64 {
	N, M, K := uint64(n), uint64(m), uint64(k)
	ah, al := bits.Mul64(N-1, uint64(overlap))
	bh, bl := bits.Mul64(K*K, M)
	dh, dl := bits.Mul64(K*M, N-1-K)
	neg := ah < bh || ah == bh && al < bl
	if neg {
		ah, al, bh, bl = bh, bl, ah, al
	}
	lo, borrow := bits.Sub64(al, bl, 0)
	hi, _ := bits.Sub64(ah, bh, borrow)
	num := float128(hi, lo)
	if neg {
		num = -num
	}
	return num / float128(dh, dl)
}

// float128 rounds the 128-bit integer hi·2⁶⁴ + lo to the nearest float64
// (ties to even), as a conversion from a 64-bit integer does.
func float128(hi, lo uint64) float64 {
	if hi == 0 {
		return float64(lo)
	}
	s := uint(bits.Len64(hi))
	v := hi<<(64-s) | lo>>s
	if lo&(1<<s-1) != 0 {
		v |= 1 // sticky: below the rounding bit of a 64-bit v
	}
	return math.Ldexp(float64(v), int(s))
}

// structureRows adds trustworthiness, continuity, rnx and rnx_auc for m
// query points among n, from the sums and the co-ranking histogram (its
// non-zero counts, by increasing rank). The AUC runs over every k in
// 1..n−2 without storing them; it stops with ctx.Err() when ctx is done.
func (c *counts) structureRows(ctx context.Context, rep *Report, n, m int, ks []int, hist []rankCount, classes bool) error {
	for t, k := range ks {
		g := normaliser(n, m, k)
		addTC(rep, MetricTrustworthiness, k, g, c.tPen[t], c.tPen[t]-c.tInter[t], c.tInter[t], classes)
	}
	for t, k := range ks {
		g := normaliser(n, m, k)
		addTC(rep, MetricContinuity, k, g, c.cPen[t], c.cIntra[t], c.cPen[t]-c.cIntra[t], classes)
	}
	// overlap(k) = Σ_i |N_k(i) ∩ N̂_k(i)| = Σ_{1 ≤ r ≤ k} hist[r].
	overlapAt := func() func(k int) int64 {
		var cum int64
		h := 0
		return func(k int) int64 {
			for h < len(hist) && hist[h].rank <= k {
				if hist[h].rank >= 1 {
					cum += hist[h].count
				}
				h++
			}
			return cum
		}
	}
	at := overlapAt()
	for _, k := range ks {
		rep.add(MetricRNX, k, SubsetAll, rnx(n, m, k, at(k)))
	}
	at = overlapAt()
	var num, den float64
	for k := 1; k <= n-2; k++ {
		if k&(1<<20-1) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		num += rnx(n, m, k, at(k)) / float64(k)
		den += 1 / float64(k)
	}
	rep.add(MetricRNXAUC, 0, SubsetAll, num/den)
	return nil
}

// addTC adds 1 − g·penalty for the whole penalty and, with classes, for its
// within-class and between-class parts.
func addTC(rep *Report, metric string, k int, g float64, all, intra, inter int64, classes bool) {
	rep.add(metric, k, SubsetAll, 1-g*float64(all))
	if classes {
		rep.add(metric, k, SubsetIntra, 1-g*float64(intra))
		rep.add(metric, k, SubsetInter, 1-g*float64(inter))
	}
}

// classRows adds knn_accuracy and nn_error for the embedding (subset emb,
// counts hitY/nnY) and the input (subset in, counts hitX/nnX), and knn_gain
// when emb is not empty, over m query points. With emb empty, the single
// space's counts are in hitX/nnX.
func (c *counts) classRows(rep *Report, m int, ks []int, emb, in string) {
	M := float64(m)
	type space struct {
		subset string
		hits   []int64
		nn     int64
	}
	var spaces []space
	if emb != "" {
		spaces = append(spaces, space{emb, c.hitY, c.nnY})
	}
	spaces = append(spaces, space{in, c.hitX, c.nnX})
	for t, k := range ks {
		for _, s := range spaces {
			rep.add(MetricKNNAccuracy, k, s.subset, float64(s.hits[t])/M)
		}
	}
	for _, s := range spaces {
		rep.add(MetricNNError, 1, s.subset, float64(int64(m)-s.nn)/M)
	}
	if emb == "" {
		return
	}
	for t, k := range ks {
		rep.add(MetricKNNGain, k, SubsetAll, float64(c.sameY[t]-c.sameX[t])/(M*float64(k)))
	}
}
