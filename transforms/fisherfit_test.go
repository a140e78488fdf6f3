package transforms

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ordinate/ordinate/internal/synth"
)

func TestFitFisher(t *testing.T) {
	ctx := context.Background()
	const n = 40
	base, classes := synth.IndefiniteSimilarity(rand.New(rand.NewPCG(3, 4)), n, 2, 0.2)
	fresh := func() []float64 { return append([]float64(nil), base...) }

	// An asymmetric matrix is symmetrised with a warning; the result equals
	// that of the symmetrised input.
	asym := fresh()
	asym[1] += 0.1
	sym := fresh()
	sym[1] += 0.05
	sym[n] += 0.05
	a, err := FitFisher(ctx, asym, n, classes, 2, FisherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := FitFisher(ctx, sym, n, classes, 2, FisherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], "not symmetric") || len(b.Warnings) != 0 {
		t.Errorf("warnings: asymmetric %v, symmetric %v", a.Warnings, b.Warnings)
	}
	for k := range a.Dist {
		if a.Dist[k] != b.Dist[k] {
			t.Fatalf("entry %d: %v after symmetrising, %v given symmetric", k, a.Dist[k], b.Dist[k])
		}
	}
	if share := a.Figures["negative_eigenvalue_share"].(float64); !(share > 0 && share < 1) {
		t.Errorf("negative eigenvalue share %v: the synthetic matrix is indefinite", share)
	}
	// σ from perplexity scales with --sigma-scale.
	one, err := FitFisher(ctx, fresh(), n, classes, 2, FisherOptions{})
	if err != nil {
		t.Fatal(err)
	}
	two, err := FitFisher(ctx, fresh(), n, classes, 2, FisherOptions{SigmaScale: 2})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(two.Sigma-2*one.Sigma) > 1e-12*one.Sigma {
		t.Errorf("σ with scale 2 = %v, want 2 × %v", two.Sigma, one.Sigma)
	}
	// The kernel metric is √d² of the corrected kernel.
	k, err := FitFisher(ctx, fresh(), n, classes, 2, FisherOptions{Metric: "kernel", Neighbors: 3})
	if err != nil {
		t.Fatal(err)
	}
	if k.K != 3 || len(k.Idx) != 3*n {
		t.Errorf("kernel metric with 3 neighbours: K %d, %d indices", k.K, len(k.Idx))
	}
	for _, tc := range []struct {
		name string
		o    FisherOptions
		want string
	}{
		{"correction", FisherOptions{Correction: "square"}, "square"},
		{"rule", FisherOptions{Rule: "simpson"}, "simpson"},
		{"metric", FisherOptions{Metric: "cosine"}, "cosine"},
		{"perplexity", FisherOptions{Perplexity: 39}, "perplexity"},
		{"steps", FisherOptions{Steps: -1}, "steps"},
	} {
		_, err := FitFisher(ctx, fresh(), n, classes, 2, tc.o)
		if !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrOption mentioning %q", tc.name, err, tc.want)
		}
	}
	nan := fresh()
	nan[5] = math.NaN()
	if _, err := FitFisher(ctx, nan, n, classes, 2, FisherOptions{}); err == nil {
		t.Error("NaN in the matrix: no error")
	}
}
