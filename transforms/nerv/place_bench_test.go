package nerv

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ordinate/ordinate/transforms/placement"
)

// benchNeRVMap is a 2-D map of n points in 10 Gaussian clusters whose
// features are the map coordinates plus 8 small noise dimensions (a map
// that matches its data, as a converged fit roughly does), with the
// neighbours of rows new rows drawn the same way.
func benchNeRVMap(n, rows, k int) (*nervFixture, [][]int32, [][]float64) {
	const d = 10
	rng := rand.New(rand.NewPCG(20, 25))
	f := &nervFixture{x: make([]float64, n*d), d: d, cluster: make([]int, n)}
	var cx, cy [10]float64
	for c := range cx {
		cx[c], cy[c] = 40*rng.Float64(), 40*rng.Float64()
	}
	draw := func(z []float64) int {
		c := rng.IntN(10)
		z[0], z[1] = cx[c]+2*rng.NormFloat64(), cy[c]+2*rng.NormFloat64()
		for a := 2; a < d; a++ {
			z[a] = 0.1 * rng.NormFloat64()
		}
		return c
	}
	y := make([]float64, n*2)
	for i := range n {
		f.cluster[i] = draw(f.x[i*d : (i+1)*d])
		copy(y[i*2:i*2+2], f.x[i*d:])
	}
	f.ref = placement.Reference{Y: y, N: n, Dims: 2}
	nbrs, d2s := make([][]int32, rows), make([][]float64, rows)
	z := make([]float64, d)
	for r := range rows {
		draw(z)
		nbrs[r], d2s[r] = f.neighbours(z, k)
	}
	return f, nbrs, d2s
}

// BenchmarkNeRVPlace places rows into a 20,000-point 2-D map with
// perplexity 32 (96 input neighbours), with transferred widths and with the
// global width; ns/op is per row.
func BenchmarkNeRVPlace(b *testing.B) {
	const n, rows, k = 20000, 500, 32.0
	f, nbrs, d2s := benchNeRVMap(n, rows, 96)
	for _, global := range []bool{false, true} {
		o := PlaceOptions{Perplexity: k, Alpha: 0.5, Gamma: 0.5}
		if global {
			o.Scale = f.globalScale(k)
		}
		p, err := NewPlacer(f.ref, nil, 0, o)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("global=%v", global), func(b *testing.B) {
			var s PlaceScratch
			dst := make([]float64, 2)
			r := 0
			for b.Loop() {
				if _, err := p.Place(dst, nbrs[r], d2s[r], nil, &s); err != nil {
					b.Fatal(err)
				}
				r = (r + 1) % rows
			}
		})
	}
}
