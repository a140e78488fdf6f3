package quality

import (
	"context"
	"math"
	"slices"

	"github.com/ordinate/ordinate/transforms"
)

// Metric names: the values of Row.Metric.
const (
	MetricTrustworthiness       = "trustworthiness"
	MetricContinuity            = "continuity"
	MetricRNX                   = "rnx"
	MetricRNXAUC                = "rnx_auc"
	MetricKNNAccuracy           = "knn_accuracy"
	MetricNNError               = "nn_error"
	MetricKNNGain               = "knn_gain"
	MetricOrdinalSpearman       = "ordinal_spearman"
	MetricCenterSpearman        = "center_spearman"
	MetricCenterDiscordantPairs = "center_discordant_pairs"
)

// Subset names: the values of Row.Subset.
const (
	SubsetAll       = "all"       // every pair of points
	SubsetIntra     = "intra"     // class-aware T/C: within-class part
	SubsetInter     = "inter"     // class-aware T/C: between-class part
	SubsetEmbedding = "embedding" // classification in the embedding
	SubsetInput     = "input"     // the same classification in the input space
	SubsetDistances = "distances" // classification on a given distance matrix
)

// Row is one row of the long metrics table (columns metric, k, subset,
// value). K is 0 for metrics without a neighbourhood size.
type Row struct {
	Metric string
	K      int
	Subset string
	Value  float64
}

// Report holds the metrics of one evaluation.
type Report struct {
	N int // number of points
	// Points is the number of query points whose neighbourhoods were
	// scored: N, or the size of the sample that Seed drew.
	Points int
	Seed   uint64
	Rows   []Row // in a fixed order: by metric as listed in the package documentation, then k, then subset
	// CenterOrder lists the class values in the order of their projected
	// centres along the best ordinal axis (ties by class value); nil
	// without Options.Ordinal.
	CenterOrder []int
}

// Value returns the value of the row with the given metric, k and subset.
func (r *Report) Value(metric string, k int, subset string) (float64, bool) {
	for _, row := range r.Rows {
		if row.Metric == metric && row.K == k && row.Subset == subset {
			return row.Value, true
		}
	}
	return 0, false
}

func (r *Report) add(metric string, k int, subset string, v float64) {
	r.Rows = append(r.Rows, Row{Metric: metric, K: k, Subset: subset, Value: v})
}

// Sampled reports whether the neighbourhood metrics are those of a sample
// of the points.
func (r *Report) Sampled() bool { return r.Points < r.N }

// Evaluate compares an embedding y (N×d, row-major) with the input x (N×D)
// point by point. classes, if not nil, holds a class value ≥ 0 per point and
// adds the class-aware metrics; with opts.Ordinal the values are taken as
// ordered. It reads opts.Ks, Ordinal, Sample, Seed, Threads and Progress,
// and scores every query point (opts.Block is for EvaluatePartial): every
// point, or a seeded sample of them (opts.Sample), each ranked among all N
// points, so that the metrics are exact for the sample. Bad data or options (sizes, NaN
// or ±Inf, class values, k out of range) give an error wrapping a sentinel
// of errors.go, a bad option a *transforms.OptionError naming it, a bad
// value at a position an *arrowio.Error naming it; cancellation gives
// ctx.Err().
func Evaluate(ctx context.Context, x []float64, D int, y []float64, d int, classes []int, opts Options) (*Report, error) {
	if err := wholeBlock(opts); err != nil {
		return nil, err
	}
	p, err := EvaluatePartial(ctx, x, D, y, d, classes, opts)
	if err != nil {
		return nil, err
	}
	return Merge(p)
}

// EvaluateAgainstDistances is Evaluate with the input space given as a
// precomputed N×N row-major dissimilarity matrix instead of coordinates
// (an embedding fitted on distances, as t-SNE of a distance table): only
// the order of each row's off-diagonal values is used, so plain or
// squared distances give the same results.
func EvaluateAgainstDistances(ctx context.Context, dist []float64, y []float64, d int, classes []int, opts Options) (*Report, error) {
	if err := wholeBlock(opts); err != nil {
		return nil, err
	}
	p, err := EvaluateAgainstDistancesPartial(ctx, dist, y, d, classes, opts)
	if err != nil {
		return nil, err
	}
	return Merge(p)
}

// EvaluateDistances gives the classification metrics (nn_error and
// knn_accuracy, subset "distances") for a precomputed N×N row-major
// dissimilarity matrix. Only the order of each row's off-diagonal values is
// used (plain or squared distances give the same results); the matrix need
// not be symmetric. classes are required; opts.Ordinal is refused.
func EvaluateDistances(ctx context.Context, dist []float64, n int, classes []int, opts Options) (*Report, error) {
	if err := wholeBlock(opts); err != nil {
		return nil, err
	}
	p, err := EvaluateDistancesPartial(ctx, dist, n, classes, opts)
	if err != nil {
		return nil, err
	}
	return Merge(p)
}

// wholeBlock refuses a block for the functions that score every point.
func wholeBlock(opts Options) error {
	if !opts.Block.IsZero() {
		return transforms.Optionf("block", "%s: this scores every point; EvaluatePartial and EvaluateDistancesPartial score a block", opts.Block)
	}
	return nil
}

// checkDistances checks EvaluateDistances' arguments and returns the sorted
// ks and the classes.
func checkDistances(dist []float64, n int, classes []int, opts Options) ([]int, *labels, error) {
	if n < 4 {
		return nil, nil, transforms.Errorf(ErrTooFewPoints, "N = %d", n)
	}
	if len(dist) != n*n {
		return nil, nil, transforms.Errorf(ErrSize, "len(dist) = %d for N = %d (want N² = %d)", len(dist), n, n*n)
	}
	if err := checkFinite("dist", dist, n); err != nil {
		return nil, nil, err
	}
	if opts.Ordinal {
		return nil, nil, transforms.Optionf("ordinal", "the ordinal metrics need embedding coordinates, not distances")
	}
	ks, err := checkKs(opts.Ks, n)
	if err != nil {
		return nil, nil, err
	}
	if classes == nil {
		return nil, nil, transforms.Errorf(ErrNoClasses, "the classification metrics need classes")
	}
	lab, err := newLabels(classes, n)
	if err != nil {
		return nil, nil, err
	}
	return ks, lab, nil
}

// checkAgainstDistances checks the arguments of EvaluateAgainstDistances
// and returns N.
func checkAgainstDistances(dist []float64, y []float64, d int) (int, error) {
	if d < 1 || len(y)%d != 0 {
		return 0, transforms.Errorf(ErrSize, "len(y) = %d values are not rows of d = %d", len(y), d)
	}
	n := len(y) / d
	if len(dist) != n*n {
		return 0, transforms.Errorf(ErrSize, "len(dist) = %d for N = %d points of y (want N² = %d)", len(dist), n, n*n)
	}
	if n < 4 {
		return 0, transforms.Errorf(ErrTooFewPoints, "N = %d", n)
	}
	if err := checkFinite("dist", dist, n); err != nil {
		return 0, err
	}
	if err := checkFinite("y", y, d); err != nil {
		return 0, err
	}
	return n, nil
}

func checkCoordinates(x []float64, D int, y []float64, d int) (int, error) {
	if D < 1 || len(x)%D != 0 {
		return 0, transforms.Errorf(ErrSize, "len(x) = %d values are not rows of D = %d", len(x), D)
	}
	if d < 1 || len(y)%d != 0 {
		return 0, transforms.Errorf(ErrSize, "len(y) = %d values are not rows of d = %d", len(y), d)
	}
	n := len(x) / D
	if len(y)/d != n {
		return 0, transforms.Errorf(ErrSize, "y has %d rows, x has %d", len(y)/d, n)
	}
	if n < 4 {
		return 0, transforms.Errorf(ErrTooFewPoints, "N = %d", n)
	}
	if err := checkFinite("x", x, D); err != nil {
		return 0, err
	}
	if err := checkFinite("y", y, d); err != nil {
		return 0, err
	}
	return n, nil
}

func checkFinite(matrix string, v []float64, cols int) error {
	for p, f := range v {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return transforms.MatrixErrorf(matrix, p/cols, p%cols, ErrNotFinite, "%v", f)
		}
	}
	return nil
}

// checkKs returns the sorted, de-duplicated neighbourhood sizes, each of
// which must be in [1, N−2]: the one check of the k option, as only here N
// is known.
func checkKs(ks []int, n int) ([]int, error) {
	for _, k := range ks {
		if k < 1 || k > n-2 {
			return nil, transforms.Optionf("k", "%w: k = %d with N = %d", ErrK, k, n)
		}
	}
	s := slices.Clone(ks)
	slices.Sort(s)
	return slices.Compact(s), nil
}

// labels holds the classes renumbered densely, 0..len(values)−1, in the
// order of their values.
type labels struct {
	id     []int32 // dense class of each point
	values []int   // class value of each dense class, increasing
}

func newLabels(classes []int, n int) (*labels, error) {
	if len(classes) != n {
		return nil, transforms.Errorf(ErrSize, "%d classes for %d points", len(classes), n)
	}
	for i, c := range classes {
		if c < 0 {
			return nil, transforms.MatrixErrorf("classes", i, -1, ErrClass, "%d", c)
		}
	}
	values := slices.Clone(classes)
	slices.Sort(values)
	values = slices.Compact(values)
	if len(values) < 2 {
		return nil, transforms.Errorf(ErrTooFewClasses, "only class %d", values[0])
	}
	lab := &labels{id: make([]int32, n), values: values}
	for i, c := range classes {
		p, _ := slices.BinarySearch(values, c)
		lab.id[i] = int32(p)
	}
	return lab, nil
}
