// Package bvp implements Best-View Projection (Zine-El-Abidine, Dutagaci and
// Rousseau, "Dimensionality Reduction for Ordinal Classification"), a linear
// projection for data whose classes are ordered.
//
// # Problem
//
// Let c_1 … c_K be the class centres (arithmetic means) in class order and A
// the (K−1)×D matrix whose rows are the adjacent differences c_{k+1} − c_k
// (Eq. 6 of the paper). One BVP step looks for the viewpoint v on the unit
// sphere from which adjacent centres look farthest apart, which is the v
// minimising F(v) = ‖Av‖² (Eq. 2), projects everything onto v^⊥ and repeats
// until d dimensions remain. Because F is a quadratic form, each step removes
// the eigenvector of AᵀA with the smallest eigenvalue, and the retained
// subspace is the span of the top-d right singular vectors of A; the sum of
// squared projected adjacent distances G (Eq. 1) there equals σ₁² + … + σ_d².
//
// Inputs are not standardised here: BVP is not scale-invariant, so callers
// z-score first (the transforms package does, as ORCA does).
//
// # Output
//
// Fit returns a projection y = (x − Origin)·Axes with Origin the mean of the
// class centres (the paper translates the data there) and Axes a D×d matrix
// with orthonormal columns: axis j is the right singular vector of A for the
// j-th largest singular value. Axes differ from the paper's, which are an
// arbitrary basis of the same subspace, only by a rotation within it.
//
// With d = K−1 = rank(A) the subspace is the span of all centre
// differences, which does not depend on the class order; the order matters
// only when d < rank(A).
//
// # Rank
//
// Rank is the number of singular values of A above
// max(K−1, D)·ε·max(σ₁, max_k ‖c_k‖), with ε = 2⁻⁵²: the centres' own size
// enters because rounding in c_{k+1} − c_k is relative to it. A has at most
// min(K−1, D) informative directions. When d exceeds Rank, the paper's
// answer for the extra axes is an arbitrary null-space direction (whatever
// the random start gives). Fit instead fills the d − Rank extra axes with the
// directions of largest variance of the data inside null(A), the orthogonal
// complement of the informative axes (principal axes of the data projected
// there, see linear.PrincipalAxesOrthogonal), sets NullFilled and adds a
// warning sentence.
//
// # Solvers
//
// SVD (the default) takes the top right singular vectors of A from mat.SVD.
//
// RGD runs the paper's Algorithm 1 with deflation, for parity with the
// paper:
//
//   - The start of each step is a uniformly random point of the sphere, drawn
//     from a PCG generator seeded with (Seed, 0).
//   - The gradient is Eq. 5, ∇F = 2AᵀAv, projected onto the tangent space:
//     g = (I − vvᵀ)∇F. Eq. 5 prints the Euclidean gradient; the projection is
//     what makes the method Riemannian gradient descent in the sense of
//     Boumal, Absil and Cartis [16].
//   - The step is γ₀ at j = 0 and then Barzilai–Borwein, Eq. 7, read as
//     γ_j = |sᵀy|/‖y‖² with s = v_j − v_{j−1} and y = ∇F(v_j) − ∇F(v_{j−1}),
//     ∇F being Eq. 5 as printed (so y = 2AᵀA·s). The inner bars of the printed
//     Eq. 7 are taken as a typesetting artefact. When y = 0 or γ_j is not a
//     positive finite number, γ₀ is used. Using the Riemannian gradients in y
//     instead stalls from about 1 to 4 % of random starts on car,
//     squash-stored and bondrate: where F has an inflection along the
//     gradient, sᵀy vanishes and the steps shrink geometrically while the
//     gradient stays large, so the angle criterion stops far from the
//     minimum. With the Euclidean y, γ_j ≥ 1/(2σ₁²) and that cannot happen.
//   - The retraction is Eq. 8, (v + η)/‖v + η‖ with η = −γ_j g.
//   - A step stops when the angle between v_{j+1} and v_j is below Tol or
//     after MaxIter updates. The angle acos(v_{j+1}ᵀv_j) is computed as
//     2·asin(‖v_{j+1} − v_j‖/2), which is equal but keeps its accuracy for
//     angles far below √ε, where the cosine rounds to 1.
//   - After each step the centres are projected onto an orthonormal basis of
//     v*^⊥ (a Householder reflection) and their differences recomputed.
//
// RGD deflates down to min(d, Rank) dimensions, then rotates within the
// retained subspace to the right singular vectors of A restricted to it, so
// that its axes are comparable with SVD's; the axes beyond Rank are filled as
// above, so they do not depend on the random start. Iterations records the
// updates of each deflation step, and a warning names the steps that reached
// MaxIter. On the six ORCA data sets of the paper (z-scored, d = 2 and
// d = K−1, 100 random starts each) RGD agrees with SVD to a largest
// principal angle below 9e−5, with a median of 7 to 14 updates per step and
// at most 58.
//
// # Signs
//
// Axis 1 is oriented so that (c_K − c_1)·u₁ > 0: the last class lies on the
// positive side of the first. If |(c_K − c_1)·u₁| ≤ 1e−9·‖c_K − c_1‖, and for
// every other axis, the component of largest absolute value is made positive
// (components within a relative 1e−9 of the largest tie; the lowest index
// wins). These are the rules of linear.OrientAlong and linear.OrientByLargest.
// Flipping the sign of the data therefore flips axis 1 and leaves the others.
//
// # Stage
//
// Stage is the bvp stage of the transforms contract. Options, declared
// once, serve both the stage (the CLI's flags, help, ranges and the
// provenance come from its tags) and Fit, which validates it at entry;
// start from DefaultOptions (2 dimensions, standardised, the SVD solver,
// and for RGD max-iter 100, tol 1e−5, step0 0.05, seed 1). A dims above the
// number of features is an option error naming dims. The stage needs a
// label. It reads
// the features of the "in" table through transforms.Env.ReadFeatures
// (constant columns are dropped with a warning; --standardize, on by
// default, z-scores the rest), resolves the ordinal classes, fits, and
// writes the embedding ("out") and, when asked, the affine model
// ("model-out"); the embedding is the model's placement of the training
// rows, so apply.Stage reproduces it. ExampleStage runs it on
// in-memory Arrow records.
package bvp
