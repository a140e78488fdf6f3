package oe

import (
	"context"
	"math"

	"github.com/ordinate/ordinate/transforms/triplets"
)

// SOE fits a soft ordinal embedding of n objects to the triplets of t
// (aspects ignored). See the package documentation for the objective,
// defaults and conventions.
func SOE(ctx context.Context, n int, t *triplets.Table, o SOEOptions) (*Result, error) {
	return fitOne(ctx, n, t, &o)
}

// soeLoss returns Σ max(0, d_ab + δ − d_ac)² over a row range and adds its
// gradient; a zero distance contributes the zero subgradient.
func soeLoss(margin float64) lossFunc {
	return func(y []float64, dims int, t *triplets.Table, lo, hi int, grad []float64) float64 {
		cost := 0.0
		for r := lo; r < hi; r++ {
			a, b, k := int(t.J[r])*dims, int(t.I[r])*dims, int(t.K[r])*dims
			dab := math.Sqrt(sqDist(y, a, b, dims))
			dac := math.Sqrt(sqDist(y, a, k, dims))
			h := dab + margin - dac
			if h <= 0 {
				continue
			}
			cost += h * h
			var gb, gk float64 // 2h/d, or 0 at d = 0
			if dab > 0 {
				gb = 2 * h / dab
			}
			if dac > 0 {
				gk = 2 * h / dac
			}
			for d := range dims {
				xab := y[a+d] - y[b+d]
				xac := y[a+d] - y[k+d]
				grad[a+d] += gb*xab - gk*xac
				grad[b+d] -= gb * xab
				grad[k+d] += gk * xac
			}
		}
		return cost
	}
}
