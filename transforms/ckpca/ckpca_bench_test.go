package ckpca

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/kernels"
)

// benchProblem is n rows of 10-D data with decaying scales and 5 control
// points at random targets (rescaled with ScaleAuto).
func benchProblem(n int) (*mat.Dense, Control, Options, kernels.Kernel) {
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	x, ctrl := fixture(rng, n, 10, 5, 2, 1)
	o := DefaultOptions()
	o.Scale = ScaleAuto
	k, err := resolve("rbf", x)
	if err != nil {
		panic(err)
	}
	return x, ctrl, o, k
}

// BenchmarkFitRBF times a 2-D cKPCA with an RBF kernel: exactly (kernel
// matrix, its eigendecomposition and two components) and with Nyström
// landmarks. s/component is the whole fit divided by the two components.
func BenchmarkFitRBF(b *testing.B) {
	for _, tc := range []struct {
		n, landmarks int
	}{
		{1000, 0}, {2000, 0}, {3000, 0}, {100000, 500},
	} {
		name := fmt.Sprintf("exact/n=%d", tc.n)
		if tc.landmarks > 0 {
			name = fmt.Sprintf("nystrom/n=%d/M=%d", tc.n, tc.landmarks)
		}
		x, ctrl, o, k := benchProblem(tc.n)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				var feat *Features
				var err error
				if tc.landmarks > 0 {
					lm := rand.New(rand.NewPCG(1, 1)).Perm(tc.n)[:tc.landmarks]
					feat, err = NystromFeatures(x, lm, k)
				} else {
					feat, err = KernelFeatures(gram(k, x, x))
				}
				if err != nil {
					b.Fatal(err)
				}
				if _, err := FitFeatures(context.Background(), feat, ctrl, o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/2, "s/component")
		})
	}
}

// BenchmarkNystromError reports how far the Nyström embedding (M landmarks)
// lies from the exact one at n = 3,000: the largest coordinate difference
// relative to the largest exact coordinate, and the same for the spread.
func BenchmarkNystromError(b *testing.B) {
	const n = 3000
	x, ctrl, o, k := benchProblem(n)
	exact, err := KernelFeatures(gram(k, x, x))
	if err != nil {
		b.Fatal(err)
	}
	re, err := Fit(exact.F, ctrl, o)
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []int{100, 300, 1000} {
		b.Run(fmt.Sprintf("M=%d", m), func(b *testing.B) {
			var rel float64
			for b.Loop() {
				lm := rand.New(rand.NewPCG(1, 1)).Perm(n)[:m]
				feat, err := NystromFeatures(x, lm, k)
				if err != nil {
					b.Fatal(err)
				}
				rn, err := Fit(feat.F, ctrl, o)
				if err != nil {
					b.Fatal(err)
				}
				var d mat.Dense
				d.Sub(rn.Embedding, re.Embedding)
				rel = mat.Norm(&d, 2) / mat.Norm(re.Embedding, 2)
			}
			b.ReportMetric(rel, "rel_diff")
		})
	}
}
