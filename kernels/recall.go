package kernels

import (
	"context"
	"math/rand/v2"
	"slices"
)

// DefaultRecallSample is the number of rows whose exact neighbours
// EstimateRecall computes when asked for none: the estimate's standard
// error is about σ/√300 with σ the spread of the rows' recalls (0.03 at a
// mean recall of 0.97 on an isotropic Gaussian), so about 0.002.
const DefaultRecallSample = 300

// EstimateRecall estimates the recall of the neighbour lists idx (n rows of
// k, as ApproxKNN writes them) of the points x (n×d): the mean, over sample
// rows drawn with replacement by a generator seeded with seed, of the share
// of a row's k true nearest neighbours that its list holds. A row's true
// k-th squared distance r comes from an exhaustive scan (O(n·d) per row);
// its list's hits are its entries at squared distance ≤ r, so that ties at
// the k-th distance count as found. sample ≤ 0 uses DefaultRecallSample; a
// sample of at least n rows scores every row once.
func EstimateRecall(ctx context.Context, idx []int32, x []float64, n, d, k, sample int, seed uint64, threads int) (float64, error) {
	checkPoints(x, n, d)
	checkKNN(idx, nil, n, k)
	if n < 2 || k == 0 {
		return 1, nil
	}
	if sample <= 0 {
		sample = DefaultRecallSample
	}
	rows := make([]int, min(sample, n))
	if len(rows) == n {
		for i := range rows {
			rows[i] = i
		}
	} else {
		rng := rand.New(rand.NewPCG(seed, 0x7ec411))
		for i := range rows {
			rows[i] = rng.IntN(n)
		}
	}
	hits := make([]int, len(rows))
	workers := Workers(len(rows), threads, 1)
	dist := make([][]float64, workers)
	near := make([][]float64, workers)
	err := ParallelForWorker(ctx, len(rows), threads, 1, func(w, lo, hi int) {
		if dist[w] == nil {
			dist[w] = make([]float64, n)
		}
		for s := lo; s < hi; s++ {
			i := rows[s]
			SqDistRow(dist[w], x, d, i)
			list := idx[i*k : (i+1)*k]
			// Every true neighbour is at most as far as the list's
			// farthest entry: only those distances need sorting.
			var far float64
			for _, j := range list {
				far = max(far, dist[w][j])
			}
			nr := near[w][:0]
			for j, v := range dist[w] {
				if j != i && v <= far {
					nr = append(nr, v)
				}
			}
			slices.Sort(nr)
			r := nr[k-1]
			for _, j := range list {
				if dist[w][j] <= r {
					hits[s]++
				}
			}
			near[w] = nr
		}
	})
	if err != nil {
		return 0, err
	}
	var total int
	for _, h := range hits {
		total += h
	}
	return float64(total) / float64(len(rows)*k), nil
}
