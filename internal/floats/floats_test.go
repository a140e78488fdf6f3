package floats

import (
	"math"
	"testing"
)

func TestAllFinite(t *testing.T) {
	for _, n := range []int{0, 1, 3, 4, 5, 8, 13} {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i) - 2.5
		}
		if !AllFinite(v) {
			t.Errorf("n = %d, finite values: false", n)
		}
		for i := range n {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				w := append([]float64(nil), v...)
				w[i] = bad
				if AllFinite(w) {
					t.Errorf("n = %d, %v at %d: true", n, bad, i)
				}
			}
		}
	}
	// Huge finite values do not overflow the sums.
	if !AllFinite([]float64{math.MaxFloat64, -math.MaxFloat64, math.MaxFloat64}) {
		t.Error("±MaxFloat64: false")
	}
}
