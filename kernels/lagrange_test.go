package kernels

import (
	"math"
	"testing"
)

// TestLagrange: the weights reproduce polynomials of degree below p
// exactly (partition of unity, and x itself), and are the Kronecker delta
// at the nodes; Autocorr against its definition's sum over all pairs.
func TestLagrange(t *testing.T) {
	for _, p := range []int{1, 2, 3, 5, 8} {
		den := make([]float64, p)
		LagrangeDenominators(den)
		w := make([]float64, p)
		for _, x := range []float64{0, 0.1, 0.37, 0.5, 0.99} {
			LagrangeWeights(w, den, x)
			for deg := range p {
				var got float64
				for k, v := range w {
					got += v * math.Pow((float64(k)+0.5)/float64(p), float64(deg))
				}
				if want := math.Pow(x, float64(deg)); math.Abs(got-want) > 1e-12 {
					t.Errorf("p = %d, x = %g: degree %d reproduced as %.15g, want %.15g", p, x, deg, got, want)
				}
			}
		}
		for k := range p {
			LagrangeWeights(w, den, (float64(k)+0.5)/float64(p))
			for m, v := range w {
				if want := float64(b2i(m == k)); math.Abs(v-want) > 1e-12 {
					t.Errorf("p = %d: weight %d at node %d is %g, want %g", p, m, k, v, want)
				}
			}
		}
		a := make([]float64, p)
		for k := range a {
			a[k] = float64(k*k) - 1.5
		}
		dst := make([]float64, 2*p-1)
		Autocorr(dst, a)
		want := make([]float64, 2*p-1)
		for m := range p {
			for n := range p {
				want[n-m+p-1] += a[m] * a[n]
			}
		}
		for d := range dst {
			if math.Abs(dst[d]-want[d]) > 1e-12 {
				t.Errorf("p = %d: autocorrelation at %d is %g, want %g", p, d-p+1, dst[d], want[d])
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestAxisExtent covers the extent of an axis and its degenerate cases.
func TestAxisExtent(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name    string
		y       []float64 // 2-D, axis 1 read
		lo, ext float64
	}{
		{"spread", []float64{0, 3, 0, -1, 0, 2}, -1, 4},
		{"one point", []float64{0, 5}, 4.5, 1},
		{"coincident", []float64{0, 2, 0, 2}, 1.5, 1},
		{"infinite", []float64{0, 1, 0, inf}, 0.5, 1},
		{"infinite first", []float64{0, inf, 0, 1}, 0, 1},
		{"NaN first", []float64{0, nan, 0, 1}, 0, 1},
		{"no points", nil, 0, 1},
	}
	for _, tc := range cases {
		lo, ext := AxisExtent(tc.y, len(tc.y)/2, 2, 1)
		if lo != tc.lo || ext != tc.ext {
			t.Errorf("%s: lo %g, extent %g, want %g, %g", tc.name, lo, ext, tc.lo, tc.ext)
		}
	}
}

// TestLocateInterval: the interval of a coordinate, clamped to the axis,
// and weights that reproduce a quadratic through the nodes.
func TestLocateInterval(t *testing.T) {
	den := make([]float64, 3)
	LagrangeDenominators(den)
	cases := []struct {
		name string
		v    float64
		want int
	}{
		{"inside", 2.6, 3}, {"inside low", 0.2, 1}, {"low end", -1, 0}, {"below", -5, 0}, {"high end", 3, 3},
		{"above", 9, 3}, {"NaN", math.NaN(), 0},
	}
	for _, tc := range cases {
		wts := make([]float64, 3)
		// Four intervals 1 wide from −1.
		b := LocateInterval(tc.v, -1, 1, 4, wts, den)
		if b != tc.want {
			t.Errorf("%s: interval %d, want %d", tc.name, b, tc.want)
		}
		if math.IsNaN(tc.v) || tc.v < -1 || tc.v > 3 {
			continue
		}
		// q(x) = x² at the nodes (offsets (k + ½)/3 of interval b).
		var got float64
		for k, w := range wts {
			x := -1 + float64(b) + (float64(k)+0.5)/3
			got += w * x * x
		}
		if math.Abs(got-tc.v*tc.v) > 1e-12 {
			t.Errorf("%s: interpolated %g, want %g", tc.name, got, tc.v*tc.v)
		}
	}
}
