package transforms

import (
	"context"
	"fmt"

	"github.com/ordinate/ordinate/kernels"
)

// KernelMatrix returns the n×n kernel matrix of the n×d row-major x:
// "linear" is x·xᵀ, "rbf" is exp(−γ‖xᵢ − xⱼ‖²) with γ = 1 / (median of the
// squared distances between distinct rows) when gamma ≤ 0 (see
// kernels.Kernel). It also returns the γ used (0 for linear).
func KernelMatrix(x []float64, n, d int, kind string, gamma float64) ([]float64, float64) {
	if kind != "linear" && kind != "rbf" {
		panic(fmt.Sprintf("transforms: unknown kernel %q", kind))
	}
	k, err := kernels.Kernel{Kind: kind, Gamma: gamma}.Resolve(x, n, d)
	if err != nil {
		panic(err) // linear and rbf resolve on any data
	}
	s, err := k.Gram(context.Background(), nil, x, n, x, n, d, 0)
	if err != nil {
		panic(err) // only a cancelled context fails, and this one cannot be
	}
	if kind == "linear" {
		return s, 0
	}
	return s, k.Gamma
}
