package quality

import (
	"math"
	"testing"
)

// TestNormaliser checks that 1/G(k) is the largest possible penalty sum:
// every point's k intruders at the worst input ranks N−1, N−2, ….
func TestNormaliser(t *testing.T) {
	for _, n := range []int{4, 5, 20, 21} {
		for k := 1; k <= n-2; k++ {
			var worst float64
			for p := 1; p <= k; p++ {
				worst += math.Max(float64(n-p-k), 0)
			}
			worst *= float64(n)
			if g := normaliser(n, k); math.Abs(g*worst-1) > 1e-14 {
				t.Errorf("N=%d k=%d: G·max penalty = %v, want 1", n, k, g*worst)
			}
		}
	}
}

// TestRNX checks the exact-ratio form against the textbook formula and its
// landmarks: 1 for full overlap, 0 for the overlap of a random embedding
// (Q_NX = k/(N−1)).
func TestRNX(t *testing.T) {
	for _, tc := range []struct {
		n, k    int
		overlap int64
		want    float64
	}{
		{10, 3, 30, 1},
		{10, 3, 10, 0}, // Q = 10/30 = k/(N−1)
		{5, 1, 1, -1. / 15},
		{101, 7, 123, ((100*123.0/(7*101) - 7) / (100 - 7))},
	} {
		if got := rnx(tc.n, tc.k, tc.overlap); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("N=%d k=%d overlap=%d: R_NX = %v, want %v", tc.n, tc.k, tc.overlap, got, tc.want)
		}
	}
}
