package kernels

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSqDistAVX2 checks the AVX2 kernels against the pure-Go loops bit for
// bit, on every length up to 70 (all tails and 16-term blocks), slices that
// start at odd offsets (unaligned), partial sums that are not zero, and
// bounds at, just above and below the result, with NaN and Inf inputs.
func TestSqDistAVX2(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 and FMA on this CPU (or a purego build): only the pure-Go loops run here, and the other distance tests cover them")
	}
	rng := rand.New(rand.NewPCG(16, 2))
	buf := randomPoints(rng, 2, 80)
	special := []struct {
		name string
		v    float64
	}{{"finite", 0}, {"NaN", math.NaN()}, {"+Inf", math.Inf(1)}, {"-Inf", math.Inf(-1)}}
	for _, sp := range special {
		for d := 0; d <= 70; d++ {
			for _, off := range []int{0, 1, 3} {
				a := append([]float64(nil), buf[off:off+d]...)
				b := buf[80+off : 80+off+d]
				if sp.name != "finite" && d > 0 {
					a[rng.IntN(d)] = sp.v
				}
				name := func() string { return sp.name + " d=" + itoa(d) + " offset=" + itoa(off) }
				want := SqDist(a, b) // dispatches to AVX2
				var s [4]float64
				sqDistLanesGo(&s, a, b)
				ref := (s[0] + s[1]) + (s[2] + s[3])
				if !sameBits(want, ref) {
					t.Fatalf("%s: SqDist %v, Go %v", name(), want, ref)
				}
				start := [4]float64{1, 2, 3, 4}
				lg, la := start, start
				sqDistLanesGo(&lg, a, b)
				sqDistLanesAVX2(&la, a, b)
				for k := range lg {
					if !sameBits(lg[k], la[k]) {
						t.Fatalf("%s: lane %d: AVX2 %v, Go %v", name(), k, la[k], lg[k])
					}
				}
				b2 := buf[off+3 : off+3+d] // a second row, for the pair kernel
				ref2 := SqDist(a, b2)
				bounds := func(r float64) []float64 {
					return []float64{0, r * 0.3, r, math.Nextafter(r, math.Inf(1)), math.Nextafter(r, 0), 2 * r, math.Inf(1), math.NaN()}
				}
				for bi, bound := range bounds(ref) {
					dg, okg := sqDistBelowGo(a, b, bound)
					da, oka := sqDistBelowAVX2(a, b, bound)
					if okg != oka || (okg && !sameBits(dg, da)) {
						t.Fatalf("%s bound=%v: AVX2 (%v, %v), Go (%v, %v)", name(), bound, da, oka, dg, okg)
					}
					for _, bound2 := range bounds(ref2)[bi%3:] {
						w1, ok1 := sqDistAtMostGo(a, b, bound)
						w2, ok2 := sqDistAtMostGo(a, b2, bound2)
						g1, g2, gok1, gok2 := sqDistAtMost2AVX2(a, b, b2, bound, bound2)
						if ok1 != gok1 || ok2 != gok2 || (ok1 && !sameBits(w1, g1)) || (ok2 && !sameBits(w2, g2)) {
							t.Fatalf("%s bounds %v, %v: pair kernel (%v, %v, %v, %v), Go (%v, %v, %v, %v)",
								name(), bound, bound2, g1, g2, gok1, gok2, w1, w2, ok1, ok2)
						}
					}
				}
			}
		}
	}
}

// benchSink keeps benchmark results alive.
var benchSink float64

func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// itoa formats a small non-negative int without strconv in the hot test loop.
func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	var b [bits.UintSize / 3]byte
	i := len(b)
	for ; v > 0; v /= 10 {
		i--
		b[i] = byte('0' + v%10)
	}
	return string(b[i:])
}

// BenchmarkSqDist measures one squared distance (SqDist) and one bounded
// distance that never stops early (sqDistBelow), with the kernel the CPU
// selects and with the pure-Go loop, between neighbouring rows of a
// 256-row table.
func BenchmarkSqDist(b *testing.B) {
	for _, d := range []int{8, 50, 512} {
		x := randomPoints(rand.New(rand.NewPCG(1, 2)), 256, d)
		run := func(name string, dist func(a, b []float64) float64) {
			b.Run(name+"/d="+itoa(d), func(b *testing.B) {
				var s float64
				for b.Loop() {
					for i := range 255 {
						s += dist(x[i*d:(i+1)*d], x[(i+1)*d:(i+2)*d])
					}
				}
				benchSink = s
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/255, "ns/dist")
			})
		}
		run("SqDist", SqDist)
		run("below", func(a, b []float64) float64 { v, _ := sqDistBelow(a, b, math.Inf(1)); return v })
		run("SqDist-go", func(a, b []float64) float64 {
			var s [4]float64
			sqDistLanesGo(&s, a, b)
			return (s[0] + s[1]) + (s[2] + s[3])
		})
		run("below-go", func(a, b []float64) float64 { v, _ := sqDistBelowGo(a, b, math.Inf(1)); return v })
	}
}

// TestSqDist32AVX2 checks the float32 AVX2 distance of the graph index
// against its Go loop bit for bit, on every length up to 70 (whole blocks
// of eight and every tail) at unaligned offsets, and with NaN and Inf.
func TestSqDist32AVX2(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 and FMA on this CPU (or a purego build): sqDist32 runs its Go loop, which the index tests cover")
	}
	rng := rand.New(rand.NewPCG(16, 32))
	buf := make([]float32, 160)
	for i := range buf {
		buf[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3)))
	}
	for _, sp := range []float32{0, float32(math.NaN()), float32(math.Inf(1))} {
		for d := 0; d <= 70; d++ {
			for _, off := range []int{0, 1, 3} {
				a := append([]float32(nil), buf[off:off+d]...)
				b := buf[80+off : 80+off+d]
				if sp != 0 && d > 0 {
					a[rng.IntN(d)] = sp
				}
				got, want := sqDist32AVX2(a, b), sqDist32Go(a, b)
				if math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
					t.Fatalf("special %v d=%d offset=%d: AVX2 %v, Go %v", sp, d, off, got, want)
				}
			}
		}
	}
}

// TestContainsInt32 checks the AVX2 scan against slices.Contains at every
// length and position, through the 16-, 8- and 1-entry steps.
func TestContainsInt32(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 on this CPU (or a purego build): containsInt32 runs slices.Contains")
	}
	for n := range 70 {
		s := make([]int32, n, n+8)
		for i := range s {
			s[i] = int32(3*i + 1)
		}
		s = append(s, -1, -1, -1, -1, -1, -1, -1, -1)[:n] // beyond len: must not be seen
		for v := int32(-1); v <= int32(3*n+1); v++ {
			if got, want := containsInt32AVX2(s, v), slices.Contains(s, v); got != want {
				t.Fatalf("len %d, v %d: containsInt32AVX2 = %v, want %v", n, v, got, want)
			}
		}
	}
}

// TestSqDistAtMost4 checks the four-way kernel against four pure-Go
// sqDistAtMost calls bit for bit: every length up to 70 (all tails and
// 16-term blocks) at unaligned offsets, NaN and Inf terms, and each row's
// bound at, just above or below its distance, far below (an early stop),
// infinite and NaN, mixed across the four rows so that some stop early
// while others go on, with one to four lanes in use (idle lanes never ok).
func TestSqDistAtMost4(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 4))
	buf := randomPoints(rng, 6, 80)
	special := []struct {
		name string
		v    float64
	}{{"finite", 0}, {"NaN", math.NaN()}, {"+Inf", math.Inf(1)}}
	for _, sp := range special {
		for d := 0; d <= 70; d++ {
			for _, off := range []int{0, 1, 3} {
				a := append([]float64(nil), buf[off:off+d]...)
				var b [4][]float64
				for r := range b {
					b[r] = buf[80*(r+1)+off : 80*(r+1)+off+d]
				}
				if sp.name != "finite" && d > 0 {
					b[1] = append([]float64(nil), b[1]...)
					b[1][rng.IntN(d)] = sp.v
				}
				for trial := range 12 {
					var bound [4]float64
					for r := range bound {
						ref := SqDist(a, b[r])
						choices := []float64{ref, math.Nextafter(ref, math.Inf(1)), math.Nextafter(ref, 0), 0.2 * ref, 2 * ref, math.Inf(1), math.NaN()}
						bound[r] = choices[(trial+3*r)%len(choices)]
					}
					var got [4]float64
					m := 1 + trial%4 // lanes from m on idle
					ok := sqDistAtMost4(&got, a, &b, &bound, m)
					if ok>>m != 0 {
						t.Fatalf("%s d=%d offset=%d: %d lanes, ok %04b has an idle lane set", sp.name, d, off, m, ok)
					}
					for r := range m {
						want, wok := sqDistAtMostGo(a, b[r], bound[r])
						gok := ok&(1<<r) != 0
						if gok != wok || (wok && !sameBits(got[r], want)) {
							t.Fatalf("%s d=%d offset=%d bounds %v: row %d: (%v, %v), want (%v, %v)", sp.name, d, off, bound, r, got[r], gok, want, wok)
						}
					}
				}
			}
		}
	}
}
