// Package nerv fits NeRV, ClassNeRV and SoftClassNeRV embeddings (Venna et
// al. 2010; Colange et al. 2020; Mustatea et al. 2022) with the exact
// O(N²) stress of kernels.NeRVStress.
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
package nerv
