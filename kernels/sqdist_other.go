//go:build !amd64 || purego

package kernels

const hasAVX2 = false

func sqDistLanesAVX2(*[4]float64, []float64, []float64) { panic("kernels: no AVX2 kernel") }

func sqDistBelowAVX2([]float64, []float64, float64) (float64, bool) {
	panic("kernels: no AVX2 kernel")
}

func sqDistAVX2([]float64, []float64) float64 { panic("kernels: no AVX2 kernel") }

func sqDistAtMost2AVX2(_, _, _ []float64, _, _ float64) (float64, float64, bool, bool) {
	panic("kernels: no AVX2 kernel")
}

func sqDist4x2(out *[8]float64, x []float64, d, i, j int) bool { return false }

func sqDist4x2Packed(*[32]float64, int, []float64, []float64, int) { panic("kernels: no AVX2 kernel") }

func sqDist32AVX2([]float32, []float32) float32 { panic("kernels: no AVX2 kernel") }

func containsInt32AVX2([]int32, int32) bool { panic("kernels: no AVX2 kernel") }

func sqDistAtMost4AVX2(int, *float64, *float64, *float64, *float64, *float64, *[4]float64, *[4]float64) uint8 {
	panic("kernels: no AVX2 kernel")
}
