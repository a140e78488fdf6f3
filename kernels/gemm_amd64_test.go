//go:build amd64 && !purego

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGemmKernelsAgree: the AVX-512 micro-kernels give the AVX2 kernel's
// bits strip by strip (each element sums its products in k order, one
// fused multiply-add each), for odd and even depths, added to C or stored,
// with any alpha, and leave C outside their tile as it was: the 6×8 kernel
// on one strip of B, the 6×16 kernel on two.
func TestGemmKernelsAgree(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512F on this CPU: Gemm runs the AVX2 kernel here, which TestGemm checks against the pure-Go one")
	}
	for _, kern := range []struct {
		name   string
		strips int
		run    func(k int, a, b, c []float64, ldc int, alpha float64, store bool)
	}{
		{"6×8 AVX-512", 1, func(k int, a, b, c []float64, ldc int, alpha float64, store bool) {
			gemmKernel6x8CAVX512(k, &a[0], &b[0], &c[0], ldc*8, alpha, store)
		}},
		{"6×16 AVX-512", 2, func(k int, a, b, c []float64, ldc int, alpha float64, store bool) {
			if !gemmKernelWideC(k, a, b, c, ldc, alpha, store) {
				t.Fatal("the wide kernel declined on a CPU that has AVX-512F")
			}
		}},
	} {
		rng := rand.New(rand.NewPCG(5, uint64(12+kern.strips)))
		cols := kern.strips * gemmNR
		ldc := cols + 3
		for _, k := range []int{1, 2, 7, 64, gemmKC} {
			for _, store := range []bool{false, true} {
				for _, alpha := range []float64{1, -0.37} {
					name := fmt.Sprintf("%s k=%d store=%v alpha=%g", kern.name, k, store, alpha)
					a := make([]float64, k*gemmMR)
					b := make([]float64, kern.strips*k*gemmNR)
					for i := range a {
						a[i] = rng.NormFloat64() * math.Exp2(float64(rng.IntN(20)-10))
					}
					for i := range b {
						b[i] = rng.NormFloat64()
					}
					c0 := make([]float64, gemmMR*ldc)
					for i := range c0 {
						c0[i] = rng.NormFloat64()
					}
					want, got := append([]float64(nil), c0...), append([]float64(nil), c0...)
					for s := range kern.strips {
						gemmKernel6x8CAVX2(k, &a[0], &b[s*k*gemmNR], &want[s*gemmNR], ldc*8, alpha, store)
					}
					kern.run(k, a, b, got, ldc, alpha, store)
					for i := range want {
						if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
							t.Fatalf("%s: element (%d, %d) is %v, the AVX2 kernel's %v", name, i/ldc, i%ldc, got[i], want[i])
						}
					}
					for r := range gemmMR {
						for c := cols; c < ldc; c++ {
							if got[r*ldc+c] != c0[r*ldc+c] {
								t.Fatalf("%s: wrote outside the tile at (%d, %d)", name, r, c)
							}
						}
					}
				}
			}
		}
	}
}

// BenchmarkGemmKernelC compares the micro-kernels on cache-resident
// panels on one thread (GFLOP/s over the tile each one covers).
func BenchmarkGemmKernelC(b *testing.B) {
	a := make([]float64, gemmKC*gemmMR)
	bb := make([]float64, 2*gemmKC*gemmNR)
	const ldc = 2 * gemmNR
	c := make([]float64, gemmMR*ldc)
	wide := func(k int, a, b, c *float64, ldc int, alpha float64, store bool) {
		gemmKernel6x16CAVX512(k, a, b, k*gemmNR*8, c, ldc, alpha, store)
	}
	for _, k := range []struct {
		name string
		fn   func(k int, a, b, c *float64, ldc int, alpha float64, store bool)
		cols int
		ok   bool
	}{{"avx2", gemmKernel6x8CAVX2, gemmNR, hasFMA}, {"avx512", gemmKernel6x8CAVX512, gemmNR, hasAVX512}, {"avx512-6x16", wide, 2 * gemmNR, hasWideKernel}} {
		b.Run(k.name, func(b *testing.B) {
			if !k.ok {
				b.Skip("this CPU lacks the instructions of this kernel; Gemm never calls it here")
			}
			for b.Loop() {
				k.fn(gemmKC, &a[0], &bb[0], &c[0], ldc*8, 1, false)
			}
			b.ReportMetric(2*gemmKC*gemmMR*float64(k.cols)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
