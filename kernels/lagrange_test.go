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
