// Package apply places new rows with a fitted model: the apply stage, and
// Rows and Distances for Go programs that stream records through a model
// themselves. It reads any model kind registered with package transforms
// (import package all, or the method packages, for their kinds).
//
// Rows reads the model's input features from each record batch (the
// features the model names, standardised as it was fitted), maps them
// with Model.Transform and writes the embedding batch: one input batch and
// one output batch are alive at a time, so memory does not grow with the
// row count. A row's output depends on the model and the row alone: the
// same bits in any batch size, order or thread count.
//
// Beyond transforms.Model, apply uses what a model can do, asked through
// interfaces, never through a kind: a ColumnModel maps float64 columns
// without a row-major copy (affine maps); a LabelledModel takes the new
// rows' classes (NeRV maps fitted with classes: --label, --soft-labels); a
// TunableModel places rows by optimisation with settings that
// --perplexity and --max-iter tune (t-SNE and NeRV maps); a DistanceModel
// places new objects from their distances to its reference objects (maps
// fitted on a distance table: --distances).
//
// Errors: a row the model cannot place, or whose output would hold a NaN
// or ±Inf, is an *arrowio.Error naming the file, row and id; options a
// model cannot use are option errors naming the option.
package apply
