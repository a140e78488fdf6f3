package fisher

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// FitFeatures is the stage's computation on n×d feature rows x (not
// modified) under the kernel kern (resolved, one of LocalKernels) in the
// local mode: each row's M = max(K, L) nearest rows in the kernel metric
// (kernels.FindKNN with o.KNN, o.KNNRecall and o.Seed; K = o.Neighbors,
// L = o.ParzenNeighbors or ⌈3·perplexity⌉, both at most n−1), then the
// Fisher path lengths to the K nearest with the Parzen sums over the pair's
// two L-neighbourhoods (LocalPathSums), or with Metric kernel the kernel
// distances themselves. No n×n array is built: memory is O(n·M). σ is
// o.Sigma or the mean perplexity bandwidth over the M listed rows times
// o.SigmaScale. A seeded sample of pairs is summed again over all rows
// (truncationCheck). Errors are as for Fit.
func FitFeatures(ctx context.Context, x []float64, n, d int, kern kernels.Kernel, classes []int, k int, o Options, prog transforms.Progress) (*FitResult, error) {
	if err := transforms.Validate(&o); err != nil {
		return nil, err
	}
	return fitLocal(ctx, x, n, d, kern, classes, k, o, prog, false)
}

func fitFeatures(ctx context.Context, x []float64, n, d int, kern kernels.Kernel, classes []int, k int, o Options, prog transforms.Progress) (*FitResult, error) {
	return fitLocal(ctx, x, n, d, kern, classes, k, o, prog, false)
}

// fitLocal is fitFeatures, or with setupOnly its set-up alone: the lists
// and σ (res.local, res.Sigma; no distances).
func fitLocal(ctx context.Context, x []float64, n, d int, kern kernels.Kernel, classes []int, k int, o Options, prog transforms.Progress, setupOnly bool) (*FitResult, error) {
	if prog == nil {
		prog = transforms.NoProgress{}
	}
	K := o.Neighbors
	switch {
	case !slices.Contains(LocalKernels, kern.Kind):
		return nil, transforms.Optionf("kernel", "%s has no neighbour (local) mode; it has %v", kern.Kind, LocalKernels)
	case K < 1 || K >= n:
		return nil, transforms.Optionf("neighbors", "%d: the local mode needs 1 ≤ K < N = %d", K, n)
	case len(x) != n*d:
		return nil, transforms.Errorf(ErrLength, "len(x) = %d, want n·d = %d·%d", len(x), n, d)
	}
	if err := checkCounts(n, o); err != nil {
		return nil, err
	}
	if err := checkClasses(ctx, classes, n, k); err != nil {
		return nil, err
	}
	for q, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, transforms.MatrixErrorf("x", q/d, q%d, ErrNonFinite, "%v", v)
		}
	}
	L := parzenLength(K, n, o)
	M := max(K, L) // listed rows per row
	if o.Metric == MetricFisher && o.Sigma == 0 && !(o.Perplexity < float64(M)) {
		return nil, transforms.Optionf("perplexity", "%g must be below the %d rows listed per row (max(neighbors, parzen-neighbors), at most N − 1 = %d), over which σ is calibrated", o.Perplexity, M, n-1)
	}
	set := o.knnSettings()
	if err := reserveLocal(ctx, n, d, k, M, L, kern, o, set); err != nil {
		return nil, err
	}
	res := &FitResult{N: n, K: K, Figures: map[string]any{}}
	var recall float64
	set.Recall = func(r float64, _ int) { recall = r }
	set.Progress = func(rows int) { prog.Add(int64(rows)) }
	set.Widen = func(_ int, rows int64) { prog.Start("widening", rows) }
	prog.Start("neighbours", kernels.KNNWork(n, d, M, o.KNN, set))
	lc, ran, err := NewLocal(ctx, x, n, d, kern, classes, k, M, o.Threads, o.KNN, set)
	prog.Finish()
	if err != nil {
		return nil, err
	}
	res.Figures["knn"] = string(ran)
	if ran == kernels.KNNApprox && recall > 0 {
		res.Figures["knn_recall"] = recall
		if o.KNNRecall > 0 && recall < o.KNNRecall {
			res.Warnings = append(res.Warnings, fmt.Sprintf("the approximate neighbour search reached an estimated recall of %.4f, below knn-recall %.4g: some listed neighbours are not the nearest (use knn exact, or accept it with a lower knn-recall)", recall, o.KNNRecall))
		}
	}
	lc.Parzen = L
	res.Figures["parzen_neighbors"] = L
	res.Idx = make([]int32, n*K)
	for i := range n {
		copy(res.Idx[i*K:(i+1)*K], lc.Idx[i*M:i*M+K])
	}
	if o.Metric == MetricKernel {
		res.Dist = make([]float64, n*K)
		for i := range n {
			for q, v := range lc.D2[i*M : i*M+K] {
				res.Dist[i*K+q] = math.Sqrt(max(0, v))
			}
		}
		return res, nil
	}
	sigma := o.Sigma
	if sigma == 0 {
		sigma, err = meanBandwidth(n, o, prog, func(beta []float64) error {
			return kernels.PerplexitySparse(ctx, beta, nil, lc.D2, n, M, o.Perplexity, o.Threads)
		})
		if err != nil {
			return nil, err
		}
	}
	res.Sigma = sigma
	res.Figures["sigma"] = sigma
	res.local = lc
	if setupOnly {
		return res, nil
	}
	return localPairs(ctx, res, lc, o, prog)
}

// localPairs computes the path lengths of the local mode from its set-up
// (res.local, res.K, res.Sigma): each row's K nearest pairs, or with
// o.Tile the pairs (i, j) of the lists with i in block I and j in block J
// (the other entries of res.Dist are 0); every computed pair has the bits
// of the untiled run.
func localPairs(ctx context.Context, res *FitResult, lc *Local, o Options, prog transforms.Progress) (*FitResult, error) {
	n, K, M, sigma := lc.N, res.K, lc.Knn, res.Sigma
	p := PathParams{Sigma: sigma, Steps: o.Steps, ExcludeEndpoints: o.ExcludeEndpoints, Threads: o.Threads,
		Progress: cumulative(prog, o.Progress)}
	T := o.Steps
	scale := 1 / (sigma * sigma * float64(T))
	workers := kernels.Workers(n, o.Threads, 8)
	type tally struct {
		maxDrop, sumDrop float64
		pairs            int64
		_                [5]int64 // keep workers' tallies on separate cache lines
	}
	tallies := make([]tally, workers)
	dist := make([]float64, n*K)
	// The trapezoid rule is symmetric: a pair listed from both ends is
	// summed once and copied (mirror).
	mirror := o.Rule == Trapezoid
	inTile := func(i, j int) bool { return true }
	if !o.Tile.IsZero() {
		inTile = o.Tile.ordered(n)
	}
	// want keeps the entries of the tile, and with mirror those whose value
	// a skipped entry of the tile copies: (a, b) with a < b when b lists a.
	var want func(a, b int) bool
	if !o.Tile.IsZero() {
		want = func(a, b int) bool {
			return inTile(a, b) || (mirror && a < b && inTile(b, a) && lc.twin(b, a, K) >= 0)
		}
	}
	prog.Start("pair distances", int64(n)) // rows
	kept, fb, err := localSums(ctx, lc, K, p, mirror, want, func(w, e int, f0, f1, mid, dropped float64) {
		dist[e] = o.Rule.pathLength(f0, f1, mid, scale)
		tl := &tallies[w]
		tl.pairs++
		tl.maxDrop = max(tl.maxDrop, dropped)
		tl.sumDrop += dropped
	})
	prog.Finish()
	if err != nil {
		return nil, err
	}
	long := sigma * float64(T)
	long *= long
	var longSteps atomic.Int64
	if err := kernels.ParallelFor(ctx, n, o.Threads, 256, func(lo, hi int) {
		var ls int64
		for i := lo; i < hi; i++ {
			for q := range K {
				j := int(res.Idx[i*K+q])
				if !inTile(i, j) {
					continue
				}
				if lc.D2[i*M+q] > long {
					ls++
				}
				if mirror && j < i {
					if t := lc.twin(j, i, K); t >= 0 {
						dist[i*K+q] = dist[j*K+t]
					}
				}
			}
		}
		longSteps.Add(ls)
	}); err != nil {
		return nil, err
	}
	res.Dist = dist
	var st tally
	for _, tl := range tallies {
		st.maxDrop = max(st.maxDrop, tl.maxDrop)
		st.sumDrop += tl.sumDrop
		st.pairs += tl.pairs
	}
	if o.Tile.IsZero() {
		prog.Start("truncation check", 0)
		err = truncationCheck(ctx, res, lc, p, o)
		prog.Finish()
		if err != nil {
			return nil, err
		}
		res.Figures["dense_terms"] = int64(n) * int64(K) * int64(n-2*b2i(o.ExcludeEndpoints))
	}
	res.Figures["kept_terms"] = kept
	res.Figures["fallbacks"] = fb
	res.Figures["long_steps"] = longSteps.Load()
	res.Figures["summed_pairs"] = st.pairs
	res.Figures["dropped_mass_max"] = st.maxDrop
	res.Figures["dropped_mass_mean"] = st.sumDrop / float64(max(1, st.pairs))
	return res, nil
}

// parzenLength is L, the leading rows of each list that enter the Parzen
// sums: ParzenNeighbors, or ⌈3·perplexity⌉ as t-SNE's sparse affinities
// use, at most n−1.
func parzenLength(K, n int, o Options) int {
	if o.ParzenNeighbors > 0 {
		return min(o.ParzenNeighbors, n-1)
	}
	return min(int(math.Ceil(3*o.Perplexity)), n-1)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TruncationPairs is the number of seeded pairs whose local distance
// FitFeatures compares with the untruncated sums over every row.
const TruncationPairs = 300

// truncationCheck measures what the truncated sums cost on TruncationPairs
// pairs drawn with o.Seed: each pair's distance again with the Parzen sums
// over all n rows (O(n·(d + T)) a pair), and the relative difference of
// the local one, whose median, 90th percentile and maximum go into the
// figures truncation_error_*. Pairs at full distance 0 count as 0 when the
// local one is 0 too, else as 1.
func truncationCheck(ctx context.Context, res *FitResult, lc *Local, p PathParams, o Options) error {
	n, K := lc.N, res.K
	m := min(TruncationPairs, n*K)
	rng := rand.New(rand.NewPCG(o.Seed, 0xf15e7))
	entries := make([]int, m)
	for q := range entries {
		entries[q] = rng.IntN(n * K)
	}
	slices.Sort(entries)
	rel := make([]float64, m)
	scale := 1 / (p.Sigma * p.Sigma * float64(p.Steps))
	workers := kernels.Workers(m, o.Threads, 1)
	ws := make([]*localWork, workers)
	for w := range ws {
		ws[w] = newLocalWorkTerms(lc, p, n)
	}
	err := kernels.ParallelForWorker(ctx, m, o.Threads, 1, func(w, lo, hi int) {
		for q := lo; q < hi; q++ {
			e := entries[q]
			i, j := e/K, int(res.Idx[e])
			f0, f1, mid := ws[w].pairFull(i, j)
			full := o.Rule.pathLength(f0, f1, mid, scale)
			switch {
			case full > 0:
				rel[q] = math.Abs(res.Dist[e]-full) / full
			case res.Dist[e] != 0:
				rel[q] = 1
			}
		}
	})
	if err != nil {
		return err
	}
	slices.Sort(rel)
	res.Figures["truncation_pairs"] = m
	res.Figures["truncation_error_median"] = rel[m/2]
	res.Figures["truncation_error_p90"] = rel[m*9/10]
	res.Figures["truncation_error_max"] = rel[m-1]
	return nil
}

// checkCounts checks the number of objects against the options.
func checkCounts(n int, o Options) error {
	if n < 2 {
		return transforms.Errorf(ErrTooFew, "n = %d, need at least 2", n)
	}
	if o.ExcludeEndpoints && n < 3 {
		return transforms.Errorf(ErrTooFew, "n = %d, need at least 3 with ExcludeEndpoints", n)
	}
	return nil
}

// checkClasses checks that the labels are in [0, k) and that at least two
// classes are present.
func checkClasses(ctx context.Context, classes []int, n, k int) error {
	if len(classes) != n {
		return transforms.Errorf(ErrLength, "len(classes) = %d, want n = %d", len(classes), n)
	}
	if k < 1 {
		return transforms.Errorf(ErrTooFewClasses, "k = %d classes", k)
	}
	seen := make([]bool, k)
	present := 0
	for i, c := range classes {
		if c < 0 || c >= k {
			return transforms.MatrixErrorf("classes", i, -1, ErrClassRange, "%d not in [0, %d)", c, k)
		}
		if !seen[c] {
			seen[c] = true
			present++
		}
	}
	if present < 2 {
		return transforms.Errorf(ErrTooFewClasses, "%d class present", present)
	}
	return ctx.Err()
}

// reserveLocal checks the local mode's plan against the memory the run may
// use: the neighbour lists (4 + 8 bytes a slot), the pairs and their
// distances (4 + 8, and 8 while they are copied out), the
// search's scratch, unit rows for cosine, each worker's two n-length
// position maps and distance cache, and the truncation check's n-term
// scratch.
func reserveLocal(ctx context.Context, n, d, k, M, L int, kern kernels.Kernel, o Options, set kernels.NNDescentSettings) error {
	K := o.Neighbors
	workers := o.Threads
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	need := float64(n)*(12*float64(M)+20*float64(K)) + kernels.KNNBytes(n, d, M, o.KNN, set) +
		float64(workers)*(20*float64(n)+transforms.Float64Bytes(o.Steps+1, 2*k+3)+transforms.Float64Bytes(8, 2*L+2)) +
		float64(min(workers, TruncationPairs))*(16*float64(n)+transforms.Float64Bytes(9, n))
	if kern.Kind == "cosine" {
		need += transforms.Float64Bytes(n, d)
	}
	return transforms.ReserveOption(ctx, "neighbors", need,
		fmt.Sprintf("the local Fisher sums of %s rows over %s neighbours each", transforms.Thousands(int64(n)), transforms.Thousands(int64(K))),
		"use fewer neighbors")
}
