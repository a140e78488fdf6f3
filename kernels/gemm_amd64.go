//go:build amd64 && !purego

package kernels

import "golang.org/x/sys/cpu"

// hasFMA selects the AVX2/FMA micro-kernel of Gemm. Unlike the distance
// loops it does not reproduce the pure-Go bits: a fused multiply-add
// rounds once where the pure-Go kernel rounds twice.
var hasFMA = hasAVX2 && cpu.X86.HasFMA

// hasAVX512 selects the AVX-512 form of the same micro-kernel (the same
// bits: each element sums its products in k order with one fused
// multiply-add each).
var hasAVX512 = hasFMA && cpu.X86.HasAVX512F

//go:noescape
func gemmKernel6x8CAVX2(k int, a, b, c *float64, ldc int, alpha float64, store bool)

// hasWideKernel selects the 6×16 AVX-512 kernel for pairs of whole B
// strips: twelve accumulators where the 6×8 AVX-512 kernel's six leave the
// FMA units waiting on their latency.
var hasWideKernel = hasAVX512

//go:noescape
func gemmKernel6x16CAVX512(k int, a, b *float64, bstride int, c *float64, ldc int, alpha float64, store bool)

//go:noescape
func gemmKernel6x8CAVX512(k int, a, b, c *float64, ldc int, alpha float64, store bool)

// gemmKernelC updates a whole 6×8 tile of C in place, starting at c[0]
// with row stride ldc: C += alpha·(the product), or C = alpha·(the
// product) if store. It rounds alpha·v and the sum as the Go edge path
// does. It reports false, doing nothing, without the FMA kernel.
func gemmKernelC(k int, a, b, c []float64, ldc int, alpha float64, store bool) bool {
	if !hasFMA {
		return false
	}
	_ = a[k*gemmMR-1]
	_ = b[k*gemmNR-1]
	_ = c[(gemmMR-1)*ldc+gemmNR-1]
	if hasAVX512 {
		gemmKernel6x8CAVX512(k, &a[0], &b[0], &c[0], ldc*8, alpha, store)
		return true
	}
	gemmKernel6x8CAVX2(k, &a[0], &b[0], &c[0], ldc*8, alpha, store)
	return true
}

// gemmKernelWideC is gemmKernelC for a 6×16 tile of C: b holds two packed
// strips of B (2·gemmNR·k values). It reports false, doing nothing,
// without the AVX-512 kernel.
func gemmKernelWideC(k int, a, b, c []float64, ldc int, alpha float64, store bool) bool {
	if !hasWideKernel {
		return false
	}
	_ = a[k*gemmMR-1]
	_ = b[2*k*gemmNR-1]
	_ = c[(gemmMR-1)*ldc+2*gemmNR-1]
	gemmKernel6x16CAVX512(k, &a[0], &b[0], k*gemmNR*8, &c[0], ldc*8, alpha, store)
	return true
}

//go:noescape
func dotAxpyAVX2(a, x, y *float64, blocks int, xr float64) float64

// dotAxpy returns Σ a_i·x_i and adds a_i·xr to y_i, over len(a) elements
// (x and y at least as long), reading a once; FMA kernel where the CPU has
// it, in blocks of 16, the rest in Go.
func dotAxpy(a, x, y []float64, xr float64) float64 {
	x, y = x[:len(a)], y[:len(a)]
	var t float64
	k := 0
	if hasFMA && len(a) >= 16 {
		k = len(a) &^ 15
		t = dotAxpyAVX2(&a[0], &x[0], &y[0], k/16, xr)
	}
	return t + dotAxpyGo(a[k:], x[k:], y[k:], xr)
}
