// Package place puts new points into a fixed, already fitted embedding (the
// reference map): the per-row numerics behind apply for t-SNE and NeRV
// models.
//
// # Conventions
//
// A reference map is N points of Dims coordinates, row-major (Reference).
// A new row arrives as its nearest reference rows, ascending by distance,
// with their SQUARED input distances (the caller finds them, with
// kernels' neighbour index or from a distance table). The position of a
// new row depends only on the reference, the options and that row's
// neighbours: never on other new rows, the batch it came in, or the
// number of threads. Placers are built once per model and are safe for
// concurrent use; each goroutine brings its own Scratch.
//
// # Initialisation
//
// Both methods start a new row at the coordinate-wise median of the
// reference positions of its nearest InitNeighbors rows (openTSNE's
// "median" initialisation); MedianInit states the tie rule.
//
// # t-SNE
//
// (TSNE; written with tsne.go.)
//
// # NeRV
//
// (NeRV; written with nerv.go.)
package place
