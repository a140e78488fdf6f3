// Package transforms holds what ordinate's stages share: class handling for
// hard labels, standardisation with training statistics, the affine model
// that linear stages (BVP, PCA, LDA) fit and that `ordinate apply` streams new
// rows through, model files, output tables, and progress reporting.
//
// The methods themselves live in sub-packages (bvp, linear, quality, …) as
// pure functions of gonum matrices; this package glues them to arrowio.
//
// # Conventions
//
// Standardisation is the z-score with the training mean and the sample
// standard deviation (denominator N−1), as ORCA does. A column whose values
// are all equal has no scale; it is dropped from the model with a warning.
//
// Ordinal classes are ordered by ascending value for numeric labels, and by
// an explicit order (--order) for text labels: text is never sorted
// silently. Nominal classes are ordered by ascending value (numbers) or by
// byte order (text); the order only fixes signs and colours.
//
// An affine model maps a row x of its input features to
//
//	y = ((x − mean) ⊘ scale − origin) · Axes
//
// where mean and scale are the standardisation (0 and 1 when it is off),
// origin is the stage's own centre (for BVP the mean of the class centres)
// and Axes is D×d. Output tables hold the id column, the kept columns, then
// emb_0 … emb_{d−1} as float64.
//
// Model files are Parquet tables, one row per input feature (feature, mean,
// scale, origin, axis_0 …), with the JSON of ModelHeader under the footer key
// "ordinate.model" and the run's provenance under "ordinate". The header
// carries a format version; a file of an unknown version is refused.
package transforms
