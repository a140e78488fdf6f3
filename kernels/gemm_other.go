//go:build !amd64 || purego

package kernels

const (
	hasFMA        = false
	hasWideKernel = false
)

func gemmKernelC(k int, a, b, c []float64, ldc int, alpha float64, store bool) bool { return false }

func gemmKernelWideC(k int, a, b, c []float64, ldc int, alpha float64, store bool) bool {
	return false
}

func dotAxpy(a, x, y []float64, xr float64) float64 { return dotAxpyGo(a, x, y[:len(a)], xr) }
