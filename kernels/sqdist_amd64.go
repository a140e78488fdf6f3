//go:build amd64 && !purego

package kernels

import "golang.org/x/sys/cpu"

// hasAVX2 selects the AVX2 versions of the squared-distance loops. They
// add the same terms to the same four lanes in the same order, with a
// separate multiply and add, so they return the pure-Go results bit for
// bit; only the speed differs.
var hasAVX2 = cpu.X86.HasAVX && cpu.X86.HasAVX2

//go:noescape
func sqDistLanesAVX2(s *[4]float64, a, b []float64)

//go:noescape
func sqDistBelowAVX2(a, b []float64, bound float64) (d float64, ok bool)

//go:noescape
func sqDistAVX2(a, b []float64) float64

//go:noescape
func sqDistAtMost2AVX2(a, b1, b2 []float64, bound1, bound2 float64) (d1, d2 float64, ok1, ok2 bool)
