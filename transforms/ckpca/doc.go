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
// are, unless Options.Scale is Auto: the targets are multiplied by
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
// in ErrNumerical.//
// # Stage
//
// Stage is the ckpca stage of the transforms contract: it reads the feature
// table "in" through transforms.Env.ReadFeatures (standardised by default,
// constant columns dropped with a warning) — or, for a precomputed kernel,
// the selected columns as they are, or the long "similarity" table — and
// the control points from the columns StageOptions.Control or the
// "control-table" input (ControlSelection, ReadControl: shared with the
// lsp stage). StageOptions.Kernel chooses the kernel (its γ, degree and
// coef0 are options; the γ used is recorded as the figure resolved_gamma)
// and StageOptions.Path how the linear kernel is solved: its zero value,
// auto, works in feature space (the primal path, D×D), so a caller that
// leaves it alone never forms the n×n kernel matrix. The kernel matrix is
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
// Cancellation: the stage's dense linear algebra (the n×n eigendecomposition
// of the dual and precomputed paths, the landmark one of Nyström, and Fit's
// p×p eigendecompositions, kernels.EigenSym and, for the sphere problems,
// its factored form kernels.SymEigen, which leaves out the 2p³-flop
// product of the reflectors with the tridiagonal's eigenvectors that a
// solve never needs) cannot be interrupted
// everywhere (gonum's QR factorisations), so it runs
// detached through KernelFeaturesContext, NystromFeaturesContext and
// FitContext (kernels.Detach): a cancelled context makes the stage return
// ctx.Err() at once, and the abandoned computation finishes in the
// background (the CLI exits right after; the n×n eigendecomposition stops
// at its next check of the context). Kernel rows, Nyström products and
// placing run in chunks that check the context.
package ckpca
