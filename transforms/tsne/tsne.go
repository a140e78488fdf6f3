package tsne

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// Method selects how the gradient is computed.
type Method int

const (
	Auto   Method = iota // Exact for N ≤ AutoExactMax (or Dims > 3), Interp above AutoInterpAbove (Dims ≤ 2), else BH
	Exact                // dense P, exact O(N²) gradient
	BH                   // sparse P from 3·perplexity neighbours, Barnes–Hut repulsion
	Interp               // sparse P as BH, FFT-interpolated repulsion (FIt-SNE; Dims ≤ 2)
)

func (m Method) String() string {
	switch m {
	case Auto:
		return "auto"
	case Exact:
		return "exact"
	case BH:
		return "bh"
	case Interp:
		return "fft"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Init selects the initial embedding.
type Init int

const (
	InitPCA    Init = iota // principal axes (classical MDS for distances), scaled to std 1e-4 on axis 1
	InitRandom             // independent N(0, (1e-4)²) coordinates from Seed
)

func (i Init) String() string {
	switch i {
	case InitPCA:
		return "pca"
	case InitRandom:
		return "random"
	}
	return fmt.Sprintf("Init(%d)", int(i))
}

// AutoExactMax is the largest N for which Auto picks the exact method.
const AutoExactMax = 1000

// KNNCandidates is the NN-descent join width (kernels.NNDescentSettings
// MaxCandidates) for the k = 3·perplexity input neighbours. Measured at
// N = 10⁵, D = 50, k = 90 on two cores: 60 candidates find 0.998 of the
// true neighbours of a 10-cluster mixture in 74 s, where 90 candidates
// took about 100 s for the same recall; on an isotropic Gaussian, the
// hardest case, 0.966 against 0.986 with 90 and 0.993 with the kernels
// default of 120 (kernels.NNDescentSettings). The affinities weight
// the nearest neighbours most, and a missed 90th neighbour carries little
// of P; the side-by-side table in BENCHMARKS.md shows no quality loss.
const KNNCandidates = 60

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

// Options configures a run. The zero value of each field selects the default
// given in its comment.
type Options struct {
	Dims       int     // output dimension; 0 → 2 (BH needs ≤ 3)
	Perplexity float64 // 0 → 30
	Method     Method  // Auto, Exact, BH or Interp
	Theta      float64 // Barnes–Hut angle; 0 → 0.5
	// Neighbors selects the k-NN search of the sparse methods on features:
	// exact up to kernels.AutoApproxKNNAbove rows or kernels.KDTreeMaxDims
	// features, NN-descent otherwise (KNNAuto), or either always. It is seeded by Seed.
	Neighbors kernels.KNNMethod
	// Interp tunes the interpolation of the Interp method (zero: defaults).
	Interp            InterpSettings
	Iterations        int     // total iterations; 0 → 1000
	EarlyExaggeration float64 // α applied to P early on; 0 → 12 (1 disables)
	ExaggerationIters int     // iterations with α and Momentum; 0 → 250, < 0 → none
	LearningRate      float64 // 0 → max(N/α, 50) in each phase, α its exaggeration; see the package doc
	Momentum          float64 // during exaggeration; 0 → 0.5
	FinalMomentum     float64 // afterwards; 0 → 0.8
	Init              Init    // InitPCA or InitRandom
	Seed              uint64  // seeds random initialisation
	Threads           int     // ≤ 0 → GOMAXPROCS

	// Progress, if not nil, is called every 50 iterations and after the
	// last one with the number of iterations done and the KL divergence
	// (of the unexaggerated P; a Barnes–Hut estimate in BH mode).
	Progress func(iter int, kl float64)
	// Reporter, if not nil, receives the phases of the run: "neighbours"
	// (rows, Barnes–Hut on features), "affinities" (rows) and
	// "optimising" (iterations, with their total).
	Reporter transforms.Progress

	// reorderMin overrides localityMin (tests only; 0: localityMin).
	reorderMin int
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
	Init         string    // "pca", "mds" or "random"
	Neighbors    int       // neighbours per point in P (N−1 for exact)
	// NeighborIdx holds, from features with BH, each point's Neighbors
	// nearest points by (squared distance, index), row-major; nil
	// otherwise. A placement model reuses them as its graph.
	NeighborIdx []int32
}

func (o Options) withDefaults(n int) (Options, error) {
	if o.Reporter == nil {
		o.Reporter = transforms.NoProgress{}
	}
	if o.Dims == 0 {
		o.Dims = 2
	}
	if o.Neighbors == "" {
		o.Neighbors = kernels.KNNAuto
	}
	if o.Perplexity == 0 {
		o.Perplexity = 30
	}
	if o.Theta == 0 {
		o.Theta = 0.5
	}
	if o.Iterations == 0 {
		o.Iterations = 1000
	}
	if o.EarlyExaggeration == 0 {
		o.EarlyExaggeration = 12
	}
	switch {
	case o.ExaggerationIters == 0:
		o.ExaggerationIters = 250
	case o.ExaggerationIters < 0:
		o.ExaggerationIters = 0
	}
	if o.Momentum == 0 {
		o.Momentum = 0.5
	}
	if o.FinalMomentum == 0 {
		o.FinalMomentum = 0.8
	}
	positive := func(name string, v float64) error {
		if !(v > 0) || math.IsInf(v, 1) {
			return wrapf(ErrOption, "%s = %v, want a finite value > 0", name, v)
		}
		return nil
	}
	switch {
	case o.Dims < 1:
		return o, wrapf(ErrOption, "Dims = %d, want ≥ 1", o.Dims)
	case o.Iterations < 0:
		return o, wrapf(ErrOption, "Iterations = %d, want ≥ 0", o.Iterations)
	case o.Method < Auto || o.Method > Interp:
		return o, wrapf(ErrOption, "unknown method %v", o.Method)
	case !transforms.EnumValid(o.Neighbors):
		return o, wrapf(ErrOption, "unknown k-NN method %v", o.Neighbors)
	case o.Init < InitPCA || o.Init > InitRandom:
		return o, wrapf(ErrOption, "unknown init %v", o.Init)
	case !(o.Momentum >= 0 && o.Momentum < 1) || !(o.FinalMomentum >= 0 && o.FinalMomentum < 1):
		return o, wrapf(ErrOption, "momentum %v → %v, want values in [0, 1)", o.Momentum, o.FinalMomentum)
	}
	if err := o.Interp.Validate(); err != nil {
		return o, err
	}
	if !(o.LearningRate >= 0) || math.IsInf(o.LearningRate, 1) {
		return o, wrapf(ErrOption, "LearningRate = %v, want a finite value ≥ 0 (0: automatic)", o.LearningRate)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"Perplexity", o.Perplexity}, {"Theta", o.Theta}, {"EarlyExaggeration", o.EarlyExaggeration}} {
		if err := positive(c.name, c.v); err != nil {
			return o, err
		}
	}
	return o, nil
}

// resolveMethod picks the method for n points (sparse: neighbour input).
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
	if o.Method == BH && o.Dims > kernels.MaxBHDims {
		return wrapf(ErrMethod, "Barnes–Hut supports Dims ≤ %d, got %d; use Exact", kernels.MaxBHDims, o.Dims)
	}
	if o.Method == Interp && o.Dims > MaxInterpDims {
		return wrapf(ErrMethod, "interpolation supports Dims ≤ %d, got %d; use BH or Exact", MaxInterpDims, o.Dims)
	}
	if o.Method == Exact && sparse {
		return wrapf(ErrMethod, "neighbour lists need a sparse method (bh or fft)")
	}
	return nil
}

// checkPerplexity validates the perplexity against n points: dense P needs
// perplexity < n−1, sparse P 3·perplexity ≤ n−1.
func checkPerplexity(perp float64, n int, m Method) error {
	if perp < 1 {
		return wrapf(ErrPerplexity, "perplexity = %v, want ≥ 1", perp)
	}
	if m == Exact && !(perp < float64(n-1)) {
		return wrapf(ErrPerplexity, "perplexity = %v with N = %d points, want perplexity < N−1 = %d", perp, n, n-1)
	}
	if m.sparse() && !(3*perp <= float64(n-1)) {
		return wrapf(ErrPerplexity, "perplexity = %v with N = %d points, method %v needs 3·perplexity ≤ N−1 = %d (use Exact or a smaller perplexity)", perp, n, m, n-1)
	}
	return nil
}

// learningRate is the rate of a phase with exaggeration alpha: the given
// one, or max(N/α, 50) (openTSNE's "auto"; Belkina et al. 2019).
func (o Options) learningRate(n int, alpha float64) float64 {
	if o.LearningRate > 0 {
		return o.LearningRate
	}
	return max(float64(n)/alpha, 50)
}

// bhNeighbors is the number of neighbours for a sparse P, 3·perplexity.
func bhNeighbors(perp float64, n int) int {
	return min(n-1, int(math.Floor(3*perp)))
}

// FromFeatures embeds the n points of the row-major n×d x, with P from
// squared Euclidean distances. InitPCA uses the top Dims principal axes
// (needs d ≥ Dims).
func FromFeatures(ctx context.Context, x []float64, n, d int, o Options) (*Result, error) {
	if n < 2 || d < 1 {
		return nil, wrapf(ErrNoData, "n = %d points of dimension %d, want n ≥ 2, d ≥ 1", n, d)
	}
	if len(x) != n*d {
		return nil, wrapf(ErrLength, "len(x) = %d, want n·d = %d·%d", len(x), n, d)
	}
	for k, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, inputError("x", k/d, k%d, ErrNonFinite, "%v", v)
		}
	}
	o, err := prepare(n, false, o)
	if err != nil {
		return nil, err
	}
	if o.Init == InitPCA && d < o.Dims {
		return nil, wrapf(ErrOption, "PCA initialisation needs d ≥ Dims, got d = %d, Dims = %d; use InitRandom", d, o.Dims)
	}
	a := &affinities{}
	var (
		knn     []int32
		knnName string
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
		set := kernels.NNDescentSettings{Seed: o.Seed, MaxCandidates: KNNCandidates, Progress: func(rows int) { o.Reporter.Add(int64(rows)) }}
		o.Reporter.Start("neighbours", kernels.KNNWork(n, d, k, o.Neighbors, set))
		ran, kerr := kernels.FindKNN(ctx, idx, d2, x, n, d, k, o.Threads, o.Neighbors, set)
		knnName = string(ran)
		o.Reporter.Finish()
		if kerr != nil {
			return nil, kerr
		}
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
	}
	return res, err
}

// FromDistances embeds n points given the n×n row-major matrix dist of
// PLAIN (not squared) distances: P uses exp(−β·dist²). Only the
// off-diagonal entries are used; they must be finite and ≥ 0, and need not
// be symmetric (P is symmetrised). InitPCA is classical MDS of dist (for an
// asymmetric dist only a rough start).
func FromDistances(ctx context.Context, dist []float64, n int, o Options) (*Result, error) {
	if n < 2 {
		return nil, wrapf(ErrNoData, "n = %d points, want ≥ 2", n)
	}
	if len(dist) != n*n {
		return nil, wrapf(ErrLength, "len(dist) = %d, want n² = %d", len(dist), n*n)
	}
	for k, v := range dist {
		if k/n == k%n {
			continue
		}
		if err := checkDistance(v, k/n, k%n); err != nil {
			return nil, err
		}
	}
	o, err := prepare(n, false, o)
	if err != nil {
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
// used), so only BH is available (Auto means BH), perplexity must be below k,
// and the initialisation is always random (Result.Init = "random").
func FromNeighbors(ctx context.Context, idx []int32, dist []float64, n, k int, o Options) (*Result, error) {
	if n < 2 || k < 1 {
		return nil, wrapf(ErrNoData, "n = %d points with k = %d neighbours, want n ≥ 2, k ≥ 1", n, k)
	}
	if len(idx) != n*k || len(dist) != n*k {
		return nil, wrapf(ErrLength, "len(idx) = %d, len(dist) = %d, want n·k = %d·%d", len(idx), len(dist), n, k)
	}
	for q, j := range idx {
		if j < 0 || int(j) >= n || int(j) == q/k {
			return nil, inputError("idx", q/k, q%k, ErrNeighbor, "neighbour %d of point %d (n = %d)", j, q/k, n)
		}
		if err := checkDistance(dist[q], q/k, q%k); err != nil {
			return nil, err
		}
	}
	o, err := withDefaultsMethod(n, true, o)
	if err != nil {
		return nil, err
	}
	if !(o.Perplexity < float64(k)) {
		return nil, wrapf(ErrPerplexity, "perplexity = %v with k = %d neighbours, want perplexity < k", o.Perplexity, k)
	}
	d2 := make([]float64, n*k)
	for q, v := range dist {
		d2[q] = v * v
	}
	a := &affinities{}
	o.Reporter.Start("affinities", int64(n))
	err = a.fromSparse(ctx, idx, d2, n, k, o)
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
		return inputError("dist", row, col, ErrNonFinite, "%v", v)
	case v < 0:
		return inputError("dist", row, col, ErrNegative, "%v", v)
	}
	return nil
}

func withDefaultsMethod(n int, sparse bool, o Options) (Options, error) {
	o, err := o.withDefaults(n)
	if err != nil {
		return o, err
	}
	if err := o.resolveMethod(n, sparse); err != nil {
		return o, err
	}
	return o, nil
}

// prepare resolves defaults and the method and checks the perplexity.
func prepare(n int, sparse bool, o Options) (Options, error) {
	o, err := withDefaultsMethod(n, sparse, o)
	if err != nil {
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
	return nil
}

func perplexityErr(err error) error {
	if errors.Is(err, kernels.ErrPerplexity) {
		return fmt.Errorf("tsne: %w: %w", ErrPerplexity, err)
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
