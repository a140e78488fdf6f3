// Package floats holds small checks on float64 slices that the I/O and the
// method layers share without depending on each other.
package floats

// AllFinite reports whether no value of v is NaN or ±Inf. v − v is 0 for
// every finite v and NaN otherwise; the differences are summed in four
// chains, so that the loop runs at the speed of its loads rather than of
// one addition's latency (a whole batch of features is checked this way).
func AllFinite(v []float64) bool {
	var a0, a1, a2, a3 float64
	i := 0
	for ; i+4 <= len(v); i += 4 {
		a0 += v[i] - v[i]
		a1 += v[i+1] - v[i+1]
		a2 += v[i+2] - v[i+2]
		a3 += v[i+3] - v[i+3]
	}
	for ; i < len(v); i++ {
		a0 += v[i] - v[i]
	}
	return (a0+a1)+(a2+a3) == 0
}
