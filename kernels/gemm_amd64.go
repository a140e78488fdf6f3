//go:build amd64 && !purego

package kernels

import "golang.org/x/sys/cpu"

// hasFMA selects the AVX2/FMA micro-kernel of Gemm. Unlike the distance
// loops it does not reproduce the pure-Go bits: a fused multiply-add
// rounds once where the pure-Go kernel rounds twice.
var hasFMA = hasAVX2 && cpu.X86.HasFMA

//go:noescape
func gemmKernel6x8AVX2(k int, a, b, c *float64)

// gemmKernel is the micro-kernel: c (6×8, row-major) = Σ_l a_l b_lᵀ over
// the k packed steps of a (6 per step) and b (8 per step).
func gemmKernel(k int, a, b []float64, c *[gemmMR * gemmNR]float64) {
	if hasFMA {
		if k > 0 {
			_ = a[k*gemmMR-1]
			_ = b[k*gemmNR-1]
		}
		gemmKernel6x8AVX2(k, &a[0], &b[0], &c[0])
		return
	}
	gemmKernelGo(k, a, b, c)
}
