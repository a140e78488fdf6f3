package tsne

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAttract2 checks the four-lane attraction against a plain sum, on rows
// of every length up to 13 (whole blocks of four and every tail), with
// near and far neighbours, and that the AVX2 loop (where the CPU has it)
// gives the bits of the Go loop.
func TestAttract2(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	y := randomPoints(rng, 40, 2)
	for i := range y {
		y[i] *= math.Pow(10, float64(rng.IntN(5)-1)) // distances from 0.1 to 1e3
	}
	for length := range 14 {
		col := make([]int32, length)
		val := make([]float64, length)
		for e := range col {
			col[e] = int32(1 + rng.IntN(39))
			val[e] = rng.Float64()
		}
		var w0, w1 float64
		for e, j := range col {
			d0, d1 := y[0]-y[2*j], y[1]-y[2*j+1]
			pw := val[e] / (1 + d0*d0 + d1*d1)
			w0 += pw * d0
			w1 += pw * d1
		}
		g0, g1 := attract2(y, col, val, y[0], y[1])
		var lanes [8]float64
		for b := 0; b < length; b += 4 {
			attract2Entries(&lanes, y, col[b:min(b+4, length)], val[b:min(b+4, length)], y[0], y[1])
		}
		if h0, h1 := (lanes[0]+lanes[1])+(lanes[2]+lanes[3]), (lanes[4]+lanes[5])+(lanes[6]+lanes[7]); h0 != g0 || h1 != g1 {
			t.Errorf("length %d: (%v, %v), Go lanes (%v, %v)", length, g0, g1, h0, h1)
		}
		scale := 0.0
		for e, j := range col {
			d := math.Hypot(y[0]-y[2*j], y[1]-y[2*j+1])
			scale += val[e] * d / (1 + d*d)
		}
		if math.Abs(g0-w0) > 1e-14*scale || math.Abs(g1-w1) > 1e-14*scale || (length == 0 && (g0 != 0 || g1 != 0)) {
			t.Errorf("length %d: got (%v, %v), want (%v, %v)", length, g0, g1, w0, w1)
		}
	}
}

// BenchmarkAttract measures the 2-D attraction over a sparse P with 130
// entries per row at N = 10⁵ (about what perplexity 30 gives after
// symmetrisation), with neighbours within 2,000 rows of each other (as
// after locality reordering) and at random.
func BenchmarkAttract(b *testing.B) {
	const n, k = 100_000, 130
	rng := rand.New(rand.NewPCG(1, 2))
	y := randomPoints(rng, n, 2)
	att := make([]float64, 2*n)
	for _, local := range []bool{true, false} {
		p := &SparseAffinities{N: n, RowPtr: make([]int, n+1)}
		for i := range n {
			for range k {
				j := rng.IntN(n)
				if local {
					j = (i + 1 + rng.IntN(2000)) % n
				}
				p.Col = append(p.Col, int32(j))
				p.Val = append(p.Val, rng.Float64())
			}
			p.RowPtr[i+1] = len(p.Col)
		}
		name := "random"
		if local {
			name = "local"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				tsneAttractSparse(att, y, p, 2, 0, n, 1)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*k), "ns/entry")
		})
	}
}

// A column past the points panics (in the AVX2 loop as in the Go one)
// rather than reading outside y.
func TestAttract2OutOfRange(t *testing.T) {
	y := make([]float64, 2*5)
	for _, col := range [][]int32{{1, 2, 5, 3}, {1, 2, 3, 4, 1, 2, 3, -1}, {9}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("columns %v of 5 points: no panic", col)
				}
			}()
			attract2(y, col, make([]float64, len(col)), 0, 0)
		}()
	}
}
