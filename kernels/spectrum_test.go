package kernels

import (
	"context"
	"errors"
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

// correctSpectrumRef is the whole-matrix reconstruction U f(Λ) Uᵀ with one
// gonum Mul on EigenSym's decomposition, which CorrectSpectrum must
// reproduce bit for bit.
func correctSpectrumRef(t *testing.T, s []float64, n int, c Correction) []float64 {
	t.Helper()
	lam := make([]float64, n)
	vecs := make([]float64, n*n)
	if err := EigenSym(context.Background(), lam, vecs, s, n, 1); err != nil {
		t.Fatal(err)
	}
	lmin := lam[0]
	for k, l := range lam {
		switch c {
		case Clip:
			lam[k] = max(l, 0)
		case Flip:
			lam[k] = math.Abs(l)
		case Shift:
			if lmin < 0 {
				lam[k] = l - lmin
			}
		}
	}
	u := mat.NewDense(n, n, vecs)
	var ul mat.Dense
	ul.CloneFrom(u)
	for k, l := range lam {
		col := ul.ColView(k).(*mat.VecDense)
		col.ScaleVec(l, col)
	}
	dst := make([]float64, n*n)
	mat.NewDense(n, n, dst).Mul(&ul, u.T())
	for i := range n {
		for j := i + 1; j < n; j++ {
			dst[i*n+j] = dst[j*n+i]
		}
	}
	return dst
}

// TestCorrectSpectrumTiles checks that the tiled, cancellable
// reconstruction gives the bits of one whole-matrix product, for sizes
// around the tile and Dgemm block boundaries and for several thread counts.
func TestCorrectSpectrumTiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 7, 64, 65, 129, 200} {
		s := make([]float64, n*n)
		for i := range n {
			for j := 0; j <= i; j++ {
				v := rng.NormFloat64()
				s[i*n+j], s[j*n+i] = v, v
			}
		}
		for _, c := range []Correction{Clip, Flip, Shift} {
			want := correctSpectrumRef(t, s, n, c)
			var first []float64
			for _, threads := range []int{1, 3} {
				dst := make([]float64, n*n)
				if _, err := CorrectSpectrumContext(context.Background(), dst, s, n, c, threads); err != nil {
					t.Fatal(err)
				}
				// The product's rounding differs from gonum's (FMA, another
				// blocking): equal to a tolerance; symmetric and the same
				// for any thread count bit for bit.
				for q := range dst {
					if math.Abs(dst[q]-want[q]) > 1e-13*float64(n) {
						t.Fatalf("n %d %v threads %d: dst[%d] = %v, want %v", n, c, threads, q, dst[q], want[q])
					}
					if i, j := q/n, q%n; math.Float64bits(dst[q]) != math.Float64bits(dst[j*n+i]) {
						t.Fatalf("n %d %v threads %d: dst[%d,%d] = %v, its mirror %v", n, c, threads, i, j, dst[q], dst[j*n+i])
					}
				}
				if first == nil {
					first = dst
				} else if !slicesEqualBits(first, dst) {
					t.Fatalf("n %d %v: threads %d differ from threads 1", n, c, threads)
				}
			}
		}
	}
}

// TestCorrectSpectrumCancel checks that a cancelled context ends the call
// at once while the eigendecomposition, which cannot be interrupted, is
// still running (held here by the test hook), and that an already
// cancelled context never starts it.
func TestCorrectSpectrumCancel(t *testing.T) {
	const n = 30
	s := make([]float64, n*n)
	for i := range n {
		s[i*n+i] = float64(i + 1)
	}
	ctx, cancel := context.WithCancel(context.Background())
	entered, release := make(chan struct{}), make(chan struct{})
	eigenHook = func() { close(entered); <-release }
	defer func() { eigenHook = nil }()
	go func() { <-entered; cancel() }()
	_, err := CorrectSpectrumContext(ctx, make([]float64, n*n), s, n, Clip, 2)
	close(release) // the abandoned factorisation may now finish in the background
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	eigenHook = func() { t.Error("factorisation started under a cancelled context") }
	if _, err := CorrectSpectrumContext(ctx, make([]float64, n*n), s, n, Shift, 2); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
