package fisher

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// Stage is the fisher stage: Fisher-metric distances between the objects
// of a similarity matrix (or of a feature table under a kernel) with class
// labels, written as a distance table.
type Stage struct{}

// StageOptions are the options of the fisher stage, declared once (see
// transforms.Options).
type StageOptions struct {
	transforms.Columns
	Order  []string `opt:"order" help:"class order (default: ascending value for numbers, byte order for text)"`
	Kernel Kernel   `opt:"kernel" help:"with in: the kernel of the feature rows, linear (S = XXᵀ) or rbf (exp(−γ‖x−y‖²))"`
	Gamma  float64  `opt:"gamma" help:"rbf γ (≥ 0; 0: 1 / median squared distance between rows)"`
	transforms.Standardization

	Correction       Correction `opt:"correction" help:"eigenvalue correction of the similarity matrix"`
	Sigma            float64    `opt:"sigma" help:"Parzen bandwidth σ (≥ 0; 0: the mean perplexity bandwidth times sigma-scale)"`
	Perplexity       float64    `opt:"perplexity" help:"perplexity of the per-point bandwidths whose mean gives σ (at least 1, below N − 1)"`
	SigmaScale       float64    `opt:"sigma-scale" help:"factor on the perplexity bandwidth (> 0)"`
	Steps            int        `opt:"steps" help:"path points T (at least 1)"`
	Rule             Rule       `opt:"rule" help:"trapezoid (symmetric) or left (the paper's left sum; d(i,j) ≠ d(j,i))"`
	ExcludeEndpoints bool       `opt:"exclude-endpoints" help:"leave-pair-out Parzen sums: drop i and j from the sums for the pair (i, j)"`
	Neighbors        int        `opt:"neighbors" help:"sparse: only each row's K nearest neighbours in the corrected kernel metric (≥ 0, below N; 0: all pairs)"`
	Metric           Metric     `opt:"metric" help:"fisher, or kernel: the corrected kernel distances √(sᵢᵢ + sⱼⱼ − 2sᵢⱼ) themselves (the paper's \"original\")"`
	Upper            bool       `opt:"upper" help:"long output: only pairs i < j"`
	Format           Format     `opt:"format" help:"output layout: long (i, j, distance) or square (id, then one column per object)"`
	Tile             Tile       `opt:"tile" help:"compute and write only tile I,J/T of the long table (0 ≤ I, J < T): the rows split in T contiguous blocks, block b = rows [b·n/T, (b+1)·n/T), and the pairs with i in block I and j in block J; the T² tiles (with upper the T(T+1)/2 tiles I ≤ J) together are the whole table, bit for bit"`
}

// NewOptions returns the defaults.
func (Stage) NewOptions() transforms.Options { return NewStageOptions() }

// NewStageOptions returns the stage's options set to their defaults.
func NewStageOptions() *StageOptions {
	return &StageOptions{
		Columns: transforms.DefaultColumns(), Standardization: transforms.Standardization{Standardize: true}, Correction: Correction(kernels.Clip), Perplexity: 30, SigmaScale: 1,
		Steps: DefaultSteps, Rule: Trapezoid, Metric: MetricFisher, Format: FormatLong,
	}
}

// Validate checks the options that need no data.
func (o *StageOptions) Validate() error {
	switch {
	case o.Keep != nil:
		return transforms.Optionf("keep", "fisher writes distance pairs, which carry no other columns")
	case !(o.Sigma >= 0) || math.IsInf(o.Sigma, 0):
		return transforms.Optionf("sigma", "%g: want a finite value ≥ 0 (0: from perplexity)", o.Sigma)
	case !(o.Gamma >= 0) || math.IsInf(o.Gamma, 0):
		return transforms.Optionf("gamma", "%g: want a finite value ≥ 0 (0: from the median distance)", o.Gamma)
	case !(o.SigmaScale > 0) || math.IsInf(o.SigmaScale, 0):
		return transforms.Optionf("sigma-scale", "%g: want > 0", o.SigmaScale)
	case o.Sigma == 0 && (!(o.Perplexity >= 1) || math.IsInf(o.Perplexity, 0)):
		return transforms.Optionf("perplexity", "%g: want at least 1", o.Perplexity)
	case o.Steps < 1:
		return transforms.Optionf("steps", "%d: want ≥ 1", o.Steps)
	case o.Neighbors < 0:
		return transforms.Optionf("neighbors", "%d: want ≥ 0", o.Neighbors)
	case o.Format == FormatSquare && o.Upper:
		return transforms.Optionf("upper", "applies to format long only")
	case o.Format == FormatSquare && o.Neighbors > 0:
		return transforms.Optionf("format", "square needs dense distances (no neighbors)")
	case !o.Tile.IsZero() && o.Format == FormatSquare:
		return transforms.Optionf("tile", "applies to format long only (a tile of the square table is not a table)")
	case !o.Tile.IsZero() && o.Neighbors > 0:
		return transforms.Optionf("tile", "needs dense distances: with neighbors each row's K nearest pairs can lie in any tile")
	case !o.Tile.IsZero() && o.Upper && o.Tile.I > o.Tile.J:
		return transforms.Optionf("tile", "%s: with upper only the tiles I ≤ J exist", o.Tile)
	}
	return nil
}

// Info describes the stage.
func (Stage) Info() transforms.Info {
	return transforms.Info{
		Name:     "fisher",
		Category: transforms.CategoryMethods,
		Summary:  "Fisher-metric distances in kernel space from a similarity matrix and labels (Schulz & Hammer)",
		Usage: `ordinate fisher --similarity S [--labels L] [--id COL] --label y --out D
ordinate fisher --in T --label y --kernel linear|rbf [--standardize=false] --out D`,
		Doc: `S is a similarity matrix, either long (columns i, j, s: every pair including the
diagonal, or only i <= j) with labels from --labels L (columns --id and --label),
or square (one row per object, one numeric column per object in the same order,
with --id and --label columns in the same table or in --labels). With --in and
--kernel the similarity is the kernel of the feature rows, read like every
feature table (constant columns dropped with a warning) and z-scored first
unless --standardize=false: on by default, as for ckpca, because a kernel on
raw features is dominated by the columns of largest scale.

The matrix is symmetrised, its eigenvalues corrected (--correction clip), and
for every pair of objects the Fisher path length of the Parzen class posterior
is computed along the straight line between them in the kernel's feature space
(T = --steps points; --rule trapezoid is symmetric, left is the paper's left sum).
The bandwidth is --sigma, or the mean perplexity bandwidth times --sigma-scale.
With a small bandwidth the posterior at a training point is mostly its own label
and the metric just encodes the labels; --exclude-endpoints drops both end points
from the Parzen sums (use it when the distances feed an evaluation on the same rows).

The output is plain (not squared) distances, long form i, j, distance (--upper:
only i < j; kind distance_pairs), or --format square (kind distance_square);
--neighbors K keeps each row's K nearest pairs.

--tile I,J/T computes and writes one tile of the long table, so that T² tasks
(T(T+1)/2 with --upper) on other machines make the whole table together: the
objects are split in T contiguous blocks of rows (block b = rows [b·n/T, (b+1)·n/T)),
and the tile holds the pairs with i in block I and j in block J. Every task
reads the same inputs and repeats the shared set-up (symmetrising, eigenvalue
correction, bandwidth); only the path sums, the expensive part, are restricted
to the tile, and each pair's distance has the same bits as in the untiled run.`,
		Examples: []string{
			"ordinate fisher --similarity testdata/similarity/aural_sonar.parquet --id id --label label --out fisher.parquet",
			"ordinate fisher --similarity testdata/similarity/aural_sonar.parquet --features 's_*' --labels testdata/similarity/aural_sonar.parquet --id id --label label --exclude-endpoints --upper --out fisher-upper.parquet",
			"ordinate fisher --similarity testdata/similarity/protein.parquet --id id --label label --metric kernel --neighbors 10 --out kernel-knn.parquet",
			"ordinate fisher --similarity testdata/similarity/aural_sonar.parquet --id id --label label --upper --tile 0,1/2 --out fisher-tile-0-1.parquet",
			"ordinate fisher --in testdata/ordinal/newthyroid.csv --label label --kernel rbf --format square --out fisher-rbf.csv",
		},
		Inputs: []transforms.Role{
			{Name: "similarity", Help: "similarity table, long (i, j, s) or square"},
			{Name: "labels", Help: "table of labels with the id and label columns (default: label in the similarity or feature table)"},
			{Name: "in", Help: "instead of similarity: a feature table, with kernel"},
		},
		Outputs: []transforms.Role{
			{Name: "out", Help: "distance table: long (i, j, distance) or, with format square, one row per object", Kind: table.DistancePairs, Required: true},
		},
	}
}

// Run computes the distances and writes them.
func (Stage) Run(ctx context.Context, env *transforms.Env, opts transforms.Options) error {
	o := opts.(*StageOptions)
	obj, err := readObjects(ctx, env, o)
	if err != nil {
		return err
	}
	defer obj.frame.Release()
	if o.Tile.empty(obj.n) {
		// Nothing to compute: the empty table still has the output's schema
		// (a host can learn it this way without fitting, as ordinate.spark
		// does with tile 0,0 of 2³¹−1).
		env.Figures(o.Tile.figures(obj.n))
		w, err := env.Create(ctx, "out", table.PairsSchema(obj.frame.ID))
		if err != nil {
			return err
		}
		defer w.Abort()
		return env.Close("out", w)
	}
	res, err := Fit(ctx, obj.s, obj.n, obj.cls.Index, obj.cls.K(), o, env.Threads, env.Progress)
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		env.Warn("%s", w)
	}
	env.Figures(res.Figures)
	env.Figure("classes", obj.cls.Names)
	if !o.Tile.IsZero() {
		env.Figures(o.Tile.figures(obj.n))
	}
	env.Log.Info("fisher", "objects", obj.n, "sigma", res.Sigma, "negative_eigenvalue_share", res.Figures["negative_eigenvalue_share"])
	ids := obj.frame.ID
	if o.Format == FormatSquare {
		env.SetKind("out", table.DistanceSquare)
		schema, err := table.SquareSchema(obj.frame.IDName, ids)
		if err != nil {
			return err
		}
		rec := table.SquareRecord(env.Mem, schema, ids, res.Dist)
		defer rec.Release()
		return env.WriteRecord(ctx, "out", rec)
	}
	w, err := env.Create(ctx, "out", table.PairsSchema(ids))
	if err != nil {
		return err
	}
	defer w.Abort()
	rows := obj.n
	if !o.Tile.IsZero() {
		lo, hi := o.Tile.Block(o.Tile.I, obj.n)
		rows = hi - lo
	}
	env.Progress.Start("writing out", int64(rows))
	var last int64
	done := func(rows int64) { env.Progress.Add(rows - last); last = rows }
	switch {
	case !o.Tile.IsZero():
		err = writeTilePairs(ctx, w, env.Mem, ids, res.Dist, o.Tile, o.Upper, done)
	case res.K > 0:
		err = table.WriteNeighborPairs(ctx, w, env.Mem, ids, res.Idx, res.Dist, res.K, o.Upper, done)
	default:
		err = table.WriteDensePairs(ctx, w, env.Mem, ids, res.Dist, o.Upper, done)
	}
	env.Progress.Finish()
	if err != nil {
		return err
	}
	return env.Close("out", w)
}

// objects are the rows of a similarity matrix: their ids, classes and the
// n×n matrix itself.
type objects struct {
	frame *arrowio.Frame // holds the ids (and labels when they come from it)
	cls   *transforms.Classes
	s     []float64
	n     int
}

// readObjects reads the similarity matrix (or builds the kernel matrix) and
// the labels, in one row order.
func readObjects(ctx context.Context, env *transforms.Env, o *StageOptions) (*objects, error) {
	hasSim, hasIn := env.Has("similarity"), env.Has("in")
	if hasSim == hasIn {
		return nil, transforms.Optionf("similarity", "%w: give similarity S, or in T with kernel", transforms.ErrNoTable)
	}
	sel := o.Columns.Selection()
	sel.Keep = []string{}
	classes := func(f *arrowio.Frame) (*transforms.Classes, error) {
		return transforms.NominalClasses(f, o.Order)
	}
	if hasIn {
		return kernelObjects(ctx, env, o, sel)
	}
	if o.Kernel != NoKernel {
		return nil, transforms.Optionf("kernel", "applies to in (a feature table), not to similarity")
	}
	readLabels := func() (*arrowio.Frame, error) {
		if o.Label == "" {
			return nil, transforms.Optionf("label", "%w: labels needs label (and id) naming its columns", transforms.ErrNoLabel)
		}
		return env.ReadFrame(ctx, "labels", arrowio.Selection{ID: o.ID, Label: o.Label, NoFeatures: true, Keep: []string{}, OnInvalid: o.OnInvalid})
	}
	// One open: a stream on stdin cannot be read twice.
	r, err := env.Open(ctx, "similarity")
	if err != nil {
		return nil, err
	}
	defer r.Release()
	long := table.HasColumns(r.Schema(), table.PairI, table.PairJ, "s")
	if long {
		if !env.Has("labels") {
			return nil, transforms.Optionf("labels", "%w: a long similarity table (i, j, s) needs labels L with id and label", transforms.ErrNoTable)
		}
		lf, err := readLabels()
		if err != nil {
			return nil, err
		}
		pairs, err := env.ReadFrom(ctx, "similarity", r, table.PairsSelection("s"))
		if err != nil {
			lf.Release()
			return nil, err
		}
		defer pairs.Release()
		s, err := table.SimilarityMatrix(pairs, lf)
		if err != nil {
			lf.Release()
			return nil, err
		}
		cls, err := classes(lf)
		if err != nil {
			lf.Release()
			return nil, err
		}
		return &objects{frame: lf, cls: cls, s: s, n: lf.N}, nil
	}
	// Square: one row per object.
	if env.Has("labels") {
		sel.Label = ""
	}
	f, err := env.ReadFrom(ctx, "similarity", r, sel)
	if err != nil {
		return nil, err
	}
	s, err := table.SquareMatrix(f)
	if err != nil {
		f.Release()
		return nil, err
	}
	obj := &objects{frame: f, s: s, n: f.N}
	if !env.Has("labels") {
		if obj.cls, err = classes(f); err != nil {
			f.Release()
			return nil, err
		}
		return obj, nil
	}
	lf, err := readLabels()
	if err != nil {
		f.Release()
		return nil, err
	}
	defer lf.Release()
	idx, _, err := transforms.Align(f, lf)
	if err != nil {
		f.Release()
		return nil, err
	}
	lcls, err := classes(lf)
	if err != nil {
		f.Release()
		return nil, err
	}
	obj.cls = &transforms.Classes{Column: lcls.Column, Names: lcls.Names, Index: make([]int, f.N), Counts: make([]int, lcls.K())}
	for i, j := range idx {
		obj.cls.Index[i] = lcls.Index[j]
		obj.cls.Counts[lcls.Index[j]]++
	}
	return obj, nil
}

// kernelObjects reads a feature table through the shared path and builds
// the kernel matrix of its rows.
func kernelObjects(ctx context.Context, env *transforms.Env, o *StageOptions, sel arrowio.Selection) (*objects, error) {
	if o.Kernel == NoKernel {
		return nil, transforms.Optionf("kernel", "in needs kernel linear or rbf")
	}
	if env.Has("labels") {
		return nil, transforms.Optionf("labels", "with in the labels come from label in the same table")
	}
	if o.Label == "" {
		return nil, transforms.Optionf("label", "%w: fisher needs class labels", transforms.ErrNoLabel)
	}
	ft, err := env.ReadFeatures(ctx, "in", sel, o.Standardize)
	if err != nil {
		return nil, err
	}
	cls, err := transforms.NominalClasses(ft.Frame, o.Order)
	if err != nil {
		ft.Release()
		return nil, err
	}
	n, d := ft.N, ft.K()
	k, err := kernels.Kernel{Kind: o.Kernel.String(), Gamma: o.Gamma}.Resolve(ft.Z, n, d)
	if err != nil {
		ft.Release()
		return nil, transforms.Optionf("kernel", "%v", err)
	}
	env.Progress.Start("kernel matrix", int64(n))
	s, err := k.Gram(ctx, nil, ft.Z, n, ft.Z, n, d, env.Threads)
	env.Progress.Add(int64(n))
	env.Progress.Finish()
	if err != nil {
		ft.Release()
		return nil, err
	}
	if o.Kernel == RBFKernel {
		env.Figure("gamma", k.Gamma)
	}
	return &objects{frame: ft.Frame, cls: cls, s: s, n: n}, nil
}

// Kernel is the kernel of the stage's feature input: none (the input is a
// similarity table), linear or rbf.
type Kernel int

// Kernels.
const (
	NoKernel Kernel = iota
	LinearKernel
	RBFKernel
)

var kernelNames = []string{"", "linear", "rbf"}

// Values lists the kernels an option takes.
func (Kernel) Values() []string { return kernelNames[1:] }

// String returns the kernel's name ("" for none).
func (k Kernel) String() string { return enumName(kernelNames, int(k)) }

// MarshalText implements encoding.TextMarshaler.
func (k Kernel) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler; "" is no kernel.
func (k *Kernel) UnmarshalText(b []byte) error { return enumParse(kernelNames, (*int)(k), b) }

// Correction is the eigenvalue correction of the similarity matrix (see
// kernels.Correction): clip, flip, shift or none.
type Correction kernels.Correction

var correctionNames = []string{kernels.Clip.String(), kernels.Flip.String(), kernels.Shift.String(), kernels.None.String()}

// Values lists the corrections.
func (Correction) Values() []string { return correctionNames }

// String returns the correction's name.
func (c Correction) String() string { return kernels.Correction(c).String() }

// MarshalText implements encoding.TextMarshaler.
func (c Correction) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *Correction) UnmarshalText(b []byte) error {
	for _, k := range []kernels.Correction{kernels.Clip, kernels.Flip, kernels.Shift, kernels.None} {
		if string(b) == k.String() {
			*c = Correction(k)
			return nil
		}
	}
	return fmt.Errorf("%w: unknown correction %q", ErrOption, b)
}

var ruleNames = []string{"trapezoid", "left"}

// Values lists the rules.
func (Rule) Values() []string { return ruleNames }

// MarshalText implements encoding.TextMarshaler.
func (r Rule) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (r *Rule) UnmarshalText(b []byte) error { return enumParse(ruleNames, (*int)(r), b) }

// Metric is what the stage measures: Fisher path lengths, or the corrected
// kernel distances themselves.
type Metric int

// Metrics.
const (
	MetricFisher Metric = iota
	MetricKernel
)

var metricNames = []string{"fisher", "kernel"}

// Values lists the metrics.
func (Metric) Values() []string { return metricNames }

// String returns the metric's name.
func (m Metric) String() string { return enumName(metricNames, int(m)) }

// MarshalText implements encoding.TextMarshaler.
func (m Metric) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *Metric) UnmarshalText(b []byte) error { return enumParse(metricNames, (*int)(m), b) }

// Format is the layout of the output table.
type Format int

// Formats: long (table.DistancePairs) or square (table.DistanceSquare).
const (
	FormatLong Format = iota
	FormatSquare
)

var formatNames = []string{"long", "square"}

// Values lists the formats.
func (Format) Values() []string { return formatNames }

// String returns the format's name.
func (f Format) String() string { return enumName(formatNames, int(f)) }

// MarshalText implements encoding.TextMarshaler.
func (f Format) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (f *Format) UnmarshalText(b []byte) error { return enumParse(formatNames, (*int)(f), b) }

func enumName(names []string, v int) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%d", v)
}

func enumParse(names []string, dst *int, b []byte) error {
	for i, n := range names {
		if string(b) == n {
			*dst = i
			return nil
		}
	}
	return fmt.Errorf("%w: %q: want one of %s", ErrOption, b, strings.Join(names, ", "))
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(Stage{})
}
