package kernels

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestKernelEval(t *testing.T) {
	a, b := []float64{1, 2, 0}, []float64{0, 1, 2}
	for _, tc := range []struct {
		k    Kernel
		want float64
	}{
		{Kernel{Kind: "linear"}, 2},
		{Kernel{Kind: "rbf", Gamma: 0.5}, math.Exp(-0.5 * 6)},
		{Kernel{Kind: "poly", Gamma: 0.5, Degree: 2, Coef0: 1}, 4},
		{Kernel{Kind: "cosine"}, 2 / 5.0},
		{Kernel{Kind: "cosine"}, 0}, // with a zero row, below
	} {
		bb := b
		if tc.want == 0 {
			bb = []float64{0, 0, 0}
		}
		if got := tc.k.Eval(a, bb); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: k = %v, want %v", tc.k.Kind, got, tc.want)
		}
	}
}

// TestKernelGram checks the parallel Gram matrix against Eval, entry by
// entry, for every kind and two thread counts.
func TestKernelGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const na, nb, d = 37, 23, 4
	a, b := make([]float64, na*d), make([]float64, nb*d)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	for _, kind := range []string{"linear", "rbf", "poly", "cosine"} {
		k, err := Kernel{Kind: kind, Coef0: 1}.Resolve(a, na, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, threads := range []int{1, 3} {
			g, err := k.Gram(context.Background(), nil, a, na, b, nb, d, threads)
			if err != nil {
				t.Fatal(err)
			}
			for i := range na {
				for j := range nb {
					if want := k.Eval(a[i*d:(i+1)*d], b[j*d:(j+1)*d]); g[i*nb+j] != want {
						t.Fatalf("%s, %d threads: G[%d,%d] = %v, Eval %v", kind, threads, i, j, g[i*nb+j], want)
					}
				}
			}
		}
	}
}

func TestKernelResolve(t *testing.T) {
	// Rows 0, 1, 3 on a line: squared distances 1, 4, 9 → upper median 4.
	x := []float64{0, 0, 1, 0, 3, 0}
	k, err := Kernel{Kind: "rbf"}.Resolve(x, 3, 2)
	if err != nil || k.Gamma != 0.25 {
		t.Errorf("rbf: γ = %v, %v; want 1/4", k.Gamma, err)
	}
	k, _ = Kernel{Kind: "poly"}.Resolve(x, 3, 2)
	if k.Gamma != 0.5 || k.Degree != 3 {
		t.Errorf("poly defaults: γ %v, degree %d; want 1/2, 3", k.Gamma, k.Degree)
	}
	if m := MedianSqDist([]float64{1, 1, 1, 1}, 2, 2); m != 1 {
		t.Errorf("coincident rows: median %v, want the fallback 1", m)
	}
	for _, tc := range []struct {
		name string
		k    Kernel
	}{{"unknown", Kernel{Kind: "sigmoid"}}, {"degree", Kernel{Kind: "poly", Degree: -1}}, {"zero row", Kernel{Kind: "cosine"}}} {
		if _, err := tc.k.Resolve(x, 3, 2); !errors.Is(err, ErrKernel) {
			t.Errorf("%s: error %v, want ErrKernel", tc.name, err)
		}
	}
}
