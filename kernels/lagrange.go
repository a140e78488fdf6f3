package kernels

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
