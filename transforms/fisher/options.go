package fisher

import (
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// DefaultSteps is the default number of path segments T.
const DefaultSteps = 10

// Options are the options of the fisher stage and of its numerics
// (Distances, SparseDistances, Fit), declared once (see
// transforms.Options): the tagged fields are the stage's options (flags,
// help, defaults and the provenance's params), the untagged ones the
// library's alone. Start from DefaultOptions: the zero value is not valid.
//
// Distances and SparseDistances use Sigma (which must be > 0 there),
// Steps, Rule, ExcludeEndpoints, Neighbors, Threads, Pairs and Progress;
// Fit uses every field.
type Options struct {
	transforms.Columns
	Order  []string `opt:"order" help:"class order (default: ascending value for numbers, byte order for text)"`
	Kernel Kernel   `opt:"kernel" help:"with in: the kernel of the feature rows (linear: S = XXᵀ, rbf: exp(−γ‖x−y‖²), cosine: xᵀy/(‖x‖‖y‖)); none with similarity"`
	Gamma  float64  `opt:"gamma" range:"[0,)" help:"rbf γ (0: 1 / median squared distance between rows)"`
	transforms.Standardization

	Correction Correction `opt:"correction" help:"eigenvalue correction of the similarity matrix"`
	// Sigma is the Parzen bandwidth σ of exp(−‖x−x_l‖²/(2σ²)). Fit derives
	// it from Perplexity and SigmaScale when it is 0; Distances and
	// SparseDistances need it > 0.
	Sigma      float64 `opt:"sigma" range:"[0,)" help:"Parzen bandwidth σ (0: the mean perplexity bandwidth times sigma-scale)"`
	Perplexity float64 `opt:"perplexity" range:"[1,)" help:"perplexity of the per-point bandwidths whose mean gives σ (below N − 1)"`
	SigmaScale float64 `opt:"sigma-scale" range:"(0,)" help:"factor on the perplexity bandwidth"`
	// Steps is the number of path segments T.
	Steps int `opt:"steps" range:"[1,)" help:"path points T"`
	// Rule is the quadrature of the path integral.
	Rule Rule `opt:"rule" help:"quadrature of the path integral: trapezoid is symmetric, left is the paper's left sum (d(i,j) ≠ d(j,i))"`
	// ExcludeEndpoints is leave-pair-out: drop l = i and l = j from the
	// Parzen sums of (i, j).
	ExcludeEndpoints bool `opt:"exclude-endpoints" help:"leave-pair-out Parzen sums: drop i and j from the sums for the pair (i, j)"`
	// Neighbors is K: 0 for all pairs (Distances), at least 1 for
	// SparseDistances.
	Neighbors int `opt:"neighbors" range:"[0,)" help:"sparse: only each row's K nearest neighbours in the corrected kernel metric (below N; 0: all pairs)"`
	// ParzenNeighbors is L, the leading rows of each list that enter the
	// local mode's Parzen sums (FitFeatures): 0 for ⌈3·Perplexity⌉.
	ParzenNeighbors int `opt:"parzen-neighbors" range:"[0,)" help:"with in and neighbors: the nearest rows of each row whose union over a pair's two end points makes the pair's Parzen sums (0: 3·perplexity)"`
	// KNN, KNNRecall and Seed tune the local mode's neighbour search (a
	// feature table with neighbors; see FitFeatures).
	KNN       kernels.KNNMethod `opt:"knn" help:"with in and neighbors: how each row's K nearest rows in the kernel metric are found: exact (a k-d tree for up to 8 features, else exhaustive), approx (NN-descent), auto (exact up to max(20000, 4c²) rows for c = max(4K/3, 60) candidates, or up to 8 features)"`
	KNNRecall float64           `opt:"knn-recall" range:"[0,1]" help:"with approximate neighbours: the recall NN-descent must reach, estimated on 300 seeded rows against their exact neighbours; below it the search widens its join (twice at most), then warns (0: no check)"`
	Seed      uint64            `opt:"seed" help:"seed of the approximate neighbour search (the only randomness); the same input, seed and thread count give bit-identical output"`
	Metric    Metric            `opt:"metric" help:"what is measured: Fisher path lengths, or (kernel) the corrected kernel distances √(sᵢᵢ + sⱼⱼ − 2sᵢⱼ) themselves (the paper's \"original\")"`
	Upper     bool              `opt:"upper" help:"long output: only pairs i < j"`
	Format    Format            `opt:"format" help:"output layout: long is i, j, distance; square is id, then one column per object"`
	Tile      Tile              `opt:"tile" help:"compute and write only tile I,J/T of the long table (0 ≤ I, J < T): the rows split in T contiguous blocks, block b = rows [b·n/T, (b+1)·n/T), and the pairs with i in block I and j in block J; the T² tiles (with upper the T(T+1)/2 tiles I ≤ J) together are the whole table, bit for bit"`

	// Threads is the number of goroutines (≤ 0: GOMAXPROCS). The stage
	// uses the host's (transforms.Env.Threads).
	Threads int
	// Pairs, if not nil, restricts Distances (and Fit's dense distances) to
	// the unordered pairs {a, b} for which it returns true (see
	// PathParams.Pairs); the other entries of the result are meaningless.
	// Fit replaces it by the pairs of Tile when Tile is set.
	Pairs func(a, b int) bool
	// Progress, if not nil, receives the work done and its total (pairs
	// i < j for Distances, rows for SparseDistances). Calls come from
	// worker goroutines but never concurrently, with done increasing; keep
	// it fast.
	Progress func(done, total int64)
}

// DefaultOptions returns every option at its default.
func DefaultOptions() Options {
	return Options{
		Columns:         transforms.DefaultColumns(),
		Kernel:          NoKernel,
		Standardization: transforms.Standardization{Standardize: true},
		Correction:      CorrectClip,
		Perplexity:      30,
		SigmaScale:      1,
		Steps:           DefaultSteps,
		Rule:            Trapezoid,
		Metric:          MetricFisher,
		Format:          FormatLong,
		KNN:             kernels.KNNAuto,
		KNNRecall:       0.99,
		Seed:            1,
	}
}

// Validate checks the rules that tie options together; transforms.Validate
// checks each option's range and values first.
func (o *Options) Validate() error {
	t := o.Tile
	switch {
	case o.Keep != nil:
		return transforms.Optionf("keep", "fisher writes distance pairs, which carry no other columns")
	case o.Format == FormatSquare && o.Upper:
		return transforms.Optionf("upper", "applies to format long only")
	case o.Format == FormatSquare && o.Neighbors > 0:
		return transforms.Optionf("format", "square needs dense distances (no neighbors)")
	case t != (Tile{}) && !(t.Count >= 1 && t.I >= 0 && t.I < t.Count && t.J >= 0 && t.J < t.Count):
		return transforms.Optionf("tile", "{I: %d, J: %d, Count: %d}: want 0 ≤ I, J < Count", t.I, t.J, t.Count)
	case !t.IsZero() && o.Format == FormatSquare:
		return transforms.Optionf("tile", "applies to format long only (a tile of the square table is not a table)")
	case !t.IsZero() && o.Upper && t.I > t.J:
		return transforms.Optionf("tile", "%s: with upper only the tiles I ≤ J exist", t)
	}
	return nil
}

// Rule selects the quadrature of the path integral.
type Rule string

const (
	// Trapezoid is the symmetric rule: the mean of the two Left directions,
	// (σ²T)⁻¹[½F(0) + Σ_{t=1}^{T−1} F(t/T) + ½F(1)].
	Trapezoid Rule = "trapezoid"
	// Left is the paper's Eq. 3: J evaluated at the start of each segment,
	// (σ²T)⁻¹ Σ_{t=0}^{T−1} F(t/T); d(i, j) ≠ d(j, i) in general.
	Left Rule = "left"
)

// Values lists the rules.
func (Rule) Values() []string { return []string{"trapezoid", "left"} }

// pathLength is a pair's distance from its path integrands (F(0), F(1) and
// Σ_{t=1}^{T−1} F(t/T)) under the rule, times scale = 1/(σ²T).
func (r Rule) pathLength(f0, f1, mid, scale float64) float64 {
	if r == Trapezoid {
		return (0.5*f0 + 0.5*f1 + mid) * scale
	}
	return (f0 + mid) * scale
}

// Kernel is the kernel of the stage's feature input: none (the input is a
// similarity table), linear, rbf or cosine.
type Kernel string

// Kernels.
const (
	NoKernel     Kernel = "none"
	LinearKernel Kernel = "linear"
	RBFKernel    Kernel = "rbf"
	CosineKernel Kernel = "cosine"
)

// Values lists the kernels.
func (Kernel) Values() []string { return []string{"none", "linear", "rbf", "cosine"} }

// Correction is the eigenvalue correction of the similarity matrix (see
// kernels.Correction): clip, flip, shift or none.
type Correction string

// Corrections.
const (
	CorrectClip  Correction = "clip"
	CorrectFlip  Correction = "flip"
	CorrectShift Correction = "shift"
	CorrectNone  Correction = "none"
)

// Values lists the corrections.
func (Correction) Values() []string { return []string{"clip", "flip", "shift", "none"} }

// spectrum is the correction as package kernels names it.
func (c Correction) spectrum() kernels.Correction {
	switch c {
	case CorrectFlip:
		return kernels.Flip
	case CorrectShift:
		return kernels.Shift
	case CorrectNone:
		return kernels.None
	}
	return kernels.Clip
}

// Metric is what the stage measures: Fisher path lengths, or the corrected
// kernel distances themselves.
type Metric string

// Metrics.
const (
	MetricFisher Metric = "fisher"
	MetricKernel Metric = "kernel"
)

// Values lists the metrics.
func (Metric) Values() []string { return []string{"fisher", "kernel"} }

// Format is the layout of the output table.
type Format string

// Formats: long (table.DistancePairs) or square (table.DistanceSquare).
const (
	FormatLong   Format = "long"
	FormatSquare Format = "square"
)

// Values lists the formats.
func (Format) Values() []string { return []string{"long", "square"} }

// knnSettings are NN-descent's settings for these options.
func (o Options) knnSettings() kernels.NNDescentSettings {
	return kernels.NNDescentSettings{Seed: o.Seed, TargetRecall: o.KNNRecall}
}
