package nerv

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/ordinate/ordinate/internal/synth"
)

// BenchmarkFitFourClusters is the speed target: ClassNeRV (hard
// labels, α = 1) on the paper's 800-point four-cluster set, multiscale,
// perplexity 32.
func BenchmarkFitFourClusters(b *testing.B) {
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(1, 2)), 200)
	const n, c = 800, 6
	hard, _ := hardOf(soft, n, c)
	o := DefaultOptions()
	o.Alpha = 1
	for b.Loop() {
		r, err := Fit(context.Background(), x, n, 3, hard, c, o)
		if err != nil {
			b.Fatal(err)
		}
		reportFit(b, r)
	}
}

// BenchmarkFitBH is a whole Barnes–Hut SoftClassNeRV run (soft labels,
// multiscale 78 → 32) on the four-cluster data at N = 5,000.
func BenchmarkFitBH(b *testing.B) {
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(1, 2)), 1250)
	const n, c = 5000, 6
	o := DefaultOptions()
	o.Method, o.OutputScale = BarnesHut, Global
	for b.Loop() {
		r, err := Fit(context.Background(), x, n, 3, soft, c, o)
		if err != nil {
			b.Fatal(err)
		}
		reportFit(b, r)
	}
}

// reportFit reports a fit's total iterations and final stress.
func reportFit(b *testing.B, r *Result) {
	var iters int
	for _, l := range r.Levels {
		iters += l.Iterations
	}
	b.ReportMetric(float64(iters), "iterations")
	b.ReportMetric(r.Stress, "stress")
}
