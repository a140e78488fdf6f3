// Package statfit runs the linear stages (bvp, pca, lda) from statistics
// instead of rows: it decides when a stage streams (Streamed: --stream,
// --partials-out, --from-partials, or a Parquet input too large for the
// memory limit), gathers the statistics (Statistics: a stream over the
// input, one batch in memory, or partials tables merged in path order;
// package moments), and writes the fitted affine model and the embedding
// of the input's rows, placed in a second pass exactly as apply places
// them (WriteStreamed).
//
// Conventions. Statistics are of the raw features; the fit standardises
// them (moments.Table.Standardize) as ReadFeatures standardises rows. A
// fit from statistics agrees with the fit of the same rows in memory to
// rounding (1e-12 relative, tested); the embedding a stage writes is the
// model's map of the rows, so apply with the saved model writes the same
// bits. Memory: one batch of rows, and K + 3 matrices D×D for K classes
// and D features, whatever the row count. A streamed fit does not check
// that ids are unique (that would hold every id).
package statfit
