//go:build !amd64 || purego

package kernels

const hasFMA = false

func gemmKernel(k int, a, b []float64, c *[gemmMR * gemmNR]float64) {
	gemmKernelGo(k, a, b, c)
}
