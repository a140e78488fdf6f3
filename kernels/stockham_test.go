package kernels

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
)

// naiveDFT is the O(n²) definition X_k = Σ_j x_j·e^{−2πijk/n}.
func naiveDFT(x []complex128) []complex128 {
	n := len(x)
	out := make([]complex128, n)
	for k := range n {
		var s complex128
		for j, v := range x {
			s += v * cmplx.Rect(1, -2*math.Pi*float64(j*k%n)/float64(n))
		}
		out[k] = s
	}
	return out
}

// stockhamLengths covers every radix alone, their mixtures, odd passes
// counts (result copied back) and the grid lengths of t-SNE.
var stockhamLengths = []int{1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 15, 16, 25, 27, 30, 32, 45, 60, 64, 75, 96, 100, 120, 125, 240, 360, 768}

func TestCmplxFFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, n := range stockhamLengths {
		x := make([]complex128, n)
		for i := range x {
			x[i] = complex(rng.NormFloat64(), rng.NormFloat64())
		}
		want := naiveDFT(x)
		got := append([]complex128(nil), x...)
		f := newCmplxFFT(n)
		f.forward(got)
		tol := 1e-12 * float64(n)
		for k := range n {
			if cmplx.Abs(got[k]-want[k]) > tol {
				t.Fatalf("n=%d: X_%d = %v, want %v", n, k, got[k], want[k])
			}
		}
		f.inverse(got)
		for j := range n {
			if cmplx.Abs(got[j]/complex(float64(n), 0)-x[j]) > tol {
				t.Fatalf("n=%d: inverse(forward(x))/n at %d = %v, want %v", n, j, got[j]/complex(float64(n), 0), x[j])
			}
		}
	}
}

func TestCmplxFFTBadLength(t *testing.T) {
	for _, n := range []int{0, 7, 14, 2 * 3 * 5 * 11} {
		if !panics(func() { newCmplxFFT(n) }) {
			t.Errorf("n=%d: no panic", n)
		}
	}
}

func TestRealFFT(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for _, half := range stockhamLengths {
		n := 2 * half
		x := make([]float64, n)
		xc := make([]complex128, n)
		for i := range x {
			x[i] = rng.NormFloat64()
			xc[i] = complex(x[i], 0)
		}
		want := naiveDFT(xc)
		f := newRealFFT(n)
		got := make([]complex128, half+1)
		f.coefficients(got, x)
		tol := 1e-12 * float64(n)
		for k := range got {
			if cmplx.Abs(got[k]-want[k]) > tol {
				t.Fatalf("n=%d: X_%d = %v, want %v", n, k, got[k], want[k])
			}
		}
		back := make([]float64, n)
		f.sequence(back, got)
		for j := range n {
			if math.Abs(back[j]/float64(n)-x[j]) > tol {
				t.Fatalf("n=%d: sequence(coefficients(x))/n at %d = %v, want %v", n, j, back[j]/float64(n), x[j])
			}
		}
	}
}

// BenchmarkCmplxFFT compares the Stockham transform with gonum's at grid
// lengths of the interpolated t-SNE repulsion (GFLOP/s counts 5·n·log₂n).
func BenchmarkCmplxFFT(b *testing.B) {
	for _, n := range []int{768, 2304, 4096} {
		x := make([]complex128, n)
		for i := range x {
			x[i] = cmplx.Rect(1, float64(i))
		}
		flops := 5 * float64(n) * math.Log2(float64(n))
		b.Run(fmt.Sprintf("n=%d/stockham", n), func(b *testing.B) {
			f := newCmplxFFT(n)
			for b.Loop() {
				f.forward(x)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("n=%d/gonum", n), func(b *testing.B) {
			f := fourier.NewCmplxFFT(n)
			for b.Loop() {
				f.Coefficients(x, x)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
