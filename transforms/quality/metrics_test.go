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
			if got := pointPenaltyMax(int64(n), int64(k)); float64(got) != worst {
				t.Errorf("N=%d k=%d: worst penalty of a point %d, want %v", n, k, got, worst)
			}
			for _, m := range []int{n, 1, n - 1} { // every point, and samples
				if g := normaliser(n, m, k); math.Abs(g*worst*float64(m)-1) > 1e-14 {
					t.Errorf("N=%d m=%d k=%d: G·max penalty = %v, want 1", n, m, k, g*worst*float64(m))
				}
			}
		}
	}
}

// TestRNX checks the exact-ratio form against the textbook formula and its
// landmarks: 1 for full overlap, 0 for the overlap of a random embedding
// (Q_NX = k/(N−1)).
func TestRNX(t *testing.T) {
	for _, tc := range []struct {
		name      string
		n, m, k   int
		overlap   int64
		want, tol float64
	}{
		{"full overlap", 10, 10, 3, 30, 1, 1e-15},
		{"random", 10, 10, 3, 10, 0, 1e-15}, // Q = 10/30 = k/(N−1)
		{"small", 5, 5, 1, 1, -1. / 15, 1e-15},
		{"general", 101, 101, 7, 123, ((100*123.0/(7*101) - 7) / (100 - 7)), 1e-15},
		{"sample", 101, 20, 7, 123, ((100*123.0/(7*20) - 7) / (100 - 7)), 1e-15},
		// (N−1)·overlap ≈ N³ does not fit in 64 bits: the big-integer path.
		{"huge, full overlap", 3_000_000, 3_000_000, 2_999_990, 3_000_000 * 2_999_990, 1, 1e-12},
		{"huge, random", 3_000_000, 3_000_000, 2_000_000, 2_000_000 * 2_000_000 * 3_000_000 / 2_999_999, 0, 1e-6},
	} {
		if got := rnx(tc.n, tc.m, tc.k, tc.overlap); math.Abs(got-tc.want) > tc.tol {
			t.Errorf("%s: N=%d M=%d k=%d overlap=%d: R_NX = %v, want %v", tc.name, tc.n, tc.m, tc.k, tc.overlap, got, tc.want)
		}
	}
}

// TestFloat128: the 128-bit conversion rounds as float64(uint64) does, and
// to nearest even beyond 64 bits.
func TestFloat128(t *testing.T) {
	for _, v := range []uint64{0, 1, 1<<53 + 1, 1<<63 + 1025, 1<<63 + 1024, 1<<63 + 3072, math.MaxUint64} {
		if got, want := float128(0, v), float64(v); got != want {
			t.Errorf("float128(0, %d) = %v, want %v", v, got, want)
		}
	}
	for _, tc := range []struct {
		hi, lo uint64
		want   float64
	}{
		{1, 0, 0x1p64},
		{1, 1, 0x1p64},                       // below half an ulp (2¹²)
		{1, 1 << 11, 0x1p64},                 // exactly half: even stays
		{1, 1<<11 + 1, 0x1p64 + 0x1p12},      // just above half
		{1, 3 << 11, 0x1p64 + 0x1p13},        // half, odd: up to even
		{1<<63 | 1, 1 << 63, 0x1p127},        // large: far below half an ulp (2⁷⁴)
		{1<<63 | 1<<11, 1, 0x1p127 + 0x1p75}, // just above half an ulp
	} {
		if got := float128(tc.hi, tc.lo); got != tc.want {
			t.Errorf("float128(%#x, %#x) = %v, want %v", tc.hi, tc.lo, got, tc.want)
		}
	}
}
