package nerv

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ordinate/ordinate/internal/synth"
	"github.com/ordinate/ordinate/transforms/quality"
)

func TestSchedule(t *testing.T) {
	for _, tc := range []struct {
		n     int
		k     float64
		multi bool
		want  []float64
	}{
		{800, 32, true, []float64{400, 200, 100, 50, 32}},
		{800, 32, false, []float64{32}},
		{60, 32, true, []float64{32}},
		{1000, 30, true, []float64{500, 250, 125, 62.5, 31.25, 30}},
	} {
		got := Schedule(tc.n, tc.k, tc.multi)
		if len(got) != len(tc.want) {
			t.Errorf("Schedule(%d, %g, %v) = %v, want %v", tc.n, tc.k, tc.multi, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("Schedule(%d, %g, %v) = %v, want %v", tc.n, tc.k, tc.multi, got, tc.want)
				break
			}
		}
	}
}

// hardOf turns soft labels into one-hot rows of their largest weight, and
// class indices.
func hardOf(soft []float64, n, c int) ([]float64, []int) {
	hard := make([]float64, n*c)
	cls := make([]int, n)
	for i := range n {
		best := 0
		for k := 1; k < c; k++ {
			if soft[i*c+k] > soft[i*c+best] {
				best = k
			}
		}
		hard[i*c+best], cls[i] = 1, best
	}
	return hard, cls
}

// TestFourClustersBehaviour runs the paper's first experiment at a quarter
// of its size: with hard labels ClassNeRV raises between-class
// trustworthiness over NeRV and has a positive KNN gain; with soft labels
// the blended cluster is not torn apart.
func TestFourClustersBehaviour(t *testing.T) {
	if testing.Short() {
		t.Skip("fits three embeddings")
	}
	ctx := context.Background()
	const per, c = 50, 6
	n := 4 * per
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(1, 2)), per)
	hard, cls := hardOf(soft, n, c)
	o := DefaultOptions()
	o.Perplexity = 15
	fit := func(labels []float64, alpha float64) []float64 {
		oo := o
		oo.Alpha = alpha
		r, err := Fit(ctx, x, n, 3, labels, c, oo)
		if err != nil {
			t.Fatal(err)
		}
		return r.Y
	}
	nerv := fit(nil, 0)
	classnerv := fit(hard, 1)
	softnerv := fit(soft, 1)
	metric := func(y []float64, m string, sub string) float64 {
		rep, err := quality.Evaluate(ctx, x, 3, y, 2, cls, quality.Options{Ks: []int{10}})
		if err != nil {
			t.Fatal(err)
		}
		v, ok := rep.Value(m, 10, sub)
		if !ok {
			t.Fatalf("no %s/%s", m, sub)
		}
		return v
	}
	if tn, tc := metric(nerv, "trustworthiness", "inter"), metric(classnerv, "trustworthiness", "inter"); !(tc > tn) {
		t.Errorf("T_inter(10): ClassNeRV %.4f, NeRV %.4f; want ClassNeRV higher", tc, tn)
	}
	if g := metric(classnerv, "knn_gain", "all"); !(g > 0) {
		t.Errorf("ClassNeRV KNN gain(10) = %.4f, want > 0", g)
	}
	// The blended cluster (rows 3·per …): its spread in the soft map stays
	// within a factor 2 of NeRV's, while hard ClassNeRV tears it more.
	spread := func(y []float64) float64 {
		var s float64
		var m int
		for i := 3 * per; i < n; i++ {
			for j := i + 1; j < n; j++ {
				s += math.Hypot(y[i*2]-y[j*2], y[i*2+1]-y[j*2+1])
				m++
			}
		}
		return s / float64(m)
	}
	sn, ss := spread(nerv), spread(softnerv)
	if ss > 2*sn {
		t.Errorf("blended cluster spread: SoftClassNeRV %.3f, NeRV %.3f; want within a factor 2", ss, sn)
	}
}

func TestFitErrors(t *testing.T) {
	ctx := context.Background()
	x := make([]float64, 10*3)
	for i := range x {
		x[i] = float64(i % 7)
	}
	o := DefaultOptions()
	o.Perplexity = 3
	for _, tc := range []struct {
		name string
		mod  func(*Options)
		x    []float64
		want error
	}{
		{"perplexity ≥ N", func(o *Options) { o.Perplexity = 10 }, x, ErrOption},
		{"alpha > 1", func(o *Options) { o.Alpha = 1.5 }, x, ErrOption},
		{"nan", nil, append(append([]float64(nil), x[:29]...), math.NaN()), ErrInput},
	} {
		oo := o
		if tc.mod != nil {
			tc.mod(&oo)
		}
		_, err := Fit(ctx, tc.x, 10, 3, nil, 0, oo)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
}
