//go:build !amd64 || purego

package tsne

func attract2Blocks(*[8]float64, []float64, []int32, []float64, int, float64, float64) bool {
	return false
}
