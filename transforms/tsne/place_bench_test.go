package tsne

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ordinate/ordinate/transforms/placement"
)

// The benchmark map: N = 20,000 points in 2 dimensions, 10 blobs.
const tsneBenchN = 20000

func BenchmarkRepulsionField(b *testing.B) {
	ref := fieldTestMap(tsneBenchN, 2, 10, 1)
	for _, h := range []float64{1, 0.5, 0.35} {
		b.Run(fmt.Sprintf("N=%d/h=%v", tsneBenchN, h), func(b *testing.B) {
			for b.Loop() {
				if _, err := NewRepulsionField(context.Background(), ref, FieldOptions{Spacing: h}, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTSNEPlace reports the time to place one row (K = 15 affinity
// neighbours, 25 for the start) on one goroutine, the field built
// beforehand: with the defaults (at most 250 steps, stopping at Tol 1e-4),
// with all 250 steps (Tol 0) and with 150.
func BenchmarkTSNEPlace(b *testing.B) {
	ref := fieldTestMap(tsneBenchN, 2, 10, 1)
	const rows = 256
	rng := rand.New(rand.NewPCG(2, 2))
	nbrs, d2s := make([][]int32, rows), make([][]float64, rows)
	for i := range rows {
		y := ref.Row(int32(rng.IntN(ref.N)))
		target := []float64{y[0] + rng.NormFloat64(), y[1] + rng.NormFloat64()}
		nbrs[i], d2s[i] = tsneNeighbours(ref, target, 25, 1)
	}
	field, err := NewRepulsionField(context.Background(), ref, FieldOptions{}, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		iters int
		tol   float64
	}{{250, 1e-4}, {250, 0}, {150, 0}} { // the defaults first
		o := DefaultPlaceOptions()
		o.Iterations, o.Tol = c.iters, c.tol
		p, err := NewPlacer(context.Background(), placement.Reference{Y: ref.Y[:60], N: 30, Dims: 2}, o, 1)
		if err != nil {
			b.Fatal(err)
		}
		// Swap in the full map and its field (built once above).
		p.ref, p.field = ref, field
		b.Run(fmt.Sprintf("N=%d/iterations=%d/tol=%v", tsneBenchN, c.iters, c.tol), func(b *testing.B) {
			dst := make([]float64, 2)
			var s PlaceScratch
			i := 0
			for b.Loop() {
				if _, err := p.Place(dst, nbrs[i%rows], d2s[i%rows], &s); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
