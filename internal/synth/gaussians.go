package synth

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Parameters of OrdinalGaussians.
const (
	GaussianClasses  = 5    // number of ordinal classes
	GaussianPerClass = 100  // points per class in the paper
	GaussianSpacing  = 1.75 // distance between adjacent class centres
)

// Within-class standard deviations along a, b and o (see OrdinalGaussians).
const (
	sdA = 4.0
	sdB = 3.0
	sdO = 0.5
)

// Orthonormal frame of OrdinalGaussians: o is the ordinal direction.
var (
	dirO = [3]float64{1 / math.Sqrt(3), 1 / math.Sqrt(3), 1 / math.Sqrt(3)}
	dirA = [3]float64{1 / math.Sqrt(2), -1 / math.Sqrt(2), 0}
	dirB = [3]float64{1 / math.Sqrt(6), 1 / math.Sqrt(6), -2 / math.Sqrt(6)}
)

// GaussianDirection returns the ordinal direction o = (1, 1, 1)/√3 of
// OrdinalGaussians.
func GaussianDirection() []float64 { return dirO[:] }

// OrdinalGaussians returns the paper's first data set: 5 ordinal classes of
// perClass points each (100 in the paper) in 3-D, Gaussian within each class,
// whose ordinal direction is not a main axis of variance. The paper gives
// no parameters; this construction is our reconstruction.
//
// With the orthonormal frame o = (1,1,1)/√3, a = (1,−1,0)/√2 and
// b = (1,1,−2)/√6, a point of class k ∈ {0,…,4} is
//
//	x = 1.75·(k − 2)·o + 4·z₁·a + 3·z₂·b + 0.5·z₃·o,  z ~ N(0, I₃).
//
// The variance is then 16 along a, 9 along b and about 0.25 + 6.1 along o
// (within plus between classes): the ordinal direction o is the third
// principal axis, so a 2-D PCA discards it, while adjacent classes stay 3.5
// within-class standard deviations apart along o. The constants also keep
// the sampling noise of the class centres along a (4/√perClass) small
// against the spacing: with 100 points per class and the seeds
// rand.NewPCG(s, 42), s < 2000, BVP's first axis kept the class order for
// every s, PCA's first axis for about 6 % of them. The draws are made class
// by class, point by point, z₁ then z₂ then z₃. It panics if perClass < 1.
func OrdinalGaussians(rng *rand.Rand, perClass int) (x *mat.Dense, classes []int) {
	if perClass < 1 {
		panic("synth: perClass < 1")
	}
	n := GaussianClasses * perClass
	x = mat.NewDense(n, 3, nil)
	classes = make([]int, n)
	row := 0
	for k := range GaussianClasses {
		shift := GaussianSpacing * float64(k-(GaussianClasses-1)/2)
		for range perClass {
			z1, z2, z3 := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
			for j := range 3 {
				x.Set(row, j, (shift+sdO*z3)*dirO[j]+sdA*z1*dirA[j]+sdB*z2*dirB[j])
			}
			classes[row] = k
			row++
		}
	}
	return x, classes
}
