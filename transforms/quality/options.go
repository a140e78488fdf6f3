package quality

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// Standardize is evaluate's standardize option: auto (as the embedding was
// fitted, from its provenance), true or false.
type Standardize string

const (
	StandardizeAuto Standardize = "auto"  // as recorded in the embedding's provenance
	StandardizeOn   Standardize = "true"  // z-score the features
	StandardizeOff  Standardize = "false" // use the features as they are
)

// Values lists the values of Standardize.
func (Standardize) Values() []string { return []string{"auto", "true", "false"} }

// Options are the options of the evaluate stage and of the metrics
// (Evaluate, EvaluateDistances and their partial forms), one struct for
// both: the numerics read Ks, Ordinal, Block, Threads and Progress; the
// stage reads the rest. Start from DefaultOptions. The zero values of the
// fields the numerics read are meaningful (no ks: only the metrics without
// k; Threads 0: GOMAXPROCS; the zero Block: every point), so a literal such
// as Options{Ks: []int{10}} is a valid argument of Evaluate.
type Options struct {
	transforms.Columns
	Standardize Standardize `opt:"standardize" help:"z-score the features of in before measuring: auto takes the choice (and, without features, the feature columns) recorded in the embedding's provenance, so that the embedding is scored in the space it was fitted in"`
	Order       []string    `opt:"order" help:"class order as a comma list, e.g. low,mid,high (text labels of ordinal metrics)"`
	// Ordinal says the classes are ordered by their value and adds the
	// ordinal metrics. It needs classes and embedding coordinates. (The
	// stage also takes the classes as ordered when an order is given.)
	Ordinal bool `opt:"ordinal" help:"labels are ordinal (numeric ascending, or order): add the ordinal metrics"`
	// Ks are the neighbourhood sizes of the per-k metrics, each in
	// [1, N−2] (checked against N by the numerics); order and repeats do
	// not matter. Empty: only the metrics without k (rnx_auc, nn_error and
	// the ordinal metrics); the stage wants at least one.
	Ks             []int                `opt:"k" range:"[1,)" help:"neighbourhood sizes, comma list of whole numbers, at most the row count − 2 (with split: one value is the k of the hidden-object classification, default 10)"`
	Emb            []string             `opt:"emb" help:"embedding columns of the embedding table"`
	TripletColumns table.TripletColumns `opt:"triplet-columns" help:"names of the i, j, k and (optional) aspect columns of the triplet table, comma list"`
	// Block selects the points EvaluatePartial and
	// EvaluateDistancesPartial score; Evaluate and EvaluateDistances score
	// every point and refuse another block.
	Block Block `opt:"block" help:"score only block i/B of the points (0 ≤ i < B; block b = rows [b·n/B, (b+1)·n/B) of the embedding, or of the sample's points, each still ranked among all points) and write its exact partial sums (kind metrics_partial) instead of the metrics; merge the B tables with --partials"`
	// Sample is the number of query points whose neighbourhoods are
	// scored: SampleAll (0, the zero value) scores every point,
	// SampleAuto every point up to AutoSampleAbove points and
	// DefaultSampleSize points above; a sample at least as large as N is
	// every point.
	Sample SampleSize `opt:"sample" help:"score the neighbourhoods of a seeded sample of this many points (each still ranked among all points; the metrics are exact for the sample, and the ordinal metrics use every point): 0 scores every point, auto every point up to 20000 rows and 5000 points above"`
	// Seed draws the sample.
	Seed uint64 `opt:"seed" help:"random seed of the sample (any whole number ≥ 0)"`

	// Threads is the number of goroutines; ≤ 0 means GOMAXPROCS. The
	// results do not depend on it. The stage sets it from the host.
	Threads int
	// Progress, when set, is called with the number of points whose
	// neighbourhoods are done, from several goroutines at once.
	Progress func(points int64)
}

// DefaultOptions returns the defaults: ks 5, 10 and 30, the embedding's
// emb_* columns, the space the embedding was fitted in (standardize auto),
// the triplet table's columns i, j, k and aspect, every point of every
// block, and the automatic sample (every point up to AutoSampleAbove
// points) with seed 1.
func DefaultOptions() Options {
	return Options{
		Columns:        transforms.DefaultColumns(),
		Standardize:    StandardizeAuto,
		Ks:             []int{5, 10, 30},
		Emb:            []string{"emb_*"},
		TripletColumns: table.DefaultTripletColumns,
		Sample:         SampleAuto,
		Seed:           1,
	}
}

// SampleSize is the sample option: a number of query points, SampleAll
// or SampleAuto. As text it is a whole number or "auto".
type SampleSize int

const (
	// SampleAll scores every point.
	SampleAll SampleSize = 0
	// SampleAuto scores every point up to AutoSampleAbove points, and
	// DefaultSampleSize points above.
	SampleAuto SampleSize = -1
)

// The automatic sample. A query point costs two exact rankings of every
// point, so time grows as N² without a sample and as N with one: an exact
// run on AutoSampleAbove points (about 25 s of CPU on the project's
// machine, BENCHMARKS.md) costs about as much as a DefaultSampleSize
// sample of 80,000 points.
const (
	AutoSampleAbove   = 20000
	DefaultSampleSize = 5000
)

// MarshalText writes the size, or "auto".
func (s SampleSize) MarshalText() ([]byte, error) {
	if s == SampleAuto {
		return []byte("auto"), nil
	}
	return []byte(strconv.Itoa(int(s))), nil
}

// UnmarshalText reads a whole number ≥ 0 or "auto".
func (s *SampleSize) UnmarshalText(t []byte) error {
	v := strings.TrimSpace(string(t))
	if v == "auto" || v == "" {
		*s = SampleAuto
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return fmt.Errorf("%q: want a whole number of points ≥ 0 (0: every point) or auto", v)
	}
	*s = SampleSize(n)
	return nil
}

// Points returns how many query points of n the sample scores: n for
// SampleAll, for a size ≥ n, and for SampleAuto up to AutoSampleAbove.
func (s SampleSize) Points(n int) int {
	switch {
	case s == SampleAuto && n > AutoSampleAbove:
		return DefaultSampleSize
	case s <= 0 || int(s) >= n:
		return n
	}
	return int(s)
}

// Validate checks the stage's rules that the tags cannot say: at least one
// neighbourhood size and one embedding column, and no kept columns (the
// metrics table has no rows to keep them in). The numerics do not call it
// (an empty Ks is theirs to take).
func (o *Options) Validate() error {
	if len(o.Ks) == 0 {
		return transforms.Optionf("k", "give at least one neighbourhood size")
	}
	if len(o.Keep) > 0 {
		return transforms.Optionf("keep", "evaluate writes a metrics table: there are no rows to keep columns in")
	}
	if len(o.Emb) == 0 {
		return transforms.Optionf("emb", "give the embedding columns")
	}
	if o.Sample < SampleAuto {
		return transforms.Optionf("sample", "%d: want a number of points ≥ 0 or auto", o.Sample)
	}
	return nil
}
