package triplets

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// key identifies a triplet.
type key [4]int32

func keys(t *Table) []key {
	k := make([]key, t.Len())
	for r := range k {
		k[r] = key{t.Aspect[r], t.I[r], t.J[r], t.K[r]}
	}
	return k
}

func TestSampleValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		name                     string
		aspects, objects, values int
		pMissing                 float64
		perAspect                int
	}{
		{"zero", 3, 10, 2, 0.1, 0},
		{"few", 3, 10, 2, 0.1, 5},
		{"most", 2, 9, 3, 0, 100},
		{"more than all", 3, 8, 3, 0.2, 1_000_000},
		{"no triplets", 2, 5, 1, 0, 10},
		{"missing heavy", 4, 16, 4, 0.5, 40},
	} {
		codes := randomCodes(rng, tc.aspects, tc.objects, tc.values, tc.pMissing)
		for _, pairs := range []Pairs{Ordered, Unordered} {
			name := fmt.Sprintf("%s, %v", tc.name, pairs)
			all := brute(codes, pairs)
			pos := make(map[key]int, all.Len())
			for r, k := range keys(all) {
				pos[k] = r
			}
			s := Sample(codes, pairs, tc.perAspect, rng)
			counts := perAspect(s, tc.aspects)
			for a, c := range Count(codes, pairs) {
				if want := min(c, int64(tc.perAspect)); counts[a] != want {
					t.Errorf("%s: aspect %d: %d triplets, want %d", name, a, counts[a], want)
				}
			}
			last := -1
			for r, k := range keys(s) {
				p, ok := pos[k]
				if !ok {
					t.Errorf("%s: row %d: %v is not a triplet", name, r, k)
					break
				}
				if p <= last { // also rules out repeats
					t.Errorf("%s: row %d: %v out of generation order or repeated", name, r, k)
					break
				}
				last = p
			}
		}
	}
}

func TestSampleDeterministic(t *testing.T) {
	codes := randomCodes(rand.New(rand.NewPCG(9, 10)), 3, 20, 3, 0.1)
	a := Sample(codes, Ordered, 50, rand.New(rand.NewPCG(1, 1)))
	b := Sample(codes, Ordered, 50, rand.New(rand.NewPCG(1, 1)))
	c := Sample(codes, Ordered, 50, rand.New(rand.NewPCG(1, 2)))
	if d := diff(a, b); d != "" {
		t.Errorf("same seed: %s", d)
	}
	if diff(a, c) == "" {
		t.Errorf("different seeds gave the same sample")
	}
}

// chi2 returns Σ (observed − expected)² / expected over the cells.
func chi2(obs map[string]int, cells int, expected float64) float64 {
	s := 0.0
	for _, o := range obs {
		s += (float64(o) - expected) * (float64(o) - expected) / expected
	}
	// Cells never observed contribute expected each.
	return s + float64(cells-len(obs))*expected
}

// TestSampleUniform compares, over many seeds, how often each triplet and
// each whole sample occur with their expectation under uniform sampling
// without replacement, by a chi-square statistic against its 0.999 quantile.
// The seeds are fixed, so the test is deterministic.
func TestSampleUniform(t *testing.T) {
	const runs = 6000
	for _, tc := range []struct {
		name      string
		codes     Codes
		pairs     Pairs
		perAspect int
		joint     bool // cells are whole samples (one aspect, perAspect 2), not triplets
	}{
		// 3·2·2 + 2·1·3 = 18 triplets.
		{"marginal ordered", Codes{{0, 0, 0, 1, 1, -1}}, Ordered, 5, false},
		// 3 + 4 = 13 and 3 + 6 = 9 unordered triplets.
		{"marginal unordered", Codes{{0, 0, 0, 1, 1, 2}, {0, 1, 1, 1, 0, -1}}, Unordered, 4, false},
		// 6 + 3 = 9 unordered triplets, C(9, 2) = 36 possible samples.
		{"joint", Codes{{0, 0, 0, 1, 1}}, Unordered, 2, true},
	} {
		all := brute(tc.codes, tc.pairs)
		obs := map[string]int{}
		for s := range runs {
			smp := Sample(tc.codes, tc.pairs, tc.perAspect, rand.New(rand.NewPCG(uint64(s), 99)))
			if tc.joint {
				obs[fmt.Sprint(keys(smp))]++
				continue
			}
			for _, k := range keys(smp) {
				obs[fmt.Sprint(k)]++
			}
		}
		var stat float64
		var dof int
		if tc.joint {
			n := all.Len()
			cells := n * (n - 1) / 2
			stat, dof = chi2(obs, cells, float64(runs)/float64(cells)), cells-1
		} else {
			// A triplet of aspect a is drawn with probability perAspect/count_a;
			// the per-aspect totals are fixed, so each aspect has count_a − 1
			// degrees of freedom, and the statistics add.
			for a, c := range Count(tc.codes, tc.pairs) {
				sub := map[string]int{}
				for _, k := range keys(all) {
					if k[0] == int32(a) {
						sub[fmt.Sprint(k)] = obs[fmt.Sprint(k)]
					}
				}
				exp := float64(runs) * float64(min(int64(tc.perAspect), c)) / float64(c)
				stat += chi2(sub, int(c), exp)
				dof += int(c) - 1
			}
		}
		q := distuv.ChiSquared{K: float64(dof)}.Quantile(0.999)
		if stat > q {
			t.Errorf("%s: chi-square %.1f > %.1f (%d dof)", tc.name, stat, q, dof)
		}
	}
}

func TestFloyd(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct{ n, s int64 }{{0, 0}, {5, 0}, {5, 5}, {5, 9}, {100, 1}, {100, 99}, {1 << 40, 1000}} {
		got := floyd(nil, tc.n, tc.s, rng)
		if want := min(tc.n, tc.s); int64(len(got)) != want {
			t.Errorf("floyd(%d, %d): %d values, want %d", tc.n, tc.s, len(got), want)
		}
		for x, v := range got {
			if v < 0 || v >= tc.n || (x > 0 && v <= got[x-1]) {
				t.Errorf("floyd(%d, %d): value %d at %d out of range or not increasing", tc.n, tc.s, v, x)
				break
			}
		}
	}
}
