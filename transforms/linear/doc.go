// Package linear fits the two classical linear projections that ordinate
// compares its supervised methods with: principal component analysis (PCA)
// and Fisher's linear discriminant analysis (LDA). It also holds what linear
// stages share: the Projection type and the sign rules.
//
// Inputs are n×D gonum matrices, one row per observation. The functions do
// not standardise: callers z-score beforehand when they want to (the
// transforms package does, with the training mean and the N−1 standard
// deviation).
//
// # Projection
//
// Every fit returns a Projection that maps a row x to
//
//	y = (x − Origin) · Axes
//
// where Origin has length D and Axes is D×d with unit-length columns, one per
// output axis. For PCA the origin is the column mean; for LDA it is the mean
// of all rows.
//
// # PCA
//
// The axes are the top-d right singular vectors of the centred data, in
// decreasing order of variance. Variances use the denominator N−1, like
// gonum's stat.PC. VarianceRatio divides by the total variance (the trace of
// the covariance matrix) and is 0 when that total is 0.
//
// # LDA
//
// With class centres c_k, counts n_k and overall mean m, the between-class
// scatter is S_b = Σ_k n_k (c_k − m)(c_k − m)ᵀ and the within-class scatter is
// S_w = Σ_k Σ_{i∈k} (x_i − c_k)(x_i − c_k)ᵀ (sums, not averages). The
// discriminant axes solve S_b w = λ (S_w + εI) w, ordered by λ descending. The
// shrinkage ε defaults to 1e−6·trace(S_w)/D: data sets with one-hot encoded
// nominal attributes (car, for instance) have a singular S_w, and without ε
// the Cholesky factorisation used for whitening fails. If trace(S_w) is 0,
// trace(S_b) takes its place, and 1 if both are 0. The shrinkage option
// (LDAOptions.Shrinkage) sets ε; 0, the default, is this rule.
//
// There are at most k−1 discriminant axes, fewer when the class centres span
// fewer dimensions: an axis counts when √λ exceeds max(D, k)·ε_mach·√λ₁
// (ε_mach = 2⁻⁵²). The remaining d − k + 1 (or more) axes are
// the top principal directions of the data orthogonal to the discriminant
// axes; a warning sentence says so. The discriminant axes are normalised to
// unit Euclidean length; they are (S_w + εI)-orthogonal, not orthogonal.
//
// # Signs
//
// An axis is otherwise defined only up to its sign. The rules, applied in
// this order, are deterministic:
//
//   - LDA axis 1 is oriented so that (c_last − c_first)·w₁ > 0, that is the
//     last class lies on the positive side of the first. For nominal labels
//     this only fixes a sign. If |(c_last − c_first)·w₁| ≤ 1e−9·‖c_last − c_first‖
//     the next rule applies instead.
//   - Every other axis (all PCA axes, LDA axes 2…d) is oriented so that its
//     component of largest absolute value is positive. Components within a
//     relative 1e−9 of the largest count as ties, and the lowest index wins;
//     so (1, −1)/√2 becomes (0.7071, −0.7071) whatever the rounding.
//
// OrientAlong and OrientByLargest implement these rules so that other linear
// stages (bvp) apply the same ones.
//
// # Stages
//
// PCAStage and LDAStage are the pca and lda stages of the transforms
// contract. Each has one options struct, declared once: PCAOptions and
// LDAOptions give the CLI's flags, help, ranges and defaults
// (DefaultPCAOptions, DefaultLDAOptions: 2 dimensions, standardised, the
// automatic shrinkage), and LDA takes LDAOptions itself, validating it at
// entry; a dims above the number of features is an option error naming
// dims (from PCA and LDA alike). The lda stage needs a label. They read the features of the "in" table through
// transforms.Env.ReadFeatures (constant columns are dropped with a warning;
// --standardize, on by default, z-scores the rest), fit, and write the
// embedding ("out") and, when asked, the affine model ("model-out") that
// apply.Stage uses to place new rows exactly as the fit placed
// the training rows. The examples run them on in-memory Arrow records.
package linear
