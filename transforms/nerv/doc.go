// Package nerv fits NeRV, ClassNeRV and SoftClassNeRV embeddings (Venna et
// al. 2010; Colange et al. 2020; Mustatea et al. 2022) with the exact
// O(N²) stress of Stress.
//
// Supervision comes as soft labels ω (n×c, rows summing to 1; an all-NaN row
// is unlabelled). The per-pair trade-off Λᵢⱼ = (1 − α)γ + α·(1 − ½Σ_c|ωᵢc −
// ωⱼc|) weighs recall (Λ) against precision (1 − Λ); hard one-hot labels give
// ClassNeRV with τ_in = (1 − α)γ + α and τ_out = (1 − α)γ, and no labels (or
// α = 0) NeRV with trade-off γ. Pairs with an unlabelled row use Λ = γ.
//
// Input widths σᵢ come from per-point perplexity calibration on squared
// Euclidean distances (entropy in nats, kernels.Perplexity). Output widths
// are sᵢ = σᵢ (Transfer, the exact mode of the ClassNeRV authors) or their
// mean (Global). The embedding starts at the first principal components of
// the data, in data units, and is optimised by limited-memory BFGS
// (internal/lbfgs), never a dense BFGS. With Multiscale the perplexity runs
// through K_h = max(N/2^h, K), h = 1 … ⌈log₂(N/K)⌉, each scale warm-started
// from the previous one, as Colange et al. do.
//
// Method Auto, the default, is Exact up to AutoExactMax rows and, above,
// Grid in one or two dimensions (any labels), Cutoff in three or when only
// the cut-off's plan fits in the run's memory (ResolveMethod, and Fit's
// memory check; Result.Method and the stage's figure "method" say
// which ran, and the stage logs the plan, with the time to expect from
// timeplan.go's model of measured runs): the exact and the sparse
// methods cross in whole-fit time between 400 and 500 rows (BENCHMARKS.md,
// "NeRV: method auto"). Fit
// checks the plan against the memory the run may use before it allocates
// (transforms.Reserve): the exact method's N×N matrices, the sparse
// methods' neighbour lists, and the map with the optimiser's copies of it
// (an error of option dims when that dominates).
//
// Method BarnesHut scales to tens of thousands of points (BH).
// It changes the objective in three documented ways: the input
// neighbourhoods are sparse (β over the min(3K, N−1) nearest neighbours, 0
// elsewhere; in the precision term that 0 is floored at the calibrated
// Gaussian's value at √3 times the farthest listed distance, see
// bhFloorStretch), the output scale is one global width (the mean σᵢ), and the
// output sums over far points are Barnes–Hut approximations with a bounded
// error (BHTol). Λ is exact for every pair met one by one and, for a cell
// summed at its centre, exact for hard labels and an upper bound for soft
// ones. The multiscale schedule skips the levels above perplexity
// max(K, MaxBHPerplexity), whose neighbour lists would approach N. Its
// stress is therefore not comparable to the exact method's; BENCHMARKS.md
// compares the quality metrics of both on the four-cluster data. Its
// neighbour lists come from kernels.FindKNN (Options.Neighbors): the
// exact search up to kernels.AutoApproxRows rows for NN-descent's default
// 4k/3 candidates (its join would cost more than the exhaustive search
// below, and needs gigabytes at 30,000 rows and k = 176) or up to
// kernels.KDTreeMaxDims features (a k-d tree), and NN-descent otherwise,
// seeded with the constant KNNSeed (the stage has no seed), so the
// fit stays a function of the data and the thread count; Result.KNN and
// the stage's figure "knn" say which ran. TestFitBHApproxNeighbours checks
// that NN-descent lists give the quality of exact ones.
//
// Method Cutoff keeps BarnesHut's objective (the same sparse input, floor,
// global scale, neighbours and schedule) and changes how the output sums
// are taken (CutoffStress, cutoff.go): every point within reach of a row's
// output Gaussian is summed exactly, found on a CellGrid of cells
// one width wide, and the rest is dropped, its share of every row's
// normaliser bounded by CutoffTol. Barnes–Hut's cells, whose error bound
// must hold for any spread of positions and labels inside them, open down
// to single points within a few widths anyway, where the Gaussian varies;
// beyond, their cells stand for mass the cut-off bounds and drops. So the
// cut-off is more accurate (TestCutoffApprox: gradient errors of 1e-4
// against 1e-3 to 7e-2) and faster on a spread-out map (BenchmarkNeRVCutoff;
// BENCHMARKS.md, "NeRV (issue 5)", the cut-off against Barnes–Hut). Rows
// with more than CutoffStress's BHAbove points in reach (the dense first
// iterations from a PCA start) take the Barnes–Hut sums, which are cheaper
// there.
//
// Method Grid keeps the same objective again and takes every row's sums
// over all points at once (GridStress, gridstress.go): each point's charge
// is spread onto a regular grid with a Gaussian window, the grid is
// convolved with a Gaussian separably, and the fields are read back with
// the same window, so that the three Gaussians compose to the output
// kernel up to the grid's quadrature error, which is relative (about 1e-7
// for the stress and 1e-5 for the gradient at DefaultGridTol, against
// BH.Stress with tol 0, TestGridStressAgainstBH). Hard labels enter as one
// field per class (Λ takes τ_in, τ_out or γ by the pair's groups). Soft
// labels enter as channels (gridsoft.go): min(ω_ic, ω_jc) is a sum over
// thresholds of 1[ω_ic ≥ t]·1[ω_jc ≥ t], so with every ω rounded to a
// multiple of 1/L (GridStress.SoftLevels, 8 by default) the community
// λ_ij is a weighted sum of fields of the rows above each level of each
// class, a row in about L of them. The listed pairs keep their exact Λ;
// the far pairs' Λ is off by less than α·c/L (TestGridSoftChannels; 0.003
// on average on the four clusters' soft labels), and the stress by about
// 3e-5 relative at L = 8 (TestGridSoftRounding). Its
// cost does not grow with the density of the map, which the cut-off's
// does: at 10⁵ rows an evaluation costs a ninth of the cut-off's on a
// spread map and a sixtieth on a dense one (BENCHMARKS.md, "NeRV at any
// size"). An island of the map (a connected group of points within the
// kernel's reach) whose grid patch would cost more than its exact rows (a
// few points, or a sparse chain: more than 0.1·c² nodes for c points)
// takes exact cut-off sums for its rows instead. The grid's nodes lie in
// tiles over the area the points' windows cover, not over the map's or an
// island's bounding box, so blobs joined by a few points between them cost
// their own area. A map whose grid would still exceed GridStress.MaxNodes
// (far outliers, or the spread maps early in a fit from the sample start)
// takes the cut-off's sums for that evaluation (Result.GridFallbacks, a
// warning of the stage).
//
// # Start
//
// The embedding starts at the first principal components (StartPCA), or,
// with the sparse methods above SampleStartAbove rows (StartAuto), from a
// fitted sample (StartSample, start.go). From the PCA start the map has
// to spread from the data's extent to an area of about N·s²/K (s the
// output width), so its first iterations see thousands of points within
// reach of every point, a number that grows with N at a fixed extent, and
// so does the cost of an evaluation (BENCHMARKS.md, "NeRV (issue 5)"). The
// sample start fits a random quarter of the rows (StartSeed) with the same
// options but the coarse scales' stopping rule (it only starts the full
// map), a sample above SampleStartAbove itself starting from its own
// quarter; scales that map by (N/m)^(1/dims)·s/s_m; puts every other row
// at the mean of its first three sampled neighbours (rows with none take
// their placed neighbours' mean, pass after pass; rows with no path to the
// sample, the sample's centroid) plus a jitter of s/10, a labelled row
// (α > 0) taking only neighbours of its own class when its list has one
// placed (ClassNeRV separates classes that overlap in the input, and a row
// placed between two classes bridges them into one island of the grid); scales the whole
// about its centroid until a point has on average as many others within
// one width as a sampled point has in the sample's map, or 0.75K if that
// is more (sampleStart.target: converged maps have from 0.6K to 65K
// with the data, and a start far sparser than its converged map spends
// its first iterations contracting); and runs the last perplexity only, since
// the sample ran the schedule. The first min(30·max(1, √(N/250,000)),
// MaxIter/2) of its
// iterations are exaggerated (exaggeration.go): the attraction of the
// recall term, Λ_ij β_ij h D²_ij, counts E = 4 times, as t-SNE's early
// exaggeration multiplies P. The PCA start's first iterations are dense,
// and in them each class gathers at the scale of its cluster; a start
// placed at the converged density skips that phase, and its classes then
// separate only locally, into finer domains that later iterations barely
// merge. The exaggerated phase brings that gathering back; its own term
// is a sum over the listed pairs, but it contracts the map, and a denser
// map makes every evaluation dearer (BENCHMARKS.md, "Where the quality goes
// at large N"). At 250,000 rows with 60 iterations it
// raised 10-NN class accuracy on a 5,000-row sample from 0.778 to 0.870
// (the input has 0.86), at a higher stress (6.79 against 6.41) and a lower
// continuity; at 10⁶ rows with 50 iterations it did not help (stress
// 10.11 against 9.06, accuracy 0.67 against 0.69; BENCHMARKS.md).
// The samples' own fits are exaggerated too: a 62,500-row map fitted for
// 30 iterations (as the sample of a 250,000-row one is) ended at stress
// 5.245 and 10-NN class accuracy 0.925 with 15 of them exaggerated, 5.502
// and 0.855 without.
//
// L-BFGS's first step on the full map is scaled from the sample's last
// inverse-Hessian scale γ (lbfgs.Result.Scale) times (n/m)·(s/s_m)²: the
// stress is a mean over rows of terms in D²/s², so its curvature in one
// coordinate goes as 1/(n·s²). The plain iterations after the exaggerated
// ones start from the exaggerated phase's last γ. A unit first step is
// far too short on 2n coordinates, and its line search doubles it one
// evaluation at a time: at 62,500 rows four evaluations for the first
// step and two for the restart, now one each. At 10⁶ rows, where an
// evaluation is costly, the full map's 50 iterations then took 52
// evaluations, and the first iteration, the restart, the samples and the
// whole fit took far less time than with unit first steps, for the same
// map quality (BENCHMARKS.md, "Where the quality goes at large N").
// Fits from the PCA start are unchanged (their first step is unit length,
// so BenchmarkStoppingRule's fits are the same).
//
// Measured on four clusters (BENCHMARKS.md, "NeRV from a sample" and
// "Where the quality goes at large N"): at 62,500 rows the plain sample
// start ended at a stress 1.3 % above the PCA start's (5.271 against
// 5.201) with 100-NN class accuracy 0.923 against 0.947; exaggerated, it
// ends at 5.084, 2.3 % below the PCA start, with 0.948 and the same local
// neighbour overlap. E = 12 gave the same stress with classes pulled
// further apart (10-NN overlap with the input 0.299 against 0.322) and
// denser, slower evaluations; starting denser instead of exaggerating
// (8K points per width, not 0.75K) gave 5.170 but left the clusters
// touching. At 20,000 rows the exaggerated sample start ends 3.0 % below
// the PCA start (4.140 against 4.269; 1.1 % above without it), with
// trustworthiness 0.0014 and R_NX AUC 0.004 lower and continuity and the
// k-NN class gain higher: the supervised objective trades a little of the
// plain neighbourhoods for class structure. A tenth of the rows instead
// of a quarter ended 3.6 % above (before exaggeration), and running the
// whole schedule after the sample start gained nothing (1.1 % above, in
// more time than the PCA start; BENCHMARKS.md, "NeRV (issue 5)", "NeRV from
// a sample"). Result.SampleRows and the stage's figure "start" say
// which start ran.
//
// # Stopping rule
//
// Each scale runs L-BFGS (10 pairs) until an iteration cap, or until the
// stress falls by no more than tol·|stress| over 10 iterations. The scales
// before the last one of a multiscale schedule only hand the next scale its
// start: their optimum is not the result, and the next scale, with other
// widths, moves the points again. So they stop after CoarseMaxIter = 30
// iterations (or at CoarseTol = 1e-3), and only the last scale runs to
// MaxIter = 150 (or Tol = 1e-4). The work is then bounded whatever the
// data: for N = 800 and K = 32 (five scales) at most 4·30 + 150 = 270
// iterations.
//
// The rule before (every scale to 500 iterations or 1e-5; still
// Options.LegacyStopping, or the stage's --coarse-max-iter 0 --coarse-tol 0
// --max-iter 500 --tol 1e-5) suited the four-cluster data (224 iterations)
// but not others: BenchmarkStoppingRule runs ClassNeRV (α = 1, exact,
// multiscale, K = 32) on 800 points from nine seeded generators (blobs of
// three spreads, anisotropic blobs, moons and circles in 10-D, a uniform
// cube, two Swiss rolls) and on four real sets of testdata, and the old
// rule took up to 1,007 iterations (blobs with spreads 0.5 to 4: 467 of
// them at perplexity 100), most of them at the coarse scales. Their
// convergence did not pay: with this rule every set takes 68 to 265
// iterations, and trustworthiness, continuity and 10-NN class accuracy at
// k = 10 move by at most 0.002 (stress by at most 0.003, 0.2%; the
// benchmark reports all of them). Two findings set the numbers. A coarse cap
// of 25 left one Swiss roll unrolled too little for the last scale to
// finish within 150 iterations (final stress 0.153 against 0.104), while
// 30 and 40 reached the old rule's stress; so 30, with a second roll among
// the sets. And a last-scale tolerance of 1e-5 ran that scale up to 1.7
// times longer (blobs of mixed spreads: 404 against 232 iterations) for
// stresses lower by at most 0.001 and the same metrics; the cap of 150
// stops that set at trustworthiness 0.0007 below the old rule's.
//
// The last scale of the sparse methods also stops on what the map is for
// (NeighbourTol, monitor.go): every 10 iterations a fixed sample of 1,000
// rows is scored by the share of each row's 10 input neighbours among its
// 10 map neighbours and by its 10-NN class accuracy in the map, both among
// all rows and within the sample (the map's coarse organisation, as
// scripts/nervbh/score.py scores maps), and the scale ends when none of
// the four moved by more than NeighbourTol = 0.005 since the previous
// check (StatusNeighbours). The stress keeps falling long after the
// neighbourhoods stopped moving (BENCHMARKS.md, "The neighbourhood
// stopping rule"). The local scores alone stopped a 10⁶-row map after 30
// iterations past the exaggeration with its classes still in fragments
// (accuracy 0.994 among all rows, 0.77 within a 5,000-row sample against
// the input's 0.86); the sample's scores see that. The accuracies of 1,000
// rows move by 0.002 to 0.008 between the checks of a converged map (rows
// on class boundaries flip), so the tolerance is not finer than that. The
// t kernel's level compares each check with the one before the previous
// (tMonitorSpan = 2): its rows' neighbourhoods form slowly out of the
// Gaussian map's and drift by about half the tolerance a check, which the
// one-check rule took for converged. The final score is Result.Quality
// (the stage's figure "quality").
//
// Time is then bounded by the iteration cost, not by the data: at N = 800
// an iteration costs about one Stress evaluation, which keeps each pair's
// force from its first pass and takes a shortcut for one-hot labels, so
// the four-cluster set (126 iterations) and the slowest of the 13 sets (265
// iterations, near the cap) stay under issue 15's 5 s (BENCHMARKS.md,
// "NeRV (issue 5)", "ClassNeRV at 800 points on data the tests do not
// contain").
//
// # Stresses
//
// Stress (input Input, stress.go), BH.Stress and CutoffStress.Stress (input
// SparseInput, stressbh.go and cutoff.go) evaluate the stress and gradient
// that Fit minimises; the comments at the top of those files state the
// formulas, the Barnes–Hut approximation and the cut-off's bound. They keep
// package kernels' conventions: row-major slices (y is n×dims), wrong
// lengths or parameters panic, the only error is ctx.Err(), and results are
// bit-identical for any thread count. The cut-off returns a NaN stress for
// a y with non-finite coordinates (a line search's overshoot), where its
// grid could not be built.
//
// # Quality against t-SNE, and the t kernel
//
// The output neighbourhood is the papers' Gaussian, and that bounds how far
// a map avoids false neighbours: with default options ClassNeRV's
// trustworthiness T(10) is 0.015 to 0.107 below t-SNE's on the same rows
// at 10⁵ and 10⁶ (its 10-NN class accuracy and, on most sets, its
// continuity above), already so with the exact method on 3,000 rows, and
// not closed by γ, the input floor or the start (the PCA start gains 0.003
// at 10⁵ rows); a smaller α narrows it on well-separated classes of a small
// table only (BENCHMARKS.md, "What the T(10) gap is made of" and "Where the
// t level stops helping"). Closer in it is starker: a large Gaussian map
// keeps few of a row's ten nearest neighbours (on overlap at 10⁵ rows
// 0.005 of them, t-SNE 0.093; on four clusters 0.25), and the t level
// keeps 5 to 8 times more.
//
// Options.OutputKernel KernelT (the stage's --output-kernel t) replaces it
// by Student's t with one degree of freedom, b_ij ∝ 1/(1 + D²_ij/(2s²)),
// still normalised per row: the rest of the objective is the grid's (the
// sparse β, floors, Λ, the generalised KL, the 1/n; TStress, stresst.go).
// Venna et al.'s t-NeRV (JMLR 2010) normalises over all pairs instead; on
// 3,000 rows of overlap with the sparse, floored input the exact prototype
// (scripts/nervbh/tkernel.py) scored T(10) 0.919 per row and 0.857 over
// all pairs, t-SNE 0.921. The fit runs the Gaussian levels as usual
// (start, schedule, exaggeration, monitor) and then one more level, the
// last of Result.Levels (Kernel "t"), under the t kernel on the last
// level's input (refineT): the map is centred and scaled so that the
// median row's mean map distance to its ten nearest listed neighbours is
// tMapScale(n) = 3·∛(n/3,000) kernel widths (√2·s each; 3 up to 3,000
// rows), and its spread, the root mean square distance from the centroid,
// is held there. Unconstrained, the row-normalised t stress keeps falling
// as a map grows (its kernel tends to the scale-free 1/D², whose contrast
// the finite kernel approaches from below), and L-BFGS expands the map
// without end, its grid with it: a 3,000-row map reached 10⁴ widths. Held
// at 1, 3 and 10 widths, that sample (exact sums, 300 iterations) scored
// T(10) 0.897, 0.920 and 0.913; 20,000 rows of the same data at 1.5, 3 and
// 6 widths 0.893, 0.903 and 0.909 (default options). The sums are
// interpolated per plane (tinterp.go) with the
// near pairs exact: the planes of all points and of the labelled ones on a
// fine grid of at most 150 intervals per axis, or 300 on a wide map where
// a cost model (a node against a near pair, TStress.chooseFine) finds the
// pairs of the wider radius dearer. Each hard class plane takes the grid
// of least modelled cost (chooseGrids): the fine grid over the class's
// window, its near pairs then among the fine ones at no cost of their
// own (compact classes, as ClassNeRV's maps make them), or a grid of its
// own of intervals 2^k fine ones wide, its near pairs found by the
// class's own cell list within the wider radius (classes spread over the
// map). With soft labels a plane per channel, as the grid has, on one
// coarse grid of at most 40 intervals, their near pairs over all labelled
// points.
// Placing new rows (below) sums over every reference row under the t
// kernel. At 10⁵ rows of overlap the level took 14 minutes (50
// iterations, 64 evaluations of about 13 s, each near pair summed once
// for both its rows; 21 s when each row summed its own: the classes'
// dense cores put some 3,000 rows within each row's near radius of a grid
// spanning the map) for T(10) 0.8947, against the Gaussian map's 0.890
// and t-SNE's 0.905 (BENCHMARKS.md, "The t level at 10⁵ rows"); a far
// field whose cost does not follow the map's bounding box would be the
// next step. The level's gain shrinks with n: within 0.01 of t-SNE's
// T(10) at 20,000 rows of overlap and of the four clusters, 0.010 and
// 0.017 short at 10⁵ from the sample start and from the PCA start alike.
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
// NeRV places a new row at the minimum of its own part of the NeRV-family
// stress (package transforms/nerv) with the reference map held fixed:
//
//	ζ(y) = Σ_j Λ_j D(β_j, b_j) + (1 − Λ_j) D(b_j, β_j),
//	D(p, q) = p log(p/q) + q − p,
//
// over the N reference points j, without the fit's 1/n. Only the row's
// own part counts: the reference rows' terms would bring in their
// neighbourhoods of the new row, which depend on which other new rows are
// present and would need recalibrating the reference widths; dropping them
// (as openTSNE's transform does for t-SNE) is what makes the position a
// function of the row alone.
//
// The input neighbourhood β is calibrated to perplexity K (the model's;
// entropy in nats, kernels.PerplexityRow) over the row's K_in = min(N,
// ⌈3K⌉) nearest reference rows, Σβ = 1, with precision β_i and σ_i =
// (2β_i)^−½; an unlisted row has β = 0 in the recall term and, in the
// precision term, log β floored at log ε = min_j log β_j − 2β_i·d²_far
// (d²_far the farthest listed squared distance): the calibrated Gaussian at
// √3 times that distance, the floor of nerv's Barnes–Hut method, and never
// below log 2^−1022. The output neighbourhood is b_j = exp(−a_j)/Σ_k
// exp(−a_k), a_j = |y − y_j|²/(2s²), over all N reference points, with s
// the model's global width (NeRVOptions.Scale) or, when Scale is 0, the
// row's own σ_i (transfer, as in the exact fit).
//
// Labels enter through Λ_j = (1 − α)γ + α·(1 − ½Σ_c|ω_c − ω_jc|) when the
// row has label weights ω and reference row j is labelled, and Λ_j = γ
// otherwise: hard labels give ClassNeRV's τ_in = (1 − α)γ + α within the
// row's class and τ_out = (1 − α)γ outside it, so with α = 1 the row is
// pulled by its own class (recall) and pushed from the others (precision).
// The gradient is ∂ζ/∂y = Σ_j c_j (y − y_j)/s² with g_j = Λ_j(b_j − β_j) +
// (1 − Λ_j) b_j log(b_j/β_j) and c_j = b_j Σ_k g_k − g_j.
//
// The output sums run over the listed rows and over the reference points
// with a_j ≤ a_min + NeRVCutoff (40): each point left out has b_j <
// e^−40·b_max ≈ 4.2e−18, so the normaliser and every b_j are exact to a
// relative N·4.3e−18 (below 1e−12 up to N = 2·10⁵), and each term left out
// of ζ is at most b_j·(1 + |log b_j| + |log ε|), under 3.2e−15 even at the
// lowest floor. A bucket grid over the map's first two coordinates (mapIndex,
// built once: cells of 2s, or about two points per cell when widths vary
// by row) finds those points: each row gathers the points within a radius
// that covers the cutoff disc of every position within one width of where
// it gathered, and gathers again only when it moves further. The sums take
// the points in the grid's fixed order, so what was gathered never changes
// the bits.
//
// The row starts at the median of its first InitNeighbors (25) reference
// rows and runs at most MaxIter (30) iterations of L-BFGS (internal/lbfgs)
// in units of s, until every component of s·∂ζ/∂y is within Tol (1e−4).
// On a 20,000-point map (BenchmarkNeRVPlace) that takes about 6 stress
// evaluations per row and leaves the rows within 4e−4·s (mean 2e−5·s) of
// their fully converged positions, with stresses within 1.5e−7 (relative);
// Tol = 1e−3 would leave 2e−3·s. A row that coincides in input space with
// at least K reference rows has σ_i = 0: with transferred widths it stays
// at its start (stress 0).
//
// # Stage
//
// Stage runs NeRV on Arrow data through the transforms.Stage contract (the
// CLI's "ordinate nerv"): the feature table of role "in", read through
// Env.ReadFeatures (a constant column is dropped with a warning), with soft
// labels (soft-labels: SoftClassNeRV), a hard label (label: ClassNeRV) or
// neither (NeRV). Its options are Options, the struct Fit takes: the
// tagged fields are the stage's options (their ranges and values in the
// tags, checked by transforms.Validate; Options.Validate checks the rules
// that tie them together, Fit those that need N), the untagged ones
// (Threads, Progress, Reporter) the library's; DefaultOptions holds every
// default, and a zero field is not one. An output scale "auto" is resolved
// in Fit: transfer for the exact method, global for bh and cutoff
// (Result.OutputScale). The stage writes an embedding ("out", kind
// embedding) and records mode, output_scale (as resolved), stress,
// iterations, classes, knn, start and levels (perplexity, stress,
// iterations and status of each scale) as figures; the method and the other
// options are in the provenance's parameters. Its standardize option is off
// by default, unlike the linear stages: NeRV, like t-SNE, is usually run on
// features that are already comparable. Progress phases: with the sample start first the sample's
// own phases, prefixed "sample of m rows: "; then "pair distances" or
// "neighbours" (rows), then "optimising level i/L" per scale, with its
// iteration budget as the total and one unit per L-BFGS iteration.
package nerv
