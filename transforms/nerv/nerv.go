package nerv

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/internal/lbfgs"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/linear"
)

// OutputScale chooses the output neighbourhood widths.
type OutputScale int

const (
	// Transfer uses sᵢ = σᵢ, the input bandwidth of each point (exact mode).
	Transfer OutputScale = iota
	// Global uses one scale for every point: the mean of the σᵢ.
	Global
)

// Method chooses how the stress is evaluated.
type Method int

const (
	// Exact evaluates the O(N²) stress (see Stress).
	Exact Method = iota
	// BarnesHut uses sparse input neighbourhoods over the 3K nearest
	// neighbours and a Barnes–Hut sum over the embedding with one global
	// output scale (see BH): O(N·K + N log N) per evaluation.
	BarnesHut
	// Cutoff has BarnesHut's objective (sparse input, one global output
	// scale) and sums, for each point, every point within reach of its
	// output Gaussian exactly and drops the rest, with the dropped mass
	// bounded by CutoffTol (see CutoffStress): O(N·K + N·R) per evaluation for R
	// points in reach, faster and more accurate than BarnesHut once the
	// map has spread out.
	Cutoff
)

// sparse reports whether m uses sparse input neighbourhoods and one global
// output scale (BarnesHut and Cutoff).
func (m Method) sparse() bool { return m == BarnesHut || m == Cutoff }

// DefaultCutoffTol is the default bound of Cutoff on the relative error of
// every row's normaliser; measured errors are far smaller (TestCutoffApprox:
// stress ≤ 1e-5 and gradient ≤ 1.4e-4 relative at 1e-2, where BarnesHut at
// its default gives up to 5e-2 and 7e-2 on a dense map), and the cost grows
// only with log(1/tol).
const DefaultCutoffTol = 1e-2

// DefaultBHTol is the default Barnes–Hut cell tolerance (see BH):
// on the data of TestNeRVBHApprox it gives stress errors of about 1e-4 and
// gradient errors of about 1e-3 (relative), against 1e-6 and 3e-5 at 1e-4,
// and is about 1.6 times faster than 1e-3 at N = 20,000.
const DefaultBHTol = 1e-2

// MaxBHPerplexity caps the perplexities of the multiscale schedule with
// BarnesHut: a level with perplexity K_h needs 3K_h neighbours per point,
// so the coarse levels (K_h up to N/2) would make the sparse input dense.
// Levels above max(K, MaxBHPerplexity) are skipped.
const MaxBHPerplexity = 100

// keptForceMaxN is the largest N for which the exact method keeps the
// pair forces between the passes of Stress (Input.Force): one more N×N
// array, 128 MiB at this N, beside the three the exact method holds
// already (distances, β and log β).
const keptForceMaxN = 4096

// KNNSeed seeds the NN-descent search of BarnesHut (Options.Neighbors):
// the stage has no seed of its own, since the rest of the fit is
// deterministic (PCA start, L-BFGS), so one fixed seed keeps the whole fit
// a function of the data and the thread count.
const KNNSeed = 15

// Sentinel errors.
var (
	ErrOption = transforms.NewSentinel(transforms.ErrInvalidOption, "nerv: bad option")
	ErrInput  = transforms.NewSentinel(transforms.ErrInvalidData, "nerv: bad input")
)

// Options configure Fit. Use DefaultOptions and change what you need: α = 0
// and γ = 0 are meaningful values, so zero fields are not defaults.
type Options struct {
	Dims        int
	Perplexity  float64 // K, the effective number of neighbours
	Alpha       float64 // weight of the class community in Λ, in [0, 1]
	Gamma       float64 // base trade-off between recall and precision, in [0, 1]
	Multiscale  bool    // the schedule K_h = max(N/2^h, K), warm-started
	OutputScale OutputScale
	MaxIter     int     // L-BFGS iterations of the last (finest) scale (150; doc.go, "Stopping rule")
	Tol         float64 // relative cost decrease over 10 iterations that ends the last scale (1e-4)
	// CoarseMaxIter and CoarseTol are MaxIter and Tol for the scales
	// before the last one of a multiscale schedule, which only need to
	// bring the next scale a good start (doc.go, "Stopping rule"); 0 uses
	// MaxIter or Tol.
	CoarseMaxIter int
	CoarseTol     float64
	Method        Method
	BHTol         float64 // Barnes–Hut cell tolerance (BarnesHut only)
	CutoffTol     float64 // bound on each row's relative normaliser error (Cutoff only)
	// Neighbors selects the k-NN search of the sparse methods' input
	// neighbourhoods: exact up to kernels.AutoApproxRows rows for
	// NN-descent's default candidates (4k/3 for the k = 3K neighbours of
	// the largest perplexity K) or up to kernels.KDTreeMaxDims features,
	// NN-descent otherwise (KNNAuto), or one of them always. NN-descent is
	// seeded with KNNSeed.
	Neighbors kernels.KNNMethod
	// Start places the points before the first scale: PCA, or a fitted
	// sample of the rows (sparse methods; StartAuto picks by N, see
	// SampleStartAbove).
	Start   Start
	Threads int
	// Progress, if not nil, is called after each scale with its perplexity,
	// final stress and iterations.
	Progress func(perplexity, stress float64, iterations int)
	// Reporter, if not nil, receives the phases of the fit: "pair
	// distances" or "neighbours" (rows), then "optimising level i/L" for
	// each scale, with its iteration cap as its total and one unit per L-BFGS
	// iteration.
	Reporter transforms.Progress
}

// DefaultOptions are the defaults: 2-D, perplexity 32, α = γ = 0.5,
// multiscale, output scales transferred from the input.
func DefaultOptions() Options {
	return Options{Dims: 2, Perplexity: 32, Alpha: 0.5, Gamma: 0.5, Multiscale: true, OutputScale: Transfer,
		MaxIter: 150, Tol: 1e-4, CoarseMaxIter: 30, CoarseTol: 1e-3, BHTol: DefaultBHTol, CutoffTol: DefaultCutoffTol, Neighbors: kernels.KNNAuto}
}

// LegacyStopping returns o with the stopping rule used before the
// coarse-scale rule of doc.go: every scale runs to MaxIter 500 or Tol 1e-5.
func (o Options) LegacyStopping() Options {
	o.MaxIter, o.Tol, o.CoarseMaxIter, o.CoarseTol = 500, 1e-5, 0, 0
	return o
}

// stopping returns the iteration cap and tolerance of level h of levels.
func (o Options) stopping(h, levels int) (int, float64) {
	if h == levels-1 {
		return o.MaxIter, o.Tol
	}
	maxIter, tol := o.MaxIter, o.Tol
	if o.CoarseMaxIter > 0 {
		maxIter = o.CoarseMaxIter
	}
	if o.CoarseTol > 0 {
		tol = o.CoarseTol
	}
	return maxIter, tol
}

// Level is one scale of the optimisation.
type Level struct {
	Perplexity float64 `json:"perplexity"`
	Stress     float64 `json:"stress"`
	Iterations int     `json:"iterations"`
	// Exaggerated is how many of Iterations ran the exaggerated stress
	// (after the sample start, exaggeration.go).
	Exaggerated int `json:"exaggerated,omitempty"`
	// Evaluations counts the stress evaluations, line searches included
	// (each costs about one iteration's time).
	Evaluations int    `json:"evaluations"`
	Status      string `json:"status"`
}

// Result is a fitted embedding.
type Result struct {
	Y      []float64 // n×Dims row-major
	Stress float64   // at the final (finest) scale
	Levels []Level
	// Width is the global output width s of the finest scale (the mean
	// σᵢ), or 0 with Transfer (each point's own σᵢ).
	Width float64
	// NeighborIdx holds, with BarnesHut, each point's NeighborK nearest
	// points by (squared distance, index), row-major; nil otherwise.
	NeighborIdx []int32
	NeighborK   int
	// SampleRows are the sizes of the samples the start came from,
	// largest first (a sample of 250,000 rows itself started from 62,500),
	// or nil for the PCA start (Options.Start).
	SampleRows []int
	// KNN is the neighbour search that ran: KNNExact (always for the
	// exact method, whose distances are all exact) or KNNApprox.
	KNN kernels.KNNMethod
	// scale is lbfgs.Result.Scale of the last level, which a fit starting
	// from this one as its sample carries over (sampleStart.scale).
	scale float64
}

// Levels returns the perplexities Fit runs through for n points: Schedule,
// without the levels above max(K, MaxBHPerplexity) for BarnesHut and
// Cutoff, or K alone when the fit starts from a sample (the sample's fit
// ran the schedule).
func (o Options) Levels(n int) []float64 {
	if o.fromSample(n) {
		return []float64{o.Perplexity}
	}
	ks := Schedule(n, o.Perplexity, o.Multiscale)
	if !o.Method.sparse() {
		return ks
	}
	capK := math.Max(o.Perplexity, MaxBHPerplexity)
	var out []float64
	for _, k := range ks {
		if k <= capK {
			out = append(out, k)
		}
	}
	return out
}

// Schedule returns the perplexities of the multiscale schedule,
// K_h = max(N/2^h, K) for h = 1 … ⌈log₂(N/K)⌉, coarse to fine, or just K.
func Schedule(n int, k float64, multiscale bool) []float64 {
	if !multiscale || float64(n) <= 2*k {
		return []float64{k}
	}
	hMax := int(math.Ceil(math.Log2(float64(n) / k)))
	var out []float64
	for h := 1; h <= hMax; h++ {
		out = append(out, math.Max(float64(n)/math.Pow(2, float64(h)), k))
	}
	return out
}

// Fit embeds the n×d row-major x. soft is the n×c row-major soft-label
// matrix (rows sum to 1; an all-NaN row is unlabelled), or nil for NeRV.
func Fit(ctx context.Context, x []float64, n, d int, soft []float64, c int, o Options) (*Result, error) {
	if err := check(x, n, d, soft, c, o); err != nil {
		return nil, err
	}
	rep := o.Reporter
	if rep == nil {
		rep = transforms.NoProgress{}
	}
	var y []float64
	var smp *sampleStart
	var err error
	if o.fromSample(n) {
		smp, err = fitSample(ctx, x, n, d, soft, c, o, rep)
	} else {
		y, err = initPCA(x, n, d, o.Dims)
	}
	if err != nil {
		return nil, err
	}
	var lv levelStress
	if o.Method.sparse() {
		lv, err = newSparseLevels(ctx, x, n, d, soft, c, o, rep)
	} else {
		rep.Start("pair distances", int64(n))
		lv, err = newDenseLevels(ctx, x, n, d, soft, c, o)
		if err == nil {
			rep.Add(int64(n))
		}
	}
	rep.Finish()
	if err != nil {
		return nil, err
	}
	res := &Result{KNN: kernels.KNNExact}
	levels := o.Levels(n)
	for h, k := range levels {
		maxIter, tol := o.stopping(h, len(levels))
		eval, width, err := lv.level(k, h == len(levels)-1)
		if err != nil {
			return nil, err
		}
		rep.Start(fmt.Sprintf("optimising level %d/%d", h+1, len(levels)), int64(maxIter))
		exaggerated, exagEvals, scale := 0, 0, 0.0
		if y == nil {
			sl := lv.(*sparseLevels)
			if y, err = smp.place(ctx, n, o, sl.idx, sl.kn, width); err != nil {
				return nil, err
			}
			res.SampleRows = smp.sizes
			if y, exaggerated, exagEvals, scale, err = exaggerate(ctx, eval, sl.cur, y, o, maxIter, smp.fullScale(n, width), func() { rep.Add(1) }); err != nil {
				return nil, err
			}
		}
		r, err := lbfgs.Run(ctx, eval, y, lbfgs.Settings{MaxIter: maxIter - exaggerated, Store: 10, Tol: tol, InitialScale: scale, Step: func(int, float64) { rep.Add(1) }})
		rep.Finish()
		if err != nil {
			return nil, err
		}
		r.Iterations += exaggerated
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if math.IsNaN(r.F) || math.IsInf(r.F, 0) {
			return nil, fmt.Errorf("nerv: stress became %g at perplexity %g", r.F, k)
		}
		y = r.X
		res.Width, res.scale = width, r.Scale
		res.Levels = append(res.Levels, Level{Perplexity: k, Stress: r.F, Iterations: r.Iterations, Exaggerated: exaggerated, Evaluations: r.Evaluations + exagEvals, Status: r.Status})
		if o.Progress != nil {
			o.Progress(k, r.F, r.Iterations)
		}
	}
	res.Y = y
	if sl, ok := lv.(*sparseLevels); ok {
		res.NeighborIdx, res.NeighborK, res.KNN = sl.idx, sl.kn, sl.knn
	}
	res.Stress = res.Levels[len(res.Levels)-1].Stress
	return res, nil
}

// levelStress prepares the stress of one perplexity level: level returns
// the function that L-BFGS minimises (NaN when cancelled). With last (no
// level follows) it may hand its own buffers to that function.
type levelStress interface {
	level(perplexity float64, last bool) (eval func(y, grad []float64) float64, width float64, err error)
}

// denseLevels is the exact method: dense squared distances, β and log β.
type denseLevels struct {
	ctx  context.Context
	o    Options
	d2   []float64
	in   *Input
	prec []float64
}

func newDenseLevels(ctx context.Context, x []float64, n, d int, soft []float64, c int, o Options) (*denseLevels, error) {
	d2 := make([]float64, n*n)
	if err := kernels.SqDistances(ctx, d2, x, n, d, o.Threads); err != nil {
		return nil, err
	}
	in := &Input{N: n, C: c, Soft: soft, Alpha: o.Alpha, Gamma: o.Gamma, Beta: make([]float64, n*n)}
	if n <= keptForceMaxN {
		in.Force = make([]float64, n*n)
	}
	return &denseLevels{ctx: ctx, o: o, d2: d2, in: in, prec: make([]float64, n)}, nil
}

func (l *denseLevels) level(k float64, _ bool) (func(y, grad []float64) float64, float64, error) {
	in := l.in
	if err := kernels.Perplexity(l.ctx, l.prec, in.Beta, l.d2, in.N, k, l.o.Threads); err != nil {
		return nil, 0, fmt.Errorf("%w: %w", ErrOption, err)
	}
	in.Scale = scales(l.prec, l.o.OutputScale)
	var width float64
	if l.o.OutputScale == Global {
		width = in.Scale[0]
	}
	LogBeta(in)
	return func(y, g []float64) float64 {
		s, err := Stress(l.ctx, g, y, l.o.Dims, in, l.o.Threads)
		if err != nil {
			return math.NaN()
		}
		return s
	}, width, nil
}

// sparseLevels is the Barnes–Hut method: one exact k-NN search for the
// largest level, whose sorted lists each level truncates to min(3K_h, n−1).
type sparseLevels struct {
	ctx   context.Context
	o     Options
	n, kn int
	idx   []int32
	d2    []float64
	knn   kernels.KNNMethod // the search that ran
	soft  []float64
	c     int
	bh    BH
	cut   CutoffStress
	cur   *SparseInput // the input of the most recent call of level (for exaggerate)
}

// newSparseLevels finds the neighbours, reporting them to rep as phase
// "neighbours".
func newSparseLevels(ctx context.Context, x []float64, n, d int, soft []float64, c int, o Options, rep transforms.Progress) (*sparseLevels, error) {
	var kmax float64
	for _, k := range o.Levels(n) {
		kmax = math.Max(kmax, k)
	}
	kn := min(bhNeighbours(kmax), n-1)
	idx := make([]int32, n*kn)
	d2 := make([]float64, n*kn)
	set := kernels.NNDescentSettings{Seed: KNNSeed, Progress: func(rows int) { rep.Add(int64(rows)) }}
	rep.Start("neighbours", kernels.KNNWork(n, d, kn, o.Neighbors, set))
	ran, err := kernels.FindKNN(ctx, idx, d2, x, n, d, kn, o.Threads, o.Neighbors, set)
	if err != nil {
		return nil, err
	}
	return &sparseLevels{ctx: ctx, o: o, n: n, kn: kn, idx: idx, d2: d2, knn: ran, soft: soft, c: c}, nil
}

// bhFloorStretch sets the floor for unlisted β: the calibrated Gaussian
// at r = √(1 + bhFloorStretch) times the farthest listed distance d_b,
// log β = log β_b − β_i·d²_b·bhFloorStretch. With r = √3 the unlisted points
// count as lying beyond the next two shells of 3K neighbours (in 2-D).
// Chosen by measurement (BENCHMARKS.md): r = 1 (the row's smallest listed
// β) lost 0.02 of trustworthiness against the exact method, r = √2 0.004,
// r = √3 none, and the exact method's own floor for an underflowed β
// (2^−1022) lost 0.05 of R_NX AUC and doubled the iterations.
const bhFloorStretch = 2

// bhNeighbours is the neighbour-list length for perplexity k: 3K, rounded up.
func bhNeighbours(k float64) int { return int(math.Ceil(3 * k)) }

func (l *sparseLevels) level(k float64, last bool) (func(y, grad []float64) float64, float64, error) {
	n := l.n
	kh := min(bhNeighbours(k), n-1)
	in := &SparseInput{N: n, K: kh, C: l.c, Soft: l.soft, Alpha: l.o.Alpha, Gamma: l.o.Gamma}
	farthest := make([]float64, n) // d² of each row's last listed neighbour
	for i := range n {
		farthest[i] = l.d2[i*l.kn+kh-1]
	}
	if last && kh == l.kn {
		// The last level takes the lists as they are: the neighbour
		// indices shared (read only; Result.NeighborIdx), the distances
		// turned into β in place. At 10⁶ rows and 96 neighbours that is
		// 1.2 GB less held through the fit, twice that at the collector's
		// peak.
		in.Idx, in.Beta, l.d2 = l.idx, l.d2, nil
	} else {
		in.Idx, in.Beta = make([]int32, n*kh), make([]float64, n*kh)
		for i := range n {
			copy(in.Idx[i*kh:(i+1)*kh], l.idx[i*l.kn:])
			copy(in.Beta[i*kh:(i+1)*kh], l.d2[i*l.kn:])
		}
	}
	prec := make([]float64, n)
	if err := kernels.PerplexitySparse(l.ctx, prec, in.Beta, in.Beta, n, kh, k, l.o.Threads); err != nil {
		return nil, 0, fmt.Errorf("%w: %w", ErrOption, err)
	}
	in.Scale = scales(prec, Global)[0]
	SparseLogBeta(in)
	in.LogFloor = make([]float64, n)
	for i := range n {
		lb := in.LogBeta[i*kh : (i+1)*kh]
		in.LogFloor[i] = slices.Min(lb) - prec[i]*farthest[i]*bhFloorStretch
	}
	l.cur = in
	stress := func(g, y []float64) (float64, error) {
		return l.bh.Stress(l.ctx, g, y, l.o.Dims, in, l.o.BHTol, l.o.Threads)
	}
	if l.o.Method == Cutoff {
		stress = func(g, y []float64) (float64, error) {
			return l.cut.Stress(l.ctx, g, y, l.o.Dims, in, l.o.CutoffTol, l.o.BHTol, l.o.Threads)
		}
	}
	return func(y, g []float64) float64 {
		s, err := stress(g, y)
		if err != nil {
			return math.NaN()
		}
		return s
	}, in.Scale, nil
}

// scales turns perplexity precisions βᵢ (weights exp(−βᵢd²)) into output
// widths sᵢ = σᵢ = (2βᵢ)^−½, or their mean.
func scales(beta []float64, mode OutputScale) []float64 {
	s := make([]float64, len(beta))
	var sum float64
	for i, b := range beta {
		s[i] = 1 / math.Sqrt(2*b)
		sum += s[i]
	}
	if mode == Global {
		return []float64{sum / float64(len(beta))}
	}
	return s
}

// initPCA places the points at their first principal components, in data
// units (deterministic, and on the scale the transferred widths expect).
func initPCA(x []float64, n, d, dims int) ([]float64, error) {
	xm := mat.NewDense(n, d, append([]float64(nil), x...))
	p, err := linear.PCA(xm, min(dims, d))
	if err != nil {
		return nil, fmt.Errorf("%w: PCA initialisation: %w", ErrInput, err)
	}
	proj := p.Transform(nil, xm)
	y := make([]float64, n*dims)
	for i := range n {
		for j := range min(dims, d) {
			y[i*dims+j] = proj.At(i, j)
		}
	}
	return y, nil
}

func check(x []float64, n, d int, soft []float64, c int, o Options) error {
	switch {
	case n < 3 || d < 1 || len(x) != n*d:
		return fmt.Errorf("%w: %d values for %d rows × %d features (need at least 3 rows)", ErrInput, len(x), n, d)
	case soft != nil && (c < 1 || len(soft) != n*c):
		return fmt.Errorf("%w: %d soft-label values for %d rows × %d classes", ErrInput, len(soft), n, c)
	case o.Dims < 1:
		return fmt.Errorf("%w: dims %d", ErrOption, o.Dims)
	case !(o.Alpha >= 0 && o.Alpha <= 1) || !(o.Gamma >= 0 && o.Gamma <= 1):
		return fmt.Errorf("%w: alpha %g and gamma %g must lie in [0, 1]", ErrOption, o.Alpha, o.Gamma)
	case !(o.Perplexity >= 1 && o.Perplexity < float64(n-1)):
		return transforms.Optionf("perplexity", "%w: perplexity %g must be at least 1 and below N − 1 = %d", ErrOption, o.Perplexity, n-1)
	case o.Method != Exact && !o.Method.sparse():
		return fmt.Errorf("%w: unknown method %d", ErrOption, int(o.Method))
	case o.Method.sparse() && o.Dims > kernels.MaxBHDims:
		return fmt.Errorf("%w: method %v supports at most %d output dimensions, not %d", ErrOption, o.Method, kernels.MaxBHDims, o.Dims)
	case o.Method.sparse() && !(o.BHTol >= 0): // Cutoff's dense rows use it too
		return fmt.Errorf("%w: Barnes–Hut tolerance %g must be ≥ 0", ErrOption, o.BHTol)
	case o.Method == Cutoff && !(o.CutoffTol >= 0):
		return fmt.Errorf("%w: cut-off tolerance %g must be ≥ 0", ErrOption, o.CutoffTol)
	case o.Method.sparse() && o.OutputScale != Global:
		return fmt.Errorf("%w: method %v needs the global output scale", ErrOption, o.Method)
	case o.MaxIter < 1 || o.CoarseMaxIter < 0:
		return fmt.Errorf("%w: max iterations %d (coarse scales %d)", ErrOption, o.MaxIter, o.CoarseMaxIter)
	case !(o.Tol >= 0) || !(o.CoarseTol >= 0):
		return fmt.Errorf("%w: tolerance %g (coarse scales %g) must be ≥ 0", ErrOption, o.Tol, o.CoarseTol)
	case o.Start < StartAuto || o.Start > StartSample:
		return fmt.Errorf("%w: unknown start %v", ErrOption, o.Start)
	case o.Start == StartSample && !o.Method.sparse():
		return fmt.Errorf("%w: the start from a sample needs method bh or cutoff, not %v", ErrOption, o.Method)
	case o.Start == StartSample && !(o.Perplexity < float64(n/sampleFraction-1)):
		return transforms.Optionf("start", "%w: a sample of %d rows (1/%d of %d) is too small for perplexity %g", ErrOption, n/sampleFraction, sampleFraction, n, o.Perplexity)
	case !transforms.EnumValid(o.Neighbors):
		return fmt.Errorf("%w: unknown k-NN method %v", ErrOption, o.Neighbors)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: x[%d, %d] = %v", ErrInput, i/d, i%d, v)
		}
	}
	return nil
}
