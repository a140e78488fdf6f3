package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestCorrectSpectrumHand(t *testing.T) {
	// Eigenvalues 3 (u=(1,1,0)/√2), −1 (u=(1,−1,0)/√2) and 3 (e₃).
	s := []float64{1, 2, 0, 2, 1, 0, 0, 0, 3}
	cases := []struct {
		c    Correction
		want []float64
	}{
		{Clip, []float64{1.5, 1.5, 0, 1.5, 1.5, 0, 0, 0, 3}},
		{Flip, []float64{2, 1, 0, 1, 2, 0, 0, 0, 3}},
		{Shift, []float64{2, 2, 0, 2, 2, 0, 0, 0, 4}},
		{None, s},
	}
	for _, tc := range cases {
		dst := make([]float64, 9)
		neg, err := CorrectSpectrum(dst, s, 3, tc.c)
		if err != nil {
			t.Fatalf("%v: %v", tc.c, err)
		}
		if math.Abs(neg-1.0/7) > 1e-14 {
			t.Errorf("%v: negShare %v, want 1/7", tc.c, neg)
		}
		for k := range dst {
			if math.Abs(dst[k]-tc.want[k]) > 1e-13 {
				t.Errorf("%v: dst[%d] = %v, want %v", tc.c, k, dst[k], tc.want[k])
			}
		}
	}
}

func TestCorrectSpectrumDiagonalShare(t *testing.T) {
	s := []float64{2, 0, 0, 0, 0, -1, 0, 0, 0, 0, -3, 0, 0, 0, 0, 4}
	dst := make([]float64, 16)
	neg, err := CorrectSpectrum(dst, s, 4, Clip)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(neg-0.4) > 1e-15 {
		t.Errorf("negShare %v, want 0.4", neg)
	}
	want := []float64{2, 0, 0, 4}
	for i := range 4 {
		if math.Abs(dst[i*4+i]-want[i]) > 1e-14 {
			t.Errorf("dst[%d,%d] = %v, want %v", i, i, dst[i*4+i], want[i])
		}
	}
}

// TestCorrectSpectrumPSD checks the corrected spectra of a random
// indefinite matrix against the formulas of each correction.
func TestCorrectSpectrumPSD(t *testing.T) {
	const n = 20
	rng := rand.New(rand.NewPCG(1, 2))
	s := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			v := rng.NormFloat64()
			s[i*n+j], s[j*n+i] = v, v
		}
	}
	orig := eigenvalues(t, s, n)
	lmin := orig[0]
	if lmin >= 0 {
		t.Fatal("test matrix is not indefinite")
	}
	for _, c := range []Correction{Clip, Flip, Shift} {
		dst := make([]float64, n*n)
		if _, err := CorrectSpectrum(dst, s, n, c); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			for j := range n {
				if dst[i*n+j] != dst[j*n+i] {
					t.Fatalf("%v: not symmetric at (%d,%d)", c, i, j)
				}
			}
		}
		got := eigenvalues(t, dst, n)
		want := make([]float64, n)
		for k, l := range orig {
			switch c {
			case Clip:
				want[k] = max(l, 0)
			case Flip:
				want[k] = math.Abs(l)
			case Shift:
				want[k] = l - lmin
			}
		}
		sortFloats(want)
		for k := range got {
			if got[k] < -1e-12 {
				t.Errorf("%v: eigenvalue %d = %v < 0", c, k, got[k])
			}
			if math.Abs(got[k]-want[k]) > 1e-11 {
				t.Errorf("%v: eigenvalue %d = %v, want %v", c, k, got[k], want[k])
			}
		}
	}
}

func eigenvalues(t *testing.T, s []float64, n int) []float64 {
	t.Helper()
	var e mat.EigenSym
	if !e.Factorize(mat.NewSymDense(n, append([]float64(nil), s...)), false) {
		t.Fatal("eigen failed")
	}
	v := e.Values(nil)
	sortFloats(v)
	return v
}

func sortFloats(v []float64) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] < v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

func TestSymmetrizeAndSqDistances(t *testing.T) {
	s := []float64{4, 1, 3, 3, 1, 0, 3, 0, 9}
	asym := Symmetrize(s, 3)
	if asym != 2 {
		t.Errorf("maxAsym %v, want 2", asym)
	}
	wantS := []float64{4, 2, 3, 2, 1, 0, 3, 0, 9}
	for k := range s {
		if s[k] != wantS[k] {
			t.Errorf("symmetrized[%d] = %v, want %v", k, s[k], wantS[k])
		}
	}
	d := make([]float64, 9)
	KernelSqDistances(d, s, 3)
	// d01 = 4+1−4 = 1, d02 = 4+9−6 = 7, d12 = 1+9−0 = 10.
	wantD := []float64{0, 1, 7, 1, 0, 10, 7, 10, 0}
	for k := range d {
		if d[k] != wantD[k] {
			t.Errorf("d²[%d] = %v, want %v", k, d[k], wantD[k])
		}
	}
	// Indefinite: d² would be 1+1−2·3 = −4, clamped to 0.
	neg := []float64{1, 3, 3, 1}
	d2 := make([]float64, 4)
	KernelSqDistances(d2, neg, 2)
	if d2[1] != 0 || d2[2] != 0 {
		t.Errorf("negative d² not clamped: %v", d2)
	}
}
