package kernels

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"unsafe"
)

// NNDescentSettings tunes ApproxKNN. The zero value selects every default.
type NNDescentSettings struct {
	// Trees is the number of random-projection trees whose leaves seed the
	// graph (default 8). More trees give a better start, and fewer
	// descent iterations, for n·Trees·LeafSize distances up front.
	Trees int
	// LeafSize is the largest leaf of a tree (default max(k, 30)). Larger
	// leaves give every point more true neighbours at the start, at a cost
	// linear in the leaf size.
	LeafSize int
	// MaxCandidates caps the new and the old candidates joined per point and
	// iteration (default max(k + k/3, 60), 120 for k = 90). The local join
	// costs about n·MaxCandidates² distances per iteration; the descent
	// converges to a graph whose recall rises with it (isotropic 50-D
	// Gaussian, k = 90: at N = 20,000 0.993 at 60, 0.998 at 90, 0.999 at
	// 120; at N = 10⁵ 0.9855 at 90, 0.9928 at 120, 0.9955 at 150), and
	// fewer iterations make up for most of the larger join: the time grows
	// far less than c² (BENCHMARKS.md, "Neighbour searches" and "t-SNE side
	// by side (issue 15)"). The join's buffered updates stay within about
	// 128 MB whatever MaxCandidates is: the points are joined in blocks
	// sized for it (nndBlocking).
	MaxCandidates int
	// MaxIterations bounds the descent iterations (default 12).
	MaxIterations int
	// Delta stops the descent once an iteration changes fewer than
	// Delta·n·k neighbour slots (default 0.0005). Smaller values run
	// longer for the last few true neighbours.
	Delta float64
	// Seed seeds the trees, the random fill and the candidate sampling.
	Seed uint64
	// ExactBelow is the size below which ApproxKNN runs exact KNN instead
	// (default 2,000, and always when k ≥ n/8): there the exhaustive search
	// is cheap and NN-descent gains nothing.
	ExactBelow int
	// TargetRecall, when above 0, makes ApproxKNN check its work: after
	// the descent it estimates the recall on RecallSample seeded rows
	// against their exact neighbours (EstimateRecall) and, while the
	// estimate is below TargetRecall, widens the join by half
	// (MaxCandidates ×1.5), marks every neighbour new and descends again,
	// at most MaxWidenings times (default 2; < 0: none). Recall receives
	// every estimate.
	TargetRecall float64
	RecallSample int // rows of the estimate (default DefaultRecallSample)
	MaxWidenings int
	// Recall, if not nil, receives each recall estimate and the join width
	// (MaxCandidates) of the graph it measured.
	Recall func(recall float64, candidates int)
	// Progress, if not nil, receives the rows finished: n after the trees,
	// then the rows of each descent iteration as its blocks finish, at most
	// (MaxIterations+1)·n in all (KNNWork); a descent that converges ends
	// sooner. It is called from one goroutine at a time, between blocks.
	// A widened descent reports its rows too, after Widen.
	Progress func(rows int)
	// Widen, if not nil, is called before each widened descent with its
	// join width and the most rows it will report (MaxIterations·n), so
	// that a progress display can start a new bar rather than sit at the
	// end of the planned one for the minutes the descent takes at 10⁶ rows.
	Widen func(candidates int, rows int64)
}

func (s NNDescentSettings) withDefaults(k int) NNDescentSettings {
	if s.Trees <= 0 {
		s.Trees = 8
	}
	if s.LeafSize <= 0 {
		s.LeafSize = max(k, 30)
	}
	s.LeafSize = max(s.LeafSize, 2)
	if s.MaxCandidates <= 0 {
		s.MaxCandidates = max(k+k/3, 60)
	}
	if s.MaxIterations <= 0 {
		s.MaxIterations = 12
	}
	if s.Delta <= 0 {
		s.Delta = 0.0005
	}
	if s.ExactBelow <= 0 {
		s.ExactBelow = 2000
	}
	if s.MaxWidenings == 0 {
		s.MaxWidenings = 2
	}
	return s
}

// exact reports whether ApproxKNN runs the exhaustive search for n rows and
// k neighbours (s with defaults applied).
func (s NNDescentSettings) progress(rows int) {
	if s.Progress != nil {
		s.Progress(rows)
	}
}

func (s NNDescentSettings) exact(n, k int) bool { return n < s.ExactBelow || 8*k >= n }

// Grains of the parallel loops: points per chunk for the per-point passes,
// the most points per local-join block and the target chunk that groups
// updates for the apply pass.
const (
	nndGrain   = 256
	nndBlock   = 8192
	nndTargets = 1024
)

// nndUpdateBudget bounds the bytes of updates one local-join block may
// buffer. A point joins at most c(c−1)/2 new–new and c² new–old pairs of its
// c candidates, two updates each, so it buffers at most 3c² updates: 1.4 GB
// for a block of 8,192 points at c = 60, and 23 GB at c = 244 (k = 183, a
// NeRV level at perplexity 61), which the first iterations nearly reach
// (BENCHMARKS.md, "NeRV (issue 5)": the peak at 30,000 rows and c = 234
// before the blocks). Blocks shrink to fit. 128 MB rather than the 512 of
// issue 5: on 10⁵ date-ordered flights (d = 12) the buffers were most of
// the live heap and t-SNE's peak RSS went from 1.13 GB to 0.77 (0.76 to
// 0.63 on a 50-D mixture), and the smaller blocks' extra apply passes did
// not show in the wall time (BENCHMARKS.md, "t-SNE on hard data").
const nndUpdateBudget = 128 << 20

// nndBlocking returns the points per local-join block for mc candidates and
// the points per source chunk within it: both depend on mc only, not on the
// thread count, so the result does not either.
func nndBlocking(mc int) (block, grain int) {
	perPoint := 3 * mc * mc * int(unsafe.Sizeof(nndUpdate{}))
	block = min(max(nndUpdateBudget/perPoint, 64), nndBlock)
	return block, min(nndGrain, max(block/16, 8))
}

// ApproxKNN finds approximately the k nearest neighbours of every row of x
// (n×d) by NN-descent (Dong, Moses & Li 2011) started from the leaves of
// random-projection trees, as pynndescent does. Outputs are as for KNN:
// row i's neighbours in idx[i*k:(i+1)*k] ordered by (squared distance,
// index), self excluded, and their exact squared distances (SqDist) in
// dist, which may be nil. Below set.ExactBelow rows, or for k ≥ n/8, it
// runs KNN. The result depends on x, k and the settings only, not on the
// thread count. It panics as KNN does and returns ctx.Err() if cancelled.
func ApproxKNN(ctx context.Context, idx []int32, dist []float64, x []float64, n, d, k, threads int, set NNDescentSettings) error {
	checkPoints(x, n, d)
	checkKNN(idx, dist, n, k)
	set = set.withDefaults(k)
	if set.exact(n, k) {
		err := KNN(ctx, idx, dist, x, n, d, k, threads)
		if err == nil {
			set.progress(n)
		}
		return err
	}
	g := newNNGraph(n, k)
	if err := g.initTrees(ctx, x, d, threads, set); err != nil {
		return err
	}
	set.progress(n)
	if err := g.descend(ctx, x, d, threads, set); err != nil {
		return err
	}
	if err := g.reachRecall(ctx, idx, x, d, threads, set); err != nil {
		return err
	}
	return ParallelFor(ctx, n, threads, nndGrain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			h := g.heap(i)
			h.drain(idx[i*k:(i+1)*k], rowOrNil(dist, i, k))
		}
	})
}

// widened is the join width after one widening: half as many candidates
// again.
func widened(mc int) int { return mc + mc/2 }

// widestJoin is the widest join ApproxKNN may run with these settings
// (after defaults): MaxCandidates widened MaxWidenings times when a recall
// target is set.
func (s NNDescentSettings) widestJoin() int {
	mc := s.MaxCandidates
	if s.TargetRecall > 0 {
		for range max(s.MaxWidenings, 0) {
			mc = widened(mc)
		}
	}
	return mc
}

// reachRecall estimates the graph's recall when set asks for a target, and
// widens the join until the estimate reaches it or the widenings run out.
// idx (n×k) is scratch for the lists the estimate reads.
func (g *nnGraph) reachRecall(ctx context.Context, idx []int32, x []float64, d, threads int, set NNDescentSettings) error {
	if set.TargetRecall <= 0 {
		return nil
	}
	seed := set.Seed
	for w := 0; ; w++ {
		for i := range g.n {
			copy(idx[i*g.k:(i+1)*g.k], g.idx[i*g.k:i*g.k+int(g.size[i])])
		}
		r, err := EstimateRecall(ctx, idx, x, g.n, d, g.k, set.RecallSample, seed, threads)
		if err != nil {
			return err
		}
		if set.Recall != nil {
			set.Recall(r, set.MaxCandidates)
		}
		if r >= set.TargetRecall || w >= set.MaxWidenings {
			return nil
		}
		set.MaxCandidates = widened(set.MaxCandidates)
		set.Seed = seed + uint64(w+1)*0x9e3779b97f4a7c15 // other candidates, not only more
		if set.Widen != nil {
			set.Widen(set.MaxCandidates, int64(g.n)*int64(set.MaxIterations))
		} else {
			set.Progress = nil // beyond the planned work
		}
		for s := range g.isNew {
			g.isNew[s] = true
		}
		if err := g.descend(ctx, x, d, threads, set); err != nil {
			return err
		}
	}
}

// nnGraph holds one max-heap of (distance, index) per point, largest on top,
// with a flag per slot marking neighbours not yet joined.
type nnGraph struct {
	n, k  int
	d     []float64
	idx   []int32
	isNew []bool
	size  []int32
	// tops[i] is top(i), kept apart from the heaps: the join reads the
	// tops of all of a point's candidates, and n of them share far fewer
	// cache lines than n heaps do.
	tops []float64
}

func newNNGraph(n, k int) *nnGraph {
	g := &nnGraph{n: n, k: k, d: make([]float64, n*k), idx: make([]int32, n*k), isNew: make([]bool, n*k), size: make([]int32, n), tops: make([]float64, n)}
	for i := range g.tops {
		g.tops[i] = math.Inf(1)
	}
	return g
}

// heap returns point i's heap as a maxHeap (without flags), for draining.
func (g *nnGraph) heap(i int) maxHeap {
	k := g.k
	m := int(g.size[i])
	return maxHeap{d: g.d[i*k : i*k+m], idx: g.idx[i*k : i*k+m], k: k}
}

// top returns the bound below which a candidate may enter point i's heap:
// its largest distance once full, +Inf before.
func (g *nnGraph) top(i int) float64 { return g.tops[i] }

// push offers (v, j) to point i's heap and reports whether it entered: it
// must be below the top in (distance, index) order and not present yet.
func (g *nnGraph) push(i int, v float64, j int32) bool {
	k := g.k
	m := int(g.size[i])
	d, ix, nw := g.d[i*k:i*k+k], g.idx[i*k:i*k+k], g.isNew[i*k:i*k+k]
	if m == k && (v > d[0] || (v == d[0] && j >= ix[0])) {
		return false
	}
	if containsInt32(ix[:m], j) {
		return false
	}
	less := func(a, b int) bool { return d[a] < d[b] || (d[a] == d[b] && ix[a] < ix[b]) }
	swap := func(a, b int) {
		d[a], d[b] = d[b], d[a]
		ix[a], ix[b] = ix[b], ix[a]
		nw[a], nw[b] = nw[b], nw[a]
	}
	if m < k {
		d[m], ix[m], nw[m] = v, j, true
		g.size[i]++
		for c := m; c > 0; {
			p := (c - 1) / 2
			if !less(p, c) {
				break
			}
			swap(p, c)
			c = p
		}
		if m+1 == k {
			g.tops[i] = d[0]
		}
		return true
	}
	d[0], ix[0], nw[0] = v, j, true
	for p := 0; ; {
		c := 2*p + 1
		if c >= k {
			break
		}
		if c+1 < k && less(c, c+1) {
			c++
		}
		if !less(p, c) {
			break
		}
		swap(p, c)
		p = c
	}
	g.tops[i] = d[0]
	return true
}

// containsInt32 reports whether s holds v: the heap's duplicate check, which
// scans a whole list for every candidate below its top (16 % of NN-descent's
// time before it ran eight entries a compare).
func containsInt32(s []int32, v int32) bool {
	if hasAVX2 {
		return containsInt32AVX2(s, v)
	}
	return slices.Contains(s, v)
}

// initTrees builds the random-projection trees, in parallel over trees, and
// offers every point the other members of its leaf in each tree; points left
// with fewer than k neighbours get random ones.
func (g *nnGraph) initTrees(ctx context.Context, x []float64, d, threads int, set NNDescentSettings) error {
	n, k := g.n, g.k
	perm := make([][]int32, set.Trees)
	leafOf := make([][]int32, set.Trees)    // tree → point → leaf
	leafStart := make([][]int32, set.Trees) // tree → leaf → start in perm (plus end)
	err := ParallelFor(ctx, set.Trees, threads, 1, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			rng := rand.New(rand.NewPCG(set.Seed, 0x7265_6573+uint64(t)))
			p := make([]int32, n)
			for i := range p {
				p[i] = int32(i)
			}
			var starts []int32
			rpSplit(p, 0, x, d, set.LeafSize, rng, make([]float64, d), &starts)
			starts = append(starts, int32(n))
			lo := make([]int32, n)
			for l := 0; l+1 < len(starts); l++ {
				for _, i := range p[starts[l]:starts[l+1]] {
					lo[i] = int32(l)
				}
			}
			perm[t], leafOf[t], leafStart[t] = p, lo, starts
		}
	})
	if err != nil {
		return err
	}
	return ParallelFor(ctx, n, threads, nndGrain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xi := x[i*d : (i+1)*d]
			var (
				js    [4]int32
				b     [4][]float64
				bound [4]float64
				v     [4]float64
			)
			// Four members at a time against the top before them: push
			// checks each against the top as it stands.
			flush := func(m int) {
				for r := range m {
					bound[r] = g.top(i)
				}
				ok := sqDistAtMost4(&v, xi, &b, &bound, m)
				for r := range m {
					if ok&(1<<r) != 0 {
						g.push(i, v[r], js[r])
					}
				}
			}
			m := 0
			for t := range set.Trees {
				l := leafOf[t][i]
				for _, j := range perm[t][leafStart[t][l]:leafStart[t][l+1]] {
					if int(j) == i {
						continue
					}
					js[m], b[m] = j, x[int(j)*d:int(j+1)*d]
					if m++; m == 4 {
						flush(4)
						m = 0
					}
				}
			}
			if m > 0 {
				flush(m)
			}
			if int(g.size[i]) < k {
				rng := rand.New(rand.NewPCG(set.Seed, 0x6669_6c6c<<32|uint64(i)))
				for int(g.size[i]) < k {
					j := int32(rng.IntN(n))
					if int(j) != i {
						g.push(i, SqDist(xi, x[int(j)*d:int(j+1)*d]), j)
					}
				}
			}
		}
	})
}

// rpSplit splits the points p (positions from off in the tree's
// permutation) by the hyperplane halfway between two random members,
// recursively, until at most leaf remain, appending the start of every leaf
// to starts in permutation order. A split that leaves one side empty
// (duplicates) halves the points as they stand.
func rpSplit(p []int32, off int, x []float64, d, leaf int, rng *rand.Rand, normal []float64, starts *[]int32) {
	if len(p) <= leaf {
		*starts = append(*starts, int32(off))
		return
	}
	a := int(p[rng.IntN(len(p))])
	b := int(p[rng.IntN(len(p)-1)])
	if b == a {
		b = int(p[len(p)-1])
	}
	xa, xb := x[a*d:(a+1)*d], x[b*d:(b+1)*d]
	var c float64
	for q := range normal {
		normal[q] = xa[q] - xb[q]
		c += normal[q] * (xa[q] + xb[q]) / 2
	}
	// Partition in place: left side first.
	l := 0
	for r := range p {
		xi := x[int(p[r])*d : int(p[r]+1)*d]
		var s float64
		for q, w := range normal {
			s += w * xi[q]
		}
		if s-c > 0 || (s == c && rng.Uint64()&1 == 0) {
			p[l], p[r] = p[r], p[l]
			l++
		}
	}
	if l == 0 || l == len(p) {
		l = len(p) / 2
	}
	rpSplit(p[:l], off, x, d, leaf, rng, normal, starts)
	rpSplit(p[l:], off+l, x, d, leaf, rng, normal, starts)
}

// nndUpdate proposes other as a neighbour of target at squared distance v.
type nndUpdate struct {
	v             float64
	target, other int32
}

// mix hashes a candidate edge to a pseudo-random priority, so that sampling
// does not depend on the order edges are seen in.
func mix(seed uint64, it, i, j int) uint64 {
	z := seed ^ uint64(it)*0x9e3779b97f4a7c15 ^ uint64(i)<<32 ^ uint64(j)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// descend runs the NN-descent iterations. Each samples up to MaxCandidates
// new and old candidates per point from its neighbours and reverse
// neighbours (lowest hash priority first), joins them in blocks of points —
// distances computed in parallel against a frozen graph, updates buffered
// per source chunk (nndBuffer), grouped by target chunk and applied per
// target chunk in source order — and stops when fewer than Delta·n·k slots changed.
func (g *nnGraph) descend(ctx context.Context, x []float64, d, threads int, set NNDescentSettings) error {
	n, k, mc := g.n, g.k, set.MaxCandidates
	newC := make([]int32, n*mc)
	oldC := make([]int32, n*mc)
	nNew := make([]int32, n)
	nOld := make([]int32, n)
	revStart := make([]int32, n+1)
	rev := make([]int32, n*k)
	revNew := make([]bool, n*k)
	block, grain := nndBlocking(mc)
	srcChunks := NumChunks(block, grain)
	dstChunks := NumChunks(n, nndTargets)
	bufs := make([]nndBuffer, srcChunks)
	changed := make([]int64, dstChunks)
	workers := Workers(n, threads, nndGrain)
	scratch := make([]candScratch, workers)
	for it := range set.MaxIterations {
		// Reverse edges by counting sort, sequential: O(n·k) and cheap.
		clear(revStart)
		for _, j := range g.idx {
			revStart[j+1]++
		}
		for i := range n {
			revStart[i+1] += revStart[i]
		}
		fill := make([]int32, n)
		copy(fill, revStart[:n])
		for i := range n {
			for s := range int(g.size[i]) {
				j := g.idx[i*k+s]
				rev[fill[j]] = int32(i)
				revNew[fill[j]] = g.isNew[i*k+s]
				fill[j]++
			}
		}
		err := ParallelForWorker(ctx, n, threads, nndGrain, func(w, lo, hi int) {
			sc := &scratch[w]
			for i := lo; i < hi; i++ {
				g.sample(sc, i, it, set.Seed, mc, rev[revStart[i]:revStart[i+1]], revNew[revStart[i]:revStart[i+1]],
					newC[i*mc:(i+1)*mc], oldC[i*mc:(i+1)*mc], &nNew[i], &nOld[i])
			}
		})
		if err != nil {
			return err
		}
		var total int64
		for b0 := 0; b0 < n; b0 += block {
			b1 := min(b0+block, n)
			err := ParallelFor(ctx, b1-b0, threads, grain, func(lo, hi int) {
				buf := &bufs[lo/grain]
				buf.ups = buf.ups[:0]
				for u := b0 + lo; u < b0+hi; u++ {
					nw := newC[u*mc : u*mc+int(nNew[u])]
					ol := oldC[u*mc : u*mc+int(nOld[u])]
					for a, p := range nw {
						g.joinList(&buf.ups, x, d, p, nw[a+1:])
						g.joinList(&buf.ups, x, d, p, ol)
					}
				}
				buf.byTarget(dstChunks)
			})
			if err != nil {
				return err
			}
			set.progress(b1 - b0)
			nsrc := NumChunks(b1-b0, grain)
			err = ParallelFor(ctx, dstChunks, threads, 1, func(lo, hi int) {
				for t := lo; t < hi; t++ {
					var c int64
					for s := range nsrc {
						for _, up := range bufs[s].target(t) {
							if g.push(int(up.target), up.v, up.other) {
								c++
							}
						}
					}
					changed[t] = c
				}
			})
			if err != nil {
				return err
			}
			for _, c := range changed {
				total += c
			}
		}
		if float64(total) < set.Delta*float64(n)*float64(k) {
			break
		}
	}
	return nil
}

// joinList joins p with each of qs in order, four at a time where it can
// (sqDistAtMost4 keeps four chains of additions in flight).
func (g *nnGraph) joinList(row *[]nndUpdate, x []float64, d int, p int32, qs []int32) {
	xp := x[int(p)*d : int(p+1)*d]
	tp := g.top(int(p))
	var (
		q     [4]int32
		tq    [4]float64
		b     [4][]float64
		bound [4]float64
		v     [4]float64
	)
	m := 0
	for _, c := range qs {
		if c == p {
			continue
		}
		// A tie with the top can still enter by index, hence "at most".
		q[m], tq[m] = c, g.top(int(c))
		b[m], bound[m] = x[int(c)*d:int(c+1)*d], max(tp, tq[m])
		if m++; m < 4 {
			continue
		}
		ok := sqDistAtMost4(&v, xp, &b, &bound, 4)
		for r := range 4 {
			if ok&(1<<r) != 0 {
				g.offer(row, v[r], tp, tq[r], p, q[r])
			}
		}
		m = 0
	}
	if m == 0 {
		return
	}
	ok := sqDistAtMost4(&v, xp, &b, &bound, m)
	for r := range m {
		if ok&(1<<r) != 0 {
			g.offer(row, v[r], tp, tq[r], p, q[r])
		}
	}
}

// offer buffers the update of p by q and of q by p where their distance v
// does not exceed the side's top tp or tq.
func (g *nnGraph) offer(row *[]nndUpdate, v, tp, tq float64, p, q int32) {
	if v <= tp {
		*row = append(*row, nndUpdate{v: v, target: p, other: q})
	}
	if v <= tq {
		*row = append(*row, nndUpdate{v: v, target: q, other: p})
	}
}

// nndBuffer holds one source chunk's updates of a local-join block, in the
// order they were made, and the same grouped by target chunk (stable).
// One flat buffer per source chunk, not one per (source, target) pair: a
// block's points and so their updates' targets can be concentrated (rows
// sorted by time or place), and per-pair buffers kept each pair's largest
// block, so their capacity summed over the blocks grew through an
// iteration, to several times that of a random order on 10⁵ date-ordered
// rows (BENCHMARKS.md, "t-SNE side by side (issue 15)", the flights
// footnote).
type nndBuffer struct {
	ups, sorted []nndUpdate
	start       []int32 // sorted[start[t]:start[t+1]] target chunk t
}

// byTarget groups ups by target chunk into sorted, keeping their order
// within each chunk.
func (b *nndBuffer) byTarget(chunks int) {
	b.start = Grow(b.start, chunks+1)
	clear(b.start)
	for _, up := range b.ups {
		b.start[int(up.target)/nndTargets+1]++
	}
	for t := range chunks {
		b.start[t+1] += b.start[t]
	}
	b.sorted = Grow(b.sorted, len(b.ups))
	fill := b.start[:chunks] // advanced to each chunk's end, then restored
	for _, up := range b.ups {
		t := int(up.target) / nndTargets
		b.sorted[fill[t]] = up
		fill[t]++
	}
	copy(b.start[1:], b.start[:chunks])
	b.start[0] = 0
}

// target returns the updates of target chunk t.
func (b *nndBuffer) target(t int) []nndUpdate { return b.sorted[b.start[t]:b.start[t+1]] }

// candScratch is one worker's buffer for ranking candidates.
type candScratch struct {
	keys []uint64
}

// candKey orders candidate j of point i in iteration it: the high 32 bits
// of the pair's hash priority, then j. One integer sorts several times
// faster than a (priority, index) record under a comparison function, and
// the same pair seen both ways (forward and reverse) has the same key, so
// its copies sort next to each other.
func candKey(seed uint64, it, i int, j int32) uint64 {
	return mix(seed, it, min(i, int(j)), max(i, int(j)))&^0xffff_ffff | uint64(uint32(j))
}

// sample picks point i's new and old candidates: its forward neighbours and
// reverse neighbours, split by their new flag, the mc of lowest hash
// priority of each kind. Forward neighbours picked as new become old.
func (g *nnGraph) sample(sc *candScratch, i, it int, seed uint64, mc int, rev []int32, revNew []bool, newC, oldC []int32, nNew, nOld *int32) {
	k := g.k
	m := int(g.size[i])
	fwd := g.idx[i*k : i*k+m]
	fwdNew := g.isNew[i*k : i*k+m]
	pick := func(want bool, dst []int32) int {
		keys := sc.keys[:0]
		for s, j := range fwd {
			if fwdNew[s] == want {
				keys = append(keys, candKey(seed, it, i, j))
			}
		}
		for s, j := range rev {
			if revNew[s] == want {
				keys = append(keys, candKey(seed, it, i, j))
			}
		}
		slices.Sort(keys)
		sc.keys = keys
		// A point seen both ways appears twice, next to itself.
		c := 0
		for s, key := range keys {
			if c == len(dst) {
				break
			}
			if s > 0 && keys[s-1] == key {
				continue
			}
			dst[c] = int32(uint32(key))
			c++
		}
		return c
	}
	*nNew = int32(pick(true, newC))
	*nOld = int32(pick(false, oldC))
	for c := range int(*nNew) {
		for s, j := range fwd {
			if j == newC[c] {
				fwdNew[s] = false
			}
		}
	}
}

func (s NNDescentSettings) String() string {
	return fmt.Sprintf("trees=%d leaf=%d candidates=%d iterations=%d delta=%g seed=%d exactBelow=%d",
		s.Trees, s.LeafSize, s.MaxCandidates, s.MaxIterations, s.Delta, s.Seed, s.ExactBelow)
}
