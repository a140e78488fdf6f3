package quality

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ordinate/ordinate/transforms/triplets"
)

func sameFloat(a, b float64) bool {
	return a == b || (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) < 1e-15
}

// TestTripletAccuracyHand checks worked cases: the anchor is j, a tie is
// violated, an aspect without triplets is NaN and left out of the mean.
func TestTripletAccuracyHand(t *testing.T) {
	maps := [][]float64{
		{0, 0, 1, 0, 3, 0, 6, 0}, // aspect 0: a line
		{0, 0, 3, 4, 0, 4, 3, 0}, // aspect 1: a rectangle
		{0, 0, 1, 1, 2, 2, 3, 3}, // aspect 2: no triplets
	}
	tab := &triplets.Table{}
	for _, r := range [][4]int32{
		{0, 1, 2, 0}, // d(1,0)=1 < d(1,2)=2: kept
		{2, 1, 0, 0}, // 2 > 1: violated (kept if the anchor were i)
		{1, 2, 3, 0}, // 2 < 3: kept
		{0, 2, 3, 0}, // 3 = 3: a tie is violated
		{2, 0, 1, 1}, // 4 < 5: kept
		{1, 0, 3, 1}, // 5 > 3: violated
		{3, 0, 2, 1}, // 3 < 4: kept
	} {
		tab.Append(r[0], r[1], r[2], r[3])
	}
	per, mean := TripletAccuracy(tab, maps, 2)
	want := []float64{0.5, 2.0 / 3, math.NaN()}
	for a := range want {
		if !sameFloat(per[a], want[a]) {
			t.Errorf("aspect %d: accuracy %v, want %v", a, per[a], want[a])
		}
	}
	if !sameFloat(mean, 7.0/12) {
		t.Errorf("mean %v, want 7/12 (over aspects, not the 4/7 over triplets)", mean)
	}
}

// TestTripletAccuracyBruteForce compares with plain (square-rooted)
// distances on integer maps, where ties are frequent.
func TestTripletAccuracyBruteForce(t *testing.T) {
	for _, tc := range []struct {
		name            string
		n, dims, aspect int
		shared          bool
	}{
		{"3 aspects 2-D", 12, 2, 3, false},
		{"5 aspects 3-D", 9, 3, 5, false},
		{"single map for all aspects", 10, 2, 4, true},
	} {
		rng := rand.New(rand.NewPCG(11, uint64(tc.n)))
		maps := make([][]float64, tc.aspect)
		for a := range maps {
			if tc.shared && a > 0 {
				maps[a] = maps[0]
				continue
			}
			maps[a] = make([]float64, tc.n*tc.dims)
			for p := range maps[a] {
				maps[a][p] = float64(rng.IntN(4))
			}
		}
		tab := &triplets.Table{}
		for tab.Len() < 2000 {
			i, j, k := rng.IntN(tc.n), rng.IntN(tc.n), rng.IntN(tc.n)
			if i != j && j != k && i != k {
				tab.Append(int32(i), int32(j), int32(k), int32(rng.IntN(tc.aspect)))
			}
		}
		per, mean := TripletAccuracy(tab, maps, tc.dims)
		dist := func(y []float64, a, b int) float64 {
			s := 0.0
			for d := range tc.dims {
				s += math.Pow(y[a*tc.dims+d]-y[b*tc.dims+d], 2)
			}
			return math.Sqrt(s)
		}
		sum := 0.0
		for a := range maps {
			ok, all := 0, 0
			for r := range tab.I {
				if int(tab.Aspect[r]) != a {
					continue
				}
				all++
				if dist(maps[a], int(tab.J[r]), int(tab.I[r])) < dist(maps[a], int(tab.J[r]), int(tab.K[r])) {
					ok++
				}
			}
			want := float64(ok) / float64(all)
			sum += want
			if !sameFloat(per[a], want) {
				t.Errorf("%s: aspect %d: %v, want %v", tc.name, a, per[a], want)
			}
		}
		if want := sum / float64(len(maps)); math.Abs(mean-want) > 1e-15 {
			t.Errorf("%s: mean %v, want %v", tc.name, mean, want)
		}
	}
}

// TestHiddenKNNAccuracyHand works through k = 3 by hand: index order among
// equidistant neighbours, observed objects without a value are not
// references, hidden objects without a value are skipped, a tie goes to
// the value with the nearest member, and an aspect with nothing hidden is
// NaN.
func TestHiddenKNNAccuracyHand(t *testing.T) {
	F, T := false, true
	maps := [][]float64{
		{0, 1, 2, 10, 11, 1.5, 10.5, 5, 1.4},
		{0, 2, 3.5, 1.2, 2.6, 100, 100, 100, 100},
		{0, 1, 2, 3, 4, 5, 6, 7, 8},
	}
	codes := [][]int32{
		{0, 0, 1, 1, 1, 0, 0, -1, -1},
		{2, 0, 1, 0, 2, -1, -1, -1, -1},
		{0, 0, 0, 1, 1, 1, 0, 0, 0},
	}
	hidden := [][]bool{
		{F, F, F, F, F, T, T, T, F},
		{F, F, F, T, T, F, F, F, F},
		{F, F, F, F, F, F, F, F, F},
	}
	// Aspect 0: object 5 at 1.5 → objects 1 (0.5), 2 (0.5), 0 (1.5) vote
	// 0, 1, 0 → 0, right (object 8 at 1.4 has no value, so is no reference);
	// object 6 at 10.5 → 3, 4, 2 → 1, wrong; object 7 has no value.
	// Aspect 1: object 3 at 1.2 → 1 (0.8), 0 (1.2), 2 (2.3): a three-way
	// tie, won by object 1's value 0, right; object 4 at 2.6 → 1 (0.6),
	// 2 (0.9), 0 (2.6): tie won by 0, wrong (true 2).
	per, mean := HiddenKNNAccuracy(maps, 1, codes, hidden, 3)
	want := []float64{0.5, 0.5, math.NaN()}
	for a := range want {
		if !sameFloat(per[a], want[a]) {
			t.Errorf("aspect %d: accuracy %v, want %v", a, per[a], want[a])
		}
	}
	if !sameFloat(mean, 0.5) {
		t.Errorf("mean %v, want 0.5", mean)
	}
	// Fewer references than k: all of them vote.
	per, _ = HiddenKNNAccuracy([][]float64{{0, 1, 5}}, 1, [][]int32{{0, 0, 0}}, [][]bool{{F, T, F}}, 10)
	if per[0] != 1 {
		t.Errorf("k > references: accuracy %v, want 1", per[0])
	}
	// No references at all: NaN.
	per, _ = HiddenKNNAccuracy([][]float64{{0, 1, 5}}, 1, [][]int32{{-1, 0, 0}}, [][]bool{{F, T, T}}, 1)
	if !math.IsNaN(per[0]) {
		t.Errorf("no references: accuracy %v, want NaN", per[0])
	}
}

// TestHiddenKNNAccuracyBruteForce compares with selection by repeated
// linear scans on integer maps, where distance and vote ties are frequent.
func TestHiddenKNNAccuracyBruteForce(t *testing.T) {
	const n, dims, aspects = 30, 2, 4
	for _, k := range []int{1, 2, 4, 10} {
		rng := rand.New(rand.NewPCG(13, uint64(k)))
		maps := make([][]float64, aspects)
		codes := make([][]int32, aspects)
		hidden := make([][]bool, aspects)
		for a := range aspects {
			maps[a] = make([]float64, n*dims)
			for p := range maps[a] {
				maps[a][p] = float64(rng.IntN(5))
			}
			codes[a] = make([]int32, n)
			hidden[a] = make([]bool, n)
			for i := range n {
				codes[a][i] = int32(rng.IntN(4)) - 1
				hidden[a][i] = rng.IntN(2) == 0
			}
		}
		per, mean := HiddenKNNAccuracy(maps, dims, codes, hidden, k)
		sum := 0.0
		for a := range aspects {
			want := bruteHiddenKNN(maps[a], dims, codes[a], hidden[a], k)
			sum += want
			if !sameFloat(per[a], want) {
				t.Errorf("k=%d aspect %d: %v, want %v", k, a, per[a], want)
			}
		}
		if want := sum / aspects; math.Abs(mean-want) > 1e-15 {
			t.Errorf("k=%d: mean %v, want %v", k, mean, want)
		}
	}
}

func bruteHiddenKNN(y []float64, dims int, codes []int32, hidden []bool, k int) float64 {
	n := len(codes)
	d2 := func(a, b int) float64 {
		s := 0.0
		for d := range dims {
			s += (y[a*dims+d] - y[b*dims+d]) * (y[a*dims+d] - y[b*dims+d])
		}
		return s
	}
	ok, all := 0, 0
	for i := range n {
		if !hidden[i] || codes[i] < 0 {
			continue
		}
		used := make([]bool, n)
		var order []int
		for len(order) < k {
			best := -1
			for j := range n {
				if hidden[j] || codes[j] < 0 || used[j] {
					continue
				}
				if best < 0 || d2(i, j) < d2(i, best) {
					best = j // strict: the smaller index wins ties
				}
			}
			if best < 0 {
				break
			}
			used[best] = true
			order = append(order, best)
		}
		var votes [3]int
		for _, j := range order {
			votes[codes[j]]++
		}
		// Value with most votes; among tied values, the earliest in order.
		pred, first := int32(-1), len(order)
		for c := range votes {
			pos := slicesIndex(order, codes, int32(c))
			if pred < 0 || votes[c] > votes[pred] || (votes[c] == votes[pred] && pos < first) {
				if votes[c] > 0 {
					pred, first = int32(c), pos
				}
			}
		}
		all++
		if pred == codes[i] {
			ok++
		}
	}
	return float64(ok) / float64(all)
}

func slicesIndex(order []int, codes []int32, c int32) int {
	for p, j := range order {
		if codes[j] == c {
			return p
		}
	}
	return len(order)
}

func TestTripletMetricsPanics(t *testing.T) {
	tab := &triplets.Table{}
	tab.Append(0, 1, 2, 1)
	m := []float64{0, 1, 2}
	for _, tc := range []struct {
		name string
		run  func()
	}{
		{"aspect out of range", func() { TripletAccuracy(tab, [][]float64{m}, 1) }},
		{"dims 0", func() { TripletAccuracy(tab, [][]float64{m, m}, 0) }},
		{"map not a multiple of dims", func() { TripletAccuracy(tab, [][]float64{m, m}, 2) }},
		{"codes per aspect", func() { HiddenKNNAccuracy([][]float64{m}, 1, nil, [][]bool{{false, true, false}}, 1) }},
		{"hidden length", func() { HiddenKNNAccuracy([][]float64{m}, 1, [][]int32{{0, 0, 0}}, [][]bool{{true}}, 1) }},
		{"k 0", func() { HiddenKNNAccuracy([][]float64{m}, 1, [][]int32{{0, 0, 0}}, [][]bool{{false, true, false}}, 0) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			tc.run()
		}()
	}
}

func ExampleTripletAccuracy() {
	// Objects 0, 1, 2 on a line at 0, 1, 3 (one aspect).
	maps := [][]float64{{0, 1, 3}}
	tab := &triplets.Table{}
	tab.Append(0, 1, 2, 0) // anchor 1: d(1,0) = 1 < d(1,2) = 2, kept
	tab.Append(0, 2, 1, 0) // anchor 2: d(2,0) = 3 > d(2,1) = 2, violated
	per, mean := TripletAccuracy(tab, maps, 1)
	fmt.Println(per, mean)
	// Output: [0.5] 0.5
}
