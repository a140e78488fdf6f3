package quality

import (
	"fmt"
	"math"
	"slices"

	"github.com/ordinate/ordinate/transforms/triplets"
)

// Triplet metrics for one map per aspect (Le and Lauw, IJCAI 2019).
//
// maps[t] is the row-major n×dims map of aspect t; a single map is passed as
// the same slice for every aspect. A triplet ⟨i, j, k⟩ₜ says that j is more
// similar to i than to k under aspect t, so its anchor is j.
//
// Averages are over aspects (macro averages), as in Eq. 10 of the paper; an
// aspect with nothing to score has a NaN entry and is left out of the mean
// (the mean is NaN when every aspect is). Sizes that do not match panic:
// they are programmer errors.

// TripletAccuracy returns, per aspect t, the share of its triplets that map
// t preserves, and their mean over aspects (Eq. 10 of Le and Lauw):
//
//	acc_t = |{⟨i,j,k⟩ₜ : ‖y_j − y_i‖ < ‖y_j − y_k‖}| / |N_t|.
//
// The inequality is strict, so a tie counts as violated. Distances are
// compared squared, which gives the same order without rounding in a square
// root. Every aspect value of t must index maps.
func TripletAccuracy(t *triplets.Table, maps [][]float64, dims int) (perAspect []float64, mean float64) {
	checkMaps(maps, dims)
	ok := make([]int64, len(maps))
	total := make([]int64, len(maps))
	for r, a := range t.Aspect {
		if a < 0 || int(a) >= len(maps) {
			panic(fmt.Sprintf("quality: triplet row %d has aspect %d, want [0, %d)", r, a, len(maps)))
		}
		y := maps[a]
		j := int(t.J[r]) * dims
		if sqDistRows(y, j, int(t.I[r])*dims, dims) < sqDistRows(y, j, int(t.K[r])*dims, dims) {
			ok[a]++
		}
		total[a]++
	}
	perAspect = make([]float64, len(maps))
	for a := range perAspect {
		perAspect[a] = ratio(ok[a], total[a])
	}
	return perAspect, nanMean(perAspect)
}

// HiddenKNNAccuracy returns, per aspect t, the k-NN classification accuracy
// of the hidden objects of t by their attribute value, and the mean over
// aspects. Object i of aspect t is hidden when hidden[t][i]; codes[t][i] is
// its attribute value, −1 when missing.
//
// Each hidden object with a value is classified by majority vote among its
// k nearest reference objects in maps[t]: the observed objects with a value
// (all of them when there are fewer than k). Neighbours at equal distance
// are taken in index order, and a tie between values goes to the tied value
// whose nearest member is nearest, as in Evaluate's knn_accuracy. An aspect
// without hidden objects with a value, or without reference objects, is NaN.
func HiddenKNNAccuracy(maps [][]float64, dims int, codes [][]int32, hidden [][]bool, k int) (perAspect []float64, mean float64) {
	checkMaps(maps, dims)
	if len(codes) != len(maps) || len(hidden) != len(maps) {
		panic(fmt.Sprintf("quality: %d maps, %d code columns, %d hidden columns", len(maps), len(codes), len(hidden)))
	}
	if k < 1 {
		panic(fmt.Sprintf("quality: k = %d < 1", k))
	}
	perAspect = make([]float64, len(maps))
	for a, y := range maps {
		n := len(codes[a])
		if len(hidden[a]) != n || len(y) != n*dims {
			panic(fmt.Sprintf("quality: aspect %d: %d codes, %d hidden flags, map of %d values (want %d×%d)", a, n, len(hidden[a]), len(y), n, dims))
		}
		perAspect[a] = hiddenKNN(y, dims, codes[a], hidden[a], k)
	}
	return perAspect, nanMean(perAspect)
}

// hiddenKNN is HiddenKNNAccuracy for one aspect.
func hiddenKNN(y []float64, dims int, codes []int32, hidden []bool, k int) float64 {
	var ref []int
	for i, h := range hidden {
		if !h && codes[i] >= 0 {
			ref = append(ref, i)
		}
	}
	type neighbour struct {
		d2 float64
		i  int
	}
	nb := make([]neighbour, len(ref))
	votes := map[int32]int{}
	var ok, total int64
	for i, h := range hidden {
		if !h || codes[i] < 0 || len(ref) == 0 {
			continue
		}
		for r, j := range ref {
			nb[r] = neighbour{sqDistRows(y, i*dims, j*dims, dims), j}
		}
		slices.SortFunc(nb, func(a, b neighbour) int {
			if c := cmpFloat(a.d2, b.d2); c != 0 {
				return c
			}
			return a.i - b.i
		})
		near := nb[:min(k, len(nb))]
		clear(votes)
		best := 0
		for _, v := range near {
			votes[codes[v.i]]++
			best = max(best, votes[codes[v.i]])
		}
		// The first neighbour whose value has the most votes decides.
		var pred int32
		for _, v := range near {
			if votes[codes[v.i]] == best {
				pred = codes[v.i]
				break
			}
		}
		if pred == codes[i] {
			ok++
		}
		total++
	}
	return ratio(ok, total)
}

func checkMaps(maps [][]float64, dims int) {
	if dims < 1 {
		panic(fmt.Sprintf("quality: dims = %d < 1", dims))
	}
	for a, y := range maps {
		if len(y)%dims != 0 {
			panic(fmt.Sprintf("quality: map %d has %d values, not a multiple of dims = %d", a, len(y), dims))
		}
	}
}

func sqDistRows(y []float64, a, b, dims int) float64 {
	s := 0.0
	for d := range dims {
		v := y[a+d] - y[b+d]
		s += v * v
	}
	return s
}

// cmpFloat orders NaN last, so a NaN distance is never a near neighbour.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	}
	return -1
}

func ratio(num, den int64) float64 {
	if den == 0 {
		return math.NaN()
	}
	return float64(num) / float64(den)
}

// nanMean is the mean of the non-NaN values, NaN when there are none.
func nanMean(v []float64) float64 {
	s, c := 0.0, 0
	for _, x := range v {
		if !math.IsNaN(x) {
			s += x
			c++
		}
	}
	if c == 0 {
		return math.NaN()
	}
	return s / float64(c)
}
