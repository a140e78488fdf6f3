package nerv

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGridSoftChannels checks the channels against their definition on
// every pair: Σ_m w_m 1[i ∈ M_m] 1[j ∈ M_m] = λ̂_ij = Σ_c min(r_ic, r_jc)/L,
// λ̂_ii = 1 the self weight, |λ_ij − λ̂_ij| < c/L and λ̂_ij ≤ 1; and hard
// labels make one channel of weight 1 per class.
func TestGridSoftChannels(t *testing.T) {
	for _, tc := range []struct {
		name   string
		labels string
		levels int
	}{
		{"soft L=8", "soft", 8}, {"soft L=3", "soft", 3}, {"soft, unlabelled rows, L=5", "unlabelled", 5},
		{"hard L=8", "hard", 8},
	} {
		rng := rand.New(rand.NewPCG(7, uint64(tc.levels)))
		const n, c = 300, 3
		soft, _ := nervTestLabels(rng, n, c, tc.labels)
		in := &SparseInput{N: n, C: c, Soft: soft, Alpha: 1}
		g := &GridStress{SoftLevels: tc.levels}
		g.setChannels(in)
		cs := &g.soft
		in2 := make([][]int32, n) // each point's channels
		for k, i := range cs.point {
			in2[i] = append(in2[i], cs.channel[k])
		}
		if tc.labels == "hard" && len(cs.weight) != c {
			t.Errorf("%s: %d channels, want %d", tc.name, len(cs.weight), c)
		}
		for _, w := range cs.weight {
			if tc.labels == "hard" && w != 1 || !(w > 0 && w <= 1) {
				t.Errorf("%s: channel weight %g", tc.name, w)
			}
		}
		worst := 0.0
		for i := range n {
			if !in.labelled(i) {
				if len(in2[i]) > 0 {
					t.Errorf("%s: unlabelled row %d in %d channels", tc.name, i, len(in2[i]))
				}
				continue
			}
			for j := range n {
				if !in.labelled(j) {
					continue
				}
				var sum float64
				for _, a := range in2[i] {
					for _, b := range in2[j] {
						if a == b {
							sum += cs.weight[a]
						}
					}
				}
				hat := cs.lamHat(i, j, c)
				if math.Abs(sum-hat) > 1e-12 {
					t.Fatalf("%s: pair (%d, %d): channels give %g, λ̂ = %g", tc.name, i, j, sum, hat)
				}
				if i == j && (math.Abs(cs.self[i]-hat) > 1e-12 || math.Abs(hat-1) > 1e-12) {
					t.Fatalf("%s: row %d: self weight %g, λ̂_ii = %g, want 1", tc.name, i, cs.self[i], hat)
				}
				if hat > 1+1e-12 {
					t.Fatalf("%s: pair (%d, %d): λ̂ = %g > 1", tc.name, i, j, hat)
				}
				var exact float64
				for k := range c {
					exact += min(soft[i*c+k], soft[j*c+k])
				}
				worst = max(worst, math.Abs(exact-hat))
			}
		}
		bound := float64(c) / float64(tc.levels)
		if tc.labels == "hard" {
			bound = 0
		}
		t.Logf("%s: %d channels, %d memberships, max |λ − λ̂| %.3g (bound %.3g)", tc.name, len(cs.weight), len(cs.point), worst, bound)
		if (bound == 0 && worst != 0) || (bound > 0 && worst >= bound) {
			t.Errorf("%s: max |λ − λ̂| = %g, want below %g (0 for hard labels)", tc.name, worst, bound)
		}
	}
}

// TestGridSoftRounding checks GridStress with soft labels off the 1/L
// lattice against BH.Stress with tol 0 (exact Λ on every pair): the error
// is the rounding of the far pairs' Λ, which shrinks as L grows, and at
// the default L is within 1e-3 of the stress and 2e-2 of the gradient.
func TestGridSoftRounding(t *testing.T) {
	tc := gridCase{"soft α=1 2-D converged", 2000, 30, 2, "soft", 1, "converged", false}
	sp, y := gridFixture(t, tc, 3)
	ctx := context.Background()
	gb := make([]float64, len(y))
	sb, err := new(BH).Stress(ctx, gb, y, tc.dims, sp, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	prev := math.Inf(1)
	for _, levels := range []int{2, DefaultGridSoftLevels, 64} {
		gs := GridStress{SoftLevels: levels}
		g := make([]float64, len(y))
		s, err := gs.Stress(ctx, g, y, tc.dims, sp, 2)
		if err != nil {
			t.Fatal(err)
		}
		es, eg := math.Abs(s-sb)/math.Abs(sb), gradRelErr(g, gb)
		t.Logf("L = %d: stress rel err %.2e, grad rel err %.2e", levels, es, eg)
		if !(eg < prev) {
			t.Errorf("L = %d: grad rel err %g, not below %g at fewer levels", levels, eg, prev)
		}
		prev = eg
		if levels == DefaultGridSoftLevels && !(es <= 1e-3 && eg <= 2e-2) {
			t.Errorf("L = %d: stress rel err %g, grad rel err %g, want ≤ 1e-3 and ≤ 2e-2", levels, es, eg)
		}
	}
}

// BenchmarkNeRVGridSoft: one grid evaluation with hard labels, random
// soft labels of three classes (about two thirds of the weights nonzero),
// and soft labels on the lattice, on benchSparse's converged map of
// 20,000 points.
func BenchmarkNeRVGridSoft(b *testing.B) {
	const n = 20000
	for _, labels := range []string{"hard", "soft", "lattice"} {
		rng := rand.New(rand.NewPCG(1, 2))
		kind := labels
		if labels == "lattice" {
			kind = "soft"
		}
		sp := nervSparseOnly(b, rng, n, 96, 3, 32, kind)
		if labels == "lattice" {
			gridLattice(sp.Soft, sp.C, DefaultGridSoftLevels)
		}
		y := nervRandomY(rng, n, 2)
		for i := range y {
			y[i] *= math.Sqrt(float64(n)/28) * sp.Scale
		}
		g := make([]float64, n*2)
		var gs GridStress
		b.Run(labels, func(b *testing.B) {
			for b.Loop() {
				if _, err := gs.Stress(context.Background(), g, y, 2, sp, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
