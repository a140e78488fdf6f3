// Package affine is the model of the linear stages (bvp, pca, lda, and
// ckpca and lsp with a linear map): an affine map of the input features,
//
//	y = ((x − mean) ⊘ scale − origin) · Axes
//
// where mean and scale are the standardisation (0 and 1 when it is off),
// origin is the stage's own centre (for BVP the mean of the class centres)
// and Axes is D×d. It registers the model kind "affine" with package
// transforms for any stage.
//
// Transform computes each row as one pass over its features, x·w − b with
// w = Axes ⊘ scale (row-wise) and b = (mean ⊘ scale + origin)·Axes, in a
// fixed order: the same bits for any batch size or thread count, and the
// same bits from rows (Transform) as from columns (TransformColumns, which
// apply uses for float64 columns without nulls). A stage that fits rows
// places them with the model it writes (Write), so the training rows get
// exactly what apply gives them.
//
// A model file holds one row per input feature (feature, mean, scale,
// origin, axis_0 …), with the header (transforms.ModelHeader) and the
// run's provenance in its metadata. Loading checks the header's dims
// against the table's axis_ columns before allocating by it (a dims of
// 10¹² was a fatal out-of-memory, a dims of 1 with two axes a silent 1-D
// map), and the feature names against the features the model's own
// provenance records (a model whose names were swapped is refused, not
// applied to the wrong columns).
package affine
