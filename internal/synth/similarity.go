package synth

import (
	"math"
	"math/rand/v2"
)

// IndefiniteSimilarity returns an n×n symmetric similarity matrix (row-major)
// with an indefinite spectrum, and the class (0…k−1) of each object: the
// shape of the human-judged similarity data of the Fisher t-SNE paper, for
// demos and benchmarks where that data cannot be shipped.
//
// Objects are drawn from k Gaussian clusters in 5-D (centres 2.5 apart along
// random directions, unit spread); the similarity is the RBF kernel
// exp(−‖x−y‖²/10) plus symmetric uniform noise in [−noise, noise] off the
// diagonal, which makes some eigenvalues negative. Objects are ordered by
// class. It panics if n < k or k < 2.
func IndefiniteSimilarity(rng *rand.Rand, n, k int, noise float64) (s []float64, classes []int) {
	if k < 2 || n < k {
		panic("synth: IndefiniteSimilarity needs n ≥ k ≥ 2")
	}
	const dim = 5
	centres := make([][]float64, k)
	for c := range centres {
		centres[c] = make([]float64, dim)
		var norm float64
		for j := range centres[c] {
			centres[c][j] = rng.NormFloat64()
			norm += centres[c][j] * centres[c][j]
		}
		for j := range centres[c] {
			centres[c][j] *= 2.5 / math.Sqrt(norm)
		}
	}
	x := make([]float64, n*dim)
	classes = make([]int, n)
	for i := range n {
		c := i * k / n
		classes[i] = c
		for j := range dim {
			x[i*dim+j] = centres[c][j] + rng.NormFloat64()
		}
	}
	s = make([]float64, n*n)
	for i := range n {
		s[i*n+i] = 1
		for j := i + 1; j < n; j++ {
			var d2 float64
			for f := range dim {
				d := x[i*dim+f] - x[j*dim+f]
				d2 += d * d
			}
			v := math.Exp(-d2/10) + noise*(2*rng.Float64()-1)
			s[i*n+j], s[j*n+i] = v, v
		}
	}
	return s, classes
}
