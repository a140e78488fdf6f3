package placement

import (
	"fmt"
	"slices"
)

// Reference is a fitted map held fixed while new rows are placed: N points
// of Dims coordinates, row-major in Y.
type Reference struct {
	Y       []float64
	N, Dims int
}

// Check panics when Y does not hold N×Dims values (a programmer error).
func (r Reference) Check() {
	if r.N < 1 || r.Dims < 1 || len(r.Y) != r.N*r.Dims {
		panic(fmt.Sprintf("placement: reference with %d values for N = %d, Dims = %d", len(r.Y), r.N, r.Dims))
	}
}

// Row returns the coordinates of reference point j.
func (r Reference) Row(j int32) []float64 { return r.Y[int(j)*r.Dims : int(j+1)*r.Dims] }

// MedianInit writes to dst (Dims values) the coordinate-wise median of the
// reference positions of the points nbr. With an even count it is the mean
// of the two middle values. buf is scratch space of at least len(nbr)
// values (nil allocates). It panics on an empty nbr.
func MedianInit(dst []float64, r Reference, nbr []int32, buf []float64) {
	m := len(nbr)
	if m == 0 {
		panic("placement: MedianInit of no neighbours")
	}
	if cap(buf) < m {
		buf = make([]float64, m)
	}
	buf = buf[:m]
	for c := range r.Dims {
		for k, j := range nbr {
			buf[k] = r.Y[int(j)*r.Dims+c]
		}
		slices.Sort(buf)
		if m%2 == 1 {
			dst[c] = buf[m/2]
		} else {
			dst[c] = (buf[m/2-1] + buf[m/2]) / 2
		}
	}
}
