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
// (TSNE; written with tsne.go.)
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
