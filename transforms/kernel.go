package transforms

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ordinate/ordinate/kernels"
)

// KernelMatrix returns the n×n kernel matrix of the n×d row-major x:
// "linear" is x·xᵀ, "rbf" is exp(−γ‖xᵢ − xⱼ‖²) with γ = 1 / (median of the
// squared distances between distinct rows) when gamma ≤ 0. It also returns
// the γ used (0 for linear).
func KernelMatrix(x []float64, n, d int, kind string, gamma float64) ([]float64, float64) {
	s := make([]float64, n*n)
	switch kind {
	case "linear":
		for i := range n {
			xi := x[i*d : (i+1)*d]
			for j := i; j < n; j++ {
				var dot float64
				for f, v := range x[j*d : (j+1)*d] {
					dot += xi[f] * v
				}
				s[i*n+j], s[j*n+i] = dot, dot
			}
		}
		return s, 0
	case "rbf":
		if err := kernels.SqDistances(context.Background(), s, x, n, d, 0); err != nil {
			panic(err) // only a cancelled context fails, and this one cannot be
		}
		if gamma <= 0 {
			off := make([]float64, 0, n*(n-1)/2)
			for i := range n {
				off = append(off, s[i*n+i+1:(i+1)*n]...)
			}
			slices.Sort(off)
			med := 0.0
			if len(off) > 0 {
				med = off[len(off)/2]
			}
			gamma = 1
			if med > 0 {
				gamma = 1 / med
			}
		}
		for k, v := range s {
			s[k] = math.Exp(-gamma * v)
		}
		return s, gamma
	default:
		panic(fmt.Sprintf("transforms: unknown kernel %q", kind))
	}
}
