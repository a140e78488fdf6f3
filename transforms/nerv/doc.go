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
// compares the quality metrics of both on the four-cluster data.
//
// # Stresses
//
// Stress (input Input, stress.go) and BH.Stress (input SparseInput,
// stressbh.go) evaluate the stress and gradient that Fit minimises; the
// comments at the top of those files state the formulas and the Barnes–Hut
// approximation. They moved here from package kernels and keep its
// conventions: row-major slices (y is n×dims), wrong lengths or parameters
// panic, the only error is ctx.Err(), and results are bit-identical for any
// thread count.
//
// # Stage
//
// Stage runs NeRV on Arrow data through the transforms.Stage contract (the
// CLI's "ordinate nerv"): the feature table of role "in", read through
// Env.ReadFeatures (a constant column is dropped with a warning), with soft
// labels (soft-labels: SoftClassNeRV), a hard label (label: ClassNeRV) or
// neither (NeRV). It writes an embedding ("out", kind embedding) and
// records mode, method, output_scale, stress, iterations, classes and
// levels (perplexity, stress, iterations and status of each scale) as
// figures. Its standardize option is off by default, unlike the linear
// stages: NeRV, like t-SNE, is usually run on features that are already
// comparable. Progress phases: "pair distances" or "neighbours" (rows),
// then "optimising level i/L" per scale, with its iteration budget as the
// total and one unit per L-BFGS iteration.
package nerv
