package quality

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

type ordinalResult struct {
	spearman       float64 // ρ(class rank, projection) over the points
	centerSpearman float64 // ρ(class rank, projected class centre)
	discordant     int     // class pairs whose centres are out of order
	centerOrder    []int   // class values by projected centre
}

// ordinalMetrics projects the embedding y (n×d) on the best ordinal axis w:
// the least-squares regression direction of the class rank on the centred
// coordinates, which maximises the Pearson correlation between rank and
// projection. w is flipped if needed so that the centre correlation is ≥ 0.
// Class ranks are the dense class numbers 0..K−1, in the order of the
// class values.
func ordinalMetrics(y []float64, n, d int, lab *labels) ordinalResult {
	rank := make([]float64, n)
	for i, c := range lab.id {
		rank[i] = float64(c)
	}
	p := project(y, n, d, bestAxis(y, n, d, rank))

	nc := len(lab.values)
	centre := make([]float64, nc)
	size := make([]float64, nc)
	for i, c := range lab.id {
		centre[c] += p[i]
		size[c]++
	}
	for c := range centre {
		centre[c] /= size[c]
	}
	classRank := make([]float64, nc)
	for c := range classRank {
		classRank[c] = float64(c)
	}
	if spearman(classRank, centre) < 0 {
		for i := range p {
			p[i] = -p[i]
		}
		for c := range centre {
			centre[c] = -centre[c]
		}
	}
	// Classes by (centre, class): ties keep the class order, so the
	// inversions of this sequence are exactly the pairs a < b with
	// centre[a] > centre[b].
	byCentre := make([]int, nc)
	for c := range byCentre {
		byCentre[c] = c
	}
	slices.SortStableFunc(byCentre, func(a, b int) int { return cmp.Compare(centre[a], centre[b]) })
	res := ordinalResult{
		spearman:       spearman(rank, p),
		centerSpearman: spearman(classRank, centre),
		discordant:     inversions(byCentre),
		centerOrder:    make([]int, nc),
	}
	for q, c := range byCentre {
		res.centerOrder[q] = lab.values[c]
	}
	return res
}

// bestAxis returns the minimum-norm least-squares solution w of
// Yc w ≈ t − mean(t), with Yc the centred embedding; w = 0 if Yc is 0.
func bestAxis(y []float64, n, d int, t []float64) []float64 {
	yc := mat.NewDense(n, d, centred(y, n, d))
	tc := mat.NewVecDense(n, centred(t, n, 1))
	var svd mat.SVD
	w := make([]float64, d)
	if !svd.Factorize(yc, mat.SVDThin) {
		return w // only for non-finite input, which is rejected earlier
	}
	rank := svd.Rank(float64(max(n, d)) * 0x1p-52)
	if rank == 0 {
		return w
	}
	var wv mat.VecDense
	svd.SolveVecTo(&wv, tc, rank)
	for c := range w {
		w[c] = wv.AtVec(c)
	}
	return w
}

// centred returns a copy of the n×d matrix v with column means removed.
func centred(v []float64, n, d int) []float64 {
	out := slices.Clone(v)
	for c := range d {
		var m float64
		for i := range n {
			m += v[i*d+c]
		}
		m /= float64(n)
		for i := range n {
			out[i*d+c] -= m
		}
	}
	return out
}

func project(y []float64, n, d int, w []float64) []float64 {
	p := make([]float64, n)
	for i := range n {
		var s float64
		for c, wc := range w {
			s += y[i*d+c] * wc
		}
		p[i] = s
	}
	return p
}

// spearman returns Spearman's ρ: the Pearson correlation of the average
// ranks (tied values share the mean of their ranks). It is NaN when either
// side is constant.
func spearman(a, b []float64) float64 {
	return pearson(averageRanks(a), averageRanks(b))
}

func averageRanks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(v[a], v[b]) })
	r := make([]float64, len(v))
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && v[idx[hi]] == v[idx[lo]] {
			hi++
		}
		// Positions lo..hi−1 hold ranks lo+1..hi; their mean is (lo+1+hi)/2.
		avg := float64(lo+1+hi) / 2
		for _, i := range idx[lo:hi] {
			r[i] = avg
		}
		lo = hi
	}
	return r
}

func pearson(a, b []float64) float64 {
	n := float64(len(a))
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma /= n
	mb /= n
	var sab, saa, sbb float64
	for i := range a {
		da, db := a[i]-ma, b[i]-mb
		sab += da * db
		saa += da * da
		sbb += db * db
	}
	if saa == 0 || sbb == 0 {
		return math.NaN()
	}
	return sab / math.Sqrt(saa*sbb)
}

// inversions counts the pairs p < q with s[p] > s[q] in a permutation of
// 0..len(s)−1, with a Fenwick tree over the values seen so far.
func inversions(s []int) int {
	tree := make([]int, len(s)+1)
	inv := 0
	for seen, v := range s {
		// Values ≤ v seen so far.
		le := 0
		for i := v + 1; i > 0; i -= i & -i {
			le += tree[i]
		}
		inv += seen - le
		for i := v + 1; i < len(tree); i += i & -i {
			tree[i]++
		}
	}
	return inv
}
