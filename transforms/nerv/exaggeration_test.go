package nerv

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// exaggerationBrute is X written from its definition, with Λ as
// Σ_c min(ω_ic, ω_jc) (the class community of probability vectors) and
// γ for an unlabelled row.
func exaggerationBrute(y []float64, dims int, in *SparseInput, e float64, kernel Kernel) float64 {
	h := 1 / (2 * in.Scale * in.Scale)
	var total float64
	for i := range in.N {
		for q := range in.K {
			j := int(in.Idx[i*in.K+q])
			lam := in.Gamma
			if in.Soft != nil && !math.IsNaN(in.Soft[i*in.C]) && !math.IsNaN(in.Soft[j*in.C]) {
				var m float64
				for c := range in.C {
					m += math.Min(in.Soft[i*in.C+c], in.Soft[j*in.C+c])
				}
				lam = (1-in.Alpha)*in.Gamma + in.Alpha*m
			}
			var d2 float64
			for t := range dims {
				d := y[i*dims+t] - y[j*dims+t]
				d2 += d * d
			}
			a := h * d2
			if kernel == KernelT {
				a = math.Log1p(a) // the t kernel's attraction log(1 + a)
			}
			total += (e - 1) * lam * in.Beta[i*in.K+q] * a
		}
	}
	return total / float64(in.N)
}

// TestExaggerationBrute: X against its definition, its gradient against
// central differences, and add adding to grad rather than overwriting it.
func TestExaggerationBrute(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		labels string
		n, k   int
		dims   int
		e      float64
		kernel Kernel
	}{
		{"soft", 60, 12, 2, 4, KernelGaussian},
		{"hard", 60, 12, 2, 4, KernelGaussian},
		{"unlabelled", 50, 9, 3, 12, KernelGaussian},
		{"none", 40, 10, 1, 2, KernelGaussian},
		{"hard", 60, 12, 2, 4, KernelT},
		{"soft", 60, 12, 1, 4, KernelT},
	} {
		rng := rand.New(rand.NewPCG(7, uint64(tc.n)))
		in := nervSparseOnly(t, rng, tc.n, tc.k, 4, float64(tc.k)/3, tc.labels)
		y := nervRandomY(rng, tc.n, tc.dims)
		x := newExaggeration(in, tc.dims, tc.e, tc.kernel, 2)
		grad := make([]float64, len(y))
		for p := range grad {
			grad[p] = 1
		}
		v, err := x.add(ctx, grad, y)
		if err != nil {
			t.Fatal(err)
		}
		if want := exaggerationBrute(y, tc.dims, in, tc.e, tc.kernel); math.Abs(v-want) > 1e-12*math.Abs(want) || want <= 0 {
			t.Errorf("%s %s: X = %.15g, brute force %.15g", tc.labels, tc.kernel, v, want)
		}
		const step = 1e-6
		for p := range y {
			old := y[p]
			y[p] = old + step
			up := exaggerationBrute(y, tc.dims, in, tc.e, tc.kernel)
			y[p] = old - step
			down := exaggerationBrute(y, tc.dims, in, tc.e, tc.kernel)
			y[p] = old
			fd := (up - down) / (2 * step)
			if got := grad[p] - 1; math.Abs(got-fd) > 1e-6*(1+math.Abs(fd)) {
				t.Errorf("%s %s: ∂X/∂y[%d] = %.10g, central difference %.10g", tc.labels, tc.kernel, p, got, fd)
			}
		}
	}
}

func TestExaggerationThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	in := nervSparseOnly(t, rng, 3000, 15, 3, 5, "soft")
	y := nervRandomY(rng, 3000, 2)
	checkThreadsBitIdentical(t, len(y), func(grad []float64, threads int) (float64, error) {
		return newExaggeration(in, 2, 4, KernelGaussian, threads).add(context.Background(), grad, y)
	})
}

func TestExaggerationCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	in := nervSparseOnly(t, rng, 200, 10, 3, 3, "hard")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	y := nervRandomY(rng, 200, 2)
	if _, err := newExaggeration(in, 2, 4, KernelGaussian, 2).add(ctx, make([]float64, len(y)), y); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled add returned %v, want context.Canceled", err)
	}
}

// TestExaggerateBudget: the exaggerated phase takes min(30, maxIter/2)
// iterations and leaves y alone when that is 0; it lowers the exaggerated
// stress, not necessarily the plain one.
func TestExaggerateBudget(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(8, 3))
	in := nervSparseOnly(t, rng, 300, 15, 3, 5, "soft")
	SparseLogBeta(in)
	y0 := nervRandomY(rng, 300, 2)
	o := DefaultOptions()
	o.Threads = 2
	var bh BH
	eval := func(y, g []float64) float64 {
		s, err := bh.Stress(ctx, g, y, 2, in, DefaultBHTol, 2)
		if err != nil {
			return math.NaN()
		}
		return s
	}
	exag := func(y []float64) float64 {
		g := make([]float64, len(y))
		v, err := newExaggeration(in, 2, startExaggeration, KernelGaussian, 2).add(ctx, g, y)
		if err != nil {
			t.Fatal(err)
		}
		return eval(y, g) + v
	}
	for _, tc := range []struct{ n, maxIter, want int }{{100_000, 150, 30}, {250_000, 150, 30}, {1_000_000, 150, 60}, {4_000_000, 150, 75}, {1_000_000, 20, 10}, {100, 1, 0}} {
		if got := exaggerationIters(tc.n, tc.maxIter); got != tc.want {
			t.Errorf("n %d, maxIter %d: %d exaggerated iterations, want %d", tc.n, tc.maxIter, got, tc.want)
		}
	}
	for _, tc := range []struct{ maxIter, want int }{{1, 0}, {10, 5}, {150, startExaggerationIter}} {
		ticks := 0
		y, iters, _, scale, err := exaggerate(ctx, eval, in, y0, o, tc.maxIter, 0, func() { ticks++ })
		if err != nil {
			t.Fatal(err)
		}
		if iters != tc.want || ticks != tc.want {
			t.Errorf("maxIter %d: %d iterations, %d ticks, want %d", tc.maxIter, iters, ticks, tc.want)
		}
		if (scale > 0) != (tc.want > 0) {
			t.Errorf("maxIter %d: L-BFGS scale %g after %d iterations, want > 0 exactly when some ran", tc.maxIter, scale, iters)
		}
		if tc.want == 0 {
			if &y[0] != &y0[0] {
				t.Errorf("maxIter %d: y replaced, want it unchanged", tc.maxIter)
			}
			continue
		}
		if before, after := exag(y0), exag(y); !(after < before) {
			t.Errorf("maxIter %d: exaggerated stress %.6g from %.6g, want lower", tc.maxIter, after, before)
		}
	}
}
