package synth

import (
	"math"
	"math/rand/v2"
)

// Class names of FourClusters, in column order of its soft labels.
var FourClusterClasses = []string{"purple", "blue", "dark_green", "pink", "light_blue", "yellow"}

// FourClusters returns the "four Gaussian clusters" data set of the
// SoftClassNeRV paper (Mustatea et al., ESANN 2022): 4·perCluster points in
// 3-D, row-major, and their soft labels (rows of 6 weights summing to 1, in
// the order of FourClusterClasses). The paper shows the set only as a figure
// (800 points); this is our seeded reconstruction of its description:
//
//   - clusters are isotropic in the x–y plane (standard deviation 1) around the
//     corners (±4, ±4, 0), with noise along z (standard deviation 1);
//   - cluster 0 is purely purple;
//   - cluster 1 is cut in two hard classes by the plane z = 0 (parallel to the
//     x–y plane): purple below, blue above;
//   - cluster 2 holds two hard classes at random, dark green and pink, each
//     with probability ½;
//   - cluster 3 holds two soft classes that blend linearly along z: the
//     weight of yellow is clamp((z + 2)/4, 0, 1) and light blue has the rest.
//
// Rows are ordered by cluster. It panics if perCluster < 1.
func FourClusters(rng *rand.Rand, perCluster int) (x, soft []float64) {
	if perCluster < 1 {
		panic("synth: FourClusters needs perCluster ≥ 1")
	}
	n := 4 * perCluster
	const c = 6
	x = make([]float64, n*3)
	soft = make([]float64, n*c)
	centres := [4][2]float64{{-4, -4}, {4, -4}, {-4, 4}, {4, 4}}
	for i := range n {
		k := i / perCluster
		px, py, pz := centres[k][0]+rng.NormFloat64(), centres[k][1]+rng.NormFloat64(), rng.NormFloat64()
		x[i*3], x[i*3+1], x[i*3+2] = px, py, pz
		w := soft[i*c : (i+1)*c]
		switch k {
		case 0:
			w[0] = 1
		case 1:
			if pz < 0 {
				w[0] = 1
			} else {
				w[1] = 1
			}
		case 2:
			if rng.IntN(2) == 0 {
				w[2] = 1
			} else {
				w[3] = 1
			}
		case 3:
			y := math.Min(1, math.Max(0, (pz+2)/4))
			w[4], w[5] = 1-y, y
		}
	}
	return x, soft
}

// Class names of Pacman, in column order of its soft labels.
var PacmanClasses = []string{"blue", "yellow"}

// Pacman returns the "Pacman" data set of the SoftClassNeRV paper: n points
// uniform on the unit sphere in 3-D, row-major, and soft labels over two
// classes (blue, yellow). Our reconstruction of the paper's description: on
// the hemisphere x ≥ 0 the classes are hard, split by the plane z = 0 (blue
// above, yellow below); on the hemisphere x < 0 the label varies continuously
// with height, yellow weight (1 − z)/2. It panics if n < 1.
func Pacman(rng *rand.Rand, n int) (x, soft []float64) {
	if n < 1 {
		panic("synth: Pacman needs n ≥ 1")
	}
	x = make([]float64, n*3)
	soft = make([]float64, n*2)
	for i := range n {
		var v [3]float64
		var norm float64
		for norm < 1e-12 {
			norm = 0
			for j := range v {
				v[j] = rng.NormFloat64()
				norm += v[j] * v[j]
			}
		}
		norm = math.Sqrt(norm)
		for j := range v {
			x[i*3+j] = v[j] / norm
		}
		z := x[i*3+2]
		switch {
		case x[i*3] < 0:
			soft[i*2+1] = (1 - z) / 2
			soft[i*2] = 1 - soft[i*2+1]
		case z >= 0:
			soft[i*2] = 1
		default:
			soft[i*2+1] = 1
		}
	}
	return x, soft
}
