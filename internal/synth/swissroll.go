package synth

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Parameters of SwissRolls.
const (
	SwissClasses  = 5   // number of ordinal classes
	SwissPerClass = 200 // points per class in the paper
	SwissOffset   = 2.0 // shift between adjacent classes along the roll axis (y)
	SwissHeight   = 1.5 // extent of each class along y
)

// SwissRolls returns the paper's second data set: 5 ordinal classes of
// perClass points each (200 in the paper), each a partial swiss roll, the
// rolls offset from one another in the order of the classes. The paper
// gives no parameters; this construction is our reconstruction.
//
// A point of class k ∈ {0,…,4} is, with u, h ~ U[0, 1) drawn in that order,
//
//	t = 1.5π·(1 + u)                       (t ∈ [1.5π, 3π): three quarters of a turn)
//	x = (t·cos t,  2·k + 1.5·h,  t·sin t).
//
// Every class is the same roll, shifted by 2 along the roll axis y and 1.5
// high, so adjacent classes are 0.5 apart. The rolls spread over about
// 16 × 13 units in the x–z plane, with variances of about 26 (x) and 19 (z)
// against about 8 along y, so the first two principal axes lie in the x–z
// plane and the ordinal direction y is the third. The class centres fall in
// the hollow of each roll, away from its points. It panics if perClass < 1.
func SwissRolls(rng *rand.Rand, perClass int) (x *mat.Dense, classes []int) {
	if perClass < 1 {
		panic("synth: perClass < 1")
	}
	n := SwissClasses * perClass
	x = mat.NewDense(n, 3, nil)
	classes = make([]int, n)
	row := 0
	for k := range SwissClasses {
		for range perClass {
			u, h := rng.Float64(), rng.Float64()
			t := 1.5 * math.Pi * (1 + u)
			x.Set(row, 0, t*math.Cos(t))
			x.Set(row, 1, SwissOffset*float64(k)+SwissHeight*h)
			x.Set(row, 2, t*math.Sin(t))
			classes[row] = k
			row++
		}
	}
	return x, classes
}
