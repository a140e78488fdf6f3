package kernels

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestExtremeEigenvalues compares the Lanczos estimates with a full
// eigendecomposition on an indefinite matrix and on an rbf kernel matrix
// (positive semi-definite), and checks that threads do not change them.
func TestExtremeEigenvalues(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 150
	indef := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			v := rng.NormFloat64()
			indef[i*n+j], indef[j*n+i] = v, v
		}
	}
	x := make([]float64, n*3)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	rbf, err := Kernel{Kind: "rbf", Gamma: 0.5}.Gram(context.Background(), nil, x, n, x, n, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string][]float64{"indefinite": indef, "rbf": rbf} {
		ev := eigenvalues(t, s, n)
		lmin, lmax := ev[0], ev[n-1]
		ex, err := ExtremeEigenvalues(context.Background(), s, n, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		scale := math.Max(math.Abs(lmin), math.Abs(lmax))
		if math.Abs(ex.Max-lmax) > 1e-9*scale || math.Abs(ex.Min-lmin) > 1e-9*scale {
			t.Errorf("%s: Lanczos [%v, %v] after %d steps, eigendecomposition [%v, %v]", name, ex.Min, ex.Max, ex.Iterations, lmin, lmax)
		}
		ex3, _ := ExtremeEigenvalues(context.Background(), s, n, 0, 3)
		if ex3 != ex {
			t.Errorf("%s: threads change the result: %+v vs %+v", name, ex3, ex)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ExtremeEigenvalues(ctx, indef, n, 0, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
