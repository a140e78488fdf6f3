package nerv

import (
	"math"
	"testing"

	"github.com/ordinate/ordinate/kernels"
)

// TestTimePlan: the plan brackets the wall times of BENCHMARKS.md's default
// runs (two threads, nothing else running, 2026-11-29) of every method and
// start it models, scales with the threads, and grows with the rows.
func TestTimePlan(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, d    int
		method  Method
		maxIter int // 0: the default
		seconds float64
		soft    bool
		kernel  Kernel
	}{
		{"overlap, 10⁵ × 50 (sample start, NN-descent)", 100_000, 50, Grid, 0, 144.3, false, ""},
		{"six, 10⁵ × 20", 100_000, 20, Grid, 0, 106.5, false, ""},
		{"four clusters, 10⁵ × 3 (k-d tree)", 100_000, 3, Grid, 0, 81.9, false, ""},
		{"flights, 10⁵ × 10", 100_000, 10, Grid, 0, 101.3, false, ""},
		{"flights, --neighbour-tol 0", 100_000, 10, Grid, 0, 158.4, false, ""},
		{"diamonds, 53,940 × 7", 53_940, 7, Grid, 0, 35.5, false, ""},
		{"four clusters, 10⁶ × 3 (three samples deep, 60 exaggerated)", 1_000_000, 3, Grid, 0, 943.8, false, ""},
		{"the same, 150 iterations", 1_000_000, 3, Grid, 0, 1258, false, ""},
		{"digits, 1,797 × 61 (PCA start, two levels)", 1797, 61, Grid, 0, 1.51, false, ""},
		{"four clusters, 10⁵ × 3, cutoff (hard labels)", 100_000, 3, Cutoff, 0, 442.9, false, ""},
		{"four clusters, 10⁵ × 3, cutoff (soft labels)", 100_000, 3, Cutoff, 0, 428.9, false, ""},
		{"four clusters, 10⁵ × 3, soft labels", 100_000, 3, Grid, 0, 110.8, true, ""},
		{"flights, 10⁵ × 10, soft labels (logistic regression)", 100_000, 10, Grid, 0, 277.6, true, ""},
		{"four clusters, 10⁶ × 3, soft labels (built before 52970e4's rounding)", 1_000_000, 3, Grid, 0, 1603, true, ""},
		{"diamonds, 3,000 rows", 3000, 7, Grid, 0, 3.26, false, ""},
		{"diamonds, 3,000 rows, exact (seven levels)", 3000, 7, Exact, 0, 49.9, false, ""},
		{"diamonds, 1,000 rows, exact", 1000, 7, Exact, 0, 2.86, false, ""},
		{"overlap, 3,000 × 50, t kernel (30 classes)", 3000, 50, Grid, 0, 29.4, false, KernelT},
		{"digits, 1,797 × 61, t kernel (10 classes)", 1797, 61, Grid, 0, 14.4, false, KernelT},
		{"breast cancer, 569 × 30, t kernel (direct sums)", 569, 30, Grid, 0, 2.7, false, KernelT},
		{"overlap, 20,000 × 50, t kernel (30 classes)", 20_000, 50, Grid, 0, 71.7, false, KernelT},
		{"four clusters, 20,000 × 3, t kernel", 20_000, 3, Grid, 0, 156.7, false, KernelT},
		{"four clusters, 20,000 × 3, t kernel, soft labels", 20_000, 3, Grid, 0, 214.2, true, KernelT},
		{"overlap, 10⁵ × 50, t kernel (30 classes)", 100_000, 50, Grid, 0, 1014.2, false, KernelT},
		{"blobs of unequal widths, 30,000 × 10, t kernel (8 classes)", 30_000, 10, Grid, 0, 183.8, false, KernelT},
	} {
		o := DefaultOptions()
		o.Method = tc.method
		if tc.kernel != "" {
			o.OutputKernel = tc.kernel
		}
		if tc.maxIter > 0 {
			o.MaxIter = tc.maxIter
		}
		p := o.timePlan(tc.n, tc.d, 2, tc.soft)
		t.Logf("%s: %.1f–%.1f s (%v), measured %.1f s", tc.name, p.Low, p.High, p, tc.seconds)
		if !(p.Low <= tc.seconds && tc.seconds <= p.High) || p.High > 3*p.Low {
			t.Errorf("%s: plan %.1f–%.1f s (%v), want it to bracket the measured %.1f s within a factor 3", tc.name, p.Low, p.High, p, tc.seconds)
		}
		one := o.timePlan(tc.n, tc.d, 1, tc.soft)
		if one.Low != 2*p.Low || one.High != 2*p.High {
			t.Errorf("%s: one thread %v, two %v: want twice", tc.name, one, p)
		}
		if more := o.timePlan(2*tc.n, tc.d, 2, tc.soft); more.Low <= p.Low {
			t.Errorf("%s: twice the rows plan %v, once %v: want more", tc.name, more, p)
		}
	}
}

// TestSearchSeconds: the neighbour search's model against measured
// NN-descent runs (96 neighbours, two threads).
func TestSearchSeconds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, d    int
		seconds float64
	}{
		{"flights, 10⁵ × 10", 100_000, 10, 30},
		{"overlap, 10⁵ × 50", 100_000, 50, 44.5},
		{"twelve blobs, 10⁶ × 50", 1_000_000, 50, 600},
	} {
		o := DefaultOptions()
		o.Method, o.Neighbors = Grid, kernels.KNNApprox
		got := o.searchSeconds(tc.n, tc.d)
		t.Logf("%s: model %.1f s, measured %.1f s", tc.name, got, tc.seconds)
		if math.Abs(got-tc.seconds) > 0.15*tc.seconds {
			t.Errorf("%s: model %.1f s, measured %.1f s: want within 15%%", tc.name, got, tc.seconds)
		}
	}
}

func TestTimePlanString(t *testing.T) {
	for _, tc := range []struct {
		p    TimePlan
		want string
	}{
		{TimePlan{0.2, 0.7}, "about 1 s"},
		{TimePlan{1.1, 2.8}, "1–3 s"},
		{TimePlan{30.9, 77.8}, "30–78 s"},
		{TimePlan{110, 199.2}, "1.8–3.4 min"},
		{TimePlan{550, 1401.3}, "9–24 min"},
		{TimePlan{3 * 3600, 7.25 * 3600}, "3.0–7.3 h"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%v: %q, want %q", [2]float64{tc.p.Low, tc.p.High}, got, tc.want)
		}
	}
}
