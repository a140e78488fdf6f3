package kernels

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// mixture draws n points in d dimensions from clusters isotropic Gaussians
// with unit spread around centres drawn with spread sep (clusters = 1 gives
// one isotropic Gaussian).
func mixture(n, d, clusters int, sep float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 11))
	centres := make([]float64, clusters*d)
	for i := range centres {
		centres[i] = sep * rng.NormFloat64()
	}
	x := make([]float64, n*d)
	for i := range n {
		c := rng.IntN(clusters)
		for q := range d {
			x[i*d+q] = centres[c*d+q] + rng.NormFloat64()
		}
	}
	return x
}

// recallOf returns the fraction of the true neighbours of the given rows
// (exact idx rows, in the same order) found in the approximate rows.
func recallOf(approx, exact []int32, rows []int, k int) float64 {
	hit := 0
	for r, i := range rows {
		got := approx[i*k : (i+1)*k]
		for _, j := range exact[r*k : (r+1)*k] {
			if slices.Contains(got, j) {
				hit++
			}
		}
	}
	return float64(hit) / float64(len(rows)*k)
}

func allRows(n int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

func TestApproxKNNRecall(t *testing.T) {
	cases := []struct {
		name              string
		n, d, k, clusters int
	}{
		{"mixture k30", 4000, 50, 30, 10},
		{"mixture k90", 4000, 50, 90, 10},
		{"isotropic k30", 3000, 50, 30, 1},
		{"isotropic k90", 3000, 50, 90, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := mixture(tc.n, tc.d, tc.clusters, 3, 1)
			ctx := context.Background()
			exact := make([]int32, tc.n*tc.k)
			if err := KNN(ctx, exact, nil, x, tc.n, tc.d, tc.k, 0); err != nil {
				t.Fatal(err)
			}
			idx := make([]int32, tc.n*tc.k)
			dist := make([]float64, tc.n*tc.k)
			if err := ApproxKNN(ctx, idx, dist, x, tc.n, tc.d, tc.k, 0, NNDescentSettings{Seed: 7}); err != nil {
				t.Fatal(err)
			}
			rec := recallOf(idx, exact, allRows(tc.n), tc.k)
			t.Logf("recall %.5f", rec)
			if rec < 0.99 {
				t.Errorf("recall %.5f < 0.99", rec)
			}
			checkRows(t, x, idx, dist, tc.n, tc.d, tc.k)
		})
	}
}

// checkRows checks the output contract: no self, no repeats, exact squared
// distances, rows ordered by (distance, index).
func checkRows(t *testing.T, x []float64, idx []int32, dist []float64, n, d, k int) {
	t.Helper()
	for i := range n {
		row := idx[i*k : (i+1)*k]
		seen := map[int32]bool{}
		for s, j := range row {
			if int(j) == i || seen[j] || j < 0 || int(j) >= n {
				t.Fatalf("row %d: bad neighbour %d at %d", i, j, s)
			}
			seen[j] = true
			want := SqDist(x[i*d:(i+1)*d], x[int(j)*d:int(j+1)*d])
			if dist[i*k+s] != want {
				t.Fatalf("row %d slot %d: dist %v, want %v", i, s, dist[i*k+s], want)
			}
			if s > 0 {
				pd, pj := dist[i*k+s-1], row[s-1]
				if pd > dist[i*k+s] || (pd == dist[i*k+s] && pj > j) {
					t.Fatalf("row %d: slots %d and %d out of order", i, s-1, s)
				}
			}
		}
	}
}

func TestApproxKNNDeterministic(t *testing.T) {
	const n, d, k = 3000, 20, 15
	x := mixture(n, d, 5, 3, 2)
	run := func(threads int, seed uint64) []int32 {
		idx := make([]int32, n*k)
		if err := ApproxKNN(context.Background(), idx, nil, x, n, d, k, threads, NNDescentSettings{Seed: seed}); err != nil {
			t.Fatal(err)
		}
		return idx
	}
	ref := run(1, 3)
	for _, tc := range []struct {
		name    string
		threads int
	}{{"same threads", 1}, {"two threads", 2}, {"four threads", 4}} {
		if got := run(tc.threads, 3); !slices.Equal(got, ref) {
			t.Errorf("%s: graph differs from the one-thread run", tc.name)
		}
	}
}

func TestApproxKNNDuplicates(t *testing.T) {
	// Every point appears three times and many distances tie: the rows must
	// still hold the duplicates at distance 0 and follow (distance, index).
	const base, d, k = 1000, 8, 10
	rng := rand.New(rand.NewPCG(4, 4))
	n := 3 * base
	x := make([]float64, n*d)
	for i := range base {
		for q := range d {
			v := float64(rng.IntN(3)) // coarse grid: many ties
			for c := range 3 {
				x[(c*base+i)*d+q] = v
			}
		}
	}
	ctx := context.Background()
	exact := make([]int32, n*k)
	edist := make([]float64, n*k)
	if err := KNN(ctx, exact, edist, x, n, d, k, 0); err != nil {
		t.Fatal(err)
	}
	idx := make([]int32, n*k)
	dist := make([]float64, n*k)
	if err := ApproxKNN(ctx, idx, dist, x, n, d, k, 0, NNDescentSettings{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	checkRows(t, x, idx, dist, n, d, k)
	// With ties the neighbour sets may differ, but the distances may not
	// exceed the exact ones slot by slot by much: compare recall of distances.
	worse := 0
	for s := range dist {
		if dist[s] > edist[s] {
			worse++
		}
	}
	if frac := float64(worse) / float64(len(dist)); frac > 0.01 {
		t.Errorf("%.4f of slots farther than exact", frac)
	}
	for i := range base {
		row := idx[i*k : (i+1)*k]
		if !slices.Contains(row, int32(base+i)) || !slices.Contains(row, int32(2*base+i)) {
			t.Fatalf("row %d misses its duplicates: %v", i, row)
		}
	}
}

func TestApproxKNNSmallFallsBackToExact(t *testing.T) {
	cases := []struct {
		name    string
		n, k    int
		setting NNDescentSettings
	}{
		{"below threshold", 500, 10, NNDescentSettings{}},
		{"k large for n", 3000, 400, NNDescentSettings{}},
		{"tiny", 3, 2, NNDescentSettings{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const d = 5
			x := mixture(tc.n, d, 2, 3, 5)
			exact := make([]int32, tc.n*tc.k)
			if err := KNN(context.Background(), exact, nil, x, tc.n, d, tc.k, 0); err != nil {
				t.Fatal(err)
			}
			idx := make([]int32, tc.n*tc.k)
			if err := ApproxKNN(context.Background(), idx, nil, x, tc.n, d, tc.k, 0, tc.setting); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(idx, exact) {
				t.Error("result differs from exact KNN")
			}
		})
	}
}

func TestApproxKNNCancelled(t *testing.T) {
	const n, d, k = 3000, 10, 10
	x := mixture(n, d, 3, 3, 6)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	idx := make([]int32, n*k)
	if err := ApproxKNN(ctx, idx, nil, x, n, d, k, 2, NNDescentSettings{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestNNDBlocking: a local-join block's worst-case updates stay within the
// budget (down to the floor of 64 points), and blocks split into several
// source chunks for the workers.
func TestNNDBlocking(t *testing.T) {
	for _, mc := range []int{1, 60, 120, 244, 2000} {
		block, grain := nndBlocking(mc)
		worst := block * 3 * mc * mc * int(unsafe.Sizeof(nndUpdate{}))
		switch {
		case block < 64 || block > nndBlock:
			t.Errorf("c = %d: block %d outside [64, %d]", mc, block, nndBlock)
		case block > 64 && worst > nndUpdateBudget:
			t.Errorf("c = %d: block %d may buffer %d bytes, over the budget %d", mc, block, worst, nndUpdateBudget)
		case grain < 1 || grain > nndGrain || (block >= 128 && NumChunks(block, grain) < 8):
			t.Errorf("c = %d: block %d in chunks of %d", mc, block, grain)
		}
	}
}

// TestNNDBufferByTarget checks the grouping of a source chunk's updates by
// target chunk against a filter of the original order: every chunk gets
// exactly its updates, in the order they were made (the apply pass, and so
// the graph, depends on that order).
func TestNNDBufferByTarget(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name           string
		updates, chunk int
	}{{"empty", 0, 5}, {"one chunk", 50, 1}, {"spread", 2000, 7}, {"second use, fewer", 30, 7}} {
		var b nndBuffer
		if tc.name == "second use, fewer" {
			b.ups = make([]nndUpdate, 500) // leftovers of an earlier, larger block
			b.byTarget(tc.chunk)
		}
		b.ups = b.ups[:0]
		for u := range tc.updates {
			b.ups = append(b.ups, nndUpdate{v: float64(u), target: int32(rng.IntN(tc.chunk * nndTargets)), other: int32(u)})
		}
		b.byTarget(tc.chunk)
		total := 0
		for c := range tc.chunk {
			var want []nndUpdate
			for _, up := range b.ups {
				if int(up.target)/nndTargets == c {
					want = append(want, up)
				}
			}
			got := b.target(c)
			total += len(got)
			if len(got) != len(want) {
				t.Errorf("%s: chunk %d has %d updates, want %d", tc.name, c, len(got), len(want))
				continue
			}
			for p := range want {
				if got[p] != want[p] {
					t.Errorf("%s: chunk %d update %d = %+v, want %+v", tc.name, c, p, got[p], want[p])
					break
				}
			}
		}
		if total != tc.updates {
			t.Errorf("%s: %d updates grouped, want %d", tc.name, total, tc.updates)
		}
	}
}
