package kernels

import (
	"context"
	"math"
	"unsafe"
)

// KNNMethod selects how FindKNN searches for neighbours: a text value,
// one of Values, as options take it.
type KNNMethod string

const (
	KNNAuto   KNNMethod = "auto"   // KNNExact up to AutoApproxRows rows or KDTreeMaxDims features, KNNApprox above
	KNNExact  KNNMethod = "exact"  // exact: a k-d tree for few features, else exhaustive search, O(N²·D)
	KNNApprox KNNMethod = "approx" // NN-descent (ApproxKNN), about O(N log N · D)
)

// Values lists the methods.
func (KNNMethod) Values() []string { return []string{"auto", "exact", "approx"} }

// AutoApproxKNNAbove is the least of AutoApproxRows: below it the
// exhaustive search is cheap (BENCHMARKS.md, "Neighbour searches") and
// also the simpler answer.
const AutoApproxKNNAbove = 20_000

// AutoApproxRows is the largest number of rows for which KNNAuto runs the
// exhaustive search when NN-descent would join c candidates per point
// (NNDescentSettings.MaxCandidates): max(AutoApproxKNNAbove, 4c²), so
// 20,000 for t-SNE's 60 candidates and 57,600 for the default 120 of
// k = 90. NN-descent's local join costs about n·c² distances per iteration
// and holds its proposed updates in memory, against the exhaustive
// search's n²/2 distances in blocks, so the crossover grows as c².
// Measured on a six-cluster Gaussian mixture, exhaustive search against
// NN-descent with the default candidates (BENCHMARKS.md, "Neighbour
// searches"): at 30,000 × 50, k = 90 the exhaustive search was faster with
// a small part of the memory, at 60,000 × 50 NN-descent was faster, and at
// 30,000 × 10, k = 176 (NeRV's sparse methods at perplexity 58.6, c = 234)
// NN-descent took several times as long and gigabytes of memory.
func AutoApproxRows(c int) int { return max(AutoApproxKNNAbove, 4*c*c) }

// Resolve returns the method that FindKNN runs for n rows of d features
// when NN-descent would join c candidates per point: m itself unless m is
// KNNAuto, which is exact up to AutoApproxRows(c) rows and, at any n, for
// up to KDTreeMaxDims features, where the k-d tree search is exact and
// faster than NN-descent.
func (m KNNMethod) Resolve(n, d, c int) KNNMethod {
	if m != KNNAuto {
		return m
	}
	if n > AutoApproxRows(c) && d > KDTreeMaxDims {
		return KNNApprox
	}
	return KNNExact
}

// FindKNN finds the k nearest neighbours of every row of x (n×d) with the
// method m resolves to for n rows, and returns the method that ran: KNNExact
// also when KNNApprox falls back to the exhaustive search (below
// set.ExactBelow rows or for k ≥ n/8). Outputs are as for KNN. set tunes
// the approximate search.
func FindKNN(ctx context.Context, idx []int32, dist []float64, x []float64, n, d, k, threads int, m KNNMethod, set NNDescentSettings) (KNNMethod, error) {
	if findsApprox(n, d, k, m, set) {
		return KNNApprox, ApproxKNN(ctx, idx, dist, x, n, d, k, threads, set)
	}
	checkPoints(x, n, d)
	checkKNN(idx, dist, n, k)
	return KNNExact, exactKNN(ctx, idx, dist, x, n, d, k, threads, set.progress)
}

// KNNWork is the most rows FindKNN with these arguments reports to
// set.Progress: n for the exhaustive search, one pass of n per NN-descent
// iteration plus one for the trees otherwise. It is the total of a
// progress bar.
func KNNWork(n, d, k int, m KNNMethod, set NNDescentSettings) int64 {
	if findsApprox(n, d, k, m, set) {
		return int64(n) * int64(set.withDefaults(k).MaxIterations+1)
	}
	return int64(n)
}

// KNNBytes bounds the scratch FindKNN with these arguments holds beside
// its outputs, for a memory plan. NN-descent: the graph (13 bytes a slot),
// the reverse lists (5), the candidates at the widest join the recall
// target may reach (8 per candidate) and the join's update buffers, at
// most nndUpdateBudget. The exhaustive searches hold O(threads·k) only,
// counted as nothing.
func KNNBytes(n, d, k int, m KNNMethod, set NNDescentSettings) float64 {
	if !findsApprox(n, d, k, m, set) {
		return 0
	}
	widest := set.withDefaults(k).widestJoin()
	mc := float64(widest)
	block, _ := nndBlocking(widest)
	updates := math.Min(nndUpdateBudget, float64(min(block, n))*3*mc*mc*float64(unsafe.Sizeof(nndUpdate{})))
	return float64(n)*(float64(k)*(13+5)+mc*8+16) + updates
}

// PlanKNN returns the method FindKNN with these arguments will run
// (KNNApprox or KNNExact), for a plan printed before the search.
func PlanKNN(n, d, k int, m KNNMethod, set NNDescentSettings) KNNMethod {
	if findsApprox(n, d, k, m, set) {
		return KNNApprox
	}
	return KNNExact
}

func findsApprox(n, d, k int, m KNNMethod, set NNDescentSettings) bool {
	set = set.withDefaults(k)
	return m.Resolve(n, d, set.MaxCandidates) == KNNApprox && !set.exact(n, k)
}
