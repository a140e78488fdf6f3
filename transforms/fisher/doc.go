// Package fisher computes Fisher-metric distances in kernel space
// (Schulz and Hammer, "Discriminative Dimensionality Reduction in Kernel
// Space"): path lengths between data points in the Riemannian metric of the
// Fisher information of a Parzen class posterior, from a similarity matrix
// and class labels alone. The result feeds distance-based embeddings such
// as t-SNE ("Fisher t-SNE").
//
// # Input
//
// s is an n×n row-major, exactly symmetric, finite similarity matrix that
// has already been corrected to be positive semi-definite (see
// kernels.Symmetrize and kernels.CorrectSpectrum; the paper clips negative
// eigenvalues). It is read as a Gram matrix s_ij = ⟨x_i, x_j⟩ of implicit
// feature vectors x_i. Labels are classes[i] ∈ [0, k); at least two classes
// must be present.
//
// # Definition
//
// Kernel squared distances are d²_ij = s_ii + s_jj − 2s_ij (clamped at 0).
// Along the straight path x(a) = (1−a)x_i + a x_j the Parzen weights are
//
//	ξ_l(a) = softmax_l(−[(1−a)d²_il + a d²_jl]/(2σ²)),
//
// which is exp(−‖x(a) − x_l‖²/(2σ²)) normalised (‖x(a) − x_l‖² differs from
// the bracket by a term that does not depend on l). With g_l = s_jl − s_il,
// m = Σ_l ξ_l g_l, p(c) = Σ_{l∈c} ξ_l and m_c = Σ_{l∈c} ξ_l g_l / p(c), the
// Fisher segment length at a is (σ²T)⁻¹ F_ij(a) with
// F_ij(a) = √(Σ_c p(c)(m_c − m)²), which equals √(vᵀJ(x(a))v) for the step
// v = (x_j − x_i)/T and J = σ⁻⁴ Σ_c p(c) b_c b_cᵀ of the paper (Eq. 7–8).
//
// σ convention: the Gaussian is exp(−‖x − x_l‖²/(2σ²)). The paper prints
// exp(−0.5‖·‖²/2σ²) in Eq. 4–6, but only the 2σ² kernel makes
// J = E[bbᵀ]/σ⁴ the Fisher information of the Parzen posterior, so that is
// the one used here. Distances and SparseDistances need σ > 0
// (Options.Sigma); Fit, like the stage, derives it from a perplexity when
// Sigma is 0 (mean of per-point bandwidths σ_i = (2β_i)^−½, times
// SigmaScale).
//
// # Rules
//
// Left (Eq. 3 of the paper) evaluates J at the start of each of the T
// segments: d(i,j) = (σ²T)⁻¹ Σ_{t=0}^{T−1} F_ij(t/T); it is not symmetric.
// Trapezoid (the default) is the mean of both directions,
// (σ²T)⁻¹[½F_ij(0) + Σ_{t=1}^{T−1} F_ij(t/T) + ½F_ij(1)], symmetric bit for
// bit. Both approximate the same path integral; T = 10 (the default) is
// usually enough, and Stats.LongSteps counts pairs whose step d_ij/T exceeds
// σ, where T should grow.
//
// # Output
//
// Distances are plain (not squared) Fisher path lengths, in units of the
// kernel's feature space divided by σ² (so only their ratios matter to
// t-SNE or nearest neighbours). Distance-based tools that square their
// input (most t-SNE implementations with precomputed distances) must be fed
// these values as they are, never squared ones. The diagonal is 0.
//
// # Label leakage and ExcludeEndpoints
//
// The Parzen sums include x_i and x_j themselves. With a small σ the
// posterior at a training point is dominated by its own kernel term, the
// metric then encodes the labels directly, and in-sample neighbour errors
// are optimistic (often 0). ExcludeEndpoints drops l = i and l = j from all
// sums for the pair (i, j) (leave-pair-out); use it when the distances feed
// an evaluation on the same labels (leave-one-out k-NN error of the
// embedding) or when σ is small; keep the default to reproduce the paper.
//
// # Speed, accuracy and determinism
//
// Dense cost is O(n³T): the weights factor as exp((1−a)E_il)·exp(aE_jl)
// with E = −D²/(2σ²) ≤ 0, so T tables of n² exponentials replace almost all
// exponentials and the products cannot overflow, and the per-class sums
// are matrix products per path point (kernels.Gemm, about (3T+3)n³ flops,
// from n = 256 on and for classes of at least 32 points on average; see
// PathSums). A (pair, step) whose normaliser is below 2⁻⁹⁶⁰ is
// recomputed in the log domain with max subtraction (Stats.Fallbacks).
// Work memory is about (T+4)·n² float64 plus the row block's product
// strips, packed rows and path values (about 250 MB at n = 2,000). The products use
// h_l = (d²_il − d²_jl)/2 in place of g_l (F does not change when g
// shifts by a constant), whose terms are small where the
// weights are large; still their difference cancels for near pairs, exact
// duplicates and pairs inside one class's region. Measured without
// safeguard on near duplicates at distance 1e-6 around (10, 10, 10), a
// pair's path sum lost up to 5e-7 relative (7.5e-7 with g itself). So each
// pair carries a bound on its difference from exact sums of the same
// weights (rounding of the products, n_c·2⁻⁵³ of their nonnegative terms,
// and of h, 13·2⁻⁵³·max |s_il| per weight), and a pair whose bound exceeds
// 1e-11 of its path sum is redone by the direct loop, bit for bit. Every
// pair then agrees with the direct loop to about 1e-11 of its own path sum
// plus that loop's own rounding (the tests ask 1e-10 and see at most
// 8e-14); the direct loop agrees with the definition to a few
// ulp (4e-16 relative in the tests) as long as the logits d²/(2σ²) are
// moderate; every evaluation, direct or not, inherits an error of about
// 2⁻⁵³·max d²/(2σ²) from rounding the logits, which is 3e-11 relative in
// the tests with σ = 1e-3 on unit-scale data. How many pairs are redone
// depends on the data: none on the benchmark's mixture, 0.1 % of the
// protein copy (0.9 % with ExcludeEndpoints), 27 % of the voting copy
// (many duplicate records) at perplexity 30, where the run is that much
// slower. Results are bit-identical for any thread count.
//
// SparseDistances computes only each row's K nearest neighbours in the
// kernel metric and truncates the Parzen sums: a point l whose weight is
// below 1e-12 times that of a kept point at every point of the path (by the
// triangle-inequality bound (d_il + d_jl − d_ij)/2 on its distance to the
// path) is dropped, which changes F² by at most 2n·1e-12·G² with G the
// spread of g_l; see SparsePathSums. The test suite finds sparse and
// dense distances equal to 1e-9 relative on the same pairs. The truncation
// only pays when σ is small against the spread of kernel distances; in
// high-dimensional feature spaces (distances concentrate) little or nothing
// is dropped and the cost is O(n·K·n·T) multiply-adds plus one exponential
// per (pair, term). Work memory is one n×n table (as large as s).
//
// # The local mode: feature tables of any size
//
// FitFeatures (the stage with in, a kernel and neighbors K) builds no n×n
// array, so its memory is O(n·M) and its time O(n·K·L·(d + T)), with
// L = ParzenNeighbors (default ⌈3·perplexity⌉) and M = max(K, L):
//
//   - Each row's M nearest rows in the kernel metric come from the k-d
//     tree, the exhaustive search or NN-descent of package kernels (KNN,
//     KNNRecall, Seed). Only kernels whose metric grows with the Euclidean
//     distance of some rows qualify (LocalKernels): linear, rbf
//     (d² = 2 − 2·exp(−γ‖x − y‖²)) and cosine (unit rows). A polynomial
//     kernel's metric is not of that kind; fisher offers it nowhere.
//   - σ is the mean perplexity bandwidth over the M listed rows, as t-SNE's
//     sparse affinities calibrate over 3·perplexity neighbours (the dense
//     mode calibrates over all rows, so σ differs a little).
//   - The output pairs are each row's K nearest: the candidates among which
//     t-SNE of the table can pick each row's Fisher-nearest, so K well above
//     3·perplexity keeps the dense map's class structure (BENCHMARKS.md).
//     The Parzen sums of the pair (i, j) run over U = {i, j} ∪ N_L(i) ∪
//     N_L(j), the union of the end points' first L rows, with kernel squared distances from the lists or, for
//     the rows of one list missing from the other, from the features, and
//     h_l = (d²_il − d²_jl)/2 in place of g_l (they differ by a constant of
//     the pair, which F ignores), so no kernel value beyond distances is
//     needed.
//   - What the truncation lacks is bounded per pair (LocalPathSums): every
//     row outside U is at least as far from i and from j as their L-th
//     neighbours, which bounds its weight on the whole path; the figures
//     dropped_mass_max and dropped_mass_mean report the bound. It assumes
//     every outside row sits at that radius, so in many dimensions (where
//     distances concentrate) it is far above the mass really missed. What the
//     truncation does to the distances and to Fisher t-SNE was measured
//     against the dense mode instead (BENCHMARKS.md, "Fisher distances from
//     features without an n×n array"): the local distances are smaller
//     (the far rows of other classes are missing) and a pair whose union
//     holds one class is 0, while the maps keep their 1-NN error and T(10)
//     within 0.01 of the dense ones' from K = 150. Each run also measures
//     it: TruncationPairs seeded pairs are summed again over all rows, and
//     the relative differences are figures truncation_error_median, _p90
//     and _max.
//   - With the trapezoid rule a pair listed from both ends is summed once
//     (from the lower row) and copied, so the output is symmetric bit for
//     bit where both directions are listed; figure summed_pairs.
//
// Results are bit-identical for any thread count: each row is summed by
// one worker in a fixed order, and NN-descent's lists depend on the data
// and Seed only. A worker measures each row's distances to the far ends'
// lists once per row (a cache of n entries), which pays because
// neighbours of neighbours repeat.
//
// PlaceDistances gives new rows their distances to a fitted local mode's
// rows the same way: a new row's K nearest fitted rows (exhaustive search)
// and the path lengths to them, with Parzen sums over fitted rows only, so
// a new row needs no label; each row alone, so batches do not change it.
//
// # Fisher t-SNE maps: new rows by their features
//
// Model (kind "fisher", model.go) is what a local-mode fit keeps for new
// rows: the rows as fitted (standardised), their classes, each row's L
// Parzen neighbours, and MapSettings (kernel and γ, σ, T, rule,
// ExcludeEndpoints, K, L). Model.BindMap joins it to a placement map fitted
// on its distances (the tsne stage's --fisher-model), matching the map's
// rows by id, into a placement.Model of Source "fisher" (mapsearch.go): a
// new row is standardised as the fit was, its K nearest fitted rows in the
// kernel metric come from an exact kernels.Index (a k-d tree up to 8
// features, else exhaustive: the graph search that t-SNE maps use found
// 87 % of the 90 nearest on overlapping 50-D clusters, which cost 0.11 of
// the held-out rows' 10-NN accuracy), their kernel distances are measured
// again in float64 and ranked by (distance, row), and the path lengths to
// them are PlaceDistances', bit for bit. The placement method then sees their
// squares as it sees squared input distances.
//
// Choice: a fitted pair's Parzen sums include its own two rows unless
// ExcludeEndpoints, while a new row's sums can never include the new row.
// With ExcludeEndpoints the fitted and the new rows are treated alike, and
// the held-out rows' 10-NN class accuracy in the map stays within 0.03 of
// the fitted rows' own (BENCHMARKS.md); without it the fitted rows' map
// also encodes their labels, which new rows cannot have. The stage's help
// recommends it for maps that take new rows; the default stays the
// paper's.
//
// # Path sums
//
// PathSums and SparsePathSums (pathsum.go) are the numerical core of
// Distances and SparseDistances: they return the unscaled integrands
// F_ij(0), F_ij(1) and Σ_{t=1}^{T−1} F_ij(t/T) per pair, and the callers
// apply the rule and the 1/(σ²T). They moved here from package kernels and
// keep its conventions: row-major n×n slices, wrong sizes or parameters
// panic (Distances validates the user's input first), the only error is
// ctx.Err(), and results are bit-identical for any thread count. PathSums
// works in Gemm form from 256 points on (and 32 per class on average); the
// direct loop (pathSumsDirect) serves the rest, is the tests' reference and redoes the pairs the Gemm
// form cannot vouch for.
//
// # Stage
//
// Stage is the fisher stage on the one stage contract (transforms.Stage):
// Options declares its options once (flags, help, ranges, defaults and the
// provenance's params all come from it), and the same struct, from
// DefaultOptions, configures Distances, SparseDistances and Fit: each
// value's range is checked once, by transforms.Validate, and what depends
// on the data (neighbors and perplexity below N) by Fit. It reads either a similarity table
// (role "similarity": long i, j, s with labels from role "labels", or
// square, one numeric column per row in row order, with labels in the same
// table or in "labels"), or a feature table (role "in") with Kernel linear
// or rbf. Features are read through Env.ReadFeatures like every stage's: the
// default feature set leaves out identifiers, targets and earlier
// embeddings, and constant columns are dropped with a warning. Standardize
// is on by default, as for ckpca, the other stage that builds a kernel on
// features: an rbf kernel's median bandwidth and a linear kernel's inner
// products on raw features are dominated by the columns of largest scale.
// (The demo uses only similarity tables, which Standardize does not touch.)
//
// Prepare (prepared.go) is the dense mode's set-up alone (symmetrised,
// corrected matrix and σ), which the stage writes with role
// "prepared-out" as a model file of kind "fisher-prepared"; FitPrepared
// (role "prepared") computes any tile from it with the bits of Fit, so
// tiles on other machines do not repeat the O(n³) set-up. A set-up option
// of a prepared run must be at its default or at the set-up's value. In the
// local mode a tile is the listed entries (i, j) with i in block I and j in
// block J; its set-up is the Model (lists, σ; the stage's model-out without
// out), and FitModel computes a tile from it: a pair listed from both ends
// is summed from the lower row as in the untiled run, so every entry has
// the untiled bits (TestLocalTiles).
//
// # Spectrum correction in the sparse mode, and cancellation
//
// The dense mode corrects the matrix with its full eigendecomposition
// (kernels.CorrectSpectrumContext, kernels.EigenSym): O(n³) (its time at
// 2,000 objects: BENCHMARKS.md, "Fisher distances (transforms/fisher)",
// "The dense spectrum correction"), and it runs detached: on cancellation
// Fit returns ctx.Err()
// at once and the abandoned factorisation stops at its next check of the
// context in the background (the CLI exits right after). The sparse mode (Neighbors > 0), meant for large N, needs no
// dense eigendecomposition, because what its correction has to achieve is
// a positive semi-definite matrix (the truncation bound uses the triangle
// inequality of the kernel metric), and that rarely needs the whole
// spectrum:
//
//   - a kernel of feature rows (Kernel linear or rbf) is positive
//     semi-definite by construction: no correction at all (figure
//     correction_applied);
//   - a similarity matrix of at most SparseEigenLimit objects is corrected
//     as in the dense mode, so small problems give the same matrix in both
//     modes;
//   - above that, Lanczos estimates of its extreme eigenvalues
//     (kernels.ExtremeEigenvalues, O(n²) per step, cancellable; figures
//     min_eigenvalue and max_eigenvalue) decide: positive semi-definite up
//     to rounding (λ_min ≥ −1e-8·max|λ|) needs no correction whatever
//     Correction says; an indefinite matrix is shifted by |λ_min| on the
//     diagonal for Correction shift (exactly U(Λ − λ_min)Uᵀ; figure
//     shift), used as it is with a warning for none, and refused for clip
//     and flip, which need every negative eigenpair, with an option error
//     on correction that points to shift, none, or correcting the matrix
//     beforehand.
//
// Every other long loop (symmetrising, kernel distances, bandwidths, the
// path sums) runs in chunks that check the context.
//
// Fit symmetrises and corrects the matrix (phase "eigendecomposition", or
// "extreme eigenvalues" in the sparse mode above SparseEigenLimit),
// finds σ from the perplexity ("bandwidths") and computes the distances
// ("pair distances", with the unordered pairs, or with Neighbors the rows,
// as its total). The output role "out" is a long distance table
// (table.DistancePairs: i, j, distance; Upper keeps i < j) or, with Format
// square, a table.DistanceSquare table, both written through package
// table. Figures: sigma, negative_eigenvalue_share (dense correction),
// correction_applied, min_eigenvalue, max_eigenvalue and shift (sparse
// correction), max_asymmetry (when
// the input was not symmetric), fallbacks, long_steps, left_rule_asymmetry
// (rule left, dense), kept_terms and dense_terms (sparse), gamma (rbf),
// classes, and with Tile the rows of its blocks, tile_rows and
// tile_columns.
package fisher
