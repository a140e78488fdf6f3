package quality

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
)

func mustEvaluate(t testing.TB, x []float64, D int, y []float64, d int, classes []int, opts Options) *Report {
	t.Helper()
	rep, err := Evaluate(context.Background(), x, D, y, d, classes, opts)
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	return rep
}

func value(t *testing.T, name string, rep *Report, metric string, k int, subset string) float64 {
	t.Helper()
	v, ok := rep.Value(metric, k, subset)
	if !ok {
		t.Fatalf("%s: no row %s k=%d %s", name, metric, k, subset)
	}
	return v
}

func gridPoints(rng *rand.Rand, n, d, m int) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = float64(rng.IntN(m))
	}
	return x
}

func normalPoints(rng *rand.Rand, n, d int) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

func randomClasses(rng *rand.Rand, n, k int) []int {
	c := make([]int, n)
	for i := range c {
		c[i] = rng.IntN(k)
	}
	c[0], c[1] = 0, 1 // at least two classes
	return c
}

// TestIdentity: Y = X is a perfect embedding for every metric, in both
// branches of G(k) (k = 3 < N/2 and k = 12 ≥ N/2).
func TestIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, dim = 20, 3
	for _, tc := range []struct {
		name string
		x    []float64
	}{
		{"normal", normalPoints(rng, n, dim)},
		{"grid with ties", gridPoints(rng, n, dim, 3)},
	} {
		classes := randomClasses(rng, n, 3)
		rep := mustEvaluate(t, tc.x, dim, tc.x, dim, classes, Options{Ks: []int{12, 3}})
		for _, row := range rep.Rows {
			want := 1.0
			switch row.Metric {
			case MetricKNNGain:
				want = 0
			case MetricKNNAccuracy, MetricNNError:
				other := SubsetInput
				if row.Subset == SubsetInput {
					other = SubsetEmbedding
				}
				want = value(t, tc.name, rep, row.Metric, row.K, other)
			}
			if row.Value != want {
				t.Errorf("%s: %s k=%d %s = %v, want %v", tc.name, row.Metric, row.K, row.Subset, row.Value, want)
			}
		}
		if len(rep.Rows) != 2*(3+3+1+2+1)+1+2 {
			t.Errorf("%s: %d rows", tc.name, len(rep.Rows))
		}
	}
}

// TestHandWorked checks a case worked out on paper. Input on a line,
// X = 0 1 3 7 15 (no ties); the embedding swaps points 1 and 2,
// Y = 0 3 1 7 15. Classes 0 0 1 1 1. N = 5.
//
//	input orders       embedding orders
//	0: 1 2 3 4         0: 2 1 3 4
//	1: 0 2 3 4         1: 2 0 3 4
//	2: 1 0 3 4         2: 0 1 3 4
//	3: 2 1 0 4         3: 1 2 0 4
//	4: 3 2 1 0         4: 3 1 2 0
//
// k = 1, G = 2/(5·1·6) = 1/15. Intrusions (i, j, r(i,j)−k): (0,2,1)
// (1,2,1) (2,0,1) (3,1,1), all between classes: T = 1 − 4/15 = 11/15,
// T_inter = 11/15, T_intra = 1. Extrusions (i, j, r̂(i,j)−k): (0,1,1)
// (1,0,1) (2,1,1) (3,2,1), (2,1) between classes: C = 11/15,
// C_intra = 1 − 3/15, C_inter = 1 − 1/15.
// k = 2, G = 2/(5·2·3) = 1/15: one intrusion (4,1,1), between classes, and
// one extrusion (4,2,1), within: T = T_inter = C = C_intra = 14/15.
// k = 3 ≥ N/2, G = 2/(5·2·1): the 3-NN sets agree, T = C = 1.
// Overlaps Σ|N_k ∩ N̂_k| = 1, 9, 15 for k = 1, 2, 3, so Q = 1/5, 9/10, 1
// and R_NX = (4Q − k)/(4 − k) = −1/15, 4/5, 1; AUC = (−1/15 + 2/5 + 1/3) /
// (1 + 1/2 + 1/3) = 4/11.
// 1-NN classes: embedding right only for point 4 (accuracy 1/5), input
// wrong only for point 2 (4/5). 2-NN: embedding points 0, 1 and 3 see a
// 1–1 tie, won by the nearest neighbour's class: 0 → c1 (wrong),
// 1 → c1 (wrong), 3 → c0 (wrong); 2 sees two c0 (wrong); 4 right: 1/5.
// Input: 0 → c0, 1 → c0, 3 → c1, 4 → c1 right, 2 wrong: 4/5.
// Same-class counts among the k-NN: k = 1: embedding 1, input 4, gain
// −3/5; k = 2: embedding 4, input 5, gain −1/10.
func TestHandWorked(t *testing.T) {
	x := []float64{0, 1, 3, 7, 15}
	y := []float64{0, 3, 1, 7, 15}
	classes := []int{0, 0, 1, 1, 1}
	want := map[rowKey]float64{
		{MetricTrustworthiness, 1, SubsetAll}: 11. / 15, {MetricTrustworthiness, 1, SubsetInter}: 11. / 15,
		{MetricTrustworthiness, 1, SubsetIntra}: 1, {MetricContinuity, 1, SubsetAll}: 11. / 15,
		{MetricContinuity, 1, SubsetIntra}: 12. / 15, {MetricContinuity, 1, SubsetInter}: 14. / 15,
		{MetricTrustworthiness, 2, SubsetAll}: 14. / 15, {MetricTrustworthiness, 2, SubsetInter}: 14. / 15,
		{MetricTrustworthiness, 2, SubsetIntra}: 1, {MetricContinuity, 2, SubsetAll}: 14. / 15,
		{MetricContinuity, 2, SubsetIntra}: 14. / 15, {MetricContinuity, 2, SubsetInter}: 1,
		{MetricTrustworthiness, 3, SubsetAll}: 1, {MetricContinuity, 3, SubsetAll}: 1,
		{MetricRNX, 1, SubsetAll}: -1. / 15, {MetricRNX, 2, SubsetAll}: 0.8, {MetricRNX, 3, SubsetAll}: 1,
		{MetricRNXAUC, 0, SubsetAll}:            4. / 11,
		{MetricKNNAccuracy, 1, SubsetEmbedding}: 0.2, {MetricKNNAccuracy, 1, SubsetInput}: 0.8,
		{MetricKNNAccuracy, 2, SubsetEmbedding}: 0.2, {MetricKNNAccuracy, 2, SubsetInput}: 0.8,
		{MetricNNError, 1, SubsetEmbedding}: 0.8, {MetricNNError, 1, SubsetInput}: 0.2,
		{MetricKNNGain, 1, SubsetAll}: -0.6, {MetricKNNGain, 2, SubsetAll}: -0.1,
	}
	rep := mustEvaluate(t, x, 1, y, 1, classes, Options{Ks: []int{1, 2, 3}})
	for key, w := range want {
		if got := value(t, "hand", rep, key.metric, key.k, key.subset); math.Abs(got-w) > 1e-15 {
			t.Errorf("%s k=%d %s = %v, want %v", key.metric, key.k, key.subset, got, w)
		}
	}
}

func squaredDistances(x []float64, n, dim int) []float64 {
	dm := make([]float64, n*n)
	if err := kernels.SqDistances(context.Background(), dm, x, n, dim, 1); err != nil {
		panic(err)
	}
	return dm
}

// TestEvaluateDistances: on the distance matrix of X, the classification
// metrics equal the input subset of Evaluate.
func TestEvaluateDistances(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 80
	ks := []int{1, 4, 11, 78}
	for _, tc := range []struct {
		name string
		x    []float64
		dim  int
	}{
		{"normal", normalPoints(rng, n, 5), 5},
		{"grid", gridPoints(rng, n, 2, 4), 2},
	} {
		classes := randomClasses(rng, n, 3)
		rep := mustEvaluate(t, tc.x, tc.dim, normalPoints(rng, n, 2), 2, classes, Options{Ks: ks})
		drep, err := EvaluateDistances(context.Background(), squaredDistances(tc.x, n, tc.dim), n, classes, Options{Ks: ks, Threads: 2})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(drep.Rows) != len(ks)+1 {
			t.Errorf("%s: %d rows, want %d", tc.name, len(drep.Rows), len(ks)+1)
		}
		for _, row := range drep.Rows {
			if row.Subset != SubsetDistances {
				t.Errorf("%s: subset %q", tc.name, row.Subset)
			}
			if w := value(t, tc.name, rep, row.Metric, row.K, SubsetInput); row.Value != w {
				t.Errorf("%s: %s k=%d = %v, input subset of Evaluate %v", tc.name, row.Metric, row.K, row.Value, w)
			}
		}
	}
}

func TestInvalidInput(t *testing.T) {
	nan := math.NaN()
	x := []float64{0, 0, 1, 0, 0, 1, 1, 1, 2, 2} // 5 points in 2-D
	y := []float64{0, 1, 2, 3, 4}                // 5 points in 1-D
	cl := []int{0, 1, 0, 1, 1}
	bg := context.Background()
	for _, tc := range []struct {
		name     string
		f        func() error
		want     error
		matrix   string // of the *arrowio.Error, "" when not positional
		row, col int
	}{
		{"ragged x", func() error { _, err := Evaluate(bg, x[:9], 2, y, 1, nil, Options{}); return err }, ErrSize, "", -1, -1},
		{"row counts differ", func() error { _, err := Evaluate(bg, x, 2, y[:4], 1, nil, Options{}); return err }, ErrSize, "", -1, -1},
		{"zero dimension", func() error { _, err := Evaluate(bg, x, 0, y, 1, nil, Options{}); return err }, ErrSize, "", -1, -1},
		{"three points", func() error { _, err := Evaluate(bg, x[:6], 2, y[:3], 1, nil, Options{}); return err }, ErrTooFewPoints, "", -1, -1},
		{"NaN in x", func() error {
			x2 := append([]float64(nil), x...)
			x2[5] = nan
			_, err := Evaluate(bg, x2, 2, y, 1, nil, Options{})
			return err
		}, ErrNotFinite, "x", 2, 1},
		{"Inf in y", func() error {
			_, err := Evaluate(bg, x, 2, []float64{0, 1, 2, math.Inf(-1), 4}, 1, nil, Options{})
			return err
		}, ErrNotFinite, "y", 3, 0},
		{"k zero", func() error { _, err := Evaluate(bg, x, 2, y, 1, nil, Options{Ks: []int{0}}); return err }, ErrK, "", -1, -1},
		{"k = N−1", func() error { _, err := Evaluate(bg, x, 2, y, 1, nil, Options{Ks: []int{4}}); return err }, ErrK, "", -1, -1},
		{"classes short", func() error { _, err := Evaluate(bg, x, 2, y, 1, cl[:4], Options{}); return err }, ErrSize, "", -1, -1},
		{"negative class", func() error {
			_, err := Evaluate(bg, x, 2, y, 1, []int{0, 1, -1, 1, 1}, Options{})
			return err
		}, ErrClass, "classes", 2, -1},
		{"one class", func() error { _, err := Evaluate(bg, x, 2, y, 1, []int{3, 3, 3, 3, 3}, Options{}); return err }, ErrTooFewClasses, "", -1, -1},
		{"ordinal without classes", func() error {
			_, err := Evaluate(bg, x, 2, y, 1, nil, Options{Ordinal: true})
			return err
		}, ErrNoClasses, "", -1, -1},
		{"distances size", func() error { _, err := EvaluateDistances(bg, make([]float64, 24), 5, cl, Options{}); return err }, ErrSize, "", -1, -1},
		{"distances NaN", func() error {
			dm := make([]float64, 25)
			dm[7] = nan
			_, err := EvaluateDistances(bg, dm, 5, cl, Options{})
			return err
		}, ErrNotFinite, "dist", 1, 2},
		{"distances without classes", func() error { _, err := EvaluateDistances(bg, make([]float64, 25), 5, nil, Options{}); return err }, ErrNoClasses, "", -1, -1},
		{"distances ordinal", func() error {
			_, err := EvaluateDistances(bg, make([]float64, 25), 5, cl, Options{Ordinal: true})
			return err
		}, arrowio.ErrInvalidOption, "", -1, -1},
		{"distances k", func() error {
			_, err := EvaluateDistances(bg, make([]float64, 25), 5, cl, Options{Ks: []int{4}})
			return err
		}, ErrK, "", -1, -1},
	} {
		err := tc.f()
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
			continue
		}
		var e *arrowio.Error
		if isPos := errors.As(err, &e); isPos != (tc.matrix != "") {
			t.Errorf("%s: positional %v, want %v: %v", tc.name, isPos, tc.matrix != "", err)
			continue
		} else if !isPos {
			continue
		}
		col := ""
		if tc.col >= 0 {
			col = strconv.Itoa(tc.col)
		}
		if e.Matrix != tc.matrix || e.Row != int64(tc.row) || e.Column != col {
			t.Errorf("%s: position %q (%d, %q), want %q (%d, %q): %v", tc.name, e.Matrix, e.Row, e.Column, tc.matrix, tc.row, col, err)
		}
		if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("row %d", tc.row)) || (col != "" && !strings.Contains(msg, "column "+col)) {
			t.Errorf("%s: message %q does not name the position", tc.name, msg)
		}
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rng := rand.New(rand.NewPCG(13, 14))
	x := normalPoints(rng, 50, 2)
	if _, err := Evaluate(ctx, x, 2, x, 2, nil, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Evaluate: err = %v", err)
	}
	dm := squaredDistances(x, 50, 2)
	if _, err := EvaluateDistances(ctx, dm, 50, randomClasses(rng, 50, 2), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("EvaluateDistances: err = %v", err)
	}
}

func BenchmarkEvaluate(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			const D, d = 10, 2
			x := normalPoints(rng, n, D)
			y := make([]float64, n*d)
			for i := range n { // a noisy projection of x
				y[2*i] = x[D*i] + 0.3*rng.NormFloat64()
				y[2*i+1] = x[D*i+1] + 0.3*rng.NormFloat64()
			}
			classes := randomClasses(rng, n, 5)
			opts := Options{Ks: []int{5, 10, 30}}
			b.ResetTimer()
			for b.Loop() {
				if _, err := Evaluate(context.Background(), x, D, y, d, classes, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
