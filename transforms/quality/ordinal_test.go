package quality

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// onLine places points at positions t along the direction (0.6, 0.8) of
// the plane: a rank-1 embedding, so the best axis comes from a
// rank-deficient least-squares problem.
func onLine(t []float64, scale float64) []float64 {
	y := make([]float64, 2*len(t))
	for i, v := range t {
		y[2*i], y[2*i+1] = 0.6*scale*v+1, 0.8*scale*v-2
	}
	return y
}

func TestOrdinal(t *testing.T) {
	for _, tc := range []struct {
		name       string
		pos        []float64
		classes    []int
		scale      float64 // −1 reverses the line: the axis must follow
		spearman   float64
		center     float64
		discordant float64
		order      []int
	}{
		// Classes in order, each at one place: all ranks agree exactly.
		{"in order", []float64{0, 0, 1, 1, 2, 2}, []int{0, 0, 1, 1, 2, 2}, 1, 1, 1, 0, []int{0, 1, 2}},
		{"in order reversed", []float64{0, 0, 1, 1, 2, 2}, []int{0, 0, 1, 1, 2, 2}, -1, 1, 1, 0, []int{0, 1, 2}},
		{"class values with gaps", []float64{0, 0, 1, 1, 2, 2}, []int{2, 2, 5, 5, 9, 9}, 1, 1, 1, 0, []int{2, 5, 9}},
		// Positions 0..5, classes 0 0 2 2 1 1. Class ranks (average) 1.5 1.5
		// 5.5 5.5 3.5 3.5 against 1..6: deviations (−2 −2 2 2 0 0) and
		// (−2.5 −1.5 −0.5 0.5 1.5 2.5), ρ = 8/√(16·17.5) = 8/√280. Centres
		// 0.5, 4.5, 2.5 for classes 0, 1, 2: order 0 2 1, one discordant
		// pair, ρ = 1 − 6·2/(3·8) = 1/2.
		{"two classes swapped", []float64{0, 1, 2, 3, 4, 5}, []int{0, 0, 2, 2, 1, 1}, 1, 8 / math.Sqrt(280), 0.5, 1, []int{0, 2, 1}},
		{"two classes swapped reversed", []float64{0, 1, 2, 3, 4, 5}, []int{0, 0, 2, 2, 1, 1}, -1, 8 / math.Sqrt(280), 0.5, 1, []int{0, 2, 1}},
		// Four classes fully reversed along the line: the regression axis
		// points the other way and every pair is in order.
		{"reversed", []float64{3, 2, 1, 0}, []int{0, 1, 2, 3}, 1, 1, 1, 0, []int{0, 1, 2, 3}},
	} {
		y := onLine(tc.pos, tc.scale)
		n := len(tc.pos)
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i * i)
		}
		rep := mustEvaluate(t, x, 1, y, 2, tc.classes, Options{Ordinal: true})
		for _, c := range []struct {
			metric string
			want   float64
		}{{MetricOrdinalSpearman, tc.spearman}, {MetricCenterSpearman, tc.center}, {MetricCenterDiscordantPairs, tc.discordant}} {
			if got := value(t, tc.name, rep, c.metric, 0, SubsetAll); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("%s: %s = %v, want %v", tc.name, c.metric, got, c.want)
			}
		}
		if !slices.Equal(rep.CenterOrder, tc.order) {
			t.Errorf("%s: CenterOrder %v, want %v", tc.name, rep.CenterOrder, tc.order)
		}
	}
}

// TestOrdinalConstant: an embedding with no spread has no ordinal axis.
func TestOrdinalConstant(t *testing.T) {
	y := make([]float64, 10)
	x := []float64{0, 1, 2, 3, 4}
	rep := mustEvaluate(t, x, 1, y, 2, []int{0, 1, 0, 1, 1}, Options{Ordinal: true})
	for _, m := range []string{MetricOrdinalSpearman, MetricCenterSpearman} {
		if v := value(t, "constant", rep, m, 0, SubsetAll); !math.IsNaN(v) {
			t.Errorf("%s = %v, want NaN", m, v)
		}
	}
	if v := value(t, "constant", rep, MetricCenterDiscordantPairs, 0, SubsetAll); v != 0 {
		t.Errorf("discordant = %v, want 0", v)
	}
}

// TestBestAxis checks the axis against the closed form for a full-rank
// embedding, w = (YcᵀYc)⁻¹ Yc ᵀ(t − t̄), solved here with Cramer's rule, and
// checks that no direction correlates better.
func TestBestAxis(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const n = 50
	y := normalPoints(rng, n, 2)
	tv := make([]float64, n)
	for i := range tv {
		tv[i] = float64(rng.IntN(4))
		y[2*i] += 0.5 * tv[i]
	}
	yc := centred(y, n, 2)
	tc := centred(tv, n, 1)
	var a, b, c, u, v float64
	for i := range n {
		a += yc[2*i] * yc[2*i]
		b += yc[2*i] * yc[2*i+1]
		c += yc[2*i+1] * yc[2*i+1]
		u += yc[2*i] * tc[i]
		v += yc[2*i+1] * tc[i]
	}
	det := a*c - b*b
	want := []float64{(c*u - b*v) / det, (a*v - b*u) / det}
	w := bestAxis(y, n, 2, tv)
	for i := range w {
		if math.Abs(w[i]-want[i]) > 1e-12*math.Abs(want[i]) {
			t.Errorf("w[%d] = %v, want %v", i, w[i], want[i])
		}
	}
	best := pearson(tv, project(y, n, 2, w))
	for deg := range 180 {
		th := float64(deg) * math.Pi / 180
		if r := pearson(tv, project(y, n, 2, []float64{math.Cos(th), math.Sin(th)})); r > best+1e-12 {
			t.Errorf("direction %d° correlates %v > best axis %v", deg, r, best)
		}
	}
}

func TestInversions(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, n := range []int{0, 1, 2, 7, 40} {
		s := rng.Perm(n)
		want := 0
		for p := range s {
			for q := p + 1; q < n; q++ {
				if s[p] > s[q] {
					want++
				}
			}
		}
		if got := inversions(s); got != want {
			t.Errorf("n=%d: %d inversions, want %d", n, got, want)
		}
	}
}

func TestAverageRanks(t *testing.T) {
	got := averageRanks([]float64{3, 1, 3, 2, 3, -1})
	want := []float64{5, 2, 5, 3, 5, 1}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestOrdinalOrientation builds a 1-D embedding where the regression axis
// (dominated by the 100-point classes 2 and 3, in order) disagrees with the
// order of the class centres, 10 9 0 1 for classes 0..3: ρ = −0.8 along
// the regression axis, so w must be flipped: centres −10 −9 0 −1, ρ = 0.8,
// one discordant pair (2, 3), and the point-level ρ turns negative.
func TestOrdinalOrientation(t *testing.T) {
	var y []float64
	var classes []int
	for c, spec := range []struct {
		pos   float64
		count int
	}{{10, 1}, {9, 1}, {0, 100}, {1, 100}} {
		for range spec.count {
			y = append(y, spec.pos)
			classes = append(classes, c)
		}
	}
	x := make([]float64, len(y))
	for i := range x {
		x[i] = float64(i)
	}
	rep := mustEvaluate(t, x, 1, y, 1, classes, Options{Ordinal: true})
	if v := value(t, "orientation", rep, MetricCenterSpearman, 0, SubsetAll); math.Abs(v-0.8) > 1e-12 {
		t.Errorf("center_spearman = %v, want 0.8", v)
	}
	if v := value(t, "orientation", rep, MetricCenterDiscordantPairs, 0, SubsetAll); v != 1 {
		t.Errorf("center_discordant_pairs = %v, want 1", v)
	}
	if v := value(t, "orientation", rep, MetricOrdinalSpearman, 0, SubsetAll); v >= 0 {
		t.Errorf("ordinal_spearman = %v, want < 0", v)
	}
	if want := []int{0, 1, 3, 2}; !slices.Equal(rep.CenterOrder, want) {
		t.Errorf("CenterOrder %v, want %v", rep.CenterOrder, want)
	}
}
