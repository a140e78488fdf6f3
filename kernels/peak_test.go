package kernels

import (
	"math"
	"testing"
	"time"
)

// TestMicroKernelPeak: one and two threads measure a positive, finite
// speed (their ratio is logged, not checked: timing is not asserted).
func TestMicroKernelPeak(t *testing.T) {
	for _, threads := range []int{1, 2} {
		g := MicroKernelPeak(threads, 50*time.Millisecond)
		if !(g > 0) || math.IsInf(g, 0) {
			t.Fatalf("threads %d: %v GFLOP/s", threads, g)
		}
		t.Logf("threads %d: %.1f GFLOP/s", threads, g)
	}
}
