package triplets

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ordinate/ordinate/transforms"
)

func TestEncode(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values [][]string
		want   Codes
	}{
		{"empty", nil, Codes{}},
		{"first appearance", [][]string{{"b", "a", "b", "c", "a"}}, Codes{{0, 1, 0, 2, 1}}},
		{"missing", [][]string{{"", "x", "", "y", "x"}}, Codes{{-1, 0, -1, 1, 0}}},
		{"per aspect", [][]string{{"a", "b"}, {"b", "b"}}, Codes{{0, 1}, {0, 0}}},
		{"exact compare", [][]string{{"a", "A", " a"}}, Codes{{0, 1, 2}}},
	} {
		got := Encode(tc.values)
		if !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("%s: Encode = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCountBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name                     string
		aspects, objects, values int
		pMissing                 float64
	}{
		{"no objects", 2, 0, 3, 0},
		{"one object", 2, 1, 3, 0},
		{"one value", 3, 8, 1, 0},
		{"all missing", 2, 6, 3, 1},
		{"binary", 4, 12, 2, 0},
		{"binary missing", 4, 12, 2, 0.3},
		{"many values", 3, 15, 6, 0.1},
		{"unique values", 2, 7, 1000, 0},
	} {
		codes := randomCodes(rng, tc.aspects, tc.objects, tc.values, tc.pMissing)
		for _, pairs := range []Pairs{Ordered, Unordered} {
			want := perAspect(brute(codes, pairs), tc.aspects)
			if got := Count(codes, pairs); !slices.Equal(got, want) {
				t.Errorf("%s, %v: Count = %v, brute force %v", tc.name, pairs, got, want)
			}
		}
	}
}

func TestCountUnorderedHalf(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	codes := randomCodes(rng, 5, 30, 4, 0.2)
	o, u := Count(codes, Ordered), Count(codes, Unordered)
	for a := range o {
		if o[a] != 2*u[a] {
			t.Errorf("aspect %d: ordered %d != 2 × unordered %d", a, o[a], u[a])
		}
	}
}

func TestParsePairs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Pairs
		ok   bool
	}{
		{"ordered", Ordered, true},
		{"unordered", Unordered, true},
		{"Ordered", "", false},
		{"", "", false},
	} {
		got, err := transforms.ParseEnum[Pairs](tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("ParseEnum[Pairs](%q) = %q, %v; want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestCodesPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"ragged", func() { Count(Codes{{0, 1}, {0}}, Ordered) }},
		{"below -1", func() { Count(Codes{{0, -2}}, Ordered) }},
		{"bad pairs", func() { Count(Codes{{0}}, Pairs("sideways")) }},
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
