package nerv

import (
	"context"
	"math"
	"testing"

	"github.com/ordinate/ordinate/kernels"
)

// nervSparseBruteT is the t-kernel stress written plainly: b_ij =
// w_ij/Σ_k w_ik with w = 1/(1 + h·D²), β from the lists and 0 elsewhere,
// log β floored at the row's floor in the precision term, Λ exact.
func nervSparseBruteT(y []float64, dims int, in *SparseInput) float64 {
	n, k := in.N, in.K
	h := 1 / (2 * in.Scale * in.Scale)
	var total float64
	for i := range n {
		beta := make([]float64, n)
		lf := math.Inf(1)
		for q, j := range in.Idx[i*k : (i+1)*k] {
			beta[j] = in.Beta[i*k+q]
			lf = min(lf, math.Log(max(beta[j], nervBetaFloor)))
		}
		if in.LogFloor != nil {
			lf = in.LogFloor[i]
		}
		w := make([]float64, n)
		var z float64
		for j := range n {
			if j != i {
				w[j] = 1 / (1 + h*kernels.EmbedSqDist(y[i*dims:(i+1)*dims], y[j*dims:(j+1)*dims]))
				z += w[j]
			}
		}
		for j := range n {
			if j == i {
				continue
			}
			b, p, lam := w[j]/z, beta[j], in.tradeoff(i, j)
			var recall float64
			if p > 0 {
				recall = p * math.Log(p/b)
			}
			logp := lf
			if p > 0 {
				logp = math.Log(max(p, nervBetaFloor))
			}
			total += lam*(recall+b-p) + (1-lam)*(b*(math.Log(b)-logp)+p-b)
		}
	}
	return total / float64(n)
}

// tCases are the label kinds of the t-kernel tests (gridFixture's).
func tCases(n, dims int) []gridCase {
	return []gridCase{
		{name: "no labels", n: n, k: 30, dims: dims, labels: "none", alpha: 0.6, layout: "converged"},
		{name: "hard", n: n, k: 30, dims: dims, labels: "hard", alpha: 0.6, layout: "converged", cacheLogBeta: true},
		{name: "hard, unlabelled rows", n: n, k: 30, dims: dims, labels: "hard+unlabelled", alpha: 0.6, layout: "converged"},
		{name: "hard, dense", n: n, k: 30, dims: dims, labels: "hard", alpha: 1, layout: "dense"},
		{name: "lattice soft, unlabelled rows", n: n, k: 30, dims: dims, labels: "lattice+unlabelled", alpha: 0.6, layout: "converged"},
	}
}

// TestTStressGradient checks TStress's gradient against central
// differences of its own stress on maps small enough that every plane is
// summed directly (exact sums), and its stress against the plain
// formula, in one and two dimensions, with soft labels off the lattice
// too (the rounded far pairs are then part of the objective).
func TestTStressGradient(t *testing.T) {
	ctx := context.Background()
	cases := append(tCases(120, 2), tCases(90, 1)...)
	cases = append(cases, gridCase{name: "soft", n: 120, k: 30, dims: 2, labels: "soft", alpha: 0.8, layout: "converged"})
	for _, tc := range cases {
		in, y := gridFixture(t, tc, 3)
		var ts TStress
		grad := make([]float64, len(y))
		s, err := ts.Stress(ctx, grad, y, tc.dims, in, 1)
		if err != nil {
			t.Fatalf("%s %d-D: %v", tc.name, tc.dims, err)
		}
		if tc.labels != "soft" {
			if want := nervSparseBruteT(y, tc.dims, in); math.Abs(s-want) > 1e-10*math.Abs(want) {
				t.Errorf("%s %d-D: stress %.12g, plain formula %.12g", tc.name, tc.dims, s, want)
			}
		}
		num := make([]float64, len(y))
		for q := range y {
			step := 1e-5 * in.Scale
			v := y[q]
			y[q] = v + step
			sp, _ := ts.Stress(ctx, nil, y, tc.dims, in, 1)
			y[q] = v - step
			sm, _ := ts.Stress(ctx, nil, y, tc.dims, in, 1)
			y[q] = v
			num[q] = (sp - sm) / (2 * step)
		}
		if e := gradRelErr(grad, num); e > 1e-6 {
			t.Errorf("%s %d-D: gradient against central differences: relative error %.2g", tc.name, tc.dims, e)
		}
	}
}

// TestTStressAgainstBrute checks the interpolated stress and gradient
// against the plain formula and its central differences on maps large
// enough for interpolation, with nodes enough to make the scheme's error
// small, and with the default nodes within the error the fit lives with.
func TestTStressAgainstBrute(t *testing.T) {
	ctx := context.Background()
	for _, nodes := range []int{8, 0} {
		for _, tc := range tCases(1000, 2) {
			in, y := gridFixture(t, tc, 5)
			ts := TStress{NodesPerInterval: nodes}
			grad := make([]float64, len(y))
			s, err := ts.Stress(ctx, grad, y, tc.dims, in, 2)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			want := nervSparseBruteT(y, tc.dims, in)
			sTol, gTol := 1e-6, 1e-4
			if nodes == 0 {
				sTol, gTol = 1e-3, 5e-2
			}
			if e := math.Abs(s-want) / math.Abs(want); e > sTol {
				t.Errorf("%s, %d nodes: stress %.10g, plain formula %.10g: relative error %.2g, want ≤ %g", tc.name, nodes, s, want, e, sTol)
			}
			// Central differences of the plain formula at a few coordinates.
			var num, got []float64
			for _, q := range []int{0, 1, 777, 1501, 1998, 1999} {
				step := 1e-5 * in.Scale
				v := y[q]
				y[q] = v + step
				sp := nervSparseBruteT(y, tc.dims, in)
				y[q] = v - step
				sm := nervSparseBruteT(y, tc.dims, in)
				y[q] = v
				num = append(num, (sp-sm)/(2*step))
				got = append(got, grad[q])
			}
			if e := gradRelErr(got, num); e > gTol {
				t.Errorf("%s, %d nodes: gradient against the plain formula's central differences: relative error %.2g, want ≤ %g", tc.name, nodes, e, gTol)
			}
			t.Logf("%s, %d nodes: stress error %.2g, gradient error %.2g", tc.name, nodes, math.Abs(s-want)/math.Abs(want), gradRelErr(got, num))
		}
	}
}
