package apply

import "context"

// The capabilities a model may have beyond transforms.Model. Apply asks
// for them with type assertions to these interfaces, never to a kind of
// model, so that any registered kind applies: a model kind implements
// what it can do.

// ColumnModel is a model that maps features given as columns without a
// row-major copy (an affine map): cols[f][i] is feature f of row i, each
// column at least n long. The result must be the bits Transform gives.
type ColumnModel interface {
	TransformColumns(ctx context.Context, dst []float64, cols [][]float64, n, threads int) error
}

// LabelledModel is a model whose placement can take the new rows' classes
// (a NeRV map fitted with classes).
type LabelledModel interface {
	// LabelClasses are the classes of TransformLabelled's weights, in
	// order, or an error saying why this model takes no labels.
	LabelClasses() ([]string, error)
	// TransformLabelled is Transform with the rows' label weights soft
	// (n×len(LabelClasses); a NaN row is unlabelled).
	TransformLabelled(ctx context.Context, dst, x, soft []float64, n, threads int) error
}

// TunableModel is a model that places rows by optimising them against a
// fitted map, with settings that apply's perplexity and max-iter tune.
type TunableModel interface {
	// Tune sets the perplexity and the iteration budget (0 keeps the
	// model's); its errors are option errors.
	Tune(perplexity float64, maxIter int) error
	// Settings are the placement settings in use, for the provenance.
	Settings() any
	// ReferenceRows is the number of rows of the fitted map.
	ReferenceRows() int
}

// DistanceModel is a model fitted on a distance table, which places new
// objects from their distances to its reference objects.
type DistanceModel interface {
	// FromDistances reports whether the model reads distances, not
	// features.
	FromDistances() bool
	// ReferenceRow returns the row of a reference object's id (as text).
	ReferenceRow(id string) (int32, bool)
	// MinDistances is the fewest distances to reference objects a new
	// object needs.
	MinDistances() int
	// PlaceObjects places objects: dist[o] are the PLAIN distances of
	// object o to the reference rows ref[o]. A failing object is a
	// *transforms.ItemError.
	PlaceObjects(ctx context.Context, dst []float64, ref [][]int32, dist [][]float64, threads int) error
}

// AuxiliaryModel is a model file that another stage reads and apply cannot
// use (the fisher stage's metric or set-up): NotApplicable says what to do
// with it instead.
type AuxiliaryModel interface {
	NotApplicable() error
}

// preparer is a model with work to do once before it places rows (a
// neighbour index): apply calls it before the first batch, so that bad
// settings fail before any output.
type preparer interface {
	Prepare(ctx context.Context, threads int) error
}

// releaser is a model that holds Arrow memory.
type releaser interface{ Release() }
