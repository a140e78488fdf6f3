// Package place puts new points into a fixed, already fitted embedding (the
// reference map): the per-row numerics behind apply for t-SNE and NeRV
// models.
//
// # Conventions
//
// A reference map is N points of Dims coordinates, row-major (Reference).
// A new row arrives as its nearest reference rows, ascending by distance,
// with their SQUARED input distances (the caller finds them, with
// kernels' neighbour index or from a distance table). The position of a
// new row depends only on the reference, the options and that row's
// neighbours: never on other new rows, the batch it came in, or the
// number of threads. Placers are built once per model and are safe for
// concurrent use; each goroutine brings its own Scratch.
//
// # Initialisation
//
// Both methods start a new row at the coordinate-wise median of the
// reference positions of its nearest InitNeighbors rows (openTSNE's
// "median" initialisation); MedianInit states the tie rule.
//
// # t-SNE
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
// are always exact sums, O(N) per step.
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
// memory and the build's FFTs; the build below takes 1.3 times as long).
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
// node sums cost O(nodes·N). BenchmarkRepulsionField (20,000 points, 130×137
// nodes at h = 0.5): 0.07 s CPU, where exact node sums took 1.05 s (2-core
// machine at load 10); a 10⁶-point map of extent ±150 (751×741 nodes)
// takes about 4.5 s on the 2 loaded cores.
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
// moves rows by less than the grid does (above). With it,
// BenchmarkTSNEPlace takes 22 µs per row (43 µs with all 250 steps; 48 µs
// before this optimiser ran on scalars), on a loaded 2-core machine.
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
// # NeRV
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
package place
