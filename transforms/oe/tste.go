package oe

import (
	"context"
	"math"

	"github.com/ordinate/ordinate/transforms/triplets"
)

// TSTE fits a t-distributed stochastic triplet embedding of n objects to the
// triplets of t (aspects ignored). See the package documentation for the
// objective, defaults and conventions.
func TSTE(ctx context.Context, n int, t *triplets.Table, o TSTEOptions) (*Result, error) {
	return fitOne(ctx, n, t, &o)
}

// tsteLoss returns −Σ log P over a row range and adds its gradient.
func tsteLoss(alpha float64) lossFunc {
	e := (alpha + 1) / 2
	c := (alpha + 1) / alpha
	return func(y []float64, dims int, t *triplets.Table, lo, hi int, grad []float64) float64 {
		cost := 0.0
		for r := lo; r < hi; r++ {
			a, b, k := int(t.J[r])*dims, int(t.I[r])*dims, int(t.K[r])*dims
			dab, dac := sqDist(y, a, b, dims), sqDist(y, a, k, dims)
			// u = log K_ac − log K_ab = e·log((1 + d²_ab/α)/(1 + d²_ac/α));
			// −log P = softplus(u) and 1 − P = sigmoid(u), sharing one exp.
			u := e * math.Log((1+dab/alpha)/(1+dac/alpha))
			var q float64 // 1 − P
			if u > 0 {
				ex := math.Exp(-u)
				cost += u + math.Log1p(ex)
				q = 1 / (1 + ex)
			} else {
				ex := math.Exp(u)
				cost += math.Log1p(ex)
				q = ex / (1 + ex)
			}
			gb := c * q / (1 + dab/alpha)
			gk := c * q / (1 + dac/alpha)
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

func sqDist(y []float64, a, b, dims int) float64 {
	s := 0.0
	for d := range dims {
		v := y[a+d] - y[b+d]
		s += v * v
	}
	return s
}
