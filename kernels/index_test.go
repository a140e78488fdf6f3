package kernels

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// indexClusters draws n rows of dimension d from six clusters of unequal
// size (40 % down to one tiny cluster of 0.5 % far from the others). Each
// row is centre + A·z + noise with z of dimension r; r = 0 gives isotropic
// unit Gaussians instead, whose neighbours are much harder to find in
// high dimension. Queries are further rows of the same stream.
func indexClusters(rng *rand.Rand, n, d, r int) []float64 {
	weights := []float64{0.4, 0.25, 0.15, 0.1, 0.095, 0.005}
	centres := make([][]float64, len(weights))
	maps := make([][]float64, len(weights))
	for c := range centres {
		centres[c] = make([]float64, d)
		for j := range d {
			centres[c][j] = 3 * rng.NormFloat64()
		}
		maps[c] = make([]float64, d*r)
		for j := range maps[c] {
			maps[c][j] = rng.NormFloat64() / 2
		}
	}
	for j := range d {
		centres[len(weights)-1][j] += 10
	}
	x := make([]float64, n*d)
	z := make([]float64, r)
	for i := range n {
		u := rng.Float64()
		c := 0
		for ; c < len(weights)-1 && u >= weights[c]; c++ {
			u -= weights[c]
		}
		for a := range z {
			z[a] = rng.NormFloat64()
		}
		for j := range d {
			var v float64
			if r == 0 {
				v = centres[c][j] + rng.NormFloat64()
			} else {
				v = centres[c][j] + 0.1*rng.NormFloat64()
				for a := range r {
					v += maps[c][j*r+a] * z[a]
				}
			}
			x[i*d+j] = v
		}
	}
	return x
}

func indexCube(rng *rand.Rand, n, d int) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.Float64()
	}
	return x
}

// indexDuplicates draws n/m distinct rows of low-rank clusters, each
// repeated m times, in a shuffled order.
func indexDuplicates(rng *rand.Rand, n, d, m int) []float64 {
	u := indexClusters(rng, (n+m-1)/m, d, 8)
	x := make([]float64, n*d)
	perm := rng.Perm(n)
	for i, p := range perm {
		copy(x[i*d:(i+1)*d], u[(p/m)*d:(p/m+1)*d])
	}
	return x
}

// indexNearCopies draws n/m distinct rows of low-rank clusters, each
// repeated m times with relative changes of about 1e-12 (equal in
// float32, not in float64), in a shuffled order.
func indexNearCopies(rng *rand.Rand, n, d, m int) []float64 {
	u := indexClusters(rng, (n+m-1)/m, d, 8)
	x := make([]float64, n*d)
	for i, p := range rng.Perm(n) {
		for c, v := range u[(p/m)*d : (p/m+1)*d] {
			x[i*d+c] = v * (1 + 1e-12*rng.NormFloat64())
		}
	}
	return x
}

// indexScaled returns x times s.
func indexScaled(x []float64, s float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v * s
	}
	return y
}

// bruteSearch sorts every row by (SqDist, index) and returns the first k.
func bruteSearch(x []float64, n, d int, q []float64, k int) ([]int32, []float64) {
	idx := make([]int32, n)
	dist := make([]float64, n)
	for j := range n {
		idx[j] = int32(j)
		dist[j] = SqDist(q, x[j*d:(j+1)*d])
	}
	slices.SortFunc(idx, func(a, b int32) int {
		return cmp.Or(cmp.Compare(dist[a], dist[b]), cmp.Compare(a, b))
	})
	out := make([]float64, k)
	for p, j := range idx[:k] {
		out[p] = dist[j]
	}
	return idx[:k], out
}

// checkSearchResult fails unless idx is distinct, ascending by (d2, index),
// and d2 holds SqDist to each row bit for bit.
func checkSearchResult(t *testing.T, name string, x []float64, d int, q []float64, idx []int32, d2 []float64) {
	t.Helper()
	seen := map[int32]bool{}
	for p, j := range idx {
		if seen[j] {
			t.Fatalf("%s: row %d appears twice in %v", name, j, idx)
		}
		seen[j] = true
		if want := SqDist(q, x[int(j)*d:(int(j)+1)*d]); d2[p] != want {
			t.Fatalf("%s: distance %d to row %d is %v, SqDist gives %v", name, p, j, d2[p], want)
		}
		if p > 0 && (d2[p] < d2[p-1] || (d2[p] == d2[p-1] && j < idx[p-1])) {
			t.Fatalf("%s: results %d and %d out of order: (%v, %d) after (%v, %d)", name, p-1, p, d2[p], j, d2[p-1], idx[p-1])
		}
	}
}

type indexCase struct {
	name  string
	x     []float64 // n+nq rows: reference rows, then queries
	n, d  int
	graph int // columns of a KNN graph to give NewIndex; 0: let it build one
	ks    []int
	// recall is the floor on recall@k of the graph search; the measured
	// value is in the comment of each case.
	recall float64
}

func indexCases() []indexCase {
	const nq = 200
	rng := rand.New(rand.NewPCG(13, 1))
	return []indexCase{
		// Measured recall: 1.000 at k = 15 and 90.
		{"low-rank clusters n=5000 d=50", indexClusters(rng, 5000+nq, 50, 8), 5000, 50, 30, []int{15, 90}, 0.99},
		// Measured recall: 0.990 at k = 15, 0.999 at k = 90.
		{"isotropic clusters n=5000 d=20", indexClusters(rng, 5000+nq, 20, 0), 5000, 20, 0, []int{15, 90}, 0.98},
		// Measured recall: 0.997 at k = 15, 1.000 at k = 90.
		{"uniform cube n=5000 d=10", indexCube(rng, 5000+nq, 10), 5000, 10, 0, []int{15, 90}, 0.99},
		// Measured recall: 0.995 at k = 15, 0.991 at k = 90.
		{"duplicates ×4 n=4000 d=20", indexDuplicates(rng, 4000+nq, 20, 4), 4000, 20, 20, []int{15, 90}, 0.98},
	}
}

func TestIndexSearch(t *testing.T) {
	ctx := context.Background()
	for _, c := range indexCases() {
		x := c.x[:c.n*c.d]
		var graph []int32
		if c.graph > 0 {
			graph = make([]int32, c.n*c.graph)
			if err := KNN(ctx, graph, nil, x, c.n, c.d, c.graph, 0); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		ix, err := NewIndex(ctx, x, c.n, c.d, graph, c.graph, IndexOptions{}, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if ix.exact {
			t.Fatalf("%s: n = %d gives an exhaustive index", c.name, c.n)
		}
		exact, err := NewIndex(ctx, x, c.n, c.d, nil, 0, IndexOptions{Exact: true}, 0)
		if err != nil {
			t.Fatalf("%s exact: %v", c.name, err)
		}
		var s, se SearchScratch
		nq := len(c.x)/c.d - c.n
		for _, k := range c.ks {
			idx, d2 := make([]int32, k), make([]float64, k)
			hits := 0
			for qi := range nq {
				q := c.x[(c.n+qi)*c.d : (c.n+qi+1)*c.d]
				name := fmt.Sprintf("%s k=%d query %d", c.name, k, qi)
				want, wantD := bruteSearch(x, c.n, c.d, q, k)
				exact.Search(idx, d2, q, &se)
				if !slices.Equal(idx, want) || !slices.Equal(d2, wantD) {
					t.Fatalf("%s: exact search gives %v %v, want %v %v", name, idx, d2, want, wantD)
				}
				ix.Search(idx, d2, q, &s)
				checkSearchResult(t, name, x, c.d, q, idx, d2)
				for _, j := range idx {
					if slices.Contains(want, j) {
						hits++
					}
				}
			}
			recall := float64(hits) / float64(nq*k)
			t.Logf("%s k=%d: recall %.4f", c.name, k, recall)
			if recall < c.recall {
				t.Errorf("%s k=%d: recall %.4f < %v", c.name, k, recall, c.recall)
			}
		}
	}
}

// TestIndexCoincident searches for reference rows themselves: the nearest
// row must be the first row equal to the query, at distance 0.
func TestIndexCoincident(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(13, 2))
	for _, c := range []struct {
		name string
		x    []float64
		n, d int
		o    IndexOptions
	}{
		{"isotropic clusters", indexClusters(rng, 3000, 20, 0), 3000, 20, IndexOptions{}},
		{"duplicates ×2", indexDuplicates(rng, 3000, 20, 2), 3000, 20, IndexOptions{}},
		// Copies share the beam: five copies need a beam five times wider.
		{"duplicates ×5, Ef 160", indexDuplicates(rng, 3000, 20, 5), 3000, 20, IndexOptions{Ef: 160}},
		// Copies that differ below float32's resolution tie in the walk;
		// the exact ranking must still put the row itself first. Near
		// copies use up edges and beam as copies do: Ef four times wider.
		{"near copies ×4, Ef 128", indexNearCopies(rng, 3000, 20, 4), 3000, 20, IndexOptions{Ef: 128}},
		// Coordinates whose squares underflow, or overflow, float32.
		{"scale 1e-30", indexScaled(indexClusters(rng, 3000, 20, 0), 1e-30), 3000, 20, IndexOptions{}},
		{"scale 1e30", indexScaled(indexClusters(rng, 3000, 20, 0), 1e30), 3000, 20, IndexOptions{}},
	} {
		ix, err := NewIndex(ctx, c.x, c.n, c.d, nil, 0, c.o, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		first := map[string]int32{}
		for i := c.n - 1; i >= 0; i-- {
			first[fmt.Sprint(c.x[i*c.d:(i+1)*c.d])] = int32(i)
		}
		idx, d2 := make([]int32, 10), make([]float64, 10)
		var s SearchScratch
		for i := 0; i < c.n; i += 7 {
			q := c.x[i*c.d : (i+1)*c.d]
			ix.Search(idx, d2, q, &s)
			if want := first[fmt.Sprint(q)]; idx[0] != want || d2[0] != 0 {
				t.Fatalf("%s: row %d finds (%d, %v) first, want (%d, 0)", c.name, i, idx[0], d2[0], want)
			}
		}
	}
}

// TestIndexDeterminism: a query's result does not depend on what was
// searched before, on the goroutine, or on NewIndex's thread count.
func TestIndexDeterminism(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(13, 3))
	const n, d, k, nq = 4000, 20, 25, 300
	all := indexClusters(rng, n+nq, d, 0)
	x, qs := all[:n*d], all[n*d:]
	var ixs []*Index
	for _, threads := range threadCounts {
		ix, err := NewIndex(ctx, x, n, d, nil, 0, IndexOptions{}, threads)
		if err != nil {
			t.Fatalf("threads=%d: %v", threads, err)
		}
		ixs = append(ixs, ix)
	}
	for a, ix := range ixs[1:] {
		if !slices.Equal(ix.off, ixs[0].off) || !slices.Equal(ix.adj, ixs[0].adj) || !slices.Equal(ix.pivots, ixs[0].pivots) {
			t.Fatalf("threads=%d: the graph or pivots differ from threads=%d's", threadCounts[a+1], threadCounts[0])
		}
	}
	ix := ixs[0]
	// Alone, each with a fresh scratch.
	alone := make([]int32, nq*k)
	aloneD := make([]float64, nq*k)
	for q := range nq {
		ix.Search(alone[q*k:(q+1)*k], aloneD[q*k:(q+1)*k], qs[q*d:(q+1)*d], nil)
	}
	// In reverse order with one scratch, and from two goroutines at once
	// with interleaved queries.
	check := func(name string, q int, idx []int32, d2 []float64) {
		t.Helper()
		if !slices.Equal(idx, alone[q*k:(q+1)*k]) || !slices.Equal(d2, aloneD[q*k:(q+1)*k]) {
			t.Errorf("%s: query %d gives %v, alone %v", name, q, idx, alone[q*k:(q+1)*k])
		}
	}
	s := NewSearchScratch(ix)
	idx, d2 := make([]int32, k), make([]float64, k)
	for q := nq - 1; q >= 0; q-- {
		ix.Search(idx, d2, qs[q*d:(q+1)*d], s)
		check("reverse order, shared scratch", q, idx, d2)
	}
	var wg sync.WaitGroup
	got := make([]int32, 2*nq*k)
	gotD := make([]float64, 2*nq*k)
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s SearchScratch
			for q := g; q < nq; q += 1 + g {
				p := (g*nq + q) * k
				ix.Search(got[p:p+k], gotD[p:p+k], qs[q*d:(q+1)*d], &s)
			}
		}()
	}
	wg.Wait()
	for g := range 2 {
		for q := g; q < nq; q += 1 + g {
			p := (g*nq + q) * k
			check(fmt.Sprintf("goroutine %d", g), q, got[p:p+k], gotD[p:p+k])
		}
	}
	// The epoch wraps around: stamps are cleared, results unchanged.
	s.epoch = math.MaxUint32 - 1
	for q := range 3 {
		ix.Search(idx, d2, qs[q*d:(q+1)*d], s)
		check("epoch wrap", q, idx, d2)
	}
	if allocs := testing.AllocsPerRun(20, func() { ix.Search(idx, d2, qs[:d], s) }); allocs != 0 {
		t.Errorf("Search allocates %v times per call after warm-up", allocs)
	}
}

// TestIndexLayout checks the walk order against its definition: a
// permutation with the pivots first, the float32 rows those of x times a
// power of two, and the renumbered graph the same edges as one built
// without renumbering would have.
func TestIndexLayout(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(13, 7))
	const n, d = 3000, 12
	x := indexScaled(indexClusters(rng, n, d, 0), 37)
	ix, err := NewIndex(ctx, x, n, d, nil, 0, IndexOptions{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	big := 0.0
	for _, v := range x {
		big = max(big, math.Abs(v))
	}
	if frac, _ := math.Frexp(ix.scale); big*ix.scale < 0.5 || big*ix.scale >= 1 || frac != 0.5 {
		t.Errorf("scale %v for coordinates up to %v: want a power of two that brings them to [0.5, 1)", ix.scale, big)
	}
	seen := make([]bool, n)
	for a, i := range ix.perm {
		if seen[i] {
			t.Fatalf("row %d appears twice in perm", i)
		}
		seen[i] = true
		if a < len(ix.pivots) && i != ix.pivots[a] {
			t.Fatalf("walk row %d is row %d, want pivot %d", a, i, ix.pivots[a])
		}
		for c := range d {
			if got, want := ix.x32[a*d+c], float32(x[int(i)*d+c]*ix.scale); got != want {
				t.Fatalf("walk row %d (row %d) coordinate %d is %v, want %v", a, i, c, got, want)
			}
		}
	}
	// The edges of row i, in walk order mapped back, equal those of a
	// graph built on x directly.
	ref := &Index{x: x, n: n, d: d}
	g := min(2*defaultIndexDegree, n-1)
	graph := make([]int32, n*g)
	if err := KNN(ctx, graph, nil, x, n, d, g, 0); err != nil {
		t.Fatal(err)
	}
	if err := ref.buildGraph(ctx, graph, nil, g, defaultIndexDegree, defaultIndexDegree, 0); err != nil {
		t.Fatal(err)
	}
	for a, i := range ix.perm {
		var got []int32
		for _, j := range ix.adj[ix.off[a]:ix.off[a+1]] {
			got = append(got, ix.perm[j])
		}
		if want := ref.adj[ref.off[i]:ref.off[i+1]]; !slices.Equal(got, want) {
			t.Fatalf("row %d (walk row %d): edges %v, want %v", i, a, got, want)
		}
	}
}

// TestIndexFullBeam: with a beam as wide as the index, the graph search
// sees every row and its exact ranking must equal brute force bit for bit.
func TestIndexFullBeam(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(13, 8))
	for _, c := range []struct {
		name string
		x    []float64
		n, d int
	}{
		{"isotropic clusters", indexClusters(rng, 400+20, 8, 0), 400, 8},
		{"near copies ×4", indexNearCopies(rng, 400+20, 8, 4), 400, 8},
	} {
		x := c.x[:c.n*c.d]
		ix, err := NewIndex(ctx, x, c.n, c.d, nil, 0, IndexOptions{ExactBelow: 1, Ef: c.n}, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		const k = 10
		idx, d2 := make([]int32, k), make([]float64, k)
		var s SearchScratch
		for qi := range len(c.x)/c.d - c.n {
			q := c.x[(c.n+qi)*c.d : (c.n+qi+1)*c.d]
			ix.Search(idx, d2, q, &s)
			if want, wantD := bruteSearch(x, c.n, c.d, q, k); !slices.Equal(idx, want) || !slices.Equal(d2, wantD) {
				t.Fatalf("%s query %d: %v %v, want %v %v", c.name, qi, idx, d2, want, wantD)
			}
		}
	}
}

func TestIndexSmall(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(13, 4))
	for _, c := range []struct {
		name string
		n, d int
		o    IndexOptions
	}{
		{"one row", 1, 3, IndexOptions{}},
		{"two rows, graph", 2, 2, IndexOptions{ExactBelow: 1}},
		{"below ExactBelow", 500, 5, IndexOptions{}},
		{"tiny graph, k > Ef", 60, 4, IndexOptions{ExactBelow: 10, Degree: 3, Ef: 2, Pivots: 1}},
	} {
		x := indexCube(rng, c.n, c.d)
		ix, err := NewIndex(ctx, x, c.n, c.d, nil, 0, c.o, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, k := range []int{1, c.n} {
			idx, d2 := make([]int32, k), make([]float64, k)
			q := indexCube(rng, 1, c.d)
			ix.Search(idx, d2, q, nil)
			// A graph search may miss the nearest row, but for k = n it
			// must find all.
			want, wantD := bruteSearch(x, c.n, c.d, q, k)
			if (ix.exact || k == c.n) && (!slices.Equal(idx, want) || !slices.Equal(d2, wantD)) {
				t.Errorf("%s k=%d: %v %v, want %v %v", c.name, k, idx, d2, want, wantD)
			}
			checkSearchResult(t, fmt.Sprintf("%s k=%d", c.name, k), x, c.d, q, idx, d2)
		}
	}
}

func TestIndexErrors(t *testing.T) {
	ctx := context.Background()
	x := indexCube(rand.New(rand.NewPCG(13, 5)), 10, 2)
	for _, c := range []struct {
		name  string
		graph []int32
	}{
		{"negative entry", []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, -1}},
		{"entry n", []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
	} {
		if _, err := NewIndex(ctx, x, 10, 2, c.graph, 1, IndexOptions{ExactBelow: 1}, 0); !errors.Is(err, ErrGraph) {
			t.Errorf("%s: error %v, want ErrGraph", c.name, err)
		}
	}
	ix, err := NewIndex(ctx, x, 10, 2, nil, 0, IndexOptions{ExactBelow: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		fn   func()
	}{
		{"len(x)", func() { _, _ = NewIndex(ctx, x[:5], 10, 2, nil, 0, IndexOptions{}, 0) }},
		{"len(graph)", func() { _, _ = NewIndex(ctx, x, 10, 2, make([]int32, 9), 1, IndexOptions{}, 0) }},
		{"k = 0", func() { ix.Search(nil, nil, x[:2], nil) }},
		{"k > n", func() { ix.Search(make([]int32, 11), make([]float64, 11), x[:2], nil) }},
		{"len(d2)", func() { ix.Search(make([]int32, 2), make([]float64, 1), x[:2], nil) }},
		{"len(q)", func() { ix.Search(make([]int32, 2), make([]float64, 2), x[:3], nil) }},
	} {
		if !panics(c.fn) {
			t.Errorf("%s: no panic", c.name)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := NewIndex(cctx, x, 10, 2, nil, 0, IndexOptions{ExactBelow: 1}, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
}

// With few features the index searches a k-d tree: exact, the exhaustive
// search's rows and distances, ties on a grid and copies of reference rows
// included.
func TestIndexTree(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(8, 3))
	for _, d := range []int{1, 3, KDTreeMaxDims} {
		const n = 3000
		x := make([]float64, n*d)
		for i := range x {
			x[i] = float64(rng.IntN(7)) // many ties
		}
		ix, err := NewIndex(ctx, x, n, d, nil, 0, IndexOptions{}, 2)
		if err != nil {
			t.Fatal(err)
		}
		if ix.tree == nil {
			t.Fatalf("d = %d: no tree", d)
		}
		var s SearchScratch
		for qi := range 60 {
			q := make([]float64, d)
			if qi%3 == 0 {
				copy(q, x[qi*d:(qi+1)*d]) // a reference row itself
			} else {
				for c := range q {
					q[c] = 7 * rng.Float64()
				}
			}
			for _, k := range []int{1, 25} {
				want, wantD := bruteSearch(x, n, d, q, k)
				idx, d2 := make([]int32, k), make([]float64, k)
				ix.Search(idx, d2, q, &s)
				if !slices.Equal(idx, want) || !slicesEqualBits(d2, wantD) {
					t.Fatalf("d = %d, query %d, k = %d: tree gives %v, exhaustive %v", d, qi, k, idx, want)
				}
			}
		}
	}
}
