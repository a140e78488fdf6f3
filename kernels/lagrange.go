package kernels

import "math"

// Lagrange interpolation on equispaced nodes, the interpolation of
// FIt-SNE-style kernel sums (transforms/tsne's interpolated repulsion and
// transforms/nerv's t kernel): p nodes at offsets (k + ½)/p of a unit
// interval.

// LagrangeDenominators sets den[k] = 1/Π_{m≠k} (k − m)/p for the p =
// len(den) nodes, the constant factors of their basis polynomials.
func LagrangeDenominators(den []float64) {
	p := len(den)
	for k := range p {
		d := 1.0
		for m := range p {
			if m != k {
				d *= float64(k-m) / float64(p)
			}
		}
		den[k] = 1 / d
	}
}

// LagrangeWeights writes to wts (p = len(wts) values) the basis
// polynomials of the p nodes at x ∈ [0, 1), the position in the interval;
// den is from LagrangeDenominators.
func LagrangeWeights(wts, den []float64, x float64) {
	p := len(wts)
	inv := 1 / float64(p)
	for k := range p {
		l := den[k]
		for m := range p {
			if m != k {
				l *= x - (float64(m)+0.5)*inv
			}
		}
		wts[k] = l
	}
}

// Autocorr sets dst[d+p−1] = Σ_m a_m·a_{m+d} for |d| < p = len(a): for
// interpolation weights a, what a source at the point itself contributes
// through the nodes at offset d (the own term the kernel sums subtract).
func Autocorr(dst, a []float64) {
	p := len(a)
	for d := -(p - 1); d < p; d++ {
		var c float64
		for m := max(0, -d); m < min(p, p-d); m++ {
			c += a[m] * a[m+d]
		}
		dst[d+p-1] = c
	}
}

// AxisExtent returns the lowest coordinate c of the n points of y (n×dims)
// and their extent on that axis; for one point, coincident points or
// non-finite coordinates, an extent of 1 from half a unit below the first
// point (or from 0), any extent doing then (NaNs propagate to the sums).
func AxisExtent(y []float64, n, dims, c int) (lo, ext float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range n {
		v := y[i*dims+c]
		lo, hi = min(lo, v), max(hi, v)
	}
	ext = hi - lo
	if !(ext > 0) || math.IsInf(ext, 0) {
		lo, ext = 0, 1
		if n > 0 && !math.IsInf(y[c], 0) && !math.IsNaN(y[c]) {
			lo = y[c] - 0.5
		}
	}
	return lo, ext
}

// LocateInterval returns the interval of coordinate v on an axis of nb
// intervals w wide from lo, clamped to the axis (NaN to interval 0), and
// writes the Lagrange weights of its position in it to wts (den from
// LagrangeDenominators).
func LocateInterval(v, lo, w float64, nb int, wts, den []float64) int {
	u := (v - lo) / w
	b := int(u)
	if !(u >= 0) {
		b = 0
	}
	b = min(b, nb-1)
	LagrangeWeights(wts, den, u-float64(b))
	return b
}
