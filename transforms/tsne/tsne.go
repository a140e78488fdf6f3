package tsne

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// Method selects how the gradient is computed.
type Method string

const (
	Auto   Method = "auto"  // Exact for N ≤ AutoExactMax (or Dims > 3), Interp above AutoInterpAbove (Dims ≤ 2), else BH
	Exact  Method = "exact" // dense P, exact O(N²) gradient
	BH     Method = "bh"    // sparse P from 3·perplexity neighbours, Barnes–Hut repulsion (Dims ≤ 3)
	Interp Method = "fft"   // sparse P as BH, FFT-interpolated repulsion (FIt-SNE; Dims ≤ 2)
)

// Values lists the methods.
func (Method) Values() []string { return []string{"auto", "exact", "bh", "fft"} }

// Init selects the initial embedding.
type Init string

const (
	InitPCA    Init = "pca"    // principal axes (classical MDS for distances), scaled to std 1e-4 on axis 1
	InitRandom Init = "random" // independent N(0, (1e-4)²) coordinates from Seed
)

// Values lists the initialisations.
func (Init) Values() []string { return []string{"pca", "random"} }

// AutoExactMax is the largest N for which Auto picks the exact method.
const AutoExactMax = 1000

// KNNCandidates is the NN-descent join width (kernels.NNDescentSettings
// MaxCandidates) for the k = 3·perplexity input neighbours. Measured at
// N = 10⁵, D = 50, k = 90: 60 candidates find 0.998 of the true neighbours
// of a 10-cluster mixture, the recall of 90 candidates, in less time
// (BENCHMARKS.md, "t-SNE side by side (issue 15)"); on an isotropic
// Gaussian, the hardest case, 0.966 against 0.986 with 90 and 0.993 with
// the kernels default of 120 (kernels.NNDescentSettings). The affinities
// weight the nearest neighbours most, and a missed 90th neighbour carries
// little of P; the side-by-side table in BENCHMARKS.md shows no quality
// loss.
const KNNCandidates = 60

// DefaultKNNRecall is the default KNNRecall.
const DefaultKNNRecall = 0.99

// AutoInterpAbove is the largest N for which Auto picks Barnes–Hut over
// interpolation (in 1 or 2 dimensions); see the package doc for the
// measurements behind it.
const AutoInterpAbove = 20_000

// sparse reports whether the method works on a sparse P.
func (m Method) sparse() bool { return m == BH || m == Interp }

// initStd is the standard deviation of the initial embedding (first axis).
const initStd = 1e-4

// klEvery is the interval, in iterations, at which Progress receives the KL.
const klEvery = 50

// Options configures a run, of the core (FromFeatures, FromDistances,
// FromNeighbors) and of the tsne stage alike: the tagged fields are the
// stage's options, the others the library's alone. Start from
// DefaultOptions; the zero value is not valid.
type Options struct {
	transforms.Columns
	transforms.Standardization
	Dims       int     `opt:"dims" range:"[1,)" help:"output dimensions (bh: at most 3, fft: at most 2)"`
	Perplexity float64 `opt:"perplexity" range:"[1,)" help:"perplexity of the input affinities: below N − 1, and 3·perplexity ≤ N − 1 for bh and fft"`
	Method     Method  `opt:"method" help:"exact is O(N²), bh Barnes-Hut, fft FIt-SNE interpolation (1 or 2 dims), auto exact up to 1000 rows, bh up to 20000, fft above"`
	// KNN selects the k-NN search of the sparse methods on features:
	// exact up to kernels.AutoApproxKNNAbove rows or kernels.KDTreeMaxDims
	// features, NN-descent otherwise (KNNAuto), or either always. It is
	// seeded by Seed.
	KNN kernels.KNNMethod `opt:"knn" help:"input neighbours of bh and fft: exact (a k-d tree for up to 8 features), approx (NN-descent), auto (exact up to 20000 rows or 8 features)"`
	// KNNRecall is the recall NN-descent must reach, estimated on
	// kernels.DefaultRecallSample seeded rows against their exact
	// neighbours; below it the join is widened (kernels.NNDescentSettings
	// TargetRecall), and a fit that stays below it warns.
	KNNRecall         float64 `opt:"knn-recall" range:"[0,1]" help:"with approximate neighbours: the recall NN-descent must reach, estimated on 300 seeded rows against their exact neighbours; below it the search widens its join (twice at most), then warns (0: no check)"`
	Theta             float64 `opt:"theta" range:"[0,)" help:"Barnes-Hut accuracy (0: exact repulsion)"`
	MaxIter           int     `opt:"max-iter" alias:"iterations" range:"[1,)" help:"gradient iterations, all of which are run"`
	LearningRate      float64 `opt:"learning-rate" range:"[0,)" help:"step size (0: max(N/12, 50) during exaggeration, max(N, 50) after, as openTSNE)"`
	EarlyExaggeration float64 `opt:"early-exaggeration" range:"(0,)" help:"P is multiplied by this for the first 250 iterations"`
	Init              Init    `opt:"init" help:"initial embedding: pca (classical MDS for distances) scaled to std 1e-4, or random"`
	Seed              uint64  `opt:"seed" help:"random seed (any whole number ≥ 0); the same input, seed and thread count give bit-identical output"`

	// ExaggerationIters is the number of iterations with
	// EarlyExaggeration and Momentum (0: none).
	ExaggerationIters int `range:"[0,)"`
	// Momentum applies during the exaggeration, FinalMomentum after it.
	Momentum      float64 `range:"[0,1)"`
	FinalMomentum float64 `range:"[0,1)"`
	// MaxStepNorm bounds the Euclidean norm of each point's update (0: no
	// bound), as openTSNE's and FIt-SNE's max_step_norm: a guard against
	// points thrown across the map by the learning rate N.
	MaxStepNorm float64 `range:"[0,)"`
	// Interp tunes the interpolation of the Interp method.
	Interp  InterpSettings
	Threads int // ≤ 0: GOMAXPROCS

	// Progress, if not nil, is called every 50 iterations and after the
	// last one with the number of iterations done and the KL divergence
	// (of the unexaggerated P; a Barnes–Hut estimate in BH mode).
	Progress func(iter int, kl float64)
	// RecallProgress, if not nil, receives each recall estimate of the
	// approximate neighbour search and the join width it measured.
	RecallProgress func(recall float64, candidates int)
	// Reporter, if not nil, receives the phases of the run: "neighbours"
	// (rows, Barnes–Hut on features), "affinities" (rows) and
	// "optimising" (iterations, with their total).
	Reporter transforms.Progress

	// reorderMin overrides localityMin (tests only; 0: localityMin).
	reorderMin int
	// knnCandidates overrides KNNCandidates (tests only; 0: KNNCandidates).
	knnCandidates int
}

// DefaultOptions returns the defaults: 2 dimensions, perplexity 30, method
// auto, 1000 iterations, exaggeration 12 for 250 iterations with momentum
// 0.5 (0.8 after), updates bounded to norm 5, the automatic learning rate,
// PCA start, seed 1 (FIt-SNE's schedule).
func DefaultOptions() Options {
	return Options{
		Columns: transforms.DefaultColumns(), Dims: 2, Perplexity: 30, Method: Auto, KNN: kernels.KNNAuto, KNNRecall: DefaultKNNRecall,
		Theta: 0.5, MaxIter: 1000, EarlyExaggeration: 12, Init: InitPCA, Seed: 1,
		ExaggerationIters: 250, Momentum: 0.5, FinalMomentum: 0.8, MaxStepNorm: 5, Interp: DefaultInterpSettings(),
	}
}

// Validate checks the rules that tie options together: the dimensions an
// explicit method supports, and the interpolation settings.
func (o *Options) Validate() error {
	switch {
	case o.Method == BH && o.Dims > kernels.MaxBHDims:
		return transforms.Optionf("method", "%w: bh supports dims ≤ %d, got %d; use exact", ErrMethod, kernels.MaxBHDims, o.Dims)
	case o.Method == Interp && o.Dims > MaxInterpDims:
		return transforms.Optionf("method", "%w: fft supports dims ≤ %d, got %d; use bh or exact", ErrMethod, MaxInterpDims, o.Dims)
	}
	if err := transforms.Validate(&o.Interp); err != nil {
		var oe *transforms.OptionError
		if errors.As(err, &oe) {
			return &transforms.OptionError{Option: "Interp." + oe.Option, Err: oe.Err}
		}
		return err
	}
	return nil
}

// Result is a finished embedding.
type Result struct {
	Y            []float64 // n×Dims, row-major, centred
	KL           float64   // final KL(P‖Q); see the package doc for BH
	Iterations   int       // iterations run
	Perplexity   float64   // perplexity used
	LearningRate float64   // learning rate used after the exaggeration phase
	EarlyRate    float64   // learning rate used during the exaggeration phase
	Method       string    // "exact", "bh" or "fft"
	KNN          string    // k-NN search of a sparse P from features: "exact" or "approx"; "" otherwise
	// KNNRecall is the last recall estimate of an approximate search and
	// KNNCandidates the join width it was reached with (0 when none was
	// made: exact neighbours, or KNNRecall 0).
	KNNRecall     float64
	KNNCandidates int
	Init          string // "pca", "mds" or "random"
	Neighbors     int    // neighbours per point in P (N−1 for exact)
	// NeighborIdx holds, from features with BH, each point's Neighbors
	// nearest points by (squared distance, index), row-major; nil
	// otherwise. A placement model reuses them as its graph.
	NeighborIdx []int32
}

// resolveMethod picks the method for n points (sparse: neighbour input).
// Validate has refused an explicit method the dimensions rule out.
func (o *Options) resolveMethod(n int, sparse bool) error {
	if o.Method == Auto {
		switch {
		case !sparse && (n <= AutoExactMax || o.Dims > kernels.MaxBHDims):
			o.Method = Exact
		case n > AutoInterpAbove && o.Dims <= MaxInterpDims:
			o.Method = Interp
		default:
			o.Method = BH
		}
	}
	switch {
	case sparse && o.Method == Exact:
		return transforms.Optionf("method", "%w: neighbour lists need a sparse method (bh or fft)", ErrMethod)
	case o.Method == BH && o.Dims > kernels.MaxBHDims:
		return transforms.Optionf("method", "%w: neighbour lists need bh, which supports dims ≤ %d, got %d", ErrMethod, kernels.MaxBHDims, o.Dims)
	}
	return nil
}

// checkPerplexity validates the perplexity against n points: dense P needs
// perplexity < n−1, sparse P 3·perplexity ≤ n−1.
func checkPerplexity(perp float64, n int, m Method) error {
	if m == Exact && !(perp < float64(n-1)) {
		return transforms.Optionf("perplexity", "%w: %v with N = %d points, want perplexity < N−1 = %d", ErrPerplexity, perp, n, n-1)
	}
	if m.sparse() && !(3*perp <= float64(n-1)) {
		return transforms.Optionf("perplexity", "%w: %v with N = %d points, method %s needs 3·perplexity ≤ N−1 = %d (use exact or a smaller perplexity)", ErrPerplexity, perp, n, m, n-1)
	}
	return nil
}

// mapCopies is the number of n×Dims vectors a run holds: the map, its
// gradient, update and gains, the exact gradient's repulsion, and the
// start's own.
const mapCopies = 6

// reserve checks the plan of a run on n points with the resolved o against
// the memory it may use (transforms.Reserve), before anything grows with
// it: the exact method's N×N affinities, or the sparse methods' lists of
// 3·perplexity neighbours and the sparse joint P built from them; and the
// map with its copies (reserveMaps).
func reserve(ctx context.Context, n int, search float64, o Options) error {
	if o.Method == Exact {
		return reserveMaps(ctx, n, transforms.Float64Bytes(n, n),
			fmt.Sprintf("the exact method's N×N affinities at N = %s", transforms.Thousands(int64(n))),
			fmt.Sprintf("use --method bh or fft (--method auto does above %s rows), or fewer rows", transforms.Thousands(AutoExactMax)), o)
	}
	k := bhNeighbors(o.Perplexity, n)
	// The lists (int32, float64) beside the larger of the neighbour
	// search's scratch and P's construction: its transpose (12 bytes an
	// entry) and P itself (12, for up to 2k per row).
	nk := float64(n) * float64(k)
	return reserveMaps(ctx, n, 12*nk+max(search, nk*(12+2*12)),
		fmt.Sprintf("method %s's lists of %s neighbours per row (3·perplexity) at N = %s", o.Method, transforms.Thousands(int64(k)), transforms.Thousands(int64(n))),
		"use a smaller perplexity, or fewer rows", o)
}

// reserveMaps is reserve for a plan of pairs bytes (what, and fix what
// would fit) and the map with its copies: when the map outweighs the
// pairs, the refusal names option dims.
func reserveMaps(ctx context.Context, n int, pairs float64, what, fix string, o Options) error {
	maps := mapCopies * transforms.Float64Bytes(n, o.Dims)
	if maps > pairs {
		return transforms.ReserveOption(ctx, "dims", pairs+maps,
			fmt.Sprintf("a map of %s points in %s dimensions and its %d copies", transforms.Thousands(int64(n)), transforms.Thousands(int64(o.Dims)), mapCopies),
			"use fewer dims")
	}
	return transforms.Reserve(ctx, pairs+maps, what, fix)
}

// learningRate is the rate of a phase with exaggeration alpha: the given
// one, or max(N/α, 50) (openTSNE's "auto"; Belkina et al. 2019).
func (o Options) learningRate(n int, alpha float64) float64 {
	if o.LearningRate > 0 {
		return o.LearningRate
	}
	return max(float64(n)/alpha, 50)
}

// knnSettings are NN-descent's settings for these options, reporting to
// progress and recall.
func (o Options) knnSettings(progress func(int), recall func(float64, int)) kernels.NNDescentSettings {
	return kernels.NNDescentSettings{Seed: o.Seed, MaxCandidates: cmp.Or(o.knnCandidates, KNNCandidates), Progress: progress,
		TargetRecall: o.KNNRecall, Recall: recall}
}

// bhNeighbors is the number of neighbours for a sparse P, 3·perplexity.
func bhNeighbors(perp float64, n int) int {
	return min(n-1, int(math.Floor(3*perp)))
}

// FromFeatures embeds the n points of the row-major n×d x, with P from
// squared Euclidean distances. InitPCA uses the top Dims principal axes
// (needs d ≥ Dims).
func FromFeatures(ctx context.Context, x []float64, n, d int, o Options) (*Result, error) {
	if err := transforms.Validate(&o); err != nil {
		return nil, err
	}
	if n < 2 || d < 1 {
		return nil, transforms.Errorf(ErrNoData, "n = %d points of dimension %d, want n ≥ 2, d ≥ 1", n, d)
	}
	if len(x) != n*d {
		return nil, transforms.Errorf(ErrLength, "len(x) = %d, want n·d = %d·%d", len(x), n, d)
	}
	for k, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, transforms.MatrixErrorf("x", k/d, k%d, ErrNonFinite, "%v", v)
		}
	}
	o, err := prepare(n, o)
	if err != nil {
		return nil, err
	}
	if err := reserve(ctx, n, kernels.KNNBytes(n, d, bhNeighbors(o.Perplexity, n), o.KNN, o.knnSettings(nil, nil)), o); err != nil {
		return nil, err
	}
	if o.Init == InitPCA && d < o.Dims {
		return nil, transforms.Optionf("dims", "%d: pca initialisation needs dims ≤ the %d features; use init random", o.Dims, d)
	}
	a := &affinities{}
	var (
		knn     []int32
		knnName string
		recall  float64
		cands   int
	)
	if o.Method == Exact {
		o.Reporter.Start("affinities", int64(n))
		d2 := make([]float64, n*n)
		if err := kernels.SqDistances(ctx, d2, x, n, d, o.Threads); err != nil {
			o.Reporter.Finish()
			return nil, err
		}
		err = a.fromDense(ctx, d2, n, o)
	} else {
		k := bhNeighbors(o.Perplexity, n)
		idx := make([]int32, n*k)
		d2 := make([]float64, n*k)
		set := o.knnSettings(func(rows int) { o.Reporter.Add(int64(rows)) }, func(r float64, c int) {
			recall, cands = r, c
			if o.RecallProgress != nil {
				o.RecallProgress(r, c)
			}
		})
		// A widened search is a new bar: the planned one is spent.
		set.Widen = func(_ int, rows int64) { o.Reporter.Start("widening", rows) }
		o.Reporter.Start("neighbours", kernels.KNNWork(n, d, k, o.KNN, set))
		ran, kerr := kernels.FindKNN(ctx, idx, d2, x, n, d, k, o.Threads, o.KNN, set)
		knnName = string(ran)
		o.Reporter.Finish()
		if kerr != nil {
			return nil, kerr
		}
		collectPhase(n)
		o.Reporter.Start("affinities", int64(n))
		err = a.fromSparse(ctx, idx, d2, n, k, o)
		knn = idx
	}
	o.Reporter.Finish()
	if err != nil {
		return nil, err
	}
	y, initName, err := initialEmbedding(ctx, n, o, "pca", func() ([]float64, error) { return pcaInit(x, n, d, o.Dims) })
	if err != nil {
		return nil, err
	}
	res, err := optimize(ctx, y, a, n, o, initName)
	if res != nil {
		res.NeighborIdx, res.KNN = knn, knnName
		if knnName == string(kernels.KNNApprox) {
			res.KNNRecall, res.KNNCandidates = recall, cands
		}
	}
	return res, err
}

// FromDistances embeds n points given the n×n row-major matrix dist of
// PLAIN (not squared) distances: P uses exp(−β·dist²). Only the
// off-diagonal entries are used; they must be finite and ≥ 0, and need not
// be symmetric (P is symmetrised). InitPCA is classical MDS of dist (for an
// asymmetric dist only a rough start).
func FromDistances(ctx context.Context, dist []float64, n int, o Options) (*Result, error) {
	if err := transforms.Validate(&o); err != nil {
		return nil, err
	}
	if n < 2 {
		return nil, transforms.Errorf(ErrNoData, "n = %d points, want ≥ 2", n)
	}
	if len(dist) != n*n {
		return nil, transforms.Errorf(ErrLength, "len(dist) = %d, want n² = %d", len(dist), n*n)
	}
	for k, v := range dist {
		if k/n == k%n {
			continue
		}
		if err := checkDistance(v, k/n, k%n); err != nil {
			return nil, err
		}
	}
	o, err := prepare(n, o)
	if err != nil {
		return nil, err
	}
	if err := reserve(ctx, n, 0, o); err != nil {
		return nil, err
	}
	d2 := make([]float64, n*n)
	for k, v := range dist {
		if k/n != k%n {
			d2[k] = v * v
		}
	}
	// The MDS start needs d2 before a.dense overwrites it with P.
	y, initName, err := initialEmbedding(ctx, n, o, "mds", func() ([]float64, error) { return mdsInit(ctx, d2, n, o.Dims, o.Threads) })
	if err != nil {
		return nil, err
	}
	a := &affinities{}
	o.Reporter.Start("affinities", int64(n))
	if o.Method == Exact {
		err = a.fromDense(ctx, d2, n, o)
	} else {
		k := bhNeighbors(o.Perplexity, n)
		idx := make([]int32, n*k)
		kd := make([]float64, n*k)
		if err := kernels.KNNFromDistances(ctx, idx, kd, d2, n, k, o.Threads); err != nil {
			o.Reporter.Finish()
			return nil, err
		}
		err = a.fromSparse(ctx, idx, kd, n, k, o)
	}
	o.Reporter.Finish()
	if err != nil {
		return nil, err
	}
	return optimize(ctx, y, a, n, o, initName)
}

// FromNeighbors embeds n points given, for each point i, k neighbours
// idx[i*k:(i+1)*k] (distinct, and not i itself) and their PLAIN
// distances dist[i*k:(i+1)*k]. P is sparse over these neighbours (all k are
// used), so only the sparse methods are available (Auto means BH up to
// AutoInterpAbove points, Interp above in 1 or 2 dimensions), perplexity must be below k,
// and the initialisation is always random (Result.Init = "random").
func FromNeighbors(ctx context.Context, idx []int32, dist []float64, n, k int, o Options) (*Result, error) {
	if err := transforms.Validate(&o); err != nil {
		return nil, err
	}
	if n < 2 || k < 1 {
		return nil, transforms.Errorf(ErrNoData, "n = %d points with k = %d neighbours, want n ≥ 2, k ≥ 1", n, k)
	}
	if len(idx) != n*k || len(dist) != n*k {
		return nil, transforms.Errorf(ErrLength, "len(idx) = %d, len(dist) = %d, want n·k = %d·%d", len(idx), len(dist), n, k)
	}
	for q, j := range idx {
		if j < 0 || int(j) >= n || int(j) == q/k {
			return nil, transforms.MatrixErrorf("idx", q/k, q%k, ErrNeighbor, "neighbour %d of point %d (n = %d)", j, q/k, n)
		}
		if err := checkDistance(dist[q], q/k, q%k); err != nil {
			return nil, err
		}
	}
	if o.Reporter == nil {
		o.Reporter = transforms.NoProgress{}
	}
	if err := o.resolveMethod(n, true); err != nil {
		return nil, err
	}
	if !(o.Perplexity < float64(k)) {
		return nil, transforms.Optionf("perplexity", "%w: %v with k = %d neighbours, want perplexity < k", ErrPerplexity, o.Perplexity, k)
	}
	if err := reserveMaps(ctx, n, 0, "", "", o); err != nil {
		return nil, err
	}
	d2 := make([]float64, n*k)
	for q, v := range dist {
		d2[q] = v * v
	}
	a := &affinities{}
	o.Reporter.Start("affinities", int64(n))
	err := a.fromSparse(ctx, idx, d2, n, k, o)
	o.Reporter.Finish()
	if err != nil {
		return nil, err
	}
	o.Init = InitRandom
	y, initName, err := initialEmbedding(ctx, n, o, "", nil)
	if err != nil {
		return nil, err
	}
	return optimize(ctx, y, a, n, o, initName)
}

func checkDistance(v float64, row, col int) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return transforms.MatrixErrorf("dist", row, col, ErrNonFinite, "%v", v)
	case v < 0:
		return transforms.MatrixErrorf("dist", row, col, ErrNegative, "%v", v)
	}
	return nil
}

// prepare resolves the method and checks the perplexity against the n
// points of features or a distance matrix.
func prepare(n int, o Options) (Options, error) {
	if o.Reporter == nil {
		o.Reporter = transforms.NoProgress{}
	}
	if err := o.resolveMethod(n, false); err != nil {
		return o, err
	}
	return o, checkPerplexity(o.Perplexity, n, o.Method)
}

// affinities holds the joint P, dense (n×n) or sparse, and the number of
// neighbours per point it was calibrated over.
type affinities struct {
	dense  []float64
	sparse *SparseAffinities
	k      int
}

func (a *affinities) fromDense(ctx context.Context, d2 []float64, n int, o Options) error {
	beta := make([]float64, n)
	if err := kernels.Perplexity(ctx, beta, d2, d2, n, o.Perplexity, o.Threads); err != nil {
		return perplexityErr(err)
	}
	o.Reporter.Add(int64(n))
	JointP(d2, n)
	a.dense, a.k = d2, n-1
	return nil
}

func (a *affinities) fromSparse(ctx context.Context, idx []int32, d2 []float64, n, k int, o Options) error {
	beta := make([]float64, n)
	if err := kernels.PerplexitySparse(ctx, beta, d2, d2, n, k, o.Perplexity, o.Threads); err != nil {
		return perplexityErr(err)
	}
	o.Reporter.Add(int64(n))
	a.sparse, a.k = JointPSparse(idx, d2, n, k), k
	collectPhase(n)
	return nil
}

// collectPhase runs the garbage collector between the phases of a large
// fit. The collector sets its next goal at twice the heap it finds live,
// and its last count fell inside the neighbour search or the building of
// P, whose scratch (the join's buffers, P's transpose) is garbage once the
// phase is over: left to itself it lets the optimiser's heap grow to twice
// that transient peak (at 10⁵ rows a goal of 924 MB instead of 578; BENCHMARKS.md,
// "t-SNE on hard data"). One collection costs milliseconds.
func collectPhase(n int) {
	if n >= localityMin {
		runtime.GC()
	}
}

func perplexityErr(err error) error {
	if errors.Is(err, kernels.ErrPerplexity) {
		return transforms.Optionf("perplexity", "%w: %w", ErrPerplexity, err)
	}
	return err
}

// initialEmbedding returns the starting Y and the name of its method.
func initialEmbedding(ctx context.Context, n int, o Options, name string, spectral func() ([]float64, error)) ([]float64, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	if o.Init == InitPCA && spectral != nil {
		y, err := spectral()
		if err != nil || y != nil {
			return y, name, err
		}
		// No spread (all points identical): fall through to random.
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x7453e))
	y := make([]float64, n*o.Dims)
	for i := range y {
		y[i] = initStd * rng.NormFloat64()
	}
	return y, "random", nil
}
