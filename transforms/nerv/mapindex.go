package nerv

import (
	"math"
	"slices"

	"github.com/ordinate/ordinate/transforms/placement"

	"github.com/ordinate/ordinate/kernels"
)

// mapIndex is a uniform bucket grid over the first min(Dims, 2) coordinates
// of a reference map, for the output-side searches of a placement: the
// nearest reference point to a position, and every reference point within a
// radius of it. Distances are always the full Dims-dimensional ones; the
// grid only prunes (a projected distance bounds the full one from below).
// It is built once per model and only read afterwards, so it is safe for
// concurrent use.
type mapIndex struct {
	y       []float64
	n, dims int
	g       int        // grid dimensions, min(dims, 2)
	lo      [2]float64 // grid origin
	cell    float64    // cell side
	inv     float64    // 1/cell
	nc      [2]int     // cells per grid dimension (nc[1] = 1 when g = 1)
	start   []int32    // cell c holds pts[start[c]:start[c+1]]
	pts     []int32    // point indices by cell, ascending within a cell
	rank    []int32    // rank[j]: the position of point j in pts
}

// mapIndexMaxCells bounds the grid at this many cells per reference point:
// a map with far outliers would otherwise need a huge, mostly empty grid.
const mapIndexMaxCells = 2

// newMapIndex builds the grid with cells of side cell (enlarged when the
// map's bounding box would need more than 2N cells; a cell ≤ 0 or NaN is
// chosen from the map's density, about 2 points per cell).
func newMapIndex(ref placement.Reference, cell float64) *mapIndex {
	ref.Check()
	m := &mapIndex{y: ref.Y, n: ref.N, dims: ref.Dims, g: min(ref.Dims, 2)}
	hi := [2]float64{}
	for a := range m.g {
		m.lo[a], hi[a] = math.Inf(1), math.Inf(-1)
		for j := range m.n {
			v := m.y[j*m.dims+a]
			m.lo[a], hi[a] = min(m.lo[a], v), max(hi[a], v)
		}
	}
	ext := [2]float64{hi[0] - m.lo[0], hi[1] - m.lo[1]}
	maxCells := float64(mapIndexMaxCells * m.n)
	if !(cell > 0) || math.IsInf(cell, 1) {
		vol := 1.0
		for a := range m.g {
			vol *= ext[a]
		}
		cell = math.Pow(vol*2/float64(m.n), 1/float64(m.g))
	}
	if !(cell > 0) || math.IsInf(cell, 1) { // all points on a line or a point
		cell = max(ext[0], ext[1], 1)
	}
	for {
		cells := 1.0
		for a := range m.g {
			cells *= math.Floor(ext[a]/cell) + 1
		}
		if cells <= maxCells {
			break
		}
		cell *= math.Max(1.0001, math.Pow(cells/maxCells, 1/float64(m.g)))
	}
	m.cell, m.inv = cell, 1/cell
	m.nc = [2]int{1, 1}
	for a := range m.g {
		m.nc[a] = int(math.Floor(ext[a]/cell)) + 1
	}
	ncell := m.nc[0] * m.nc[1]
	m.start = make([]int32, ncell+1)
	for j := range m.n {
		m.start[m.cellOf(m.y[j*m.dims:])+1]++
	}
	for c := range ncell {
		m.start[c+1] += m.start[c]
	}
	fill := slices.Clone(m.start[:ncell])
	m.pts, m.rank = make([]int32, m.n), make([]int32, m.n)
	for j := range m.n { // ascending j, so each cell's list is ascending
		c := m.cellOf(m.y[j*m.dims:])
		m.pts[fill[c]], m.rank[j] = int32(j), fill[c]
		fill[c]++
	}
	return m
}

// coord returns the (clamped) cell coordinate of v along grid axis a.
func (m *mapIndex) coord(v float64, a int) int {
	f := math.Floor((v - m.lo[a]) * m.inv)
	switch {
	case !(f >= 0): // also NaN
		return 0
	case f >= float64(m.nc[a]-1):
		return m.nc[a] - 1
	}
	return int(f)
}

// cellOf returns the cell of the point whose coordinates start at y.
func (m *mapIndex) cellOf(y []float64) int {
	c := m.coord(y[0], 0)
	if m.g == 2 {
		c += m.nc[0] * m.coord(y[1], 1)
	}
	return c
}

// nearest returns the reference point nearest to y (the smallest index
// among ties) and its squared distance. It searches rings of cells around
// y's cell until no unvisited cell can hold a closer point.
func (m *mapIndex) nearest(y []float64) (int32, float64) {
	var c [2]int
	for a := range m.g {
		c[a] = m.coord(y[a], a)
	}
	best, bj := math.Inf(1), int32(-1)
	visit := func(cx, cy int) {
		if cx < 0 || cy < 0 || cx >= m.nc[0] || cy >= m.nc[1] {
			return
		}
		cl := cx + m.nc[0]*cy
		for _, j := range m.pts[m.start[cl]:m.start[cl+1]] {
			d := kernels.EmbedSqDist(y, m.y[int(j)*m.dims:int(j+1)*m.dims])
			if d < best || d == best && j < bj {
				best, bj = d, j
			}
		}
	}
	for k := 0; ; k++ {
		if m.g == 1 {
			visit(c[0]-k, 0)
			if k > 0 {
				visit(c[0]+k, 0)
			}
		} else {
			for cx := c[0] - k; cx <= c[0]+k; cx++ {
				visit(cx, c[1]-k)
				if k > 0 {
					visit(cx, c[1]+k)
				}
			}
			for cy := c[1] - k + 1; cy <= c[1]+k-1; cy++ {
				visit(c[0]-k, cy)
				visit(c[0]+k, cy)
			}
		}
		// Every unvisited cell lies beyond one of the block's inner sides;
		// the nearest such side bounds their distance from below.
		lb, open := math.Inf(1), false
		for a := range m.g {
			if c[a]-k > 0 {
				open = true
				lb = min(lb, y[a]-(m.lo[a]+float64(c[a]-k)*m.cell))
			}
			if c[a]+k < m.nc[a]-1 {
				open = true
				lb = min(lb, m.lo[a]+float64(c[a]+k+1)*m.cell-y[a])
			}
		}
		if !open {
			return bj, best
		}
		lb -= 1e-9 * m.cell // rounding of the cell arithmetic: err on visiting more
		if lb > 0 && best < lb*lb {
			return bj, best
		}
	}
}

// within appends to dst[:0] every reference point at squared distance at
// most r2 from y, in the grid's order (ascending rank: by cell, then by
// index), and returns it. The order of a point set is the same whatever
// query found it.
func (m *mapIndex) within(dst []int32, y []float64, r2 float64) []int32 {
	dst = dst[:0]
	r := math.Sqrt(r2)
	var lo, hi [2]int
	for a := range m.g {
		lo[a], hi[a] = m.coord(y[a]-r, a), m.coord(y[a]+r, a)
	}
	for cy := lo[1]; cy <= hi[1]; cy++ {
		for cx := lo[0]; cx <= hi[0]; cx++ {
			cl := cx + m.nc[0]*cy
			for _, j := range m.pts[m.start[cl]:m.start[cl+1]] {
				if kernels.EmbedSqDist(y, m.y[int(j)*m.dims:int(j+1)*m.dims]) <= r2 {
					dst = append(dst, j)
				}
			}
		}
	}
	return dst
}
