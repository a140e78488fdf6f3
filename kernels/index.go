package kernels

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrGraph is returned (wrapped) by NewIndex for a neighbour graph with an
// entry that is not a row of the point set: it usually comes from a damaged
// model file.
var ErrGraph = errors.New("kernels: bad neighbour graph")

// IndexOptions tune NewIndex and Index.Search. Zero fields take the
// defaults below.
type IndexOptions struct {
	// Degree is the number of nearest neighbours of each row that the graph
	// keeps (from a given graph or the one NewIndex computes), and the most
	// reverse edges a row gets on top of them. Default 16.
	Degree int
	// Ef is the beam width of the graph search: the search keeps the
	// min(max(Ef, k + k/2), n) best rows found so far and stops when the nearest
	// unexpanded one is farther than all of them. Default 32.
	Ef int
	// Pivots is the number of entry rows, chosen by farthest-point sampling
	// from row 0, whose distances to the query seed the search. Default
	// ⌈√n⌉, at most 64.
	Pivots int
	// ExactBelow: for n ≤ ExactBelow every search is exhaustive and no graph
	// is built. Default 2048, where an exhaustive search costs about what a
	// graph search does (BENCHMARKS.md, "Neighbour searches").
	ExactBelow int
	// Exact makes every search exhaustive.
	Exact bool
}

const (
	defaultIndexDegree     = 16
	defaultIndexEf         = 32
	defaultIndexMaxPivots  = 64
	defaultIndexExactBelow = 2048
)

// Index finds the nearest reference rows of query points: the neighbours of
// new rows that are placed into a fitted map.
//
// # Method
//
// The index is a graph over the n reference rows: each row's Degree
// nearest neighbours (an exact k-nearest-neighbour graph, given or computed
// with KNN) plus up to Degree reverse edges (the nearest rows that have it
// among their neighbours), so that a row that is nobody's neighbour, or a
// small cluster next to a large one, can still be reached. Pivots rows
// chosen by farthest-point sampling from row 0 are the entries: sampling
// the farthest row first reaches small far clusters that a random sample
// would miss.
//
// A search computes the distances from the query to every pivot, keeps the
// best ef = max(Ef, k + k/2) of them as its beam and expands the nearest
// unexpanded row of the beam until every row of the beam is expanded (a
// row that leaves a full beam is not expanded) — the best-first search of
// HNSW's layers and of NSG, on one layer, with NSG's sorted beam in place
// of two heaps. For n ≤ ExactBelow, with Exact, or when the graph cannot
// reach k rows, the search is exhaustive (SqDist on x, in row order). For
// up to KDTreeMaxDims features there is no graph: NewIndex builds a k-d
// tree (see KNN) and every search is exact, with the exhaustive search's
// results to the bit.
//
// The walk does not touch x: it works on a float32 copy of the rows,
// scaled by a power of two so that the largest coordinate is near 1 (no
// overflow or underflow whatever the data's scale) and renumbered in
// breadth-first order of the graph from the pivots, with distances summed
// in float32 (sqDist32). Half the bytes of x (n·d·4
// bytes, 4 MB at n = 20,000, d = 50: it fits the last-level cache where x
// does not), and rows that are near in the graph are near in memory. Once
// the walk stops, every row of the beam is ranked again by SqDist on x,
// and the result is the k best by (squared distance, index): exact
// distances, the exact order, and the same bits as an exhaustive search
// for the rows both find. The float32 distances only steer the walk; ties
// among them go to the smaller row index of x, so that copies of a row
// that differ by less than float32 resolves still enter the beam in the
// exhaustive search's order.
//
// # Determinism
//
// Every step depends only on the query, the index and ef: the visited set
// of the scratch is cleared between queries (by an epoch stamp, in O(1)),
// and ties are broken by row index everywhere. The float32 distances are
// those of fixed float32 operations in a fixed order (eight partial sums,
// each product rounded to float32, so never fused), the same on every
// architecture. A query's result is therefore the same, bit for bit,
// whatever was searched before with the same scratch, from any goroutine,
// in any batch, on any machine. NewIndex's graph, pivots and walk order
// depend only on x, the given graph and the options, not on the thread
// count.
//
// # Accuracy and speed
//
// BenchmarkIndex: n = 20,000 reference rows of dimension 50 from six
// clusters of rank 8 plus noise, the 30-NN graph given, defaults (Degree
// 16, Ef 32, 64 pivots), 500 held-out queries: recall@25 0.9994 with 461
// distances per query, recall@96 1.000 with 1015, at a small fraction of
// the exhaustive search's time. Reading the float32 walk copy instead of x
// through two heaps made Search faster, and run on the same query over and
// over, with every row in cache, it still takes a large part of that time:
// the walk is now mostly arithmetic (scalar float32 distances, as Go does
// not vectorise) rather than cache misses. The times are in BENCHMARKS.md,
// "Neighbour searches". At n = 5,000 the tests measure recall ≥ 0.99 at
// k = 15 and 90 (index_test.go). Isotropic Gaussian clusters of dimension
// 50 are the hard case of any graph index: at n = 20,000, k = 25, Degree 16
// the recall is 0.86 with Ef 32 and 0.98 with Ef 128, at a multiple of the
// time. Copies of a row share the beam, so data with many exact duplicates
// needs Ef scaled by the number of copies (or deduplicated rows).
type Index struct {
	x    []float64
	n, d int
	// The graph search works on the rows renumbered in breadth-first order
	// from the pivots ("walk order"): x32 holds them in float32 (nil for an
	// exhaustive index), perm maps walk rows back to rows of x.
	x32    []float32
	scale  float64 // x32 holds the rows of x times scale, a power of two
	perm   []int32
	off    []int32 // walk row i's neighbours are adj[off[i]:off[i+1]]
	adj    []int32
	pivots []int32 // the pivots, rows of x; walk rows 0 to len(pivots)-1
	ef     int
	exact  bool
	tree   *kdTree // for d ≤ KDTreeMaxDims: every search exact, on the tree
}

// NewIndex builds an Index over the rows of x (n×d, row-major), which it
// keeps by reference: x must not change while the index is in use. graph
// is an n×g row-major list of each row's nearest neighbours in ascending
// order of distance (for example from KNN, whose ordering ties by index);
// each row keeps its first IndexOptions.Degree entries, skipping itself and
// all but the first copy at distance 0. If graph is nil, NewIndex computes
// a 2·Degree-NN graph with KNN (g is then ignored). It panics if
// len(x) ≠ n·d, d < 1, or graph is not nil and len(graph) ≠ n·g or g < 1;
// it returns an error wrapping ErrGraph if an entry of graph is not in
// [0, n), and ctx.Err() if cancelled. Entries equal to their own row are
// ignored. Besides x, a graph index holds a float32 copy of it (n·d·4
// bytes) and the graph (4 bytes per edge, at most 2·Degree per row).
func NewIndex(ctx context.Context, x []float64, n, d int, graph []int32, g int, o IndexOptions, threads int) (*Index, error) {
	checkPoints(x, n, d)
	if graph != nil && (g < 1 || len(graph) != n*g) {
		panic(fmt.Sprintf("kernels: len(graph) = %d, want n·g = %d·%d with g ≥ 1", len(graph), n, g))
	}
	if o.Degree <= 0 {
		o.Degree = defaultIndexDegree
	}
	if o.Ef <= 0 {
		o.Ef = defaultIndexEf
	}
	if o.ExactBelow <= 0 {
		o.ExactBelow = defaultIndexExactBelow
	}
	if o.Pivots <= 0 {
		o.Pivots = min(int(math.Ceil(math.Sqrt(float64(n)))), defaultIndexMaxPivots)
	}
	ix := &Index{x: x, n: n, d: d, ef: o.Ef, exact: o.Exact || n <= o.ExactBelow || n < 2}
	if graph != nil {
		for p, j := range graph {
			if j < 0 || int(j) >= n {
				return nil, fmt.Errorf("%w: row %d's neighbour %d is %d, not a row in [0, %d)", ErrGraph, p/g, p%g, j, n)
			}
		}
	}
	if ix.exact {
		return ix, ctx.Err()
	}
	if d <= KDTreeMaxDims {
		// Few features: the k-d tree answers exactly, faster than the walk.
		ix.tree = newKDTree(x, n, d)
		return ix, ctx.Err()
	}
	var dist []float64
	if graph == nil {
		// Twice the degree, so that duplicates (skipped) leave enough.
		g = min(2*o.Degree, n-1)
		graph = make([]int32, n*g)
		dist = make([]float64, n*g)
		if err := KNN(ctx, graph, dist, x, n, d, g, threads); err != nil {
			return nil, err
		}
	}
	if err := ix.buildGraph(ctx, graph, dist, g, min(g, o.Degree), o.Degree, threads); err != nil {
		return nil, err
	}
	var err error
	ix.pivots, err = farthestPoints(ctx, x, n, d, min(o.Pivots, n), threads)
	if err != nil {
		return nil, err
	}
	ix.reorder()
	return ix, nil
}

// reorder renumbers the rows in breadth-first order of the graph from the
// pivots (rows the graph does not reach follow, in increasing order): it
// sets perm, rewrites off and adj in walk order and fills x32.
func (ix *Index) reorder() {
	n, d := ix.n, ix.d
	inv := make([]int32, n) // row → walk row + 1; 0: not yet numbered
	perm := make([]int32, 0, n)
	for _, p := range ix.pivots {
		if inv[p] == 0 {
			perm = append(perm, p)
			inv[p] = int32(len(perm))
		}
	}
	for h := 0; h < len(perm); h++ {
		i := perm[h]
		for _, j := range ix.adj[ix.off[i]:ix.off[i+1]] {
			if inv[j] == 0 {
				perm = append(perm, j)
				inv[j] = int32(len(perm))
			}
		}
	}
	for i := range n {
		if inv[i] == 0 {
			perm = append(perm, int32(i))
			inv[i] = int32(len(perm))
		}
	}
	// Scale by a power of two (exact) so that the largest coordinate is
	// near 1: float32 then neither overflows nor underflows on data of any
	// scale.
	big := 0.0
	for _, v := range ix.x {
		big = max(big, math.Abs(v))
	}
	ix.scale = 1
	if big > 0 && !math.IsInf(big, 0) {
		_, e := math.Frexp(big)
		ix.scale = math.Ldexp(1, -e)
	}
	off := make([]int32, n+1)
	adj := make([]int32, 0, len(ix.adj))
	x32 := make([]float32, n*d)
	for a, i := range perm {
		for _, j := range ix.adj[ix.off[i]:ix.off[i+1]] {
			adj = append(adj, inv[j]-1)
		}
		off[a+1] = int32(len(adj))
		for c, v := range ix.x[int(i)*d : (int(i)+1)*d] {
			x32[a*d+c] = float32(v * ix.scale)
		}
	}
	ix.perm, ix.off, ix.adj, ix.x32 = perm, off, adj, x32
}

// Len returns the number of reference rows.
func (ix *Index) Len() int { return ix.n }

// Dim returns the dimension of the rows.
func (ix *Index) Dim() int { return ix.d }

// buildGraph sets off and adj: for each row up to deg forward neighbours
// (the first entries of its row of the n×g graph, whose distances are dist
// if not nil, skipping the row itself and all but the first duplicate at
// distance 0, so that copies of a row do not use up its edges) then up to
// maxRev reverse edges, the nearest by (distance, row) of the rows that
// list it and that it does not list itself.
func (ix *Index) buildGraph(ctx context.Context, graph []int32, dist []float64, g, deg, maxRev, threads int) error {
	n, d, x := ix.n, ix.d, ix.x
	const grain = 256
	fwd := make([]int32, n*deg)
	fd := make([]float64, n*deg)
	fcnt := make([]int32, n)
	err := ParallelFor(ctx, n, threads, grain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xi := x[i*d : (i+1)*d]
			m, dup := 0, false
			for c, j := range graph[i*g : (i+1)*g] {
				if m == deg {
					break
				}
				if int(j) == i {
					continue
				}
				var v float64
				if dist != nil {
					v = dist[i*g+c]
				} else {
					v = SqDist(xi, x[int(j)*d:(int(j)+1)*d])
				}
				if v == 0 {
					if dup {
						continue
					}
					dup = true
				}
				fwd[i*deg+m], fd[i*deg+m] = j, v
				m++
			}
			fcnt[i] = int32(m)
		}
	})
	if err != nil {
		return err
	}
	// Reverse lists in CSR form, rows in increasing order within each list.
	roff := make([]int32, n+1)
	for i := range n {
		for _, j := range fwd[i*deg : i*deg+int(fcnt[i])] {
			roff[j+1]++
		}
	}
	for j := range n {
		roff[j+1] += roff[j]
	}
	rsrc := make([]int32, roff[n])
	rd := make([]float64, roff[n])
	fill := slices.Clone(roff[:n])
	for i := range n {
		for c, j := range fwd[i*deg : i*deg+int(fcnt[i])] {
			p := fill[j]
			rsrc[p], rd[p] = int32(i), fd[i*deg+c]
			fill[j]++
		}
	}
	// Per row: forward edges, then the kept reverse edges; counted first.
	cnt := make([]int32, n)
	row := func(dst []int32, j int) int {
		return mergeRow(dst, fwd[j*deg:j*deg+int(fcnt[j])], rsrc[roff[j]:roff[j+1]], rd[roff[j]:roff[j+1]], maxRev)
	}
	err = ParallelFor(ctx, n, threads, grain, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			cnt[j] = int32(row(nil, j))
		}
	})
	if err != nil {
		return err
	}
	ix.off = make([]int32, n+1)
	for j := range n {
		ix.off[j+1] = ix.off[j] + cnt[j]
	}
	ix.adj = make([]int32, ix.off[n])
	return ParallelFor(ctx, n, threads, grain, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			row(ix.adj[ix.off[j]:ix.off[j+1]], j)
		}
	})
}

// mergeRow writes a row's adjacency (its forward list fwd, then the
// nearest maxRev of the reverse rows src at distances rd that are not in
// fwd) to dst if dst is not nil, and returns its length. It sorts src and
// rd together.
func mergeRow(dst []int32, fwd []int32, src []int32, rd []float64, maxRev int) int {
	m := copy(dst, fwd)
	if dst == nil {
		m = len(fwd)
	}
	sortPairs(rd, src)
	kept := 0
	for p, i := range src {
		if kept == maxRev {
			break
		}
		if slices.Contains(fwd, i) || (p > 0 && src[p-1] == i) {
			continue
		}
		if dst != nil {
			dst[m] = i
		}
		m++
		kept++
	}
	return m
}

// sortPairs sorts d and idx together by (d, idx) (insertion sort: the lists
// are short).
func sortPairs(d []float64, idx []int32) {
	for a := 1; a < len(d); a++ {
		v, j := d[a], idx[a]
		b := a
		for ; b > 0 && (d[b-1] > v || (d[b-1] == v && idx[b-1] > j)); b-- {
			d[b], idx[b] = d[b-1], idx[b-1]
		}
		d[b], idx[b] = v, j
	}
}

// farthestPoints returns m rows chosen by farthest-point sampling from row
// 0: each next row is the one farthest from those chosen (ties to the
// smaller index). It stops early when every row coincides with a chosen
// one.
func farthestPoints(ctx context.Context, x []float64, n, d, m, threads int) ([]int32, error) {
	const grain = 2048
	mind := make([]float64, n)
	nc := NumChunks(n, grain)
	best := make([]float64, nc)
	arg := make([]int32, nc)
	piv := make([]int32, 0, m)
	c := 0
	for len(piv) < m {
		piv = append(piv, int32(c))
		xc := x[c*d : (c+1)*d]
		first := len(piv) == 1
		err := ParallelFor(ctx, n, threads, grain, func(lo, hi int) {
			b, a := -1.0, int32(-1)
			for i := lo; i < hi; i++ {
				v := SqDist(x[i*d:(i+1)*d], xc)
				if first || v < mind[i] {
					mind[i] = v
				}
				if mind[i] > b {
					b, a = mind[i], int32(i)
				}
			}
			best[lo/grain], arg[lo/grain] = b, a
		})
		if err != nil {
			return nil, err
		}
		b := 0.0
		c = -1
		for k := range nc {
			if best[k] > b {
				b, c = best[k], int(arg[k])
			}
		}
		if c < 0 {
			break
		}
	}
	return piv, nil
}

// SearchScratch holds the working memory of Index.Search. The zero value is
// ready to use; it grows on first use and is then reused, so that searches
// do not allocate. A SearchScratch must not be used by several goroutines
// at once; it may be used with several indexes.
type SearchScratch struct {
	stamp []uint32 // stamp[i] == epoch: walk row i visited in this search
	epoch uint32
	pool  []poolEntry // the beam, ascending by (d, i)
	exact maxHeap     // the k best rows of an exhaustive search or the rerank
	q32   []float32
	kd    []kdVisit // the k-d tree search's stack
	evals int       // distances computed (for the benchmarks)
}

// poolEntry is a row of the beam: walk row i at float32 squared distance d,
// expanded or not yet.
type poolEntry struct {
	d        float32
	i, o     int32
	expanded bool
}

// NewSearchScratch returns a SearchScratch sized for ix.
func NewSearchScratch(ix *Index) *SearchScratch {
	s := &SearchScratch{}
	s.prepare(ix, 0)
	return s
}

func (s *SearchScratch) prepare(ix *Index, k int) {
	if ix.exact || ix.tree != nil {
		return
	}
	if len(s.stamp) < ix.n {
		s.stamp = make([]uint32, ix.n)
		s.epoch = 0
	}
	if len(s.q32) < ix.d {
		s.q32 = make([]float32, ix.d)
	}
	if m := max(ix.beamWidth(k), len(ix.pivots)); cap(s.pool) < m {
		s.pool = make([]poolEntry, 0, m)
	}
}

// beamWidth returns ef for k neighbours: a beam half again as wide as k keeps
// the recall at large k.
func (ix *Index) beamWidth(k int) int {
	if ix.exact || k == 0 {
		return 0
	}
	return min(max(ix.ef, k+k/2), ix.n)
}

// Search writes the k = len(idx) rows of the index nearest to q, in
// increasing order of (squared distance, index), to idx and their squared
// distances (SqDist) to d2. The result depends only on q and the index.
// s may be nil (Search then allocates). It panics unless
// 1 ≤ k ≤ Len(), len(d2) = k and len(q) = Dim(). Search may be called from
// several goroutines at once, each with its own scratch.
func (ix *Index) Search(idx []int32, d2 []float64, q []float64, s *SearchScratch) {
	k := len(idx)
	if k < 1 || k > ix.n || len(d2) != k || len(q) != ix.d {
		panic(fmt.Sprintf("kernels: Index.Search: k = %d, len(d2) = %d, len(q) = %d for %d rows of dimension %d",
			k, len(d2), len(q), ix.n, ix.d))
	}
	if s == nil {
		s = new(SearchScratch)
	}
	if ix.tree != nil {
		h := &s.exact
		if h.k != k {
			*h = newMaxHeap(k)
		}
		h.reset()
		s.kd = ix.tree.search(h, s.kd, q, -1)
		h.drain(idx, d2)
		return
	}
	if ix.exact || !ix.searchGraph(idx, d2, q, s) {
		ix.searchExact(idx, d2, q, s)
	}
}

// searchExact is the exhaustive search, in increasing row order as in KNN.
func (ix *Index) searchExact(idx []int32, d2 []float64, q []float64, s *SearchScratch) {
	k, d := len(idx), ix.d
	h := &s.exact
	if h.k != k {
		*h = newMaxHeap(k)
	}
	h.reset()
	for j := range ix.n {
		xj := ix.x[j*d : (j+1)*d]
		if !h.full() {
			h.push(SqDist(q, xj), int32(j))
			continue
		}
		// j grows, so a tie with the current worst loses.
		if v, ok := sqDistBelow(q, xj, h.d[0]); ok {
			h.push(v, int32(j))
		}
	}
	h.drain(idx, d2)
}

// searchGraph is the beam search; it returns false if it found fewer than
// len(idx) rows.
func (ix *Index) searchGraph(idx []int32, d2 []float64, q []float64, s *SearchScratch) bool {
	k, d, x := len(idx), ix.d, ix.x32
	s.prepare(ix, k)
	s.epoch++
	if s.epoch == 0 {
		clear(s.stamp)
		s.epoch = 1
	}
	ep, stamp := s.epoch, s.stamp
	q32 := s.q32[:d]
	for c, v := range q {
		q32[c] = float32(v * ix.scale)
	}
	ef := ix.beamWidth(k)
	pool := s.pool[:0]
	// insert adds walk row j at distance v to the pool if it is among the
	// ef best so far, and returns its position (ef if not).
	insert := func(v float32, j int32) int {
		o := ix.perm[j]
		lo, hi := 0, len(pool)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if e := pool[m]; e.d < v || (e.d == v && e.o < o) {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo == ef {
			return ef
		}
		if len(pool) < ef {
			pool = pool[:len(pool)+1]
		}
		copy(pool[lo+1:], pool[lo:])
		pool[lo] = poolEntry{d: v, i: j, o: o}
		return lo
	}
	// The pivots are walk rows 0 to len(pivots)-1: one contiguous block.
	// Inserting each pivot keeps the ef best in (distance, index) order, as
	// sorting all of them would, without sorting the ones that fall out.
	for p := range ix.pivots {
		stamp[p] = ep
		insert(sqDist32(q32, x[p*d:(p+1)*d]), int32(p))
	}
	s.evals += len(ix.pivots)
	// Expand the nearest unexpanded row of the pool until there is none.
	for c := 0; c < len(pool); {
		pool[c].expanded = true
		i := pool[c].i
		next := c + 1
		for _, j := range ix.adj[ix.off[i]:ix.off[i+1]] {
			if stamp[j] == ep {
				continue
			}
			stamp[j] = ep
			s.evals++
			v := sqDist32(q32, x[int(j)*d:(int(j)+1)*d])
			if len(pool) == ef {
				if w := pool[ef-1]; v > w.d || (v == w.d && ix.perm[j] > w.o) {
					continue
				}
			}
			if p := insert(v, j); p < next {
				next = p
			}
		}
		for c = next; c < len(pool) && pool[c].expanded; c++ {
		}
	}
	s.pool = pool
	if len(pool) < k {
		return false
	}
	// Rerank the beam with exact distances to the rows of x.
	h := &s.exact
	if h.k != k {
		*h = newMaxHeap(k)
	}
	h.reset()
	for _, e := range pool {
		i := ix.perm[e.i]
		v := SqDist(q, ix.x[int(i)*d:(int(i)+1)*d])
		if !h.full() || v < h.d[0] || (v == h.d[0] && i < h.idx[0]) {
			h.push(v, i)
		}
	}
	h.drain(idx, d2)
	return true
}

// sqDist32 is the squared distance of float32 rows, in eight partial sums
// (one AVX2 register where the CPU has it, with the same bits).
func sqDist32(a, b []float32) float32 {
	b = b[:len(a)]
	if hasAVX2 {
		return sqDist32AVX2(a, b)
	}
	return sqDist32Go(a, b)
}

func sqDist32Go(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	for ; len(a) >= 8; a, b = a[8:], b[8:] {
		u, v := (*[8]float32)(a), (*[8]float32)(b)
		t0, t1, t2, t3 := u[0]-v[0], u[1]-v[1], u[2]-v[2], u[3]-v[3]
		t4, t5, t6, t7 := u[4]-v[4], u[5]-v[5], u[6]-v[6], u[7]-v[7]
		s0 += float32(t0 * t0)
		s1 += float32(t1 * t1)
		s2 += float32(t2 * t2)
		s3 += float32(t3 * t3)
		s4 += float32(t4 * t4)
		s5 += float32(t5 * t5)
		s6 += float32(t6 * t6)
		s7 += float32(t7 * t7)
	}
	b = b[:len(a)]
	for k, u := range a {
		t := u - b[k]
		s0 += float32(t * t)
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}
