package kernels

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// BenchmarkIndex measures NewIndex (from a given 30-NN graph, as a fitted
// t-SNE has) and Search at k = 25 (t-SNE) and 96 (NeRV) for 20,000
// reference rows of dimension 50 drawn from low-rank clusters, with the
// recall@k of 500 held-out queries against exhaustive search and the
// distances computed per query. The exhaustive search is reported too.
func BenchmarkIndex(b *testing.B) {
	const n, d, g, nq = 20_000, 50, 30, 500
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(13, 6))
	all := indexClusters(rng, n+nq, d, 8)
	x, qs := all[:n*d], all[n*d:]
	graph := make([]int32, n*g)
	if err := KNN(ctx, graph, nil, x, n, d, g, 0); err != nil {
		b.Fatal(err)
	}
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			if _, err := NewIndex(ctx, x, n, d, graph, g, IndexOptions{}, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	ix, err := NewIndex(ctx, x, n, d, graph, g, IndexOptions{}, 0)
	if err != nil {
		b.Fatal(err)
	}
	exact, _ := NewIndex(ctx, x, n, d, nil, 0, IndexOptions{Exact: true}, 0)
	for _, k := range []int{25, 96} {
		truth := make([]int32, nq*k)
		d2 := make([]float64, k)
		for q := range nq {
			exact.Search(truth[q*k:(q+1)*k], d2, qs[q*d:(q+1)*d], nil)
		}
		idx := make([]int32, k)
		s := NewSearchScratch(ix)
		hits := 0
		for q := range nq {
			ix.Search(idx, d2, qs[q*d:(q+1)*d], s)
			for _, j := range idx {
				if slices.Contains(truth[q*k:(q+1)*k], j) {
					hits++
				}
			}
		}
		evals := float64(s.evals) / nq
		b.Run(fmt.Sprintf("search k=%d", k), func(b *testing.B) {
			q := 0
			for b.Loop() {
				ix.Search(idx, d2, qs[q*d:(q+1)*d], s)
				q = (q + 1) % nq
			}
			b.ReportMetric(float64(hits)/float64(nq*k), "recall")
			b.ReportMetric(evals, "dists/query")
		})
		b.Run(fmt.Sprintf("exhaustive k=%d", k), func(b *testing.B) {
			q := 0
			for b.Loop() {
				exact.Search(idx, d2, qs[q*d:(q+1)*d], s)
				q = (q + 1) % nq
			}
		})
	}
}
