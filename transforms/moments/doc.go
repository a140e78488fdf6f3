// Package moments holds the mergeable statistics that the linear fits
// (bvp, pca, lda) need from their rows: per class the row count, the mean
// and the co-moment matrix Σ (x − μ)(x − μ)ᵀ, and per feature the smallest
// and largest value.
//
// Conventions. Features are plain values, not standardised (a fit
// standardises the statistics afterwards: the mean by (μ − m) ⊘ s, the
// co-moments by M2 ⊘ (s sᵀ)). Co-moments are sums, not averages: divide by
// N − 1 for a sample covariance. Matrices are row-major and full (both
// triangles), class c's mean at Mean[c·D:] and its co-moments at
// M2[c·D·D:].
//
// Statistics of any split of the rows merge to those of the whole in exact
// arithmetic. Merge uses the pairwise update of Chan, Golub and LeVeque
// ("Algorithms for computing the sample variance", 1983): with δ = μ_b −
// μ_a and n = n_a + n_b, μ = μ_a + δ·n_b/n and M2 = M2_a + M2_b +
// δδᵀ·n_a·n_b/n. Add computes a batch's statistics in two passes (the mean,
// then the co-moments of the centred rows through kernels.Gemm) and merges
// them in, so the error grows with the number of merges, not of rows, and a
// large common offset in the data (1e8 with unit spread) costs no digits,
// where the one-pass Σx² − nμ² loses them all. Means are taken of x −
// Shift, the first row Add sees: a mean stored near the offset would carry
// the offset's rounding (1e6 · 1.1e-16) into every difference of means the
// merges and the standardisation take. Blocks of 4,096 rows are summed
// twice (the mean, then the mean of the deviations from it).
//
// Tables. Read streams a feature table into a Table: the statistics with
// one class per distinct label value (in order of first appearance; a
// stage orders them with Table.Classes, by the rules its rows would get),
// the feature names and the label's type. A Table is written as a
// partials table (Record, WritePartials: one row per class, a JSON header
// in the schema metadata under PartialsMetadataKey) and partials tables
// read back and merge by label value (ReadPartials, Merge) into the
// statistics of all their rows. Table.Standardize gives the standardisation
// ReadFeatures would fit on the rows, with its checks: errors name the
// file and column, but no row, since the rows are gone.
package moments
