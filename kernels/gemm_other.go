//go:build !amd64 || purego

package kernels

const hasFMA = false

func gemmKernel(k int, a, b []float64, c *[gemmMR * gemmNR]float64) {
	gemmKernelGo(k, a, b, c)
}

func gemmKernelC(k int, a, b, c []float64, ldc int, alpha float64, store bool) bool { return false }

func dotAxpy(a, x, y []float64, xr float64) float64 { return dotAxpyGo(a, x, y[:len(a)], xr) }
