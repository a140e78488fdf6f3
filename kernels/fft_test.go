package kernels

import (
	"context"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"
)

// TestRealFFT2 compares the forward transform with a direct 2-D DFT, and
// forward then inverse with the grid times p0·p1, for 1-D and 2-D grids of
// even sizes and several thread counts (the results must not depend on
// them).
func TestRealFFT2(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	for _, tc := range []struct{ p0, p1 int }{{6, 1}, {10, 1}, {6, 4}, {12, 10}, {30, 18}} {
		grid := make([]float64, tc.p0*tc.p1)
		for i := range grid {
			grid[i] = rng.NormFloat64()
		}
		h0 := tc.p0/2 + 1
		var first []complex128
		for _, threads := range []int{1, 2, 3} {
			var f RealFFT2
			f.Setup(tc.p0, tc.p1, threads)
			if p0, p1, rowLen := f.Size(); p0 != tc.p0 || p1 != tc.p1 || rowLen != h0 {
				t.Fatalf("%dx%d: Size() = %d, %d, %d", tc.p0, tc.p1, p0, p1, rowLen)
			}
			s := make([]complex128, tc.p1*h0)
			if err := f.Forward(context.Background(), s, func(r int, row []float64) bool {
				copy(row, grid[r*tc.p0:(r+1)*tc.p0])
				return true
			}); err != nil {
				t.Fatal(err)
			}
			for k1 := range tc.p1 {
				for k0 := range h0 {
					var want complex128
					for r := range tc.p1 {
						for c := range tc.p0 {
							a := -2 * math.Pi * (float64(k0*c)/float64(tc.p0) + float64(k1*r)/float64(tc.p1))
							want += complex(grid[r*tc.p0+c], 0) * cmplx.Exp(complex(0, a))
						}
					}
					if got := s[k1*h0+k0]; cmplx.Abs(got-want) > 1e-9*float64(tc.p0*tc.p1) {
						t.Fatalf("%dx%d threads %d: coefficient (%d, %d) = %v, want %v", tc.p0, tc.p1, threads, k0, k1, got, want)
					}
				}
			}
			if first == nil {
				first = append([]complex128(nil), s...)
			} else {
				for i := range s {
					if s[i] != first[i] {
						t.Fatalf("%dx%d: threads %d differ from 1 thread at %d", tc.p0, tc.p1, threads, i)
					}
				}
			}
			scale := float64(tc.p0 * tc.p1)
			if err := f.Inverse(context.Background(), s, tc.p1, func(r int, row []float64) {
				for c, v := range row {
					if w := grid[r*tc.p0+c] * scale; math.Abs(v-w) > 1e-9*scale {
						t.Fatalf("%dx%d: round trip (%d, %d) = %v, want %v", tc.p0, tc.p1, r, c, v, w)
					}
				}
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, n := range []int{1, 7, 31, 49, 101} {
		m := FFTSize(n)
		r := m
		for _, p := range []int{2, 3, 5} {
			for r%p == 0 {
				r /= p
			}
		}
		if m < n || m%2 != 0 || r != 1 {
			t.Errorf("FFTSize(%d) = %d", n, m)
		}
	}
}
