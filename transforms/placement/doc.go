// Package placement is the model of a fitted map that places new rows: the
// reference rows (their ids, their features as fitted, a graph of their
// nearest neighbours) and their positions, from which a new row is placed
// by optimising its own position against the fixed map. Methods that fit
// such maps (tsne, nerv) bring the per-row numerics as a Method and
// register the model kind "placement" for their stage (Register); this
// package holds what they share: the neighbour search over the reference
// features (kernels.Index on the stored graph), the parallel loop with one
// Worker per goroutine, the model file, and Reference and MedianInit.
//
// # Conventions
//
// A reference map is N points of Dims coordinates, row-major (Reference).
// A new row arrives as its nearest reference rows, ascending by distance,
// with their SQUARED input distances (found with the neighbour index on
// the standardised features, or taken from a distance table's PLAIN
// distances, squared). The position of a new row depends only on the
// reference, the settings and that row: never on other new rows, the
// batch it came in, or the number of threads. Methods start a new row at
// the coordinate-wise median of the reference positions of its nearest
// rows (openTSNE's "median" initialisation); MedianInit states the tie
// rule.
//
// # Sources
//
// A model's Source says how a new row finds its reference rows:
// FromFeatures (the neighbour index over the standardised features,
// Euclidean), FromDistances (the caller gives its distances to reference
// objects), or a source registered with RegisterSource, whose Searcher
// hands each standardised row its candidate reference rows and their
// squared distances in another metric (package fisher registers "fisher":
// Fisher distances). Such a model stores features and a graph as
// FromFeatures does, and its searcher's settings in the header under the
// source's name.
//
// # File
//
// A model file holds one row per reference row: id, x_0 … (standardised
// features), emb_0 … (position), nn_0 … (graph) and w_0 … (label weights,
// null for an unlabelled row). The header's params hold the source
// ("features" or "distances"), the standardisation, the graph degree, the
// classes, the reference row count, the fit's figures ("fit") and the
// method's settings under the stage's name ("tsne", "nerv").
//
// Load takes nothing in a header on trust: every count it allocates by
// (dims, features, graph degree, classes) must match the table's columns
// (transforms.ModelFile.CheckColumns) before it allocates, the graph
// degree must be below the reference rows, the reference row count must
// be the table's, reference ids must be unique (a new object is placed
// beside the reference row its distances name), and the feature names
// must be those the model's own provenance records (CheckFeatures).
package placement
