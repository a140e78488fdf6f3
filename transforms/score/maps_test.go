package score

import (
	"math"
	"math/rand/v2"
	"testing"
)

func pairDist(c []float64, k, i, j int) float64 {
	var s float64
	for q := range k {
		v := c[i*k+q] - c[j*k+q]
		s += v * v
	}
	return math.Sqrt(s)
}

// TestMapsDistances checks that each map is an isometric copy of the
// tangent-plane projection: distances in map t equal Distance(t, ·, ·),
// computed independently with the projection matrix.
func TestMapsDistances(t *testing.T) {
	for _, dims := range []int{1, 2, 4} {
		rng := rand.New(rand.NewPCG(61, uint64(dims)))
		m := planted(rng, 15, dims, []float64{1, 0.3, 0, 0.8})
		maps := m.Maps()
		for tt, c := range maps {
			if len(c) != 15*dims {
				t.Fatalf("K=%d aspect %d: map length %d", dims, tt, len(c))
			}
			for i := range 15 {
				for j := range 15 {
					if got, want := pairDist(c, dims, i, j), m.Distance(tt, i, j); math.Abs(got-want) > 1e-12 {
						t.Errorf("K=%d aspect %d (%d, %d): map distance %v, dᵗ %v", dims, tt, i, j, got, want)
					}
				}
			}
		}
	}
}

// TestDistanceProjection checks Distance against an explicit (I − xxᵀ).
func TestDistanceProjection(t *testing.T) {
	rng := rand.New(rand.NewPCG(62, 63))
	m := planted(rng, 5, 3, []float64{0.5, 0.5})
	d := 4
	for tt := range 2 {
		x := m.X[tt*d : tt*d+d]
		for i := range 5 {
			for j := range 5 {
				var s float64
				for r := range d {
					var p float64
					for c := range d {
						e := -x[r] * x[c]
						if r == c {
							e++
						}
						p += e * (m.Y[j*d+c] - m.Y[i*d+c])
					}
					s += p * p
				}
				if got := m.Distance(tt, i, j); math.Abs(got-math.Sqrt(s)) > 1e-14 {
					t.Errorf("aspect %d (%d, %d): %v want %v", tt, i, j, got, math.Sqrt(s))
				}
			}
		}
	}
}

// TestBasisOrthonormal checks the tangent bases before alignment.
func TestBasisOrthonormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(64, 65))
	for _, dims := range []int{1, 2, 3} {
		m := planted(rng, 3, dims, []float64{0, 0, 0, 0})
		d := dims + 1
		copy(m.X[3*d:], make([]float64, d)) // a pole at −e_K
		m.X[3*d+dims] = -1
		for tt := range 4 {
			e := m.basis(tt)
			for a := range dims {
				var xa float64
				for r := range d {
					xa += e[r*dims+a] * m.X[tt*d+r]
				}
				if math.Abs(xa) > 1e-14 {
					t.Errorf("K=%d aspect %d: basis vector %d · pole = %v", dims, tt, a, xa)
				}
				for b := range dims {
					var s float64
					for r := range d {
						s += e[r*dims+a] * e[r*dims+b]
					}
					want := 0.0
					if a == b {
						want = 1
					}
					if math.Abs(s-want) > 1e-14 {
						t.Errorf("K=%d aspect %d: e%d·e%d = %v", dims, tt, a, b, s)
					}
				}
			}
		}
	}
}

// TestAlignMaps: maps that are orthogonal transforms (with a reflection) of
// one another must coincide after alignment, and alignment must keep
// within-map distances.
func TestAlignMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(66, 67))
	const n, k = 12, 2
	base := make([]float64, n*k)
	for q := range base {
		base[q] = rng.NormFloat64()
	}
	maps := make([][]float64, 4)
	for a := range maps {
		th := rng.Float64() * 2 * math.Pi
		c, s := math.Cos(th), math.Sin(th)
		r := [4]float64{c, -s, s, c}
		if a%2 == 1 { // reflect
			r[1], r[3] = -r[1], -r[3]
		}
		maps[a] = make([]float64, n*k)
		for i := range n {
			maps[a][i*k] = base[i*k]*r[0] + base[i*k+1]*r[2]
			maps[a][i*k+1] = base[i*k]*r[1] + base[i*k+1]*r[3]
		}
	}
	before := make([][]float64, len(maps))
	for a := range maps {
		before[a] = append([]float64(nil), maps[a]...)
	}
	alignMaps(maps, n, k)
	for a := range maps {
		for q := range maps[a] {
			if math.Abs(maps[a][q]-maps[0][q]) > 1e-10 {
				t.Fatalf("map %d differs from map 0 after alignment at %d: %v vs %v", a, q, maps[a][q], maps[0][q])
			}
		}
		for i := range n {
			for j := range n {
				if math.Abs(pairDist(maps[a], k, i, j)-pairDist(before[a], k, i, j)) > 1e-12 {
					t.Errorf("map %d: distance (%d, %d) changed by alignment", a, i, j)
				}
			}
		}
	}
}

// TestMapsAligned: on a model whose poles are close, aligned maps must be
// closer to each other than the unaligned per-pole bases give.
func TestMapsAligned(t *testing.T) {
	rng := rand.New(rand.NewPCG(68, 69))
	m := planted(rng, 30, 2, []float64{1, 1, 1})
	d := 3
	for tt := 1; tt < 3; tt++ { // poles near pole 0, then spun by the basis choice
		copy(m.X[tt*d:], near(rng, m.X[:d], 0.2))
	}
	spread := func(maps [][]float64) float64 {
		var s float64
		for a := 1; a < len(maps); a++ {
			for q := range maps[a] {
				s += (maps[a][q] - maps[0][q]) * (maps[a][q] - maps[0][q])
			}
		}
		return s
	}
	aligned := m.Maps()
	raw := make([][]float64, 3)
	for tt := range 3 {
		raw[tt] = make([]float64, 30*2)
		e := m.basis(tt)
		for i := range 30 {
			for q := range 2 {
				for r := range d {
					raw[tt][i*2+q] += m.Y[i*d+r] * e[r*2+q]
				}
			}
		}
	}
	if sa, sr := spread(aligned), spread(raw); !(sa <= sr) || sa > 0.2*30 {
		t.Errorf("aligned spread %v, unaligned %v", sa, sr)
	}
}
