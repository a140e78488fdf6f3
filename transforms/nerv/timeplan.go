package nerv

import (
	"fmt"
	"math"

	"github.com/ordinate/ordinate/kernels"
)

// The costs of a fit's parts on two threads, measured on the runs of
// BENCHMARKS.md ("NeRV at any size", issue 40) and the benchmarks the
// constants name. TestTimePlan checks that the plan brackets those runs.
const (
	// gridRowSeconds is one grid evaluation per row: 8.4 µs at 10⁶ rows
	// (four clusters), 8.5 at 10⁵ (overlap), 7 at 53,940 (diamonds).
	gridRowSeconds = 8.5e-6
	// gridSoftFactor scales a grid evaluation for soft labels (gridsoft.go:
	// a field per channel, a row in about L of them): 1.35 times the hard
	// labels' whole fit at 10⁵ rows of four clusters (soft labels p_*),
	// 1.7 at 10⁶, 2.7 on flights, whose soft labels are nearly uniform.
	gridSoftFactor = 1.8
	// sparseRowSeconds is one cut-off or Barnes–Hut evaluation per row:
	// 3.9 s an iteration at 10⁵ rows of four clusters with the cut-off, hard
	// and soft labels alike (the converged map holds about 85 points within
	// one width). BenchmarkNeRVCutoff's sparser maps take half that (0.37–0.43
	// s at 20,000 rows); the cost grows with the map's density.
	sparseRowSeconds = 4e-5
	// exactPairSeconds is one exact evaluation per pair: 0.16 s at 3,000
	// rows (diamonds, hard labels); 1,000 rows take half that per pair.
	exactPairSeconds = 2e-8
	// exhaustivePairSeconds is the exhaustive neighbour search per pair and
	// feature (11.8 s for 30,000 × 50; 8 s for overlap's 25,000-row sample).
	exhaustivePairSeconds = 2.6e-10
	// treeRowSeconds is the k-d tree's search per row and neighbour (29 s
	// for 96 neighbours of 10⁶ rows of 3 features).
	treeRowSeconds = 3e-7
	// descentRowSeconds + descentFeatureSeconds·d is NN-descent's search
	// per row for 96 neighbours at 10⁵ rows (30 s at d = 10, 32 s at 20,
	// 44.5 s at 50), growing as (n/10⁵)^descentGrowth beyond: 10⁶ rows of
	// 50 features took 600 s, 1.35 times 10 × 44.5 s (more rounds, and
	// lists that no longer fit in the caches).
	descentRowSeconds, descentFeatureSeconds = 2.7e-4, 3.5e-6
	descentGrowth                            = 0.13
	// monitorMinIter is the iterations of a last level started from a
	// coarser level's map that stops early, about where it meets the
	// tolerance (after a sample start the monitor's first chance counts:
	// six and flights stopped there, at 50).
	monitorMinIter = 50
	// coarseMinIter is the iterations of an earlier level that meets its
	// tolerance before CoarseMaxIter (17 to 30 on diamonds).
	coarseMinIter = 20
	// tRowSeconds is one t-kernel evaluation per row (stresst.go) up to
	// 20,000 rows: 0.75 s at 20,000 rows of overlap's 30 classes (35
	// evaluations in 26 s). Beyond, the cost per row grows as (n/20,000)^
	// tRowGrowth: on overlap's 10⁵ rows 11.8 s an evaluation (40 in 474
	// s), the map's dense classes putting some 3,000 rows within the near
	// radius of a grid whose intervals grow with the map (TStress
	// .chooseFine). The monitor, comparing each check with the one before
	// the previous (tMonitorSpan), stopped the measured t levels at 50 to
	// 110 iterations (50: breast cancer and overlap's 20,000 rows; 60
	// digits; 70 overlap's 3,000; 80 four clusters' 20,000 with soft labels
	// and 30,000 blobs; 110 four clusters' 20,000); the plan counts
	// tMinIter to tHighIter iterations of tEvalsPerIter evaluations, and
	// brackets the whole runs (TestTimePlan; a level run to MaxIter = 150
	// would take up to 1.3 times the high end).
	tRowSeconds = 3.8e-5
	tRowGrowth  = 0.7
	// tEvalFloorSeconds is what an evaluation's grids cost however few
	// the rows (digits' 1,797: 49 evaluations of about 0.13 s, where the
	// rows' share is 0.07).
	tEvalFloorSeconds = 0.05
	// tSoftFactor scales a t-level iteration for soft labels: their
	// channels' near pairs within the coarse grid's wide radius, and more
	// iterations (20,000 rows of four clusters with soft labels p_*: 78
	// evaluations of 1.96 s in 70 iterations, where the hard labels'
	// evaluation takes about 0.8 s).
	tSoftFactor = 3.0
	// tMeasuredRows is the most rows the t level was measured at; the stage
	// warns above it (sizeWarning).
	tMeasuredRows = 100_000
	tMinIter      = 45
	tHighIter     = 130
	tEvalsPerIter = 1.2
)

// TimePlan is the expected wall time of a fit, in seconds: Low if the last
// level stops early (the neighbourhood monitor's first chance, or the
// tolerance), High if it runs MaxIter iterations. It is a model of
// measured costs, not a promise: the runs it was fitted to fall within it
// (BENCHMARKS.md), other data may take a denser map or more line searches.
type TimePlan struct {
	Low, High float64
}

// String gives the span in seconds, minutes or hours, e.g. "1.8–3.4 min"
// (the low end rounded down, the high end up).
func (t TimePlan) String() string {
	span := func(lo, hi float64, prec int, unit string) string {
		f := math.Pow(10, float64(prec))
		lo, hi = math.Floor(lo*f)/f, math.Ceil(hi*f)/f
		if lo >= hi {
			return fmt.Sprintf("about %.*f %s", prec, hi, unit)
		}
		return fmt.Sprintf("%.*f–%.*f %s", prec, lo, prec, hi, unit)
	}
	switch lo, hi := t.Low, max(t.High, 1); {
	case hi < 90:
		return span(max(lo, 1), hi, 0, "s")
	case hi < 10*60:
		return span(lo/60, hi/60, 1, "min")
	case hi < 90*60:
		return span(lo/60, hi/60, 0, "min")
	default:
		return span(lo/3600, hi/3600, 1, "h")
	}
}

// timePlan models the time of a fit of n rows of d features with the
// resolved o on threads threads: the neighbour search,
// the levels' evaluations, a sample start's own fit, recursively, and the
// t kernel's level; soft says the labels are soft (softFields). Two
// threads are what the costs were measured on; others scale them by
// 2/threads.
func (o Options) timePlan(n, d, threads int, soft bool) TimePlan {
	var t TimePlan
	if o.kernel() == KernelT {
		// A small map's grid is as wide as a large one's: its transforms
		// take tEvalFloorSeconds unless its pairs summed directly are
		// cheaper (TStress's planes go direct then; tInterp.direct).
		floor := min(tEvalFloorSeconds, float64(n)*float64(n)*3*tDirectPairSeconds)
		per := (tRowSeconds*float64(n)*math.Pow(max(1, float64(n)/20_000), tRowGrowth) + floor) * tEvalsPerIter
		if soft {
			per *= tSoftFactor
		}
		t.Low, t.High = per*float64(min(tMinIter, o.MaxIter)), per*float64(min(tHighIter, o.MaxIter))
	}
	low, high := min(monitorMinIter, o.MaxIter), o.MaxIter
	if o.fromSample(n) {
		s := o.sampleOptions().timePlan(n/sampleFraction, d, 2, soft)
		t.Low, t.High = t.Low+s.Low, t.High+s.High
		// The monitor's first chance: its second check after the exaggeration.
		low = min(exaggerationIters(n, o.MaxIter)+2*monitorEvery, o.MaxIter)
	}
	levels := o.Levels(n)
	search := o.searchSeconds(n, d)
	per := o.evalSeconds(n, soft)
	for h := range len(levels) - 1 {
		it, _ := o.stopping(h, len(levels))
		low, high = low+min(coarseMinIter, it), high+it
	}
	t.Low += search + per*float64(low)
	t.High += search + per*float64(high)
	f := 2 / float64(max(threads, 1))
	return TimePlan{Low: t.Low * f, High: t.High * f}
}

// evalSeconds is one stress and gradient evaluation of n rows.
func (o Options) evalSeconds(n int, soft bool) float64 {
	switch {
	case o.Method == Grid && soft:
		return gridSoftFactor * gridRowSeconds * float64(n)
	case o.Method == Grid:
		return gridRowSeconds * float64(n)
	case o.Method.sparse():
		return sparseRowSeconds * float64(n)
	}
	return exactPairSeconds * float64(n) * float64(n)
}

// searchSeconds is the neighbour search of a sparse fit of n rows (0 for
// the exact method, whose distances are part of its first evaluation).
func (o Options) searchSeconds(n, d int) float64 {
	kn, knn := o.neighbourPlan(n, d)
	switch {
	case knn == "":
		return 0
	case knn == kernels.KNNApprox:
		grow := math.Pow(max(float64(n)/1e5, 1), descentGrowth)
		return (descentRowSeconds + descentFeatureSeconds*float64(d)) * float64(n) * float64(kn) / 96 * grow
	case d <= kernels.KDTreeMaxDims:
		return treeRowSeconds * float64(n) * float64(kn)
	}
	return exhaustivePairSeconds * float64(n) * float64(n) * float64(d)
}
