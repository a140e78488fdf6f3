// Package ckpca fits constrained kernel PCA (Paurat, Oglic & Gärtner,
// "Supervised PCA for Interactive Data Analysis"): embedding functions
// f_s(x) = Σⱼ α_sj k(xⱼ, x), one per output dimension s = 1 … d, that pass
// through user-placed control points and otherwise maximise the variance of
// the data.
//
// # Problem
//
// Component s solves the paper's Eq. (2):
//
//	maximise   (1/n) αᵀKHKα − (ν/s) Σ_{s'<s} (αᵀKα_{s'})²
//	subject to αᵀKα = 1  (unit RKHS norm)
//	           K[ctrl, :] α = y_s  (f_s(x_i) = y_is on the m control rows)
//
// with H = I − 11ᵀ/n. The paper's Eq. (1) writes the centre as
// μ = Σᵢ k(xᵢ, ·); Eq. (2)'s H shows that the mean (1/n)Σᵢ k(xᵢ, ·) is
// meant, and we use it. Its constant 1 inside the ν term does not change
// the maximiser and is dropped.
//
// # Feature space
//
// Every path works on a feature matrix F (n×p) with K = FFᵀ, so that
// u = Fᵀ-coordinates replace K^{1/2}α: αᵀKα = ‖u‖², Kα = Fu,
// αᵀKα_{s'} = uᵀu_{s'}. The paper's substitution u = K^{1/2}α is the case
// F = VΛ^{1/2} from K = VΛVᵀ restricted to the range of K (eigenvalues
// above a relative 1e-10, so a singular K — a linear kernel with n > D —
// is handled); the linear kernel's primal path is F = X itself (p = D, the
// n×n kernel is never formed); the Nyström path uses F = K_nM V_M Λ_M^{-1/2}
// over M landmark rows. Then W = (1/n)(HF)ᵀ(HF) − (ν/s)Σ u_{s'}u_{s'}ᵀ,
// L = F[ctrl, :], and the paper's Section 2.1 applies as written: a QR
// factorisation Lᵀ = Q[P; 0] gives x = P⁻ᵀy_s, t² = 1 − ‖x‖², the blocks
// of QᵀWQ give C and b = −Bx, and z maximises zᵀCz − 2bᵀz on ‖z‖ = t
// (SphereQuadratic: eigendecomposition of C plus the secular equation, with
// the hard case). u_s = Q[x; z] and f_s = F u_s on the
// training rows.
//
// # Infeasible targets
//
// When ‖x‖ > 1 no unit-norm function meets the targets. Fit then returns
// an error wrapping ErrInfeasible that says how far over budget the targets
// are, unless Options.Scale is ScaleAuto: the targets are multiplied by
// c = √φ / max_s ‖x_s‖ (φ = Options.Budget, default 0.5: the constraints use
// half the squared-norm budget, the rest goes to variance), the problem is
// solved, and the embedding and α are divided by c, so the control rows
// still land exactly on their targets. Options.Soft > 0 replaces the hard
// constraints by the penalty −Soft·‖Lu − y_s‖² (the slack relaxation the
// paper mentions): maximise uᵀ(W − Soft·LᵀL)u + 2·Soft·y_sᵀLu on ‖u‖ = 1.
//
// Signs: with no control points each component is only defined up to sign;
// we make the largest-magnitude entry of u positive, so results are
// deterministic. With control points the constraints fix the sign.
//
// # Sphere-constrained quadratic
//
// SphereQuadratic (secular.go) solves max zᵀCz − 2bᵀz on ‖z‖ = t for one
// factorised C and many (b, t); it moved here from package kernels, whose
// conventions it keeps: wrong lengths panic, and bad values (NaN, Inf,
// t < 0) or a failed solve give errors wrapping ErrSecular, which Fit wraps
// in ErrNumerical.
//
// # Low-rank updates
//
// The components' sphere problems differ by low-rank terms, so only one is
// ever factorised, and on the exact kernel path none is:
//
//   - Between components: W_s = W − (ν/s)Σ_{s'<s} u_{s'}u_{s'}ᵀ, so
//     C_s = C₁ − (ν/s)Σ v_{s'}v_{s'}ᵀ with v = (Qᵀu)[m:] (v = u without
//     hard constraints). Component s's problem is C₁'s decomposition
//     updated by s − 1 rank-one terms (SphereQuadratic.Update,
//     kernels.UpdateEigenLowRank: deflation, the secular equation and the
//     Löwner vector, as in a divide-and-conquer merge), in O(k²) each; the
//     eigenvectors stay a chain of factors that are never multiplied out
//     (beyond lowRankMaxTerms earlier components W_s is formed and its
//     problem factorised instead). b_s = −B_s x comes from products with
//     W_s, never from the matrix
//     QᵀW_sQ.
//   - The first component on the exact kernel path (FitFeatures with
//     Features.Lambda, which KernelFeatures sets): F = VΛ^{1/2} with
//     orthonormal V gives FᵀF = Λ, so W = Λ/n − μμᵀ (μ the column means of
//     F) is a diagonal plus a rank-one term, and C₁ = Q₂ᵀWQ₂ (Q₂ the last
//     p − m columns of Q, whose Householder form is Q = I − YTYᵀ) is
//     diag(Λ[m:]/n) plus a term whose range
//     lies in the span of D₂Y₂, Y₂ and (Qᵀμ)[m:] (Y₂ the reflectors' rows
//     m … p−1, D₂ = diag(Λ[m:]/n)): at most 2m + 1 directions. An
//     orthonormal basis P of that span, the core M = Pᵀ(C₁ − D₂)P (from
//     products with C₁) and M's eigenpairs give C₁ as at most 2m + 1
//     rank-one updates of a diagonal (soft constraints: the span of μ and
//     Lᵀ; none: μ). The result is checked against a product with C₁ on one
//     seeded random vector; a relative error above 1e-9 (a span that missed
//     a direction) makes Fit factorise C₁ densely instead, so the shortcut
//     can be slower but never wrong. Each update costs O(k²) against the
//     O(k³) of a factorisation, so the updates are used up to 7 + k/160
//     terms, the measured crossover (lowRankMaxTerms: 5 control points
//     from k ≈ 640 on); with more control points C₁ is formed from Λ and μ
//     (no n×p product) and factorised.
//
// No p×p matrix is then formed or decomposed: at n = 2,000 and 3,000 (RBF,
// 5 control points, 2 dimensions) the fit takes well under the time of the
// three decompositions it replaces (BenchmarkFitRBF; BENCHMARKS.md, "cKPCA
// and LSP (issue 6)", "Speed"), with results within 1e-13 of the dense path
// (TestFitFeaturesLowRank compares both with fresh factorisations of every
// component). Fit on a
// plain feature matrix (the linear primal path, Nyström) forms W and
// factorises C₁ densely, then updates between components.
//
// # Stage
//
// Stage is the ckpca stage of the transforms contract: it reads the feature
// table "in" through transforms.Env.ReadFeatures (standardised by default,
// constant columns dropped with a warning) — or, for a precomputed kernel,
// the selected columns as they are, or the long "similarity" table — and
// the control points from the columns Options.Control or the
// "control-table" input (ControlSelection, ReadControl: shared with the
// lsp stage). The stage and the matrix core share one Options struct,
// validated once (transforms.Run, or Fit's entry) against the ranges and
// values its tags declare; start from DefaultOptions. Options.Kernel
// chooses the kernel (its γ, degree and coef0 are options; the γ used is
// recorded as the figure resolved_gamma) and Options.Path how the linear
// kernel is solved: its default, auto, works in feature space (the primal
// path, D×D), so a caller that leaves it alone never forms the n×n kernel
// matrix. Options.Dims 0 (the default) takes one output dimension per
// control column, 2 without control points. The kernel matrix is
// built with the run's threads. The stage writes the embedding "out" and,
// for a kernel on features, the model "model-out": affine on the primal
// path, a kernel model otherwise.
//
// For a kernel on features the embedding the stage writes is the model's
// own placement of the training rows — its Transform on the raw kept
// features, in parallel chunks of independent rows, exactly as the apply
// stage places rows — whether or not the model is saved. Apply on the same
// rows is therefore bit-identical to the stage's output on every path
// (primal, dual, Nyström). Fit's Result.Embedding, F·U, is the same
// function evaluated through the feature map instead of the kernel
// expansion: the two agree to rounding (1e-12 of the largest value in the
// tests), and more loosely on a nearly singular kernel matrix, where the
// expansion weights α = Coef·U grow with 1/√λ of the smallest eigenvalue
// kept (at least 1e-10 of the largest); the control rows meet their
// targets to that accuracy. For a precomputed kernel there is no model and
// the stage writes F·U.
//
// Memory: before it builds the feature map the stage checks its plan
// against the memory the run may use (reserveFit, transforms.Reserve): the
// n×n kernel matrix and its eigendecomposition (about 6·n² values), the
// Nyström map of the landmarks, or the primal path's D×D covariance (a
// list column of 100,000 elements is 100,000 features), and the embedding
// in Dims dimensions; more Dims than the feature space has (the features
// on the primal path, the kernel's rank otherwise) are refused. A kernel
// model's loader checks the header's counts against the table's ref_ and
// alpha_ columns before allocating, the kernel's parameters (a poly degree
// ≥ 1, a γ > 0), and the feature names against the model's provenance.
//
// Cancellation: the stage's dense linear algebra (the n×n eigendecomposition
// of the dual and precomputed paths, the landmark one of Nyström, and Fit's
// p×p factorisation of the first sphere problem where it makes one,
// kernels.SymEigen, which leaves out the 2p³-flop product of the reflectors
// with the tridiagonal's eigenvectors that a solve never needs) cannot be
// interrupted everywhere (gonum's QR factorisations), so it runs
// detached through KernelFeaturesContext, NystromFeaturesContext,
// FitContext and FitFeatures (parallel.Detach): a cancelled context makes the stage return
// ctx.Err() at once, and the abandoned computation finishes in the
// background (the CLI exits right after; the n×n eigendecomposition stops
// at its next check of the context). Kernel rows, Nyström products and
// placing run in chunks that check the context.
package ckpca
