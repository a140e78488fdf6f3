package fisher

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// Stage is the fisher stage: Fisher-metric distances between the objects
// of a similarity matrix (or of a feature table under a kernel) with class
// labels, written as a distance table.
type Stage struct{}

// NewOptions returns the defaults (DefaultOptions).
func (Stage) NewOptions() transforms.Options {
	o := DefaultOptions()
	return &o
}

// Info describes the stage.
func (Stage) Info() transforms.Info {
	return transforms.Info{
		Name:     "fisher",
		Category: transforms.CategoryMethods,
		Summary:  "Fisher-metric distances in kernel space from a similarity matrix and labels (Schulz & Hammer)",
		Usage: `ordinate fisher --similarity S [--labels L] [--id COL] --label y --out D
ordinate fisher --in T --label y --kernel linear|rbf|cosine [--neighbors K] [--standardize=false] --out D
ordinate fisher --similarity S … --prepared-out P;  ordinate fisher --prepared P --tile I,J/T --out D`,
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

With --in and --neighbors K the local mode builds no N×N array (memory
O(N·max(K, L))): each row's max(K, L) nearest rows in the kernel metric (found by
--knn exact or NN-descent, as tsne's), σ calibrated over them, and the Parzen sums
of a pair over the union of its two end points' first L rows (--parzen-neighbors,
default 3·perplexity). The K pairs are the candidates that tsne --distances can
choose from: K well above 3·perplexity (150 at perplexity 30) keeps the class
structure of the dense distances' map, K = 90 is the fastest. 300 seeded pairs are
summed again over all rows and the relative differences logged (figures
truncation_error_*); pairs whose lists hold one class come out as 0.

--model-out (local mode) also saves the rows' Fisher metric: their features as
fitted, classes, neighbour lists, σ and the path settings. tsne --distances D
--fisher-model F --model-out M joins it to the map, and apply --model M then places
new, unlabelled rows by their features: each new row's K nearest rows in the kernel
metric (an exact search), its Fisher distances to them (the Parzen
posterior is the fitted rows', so the new row needs no label), and t-SNE placement
against the fixed map. Fit such a map with --exclude-endpoints: a fitted pair then
leaves its own two rows out of its sums, as a new row's distances lack the new row,
so new rows sit in the map as the fitted ones do (BENCHMARKS.md).

--tile I,J/T computes and writes one tile of the long table, so that T² tasks
(T(T+1)/2 with --upper) on other machines make the whole table together: the
objects are split in T contiguous blocks of rows (block b = rows [b·n/T, (b+1)·n/T)),
and the tile holds the pairs with i in block I and j in block J. A task that
reads the inputs repeats the shared set-up (symmetrising, eigenvalue correction,
bandwidth); --prepared-out P (without --out) writes that set-up once, and
--prepared P --tile I,J/T reads it instead (set-up options other than P's are
refused). In the local mode a tile holds the listed pairs (i, j) with i in block I
and j in block J, and the set-up is the model: --model-out P without --out writes
the lists and σ, --prepared P --tile I,J/T sums the tile's pairs. Only the path
sums are restricted to the tile, and each pair's distance has the same bits as in
the untiled run.
T is at most 2³¹−1; a tile costs the same whatever T, and with more blocks than
objects most tiles are empty.`,
		Examples: []string{
			"ordinate fisher --similarity testdata/similarity/aural_sonar.parquet --id id --label label --out fisher.parquet",
			"ordinate fisher --similarity testdata/similarity/aural_sonar.parquet --features 's_*' --labels testdata/similarity/aural_sonar.parquet --id id --label label --exclude-endpoints --upper --out fisher-upper.parquet",
			"ordinate fisher --similarity testdata/similarity/protein.parquet --id id --label label --metric kernel --neighbors 10 --out kernel-knn.parquet",
			"ordinate fisher --similarity testdata/similarity/aural_sonar.parquet --id id --label label --upper --tile 0,1/2 --out fisher-tile-0-1.parquet",
			"ordinate fisher --similarity testdata/similarity/aural_sonar.parquet --id id --label label --prepared-out sonar-prepared.arrow",
			"ordinate fisher --prepared sonar-prepared.arrow --upper --tile 1,1/2 --out fisher-tile-1-1.parquet",
			"ordinate fisher --in testdata/ordinal/newthyroid.csv --label label --kernel rbf --format square --out fisher-rbf.csv",
			"ordinate fisher --in testdata/ordinal/newthyroid.csv --label label --kernel rbf --neighbors 90 --out fisher-local.parquet",
			"ordinate tsne --distances fisher-local.parquet --out fisher-local-tsne.parquet",
			"ordinate fisher --in testdata/ordinal/newthyroid.csv --label label --kernel rbf --neighbors 90 --exclude-endpoints --out fisher-map.parquet --model-out fisher.model.parquet",
			"ordinate tsne --distances fisher-map.parquet --fisher-model fisher.model.parquet --out fisher-map-tsne.parquet --model-out fisher-map.model.parquet",
			"ordinate apply --model fisher-map.model.parquet --in testdata/ordinal/newthyroid.csv --keep label --out fisher-placed.parquet",
		},
		Inputs: []transforms.Role{
			{Name: "similarity", Help: "similarity table, long (i, j, s) or square"},
			{Name: "labels", Help: "table of labels with the id and label columns (default: label in the similarity or feature table)"},
			{Name: "in", Help: "instead of similarity: a feature table, with kernel"},
			{Name: "prepared", Help: "instead of similarity or in: the set-up that prepared-out (dense mode: matrix, labels, σ) or model-out (local mode: rows, lists, σ) wrote, for tiles that do not repeat it", Models: []string{PreparedKind, ModelKind}},
		},
		Outputs: []transforms.Role{
			{Name: "out", Help: "distance table: long (i, j, distance) or, with format square, one row per object", Kind: table.DistancePairs},
			{Name: "prepared-out", Help: "dense mode: also (or only, without out) save the set-up (the symmetrised, corrected matrix, labels and σ) for fisher --prepared --tile", Kind: table.Model, Models: []string{PreparedKind}},
			{Name: "model-out", Help: "with in and neighbors: also save the rows' Fisher metric (features, classes, neighbour lists, σ) as a model; without out, the set-up alone for tiles (prepared), for tsne --fisher-model", Kind: table.Model, Models: []string{ModelKind}},
		},
	}
}

// Run computes the distances and writes them.
func (Stage) Run(ctx context.Context, env *transforms.Env, opts transforms.Options) error {
	o := *opts.(*Options)
	o.Threads = env.Threads
	if !env.Has("out") && !env.Has("prepared-out") && !env.Has("model-out") {
		return transforms.Optionf("out", "%w: give out (the distances), or the set-up for tiles: prepared-out (dense mode) or model-out (local mode)", transforms.ErrNoTable)
	}
	if env.Has("prepared") {
		return runPrepared(ctx, env, o)
	}
	obj, err := readObjects(ctx, env, &o)
	if err != nil {
		return err
	}
	defer obj.frame.Release()
	if o.Tile.empty(obj.n) {
		return writeEmptyTile(ctx, env, obj.frame.ID, obj.n, o)
	}
	if env.Has("model-out") && (obj.x == nil || o.Metric != MetricFisher || !o.Tile.IsZero()) {
		return transforms.Optionf("model-out", "needs the local mode (in, kernel and neighbors, metric fisher, no tile)")
	}
	if !env.Has("out") && obj.x != nil {
		// The local mode's set-up alone: lists and σ, for tiles (prepared).
		if !env.Has("model-out") {
			return transforms.Optionf("out", "%w: give out (the distances) or, in the local mode, model-out (its set-up)", transforms.ErrNoTable)
		}
		res, err := fitLocal(ctx, obj.x, obj.n, obj.d, obj.kern, obj.cls.Index, obj.cls.K(), o, env.Progress, true)
		if err != nil {
			return err
		}
		record(env, res.Warnings, res.Figures, obj.cls.Names)
		return writeModel(ctx, env, obj, res, o)
	}
	var res *FitResult
	switch {
	case env.Has("prepared-out"):
		if obj.s == nil || !o.Tile.IsZero() {
			return transforms.Optionf("prepared-out", "is the dense mode's set-up: all pairs (no neighbors, no tile)")
		}
		p, warns, err := Prepare(ctx, obj.s, obj.n, obj.cls.Index, obj.cls.K(), o, env.Progress)
		if err != nil {
			return err
		}
		p.IDs, p.Classes = obj.frame.ID, obj.cls.Names
		if err := env.WriteModel(ctx, "prepared-out", p); err != nil {
			return err
		}
		if !env.Has("out") {
			record(env, warns, p.Figures, obj.cls.Names)
			return nil
		}
		if res, err = FitPrepared(ctx, p, o, env.Progress); err != nil {
			return err
		}
		res.Warnings = append(warns, res.Warnings...)
	case obj.x != nil:
		res, err = fitFeatures(ctx, obj.x, obj.n, obj.d, obj.kern, obj.cls.Index, obj.cls.K(), o, env.Progress)
	default:
		res, err = fit(ctx, obj.s, obj.n, obj.cls.Index, obj.cls.K(), o, env.Progress)
	}
	if err != nil {
		return err
	}
	if err := writeDistances(ctx, env, obj.frame.ID, obj.frame.IDName, obj.cls.Names, res, o); err != nil {
		return err
	}
	return writeModel(ctx, env, obj, res, o)
}

// runPrepared computes a tile (or all pairs) from the set-up that
// prepared-out wrote, without repeating it.
func runPrepared(ctx context.Context, env *transforms.Env, o Options) error {
	for _, role := range []string{"similarity", "in", "labels", "prepared-out", "model-out"} {
		if env.Has(role) {
			return transforms.Optionf(role, "does not go with prepared, which holds the matrix, the labels and σ")
		}
	}
	if !env.Has("out") {
		return transforms.Optionf("out", "%w: prepared computes distances", transforms.ErrNoTable)
	}
	m, _, err := env.ReadModel(ctx, "prepared")
	if err != nil {
		return err
	}
	var (
		ids     arrow.Array
		classes []string
		n       int
		fit     func() (*FitResult, error)
	)
	switch p := m.(type) {
	case *Prepared:
		defer p.Release()
		ids, classes, n = p.IDs, p.Classes, len(p.Class)
		fit = func() (*FitResult, error) { return FitPrepared(ctx, p, o, env.Progress) }
	case *Model:
		defer p.Release()
		if o.Format == FormatSquare {
			return transforms.Optionf("format", "square needs dense distances; a fisher model gives each row's K nearest pairs")
		}
		ids, classes, n = p.IDs, p.Classes, p.N()
		fit = func() (*FitResult, error) { return FitModel(ctx, p, o, env.Progress) }
	default:
		return transforms.Optionf("prepared", "%w: a %s model of %s, not the set-up of fisher --prepared-out or --model-out", transforms.ErrModel, m.Header().Kind, m.Header().Stage)
	}
	if o.Tile.empty(n) {
		return writeEmptyTile(ctx, env, ids, n, o)
	}
	res, err := fit()
	if err != nil {
		return err
	}
	return writeDistances(ctx, env, ids, "id", classes, res, o)
}

// writeEmptyTile writes a tile without pairs: the empty table still has
// the output's schema (a host can learn it this way without fitting, as
// ordinate.spark does with tile 0,0 of 2³¹−1).
func writeEmptyTile(ctx context.Context, env *transforms.Env, ids arrow.Array, n int, o Options) error {
	env.Figures(o.Tile.figures(n))
	w, err := env.Create(ctx, "out", table.PairsSchema(ids))
	if err != nil {
		return err
	}
	defer w.Abort()
	return env.Close("out", w)
}

// writeDistances records the run's figures and writes the distances res of
// the objects ids to out.
func writeDistances(ctx context.Context, env *transforms.Env, ids arrow.Array, idName string, classes []string, res *FitResult, o Options) error {
	n := res.N
	record(env, res.Warnings, res.Figures, classes)
	if !o.Tile.IsZero() {
		env.Figures(o.Tile.figures(n))
	}
	env.Log.Info("fisher", logFigures(n, res)...)
	if o.Format == FormatSquare {
		env.SetKind("out", table.DistanceSquare)
		schema, err := table.SquareSchema(idName, ids)
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
	rows := n
	if !o.Tile.IsZero() {
		lo, hi := o.Tile.Block(o.Tile.I, n)
		rows = hi - lo
	}
	env.Progress.Start("writing out", int64(rows))
	var last int64
	done := func(rows int64) { env.Progress.Add(rows - last); last = rows }
	switch {
	case !o.Tile.IsZero() && res.K > 0:
		err = writeTileNeighborPairs(ctx, w, env.Mem, ids, res.Idx, res.Dist, res.K, o.Tile, o.Upper, done)
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

// record gives a run's warnings, figures and classes to the host.
func record(env *transforms.Env, warnings []string, figures map[string]any, classes []string) {
	for _, w := range warnings {
		env.Warn("%s", w)
	}
	env.Figures(figures)
	env.Figure("classes", classes)
}

// writeModel writes the local mode's Fisher metric to model-out, if asked.
func writeModel(ctx context.Context, env *transforms.Env, obj *objects, res *FitResult, o Options) error {
	if !env.Has("model-out") {
		return nil
	}
	m := NewModel(obj.frame.ID, obj.scaling, obj.x, obj.cls, res, o)
	m.FeatureList, m.Standardized = obj.featureList, o.Standardize
	return env.WriteModel(ctx, "model-out", m)
}

// logFigures are the attributes of the run's log line: the objects, the
// bandwidth (the Fisher metric's; the kernel metric has none) and the
// figures of the eigenvalue correction that this run has (the negative
// eigenvalues' share after a dense correction, the correction applied and
// its shift after a sparse one), and the local mode's neighbour search
// and measured truncation error.
func logFigures(n int, res *FitResult) []any {
	attrs := []any{"objects", n}
	if res.Sigma > 0 {
		attrs = append(attrs, "sigma", res.Sigma)
	}
	for _, k := range []string{"negative_eigenvalue_share", "correction_applied", "shift", "knn", "knn_recall", "parzen_neighbors", "truncation_error_median", "truncation_error_p90"} {
		if v, ok := res.Figures[k]; ok && v != nil {
			attrs = append(attrs, k, v)
		}
	}
	return attrs
}

// objects are the rows of a similarity matrix: their ids, classes and the
// n×n matrix itself, or in the local mode (a feature table with neighbors)
// the n×d features and their kernel instead of the matrix.
type objects struct {
	frame *arrowio.Frame // holds the ids (and labels when they come from it)
	cls   *transforms.Classes
	s     []float64
	n     int
	x     []float64
	d     int
	kern  kernels.Kernel
	// The local mode's standardisation, for its model.
	scaling     *transforms.Scaling
	featureList string
}

// readObjects reads the similarity matrix (or builds the kernel matrix) and
// the labels, in one row order.
func readObjects(ctx context.Context, env *transforms.Env, o *Options) (*objects, error) {
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
// the kernel matrix of its rows, or with neighbors keeps the rows for the
// local mode.
func kernelObjects(ctx context.Context, env *transforms.Env, o *Options, sel arrowio.Selection) (*objects, error) {
	if o.Kernel == NoKernel {
		return nil, transforms.Optionf("kernel", "in needs kernel linear, rbf or cosine")
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
	k, err := kernels.Kernel{Kind: string(o.Kernel), Gamma: o.Gamma}.Resolve(ft.Z, n, d)
	if err != nil {
		ft.Release()
		return nil, transforms.Optionf("kernel", "%v", err)
	}
	if o.Kernel == RBFKernel {
		env.Figure("gamma", k.Gamma)
	}
	if o.Neighbors > 0 {
		return &objects{frame: ft.Frame, cls: cls, n: n, x: ft.Z, d: d, kern: k, scaling: ft.Scaling, featureList: ft.FeatureList}, nil
	}
	// The N×N kernel of N rows is the first large allocation: the plan is
	// checked before it, not after.
	if err := reserveDense(ctx, n, cls.K(), *o); err != nil {
		ft.Release()
		return nil, err
	}
	env.Progress.Start("kernel matrix", int64(n))
	s, err := k.Gram(ctx, nil, ft.Z, n, ft.Z, n, d, env.Threads)
	env.Progress.Add(int64(n))
	env.Progress.Finish()
	if err != nil {
		ft.Release()
		return nil, err
	}
	return &objects{frame: ft.Frame, cls: cls, s: s, n: n}, nil
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(Stage{})
}
