package triplets

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestSplitObjectsCounts(t *testing.T) {
	for _, tc := range []struct {
		name             string
		aspects, objects int
		r                float64
		want             int
	}{
		{"half even", 3, 10, 0.5, 5},
		{"half odd rounds up", 4, 101, 0.5, 51},
		{"house votes", 16, 232, 0.5, 116},
		{"round down", 2, 10, 0.34, 3},
		{"none", 2, 7, 0, 0},
		{"all", 2, 7, 1, 7},
		{"no objects", 2, 0, 0.5, 0},
		{"no aspects", 0, 5, 0.5, 0},
	} {
		s := SplitObjects(rand.New(rand.NewPCG(13, 14)), tc.aspects, tc.objects, tc.r)
		if len(s.Observed) != tc.aspects {
			t.Errorf("%s: %d aspects, want %d", tc.name, len(s.Observed), tc.aspects)
		}
		for a, obs := range s.Observed {
			n := 0
			for _, o := range obs {
				if o {
					n++
				}
			}
			if len(obs) != tc.objects || n != tc.want {
				t.Errorf("%s: aspect %d: %d of %d observed, want %d of %d", tc.name, a, n, len(obs), tc.want, tc.objects)
			}
		}
	}
}

// TestSplitObjectsUniform checks that every object is observed about r of
// the time, and that aspects get different draws.
func TestSplitObjectsUniform(t *testing.T) {
	const runs, objects, aspects = 2000, 8, 2
	freq := make([]int, objects)
	same := 0
	for s := range runs {
		sp := SplitObjects(rand.New(rand.NewPCG(uint64(s), 15)), aspects, objects, 0.25)
		for i, o := range sp.Observed[0] {
			if o {
				freq[i]++
			}
		}
		if fmt.Sprint(sp.Observed[0]) == fmt.Sprint(sp.Observed[1]) {
			same++
		}
	}
	// Each object is observed with probability 2/8; binomial sd ≈ 19.4.
	for i, f := range freq {
		if f < 500-100 || f > 500+100 {
			t.Errorf("object %d observed %d times in %d runs, want about 500", i, f, runs)
		}
	}
	// P(same subset) = 1/C(8,2) = 1/28 → about 71 of 2000.
	if same < 30 || same > 130 {
		t.Errorf("aspects drew the same subset %d times in %d runs, want about 71", same, runs)
	}
}

func TestSplitPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 17))
	for _, tc := range []struct {
		name                     string
		aspects, objects, values int
		pMissing, r              float64
	}{
		{"half", 3, 12, 2, 0, 0.5},
		{"missing", 4, 13, 3, 0.2, 0.5},
		{"most", 2, 10, 2, 0.1, 0.8},
		{"none observed", 2, 8, 2, 0, 0},
		{"all observed", 2, 8, 2, 0.1, 1},
	} {
		codes := randomCodes(rng, tc.aspects, tc.objects, tc.values, tc.pMissing)
		s := SplitObjects(rng, tc.aspects, tc.objects, tc.r)
		for _, pairs := range []Pairs{Ordered, Unordered} {
			name := fmt.Sprintf("%s, %v", tc.name, pairs)
			all := brute(codes, pairs)
			// Brute force split of the brute force set.
			wantTrain, wantHidden := new(Table), new(Table)
			for r := range all.I {
				obs := s.Observed[all.Aspect[r]]
				dst := wantHidden
				if obs[all.I[r]] && obs[all.J[r]] && obs[all.K[r]] {
					dst = wantTrain
				}
				dst.Append(all.I[r], all.J[r], all.K[r], all.Aspect[r])
			}
			train, hidden := s.Partition(all)
			if d := diff(train, wantTrain); d != "" {
				t.Errorf("%s: train: %s", name, d)
			}
			if d := diff(hidden, wantHidden); d != "" {
				t.Errorf("%s: hidden: %s", name, d)
			}
			gen, err := collect(s.Codes(codes), pairs, 5)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if d := diff(gen, train); d != "" {
				t.Errorf("%s: generated from Split.Codes vs Partition train: %s", name, d)
			}
		}
	}
}

// TestSplitZoo checks Split.Codes against Partition on the full Zoo set.
func TestSplitZoo(t *testing.T) {
	codes := loadZoo(t)
	s := SplitObjects(rand.New(rand.NewPCG(18, 19)), len(codes), codes.Objects(), 0.5)
	all, err := collect(codes, Ordered, 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	train, hidden := s.Partition(all)
	gen, err := collect(s.Codes(codes), Ordered, 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(gen, train); d != "" {
		t.Errorf("zoo: generated from Split.Codes vs Partition train: %s", d)
	}
	if train.Len()+hidden.Len() != all.Len() || train.Len() == 0 || hidden.Len() == 0 {
		t.Errorf("zoo: %d train + %d hidden, want %d with both non-empty", train.Len(), hidden.Len(), all.Len())
	}
}

func TestSplitPanics(t *testing.T) {
	s := SplitObjects(rand.New(rand.NewPCG(1, 1)), 2, 3, 0.5)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"r > 1", func() { SplitObjects(rand.New(rand.NewPCG(1, 1)), 2, 3, 1.5) }},
		{"r NaN", func() { SplitObjects(rand.New(rand.NewPCG(1, 1)), 2, 3, nanValue()) }},
		{"codes aspects", func() { s.Codes(Codes{{0, 0, 1}}) }},
		{"codes objects", func() { s.Codes(Codes{{0, 0}, {1, 1}}) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			tc.f()
		}()
	}
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}
