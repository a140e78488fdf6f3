package quality

import (
	"cmp"
	"math"
	"slices"
)

// This file holds a plain reference implementation of every neighbourhood
// metric: full N×N distance and rank matrices and the formulas of doc.go
// evaluated literally, with no shared code.

func refDistances(x []float64, n, dim int) [][]float64 {
	dm := make([][]float64, n)
	for i := range n {
		dm[i] = make([]float64, n)
		for j := range n {
			// The formula documented in package kernels, so that near ties
			// break the same way.
			var s [4]float64
			for c := range dim {
				t := x[i*dim+c] - x[j*dim+c]
				s[c%4] = math.FMA(t, t, s[c%4])
			}
			dm[i][j] = (s[0] + s[1]) + (s[2] + s[3])
		}
	}
	return dm
}

// refRanks returns rank[i][j] (nearest = 1, self = 0) and the neighbour
// order of each row, ties by index.
func refRanks(dm [][]float64) (rank [][]int, order [][]int) {
	n := len(dm)
	rank = make([][]int, n)
	order = make([][]int, n)
	for i := range n {
		var js []int
		for j := range n {
			if j != i {
				js = append(js, j)
			}
		}
		slices.SortStableFunc(js, func(a, b int) int { return cmp.Compare(dm[i][a], dm[i][b]) })
		rank[i] = make([]int, n)
		for p, j := range js {
			rank[i][j] = p + 1
		}
		order[i] = js
	}
	return rank, order
}

func refG(n, k int) float64 {
	N, K := float64(n), float64(k)
	if K < N/2 {
		return 2 / (N * K * (2*N - 3*K - 1))
	}
	return 2 / (N * (N - K) * (N - K - 1))
}

type rowKey struct {
	metric string
	k      int
	subset string
}

// refKNNPredict predicts the class of i from its k nearest neighbours:
// the most frequent class; among tied classes, the one whose nearest member
// has the smallest rank.
func refKNNPredict(order []int, classes []int, k int) int {
	count := map[int]int{}
	for _, j := range order[:k] {
		count[classes[j]]++
	}
	most := 0
	for _, c := range count {
		most = max(most, c)
	}
	for _, j := range order[:k] { // the first tied class met is the nearest
		if count[classes[j]] == most {
			return classes[j]
		}
	}
	panic("unreachable")
}

// reference computes every metric Evaluate reports except the ordinal ones.
func reference(x []float64, D int, y []float64, d int, classes []int, ks []int) map[rowKey]float64 {
	return referenceOf(x, D, y, d, classes, ks, nil)
}

// referenceOf is reference for the query points qs (nil: every point),
// each ranked among all points, the sums normalised by len(qs).
func referenceOf(x []float64, D int, y []float64, d int, classes []int, ks []int, qs []int) map[rowKey]float64 {
	n := len(x) / D
	if qs == nil {
		for i := range n {
			qs = append(qs, i)
		}
	}
	rX, oX := refRanks(refDistances(x, n, D))
	rY, oY := refRanks(refDistances(y, n, d))
	out := map[rowKey]float64{}
	N, M := float64(n), float64(len(qs))
	for _, k := range ks {
		var tAll, tIntra, tInter, cAll, cIntra, cInter float64
		for _, i := range qs {
			for j := range n {
				if j == i {
					continue
				}
				same := classes != nil && classes[i] == classes[j]
				if rY[i][j] <= k && rX[i][j] > k { // intrusion
					pen := float64(rX[i][j] - k)
					tAll += pen
					if same {
						tIntra += pen
					} else {
						tInter += pen
					}
				}
				if rX[i][j] <= k && rY[i][j] > k { // extrusion
					pen := float64(rY[i][j] - k)
					cAll += pen
					if same {
						cIntra += pen
					} else {
						cInter += pen
					}
				}
			}
		}
		g := refG(n, k) * N / M
		out[rowKey{MetricTrustworthiness, k, SubsetAll}] = 1 - g*tAll
		out[rowKey{MetricContinuity, k, SubsetAll}] = 1 - g*cAll
		if classes != nil {
			out[rowKey{MetricTrustworthiness, k, SubsetIntra}] = 1 - g*tIntra
			out[rowKey{MetricTrustworthiness, k, SubsetInter}] = 1 - g*tInter
			out[rowKey{MetricContinuity, k, SubsetIntra}] = 1 - g*cIntra
			out[rowKey{MetricContinuity, k, SubsetInter}] = 1 - g*cInter
		}
	}
	rnxAt := func(k int) float64 {
		overlap := 0
		for _, i := range qs {
			for j := range n {
				if j != i && rX[i][j] <= k && rY[i][j] <= k {
					overlap++
				}
			}
		}
		q := float64(overlap) / (float64(k) * M)
		return ((N-1)*q - float64(k)) / (N - 1 - float64(k))
	}
	for _, k := range ks {
		out[rowKey{MetricRNX, k, SubsetAll}] = rnxAt(k)
	}
	var num, den float64
	for k := 1; k <= n-2; k++ {
		num += rnxAt(k) / float64(k)
		den += 1 / float64(k)
	}
	out[rowKey{MetricRNXAUC, 0, SubsetAll}] = num / den
	if classes == nil {
		return out
	}
	for _, s := range []struct {
		subset string
		order  [][]int
	}{{SubsetEmbedding, oY}, {SubsetInput, oX}} {
		for _, k := range ks {
			right := 0
			for _, i := range qs {
				if refKNNPredict(s.order[i], classes, k) == classes[i] {
					right++
				}
			}
			out[rowKey{MetricKNNAccuracy, k, s.subset}] = float64(right) / M
		}
		wrong := 0
		for _, i := range qs {
			if classes[s.order[i][0]] != classes[i] {
				wrong++
			}
		}
		out[rowKey{MetricNNError, 1, s.subset}] = float64(wrong) / M
	}
	for _, k := range ks {
		var gain float64
		for _, i := range qs {
			for _, j := range oY[i][:k] {
				if classes[j] == classes[i] {
					gain++
				}
			}
			for _, j := range oX[i][:k] {
				if classes[j] == classes[i] {
					gain--
				}
			}
		}
		out[rowKey{MetricKNNGain, k, SubsetAll}] = gain / (M * float64(k))
	}
	return out
}
