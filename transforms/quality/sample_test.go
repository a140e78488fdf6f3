package quality

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSampleAgainstReference: with a sample, every metric is the plain
// reference's on the sampled query points, each ranked among all points;
// the sample is seeded (the same points for the same seed, others for
// another), and blocks of the sample merge into the same report bit for
// bit.
func TestSampleAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 4))
	const n = 41
	ks := []int{1, 3, 10, 20, 21, n - 2}
	x, y := normalPoints(rng, n, 4), gridPoints(rng, n, 2, 4)
	for _, tc := range []struct {
		name    string
		classes []int
		m       int
		seed    uint64
	}{
		{"classes, 10 of 41", randomClasses(rng, n, 3), 10, 1},
		{"classes, 10 of 41, another seed", randomClasses(rng, n, 3), 10, 2},
		{"no classes, 1 point", nil, 1, 7},
		{"no classes, 40 of 41", nil, 40, 7},
	} {
		opts := Options{Ks: ks, Sample: SampleSize(tc.m), Seed: tc.seed}
		rep := mustEvaluate(t, x, 4, y, 2, tc.classes, opts)
		sample := SamplePoints(n, tc.m, tc.seed)
		var qs []int
		for _, i := range sample {
			qs = append(qs, int(i))
		}
		if len(qs) != tc.m || !slices.IsSorted(qs) || len(slices.Compact(slices.Clone(qs))) != tc.m {
			t.Fatalf("%s: sample %v", tc.name, qs)
		}
		if rep.N != n || rep.Points != tc.m || rep.Seed != tc.seed || !rep.Sampled() {
			t.Errorf("%s: report N %d, points %d, seed %d", tc.name, rep.N, rep.Points, rep.Seed)
		}
		want := referenceOf(x, 4, y, 2, tc.classes, ks, qs)
		if len(rep.Rows) != len(want) {
			t.Errorf("%s: %d rows, want %d", tc.name, len(rep.Rows), len(want))
		}
		for _, row := range rep.Rows {
			w, ok := want[rowKey{row.Metric, row.K, row.Subset}]
			if !ok || math.Abs(row.Value-w) > 1e-12 {
				t.Errorf("%s: %s k=%d %s = %v, want %v (present %v)", tc.name, row.Metric, row.K, row.Subset, row.Value, w, ok)
			}
		}
		for _, count := range []int{2, tc.m} {
			if count > tc.m {
				continue
			}
			parts := partialsOf(t, rng, count, func(b Block, threads int) (*Partial, error) {
				o := opts
				o.Threads, o.Block = threads, b
				return EvaluatePartial(context.Background(), x, 4, y, 2, tc.classes, o)
			})
			got, err := Merge(roundTrip(t, parts)...)
			if err != nil {
				t.Fatalf("%s, %d blocks: %v", tc.name, count, err)
			}
			mustSame(t, fmt.Sprintf("%s, %d blocks", tc.name, count), got, rep)
			if got.Points != tc.m || got.Seed != tc.seed {
				t.Errorf("%s, %d blocks: merged points %d seed %d", tc.name, count, got.Points, got.Seed)
			}
		}
	}
	// Blocks of different samples do not merge.
	p0, err := EvaluatePartial(context.Background(), x, 4, y, 2, nil, Options{Ks: ks, Sample: 10, Seed: 1, Block: Block{0, 2}})
	if err != nil {
		t.Fatal(err)
	}
	p1, err := EvaluatePartial(context.Background(), x, 4, y, 2, nil, Options{Ks: ks, Sample: 10, Seed: 2, Block: Block{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(p0, p1); err == nil {
		t.Error("blocks of samples of different seeds merged")
	}
}

// TestSamplePoints: seeded, distinct, sorted, in range, and a size of n or
// more is every point; the same seed gives the same points, pinned here so
// that a change of the draw is seen.
func TestSamplePoints(t *testing.T) {
	if got := SamplePoints(5, 9, 1); !slices.Equal(got, []int32{0, 1, 2, 3, 4}) {
		t.Errorf("oversized sample: %v", got)
	}
	a, b := SamplePoints(100000, 5000, 3), SamplePoints(100000, 5000, 3)
	if !slices.Equal(a, b) {
		t.Error("the same seed drew different points")
	}
	if c := SamplePoints(100000, 5000, 4); slices.Equal(a, c) {
		t.Error("seeds 3 and 4 drew the same points")
	}
	if len(a) != 5000 || !slices.IsSorted(a) || len(slices.Compact(slices.Clone(a))) != 5000 || a[0] < 0 || a[4999] >= 100000 {
		t.Errorf("sample of 5000 of 100000: %d points from %d to %d", len(a), a[0], a[len(a)-1])
	}
	if got, want := SamplePoints(20, 5, 1), pinnedSample; !slices.Equal(got, want) {
		t.Errorf("SamplePoints(20, 5, 1) = %#v, want %#v", got, want)
	}
	for _, tc := range []struct {
		s    SampleSize
		n    int
		want int
	}{
		{SampleAll, 100000, 100000}, {SampleAuto, AutoSampleAbove, AutoSampleAbove},
		{SampleAuto, AutoSampleAbove + 1, DefaultSampleSize}, {7, 100, 7}, {200, 100, 100},
	} {
		if got := tc.s.Points(tc.n); got != tc.want {
			t.Errorf("SampleSize(%d).Points(%d) = %d, want %d", tc.s, tc.n, got, tc.want)
		}
	}
}

var pinnedSample = []int32{3, 6, 12, 16, 19}
