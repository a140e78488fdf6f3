package nerv

import (
	"fmt"
	"math"

	"github.com/ordinate/ordinate/kernels"
)

// CellGrid buckets the points of a low-dimensional embedding into cubic
// cells for fixed-radius queries: every point within r of a centre lies in
// the cells that meet the box [centre − r, centre + r], and those cells'
// points are contiguous runs of Perm (cells are numbered with axis 0
// fastest, so a run spans the cells along axis 0). Pos holds the points'
// coordinates in that same order, so a query streams through memory.
//
// The zero value is ready for Build; its buffers are reused by later
// builds. It is not safe for concurrent Build, but Runs may be called
// concurrently once built.
type CellGrid struct {
	Dims  int
	Lo    [kernels.MaxBHDims]float64 // the lower corner of cell 0
	Side  float64                    // the edge of a cell
	Shape [kernels.MaxBHDims]int     // cells per axis
	Start []int32                    // cells+1 offsets into Perm and Pos
	Perm  []int32                    // point indices in cell order (stable within a cell)
	Pos   []float64                  // coordinates in cell order, n×Dims
	cell  []int32
}

// CellGridMaxCells bounds the cells of a grid over n points at
// max(4n, 64): a wider Side is taken when the requested one would need more,
// so memory stays O(n) however far the points spread.
func CellGridMaxCells(n int) int { return max(4*n, 64) }

// Build buckets y (n×dims) into cells of edge at least side over the
// points' bounding box and reports true; the layout depends only on y and
// side, never on the thread count. It reports false, leaving g unusable,
// when a coordinate is not finite or the box's extent overflows (an
// optimiser's overshoot, not a caller's mistake). It panics unless
// 1 ≤ dims ≤ kernels.MaxBHDims, len(y) = n·dims and side is finite and > 0.
func (g *CellGrid) Build(y []float64, n, dims int, side float64) bool {
	kernels.CheckEmbedding(y, n, dims)
	if dims > kernels.MaxBHDims {
		panic(fmt.Sprintf("nerv: CellGrid needs dims ≤ %d, got %d", kernels.MaxBHDims, dims))
	}
	if !(side > 0) || math.IsInf(side, 1) {
		panic(fmt.Sprintf("nerv: CellGrid side %v, want finite and > 0", side))
	}
	g.Dims = dims
	var hi [kernels.MaxBHDims]float64
	for c := range dims {
		lo, up := math.Inf(1), math.Inf(-1)
		for i := range n {
			v := y[i*dims+c]
			lo, up = min(lo, v), max(up, v)
		}
		if n == 0 {
			lo, up = 0, 0
		}
		if math.IsInf(up-lo, 0) || math.IsNaN(up-lo) {
			return false // ±Inf coordinates, or an overflowing extent
		}
		g.Lo[c], hi[c] = lo, up
	}
	g.Side = side
	for {
		cells := 1.0
		for c := range dims {
			cells *= math.Floor((hi[c]-g.Lo[c])/g.Side) + 1
		}
		if limit := float64(CellGridMaxCells(n)); cells > limit {
			g.Side *= math.Max(math.Pow(cells/limit, 1/float64(dims)), 1+1e-9)
			continue
		}
		break
	}
	total := 1
	for c := range dims {
		g.Shape[c] = int(math.Floor((hi[c]-g.Lo[c])/g.Side)) + 1
		total *= g.Shape[c]
	}
	g.Start = kernels.Grow(g.Start, total+1)
	clear(g.Start)
	g.cell = kernels.Grow(g.cell, n)
	for i := range n {
		k := g.cellOf(y[i*dims : (i+1)*dims])
		g.cell[i] = int32(k)
		g.Start[k+1]++
	}
	for k := 1; k <= total; k++ {
		g.Start[k] += g.Start[k-1]
	}
	g.Perm = kernels.Grow(g.Perm, n)
	g.Pos = kernels.Grow(g.Pos, n*dims)
	// Counting sort: each cell's next free slot, kept in the cell array's
	// own Start entry shifted by one and restored afterwards.
	for i := range n {
		k := g.cell[i]
		p := g.Start[k]
		g.Start[k]++
		g.Perm[p] = int32(i)
		copy(g.Pos[int(p)*dims:int(p+1)*dims], y[i*dims:(i+1)*dims])
	}
	for k := total; k > 0; k-- {
		g.Start[k] = g.Start[k-1]
	}
	g.Start[0] = 0
	return true
}

// cellOf returns the cell index of point p.
func (g *CellGrid) cellOf(p []float64) int {
	k, stride := 0, 1
	for c := range g.Dims {
		x := min(int((p[c]-g.Lo[c])/g.Side), g.Shape[c]-1)
		k += max(x, 0) * stride
		stride *= g.Shape[c]
	}
	return k
}

// AppendRuns appends to dst the runs [lo, hi) of Perm (and of Pos's rows)
// whose cells meet the ball of radius r around centre, and returns it.
// Every point within distance r of centre is in one of the runs; runs hold
// other points too, which the caller filters by distance. Each run spans
// the cells along axis 0 that meet the ball's chord at its row of cells
// (the nearest point of the row's other axes), so with cells a fraction of
// r wide the runs hug the ball rather than its box. Runs come in a fixed
// order (axis dims−1 slowest).
func (g *CellGrid) AppendRuns(dst [][2]int32, centre []float64, r float64) [][2]int32 {
	dims := g.Dims
	var lo, hi [kernels.MaxBHDims]int
	for c := range dims {
		a := (centre[c] - r - g.Lo[c]) / g.Side
		b := (centre[c] + r - g.Lo[c]) / g.Side
		if !(b >= 0) || !(a < float64(g.Shape[c])) {
			return dst // the box misses the grid (or r is NaN)
		}
		lo[c] = int(max(a, 0))
		hi[c] = int(min(b, float64(g.Shape[c]-1)))
	}
	// Iterate the cells of axes 1… as an odometer; axis 0 is one run.
	idx := lo
	for {
		base, stride := 0, g.Shape[0]
		gap := 0.0 // squared distance from centre to the row's cells along axes 1…
		for c := 1; c < dims; c++ {
			base += idx[c] * stride
			stride *= g.Shape[c]
			cellLo := g.Lo[c] + float64(idx[c])*g.Side
			// The slack keeps a point that rounding put in this cell
			// rather than its neighbour.
			if d := max(cellLo-centre[c], centre[c]-(cellLo+g.Side), 0) - 1e-9*g.Side; d > 0 {
				gap += d * d
			}
		}
		if rem := r*r - gap; rem >= 0 {
			half := math.Sqrt(rem)
			a := int(max((centre[0]-half-g.Lo[0])/g.Side, float64(lo[0])))
			b := int(min((centre[0]+half-g.Lo[0])/g.Side, float64(hi[0])))
			if s, e := g.Start[base+a], g.Start[base+b+1]; b >= a && e > s {
				dst = append(dst, [2]int32{s, e})
			}
		}
		c := 1
		for ; c < dims; c++ {
			if idx[c] < hi[c] {
				idx[c]++
				break
			}
			idx[c] = lo[c]
		}
		if c >= dims {
			return dst
		}
	}
}
