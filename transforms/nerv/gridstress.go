package nerv

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ordinate/ordinate/kernels"
)

// Grid NeRV stress for large n (GridStress): the objective of BH.Stress with
// tol = 0 (stressbh.go: sparse β floored at ε_i, one global scale s, a_ij =
// D²_ij/(2s²)), its sums over all j taken on a regular grid.
//
// Units. Inside, positions are u = y/s, so a_ij = |u_i − u_j|²/2 and the
// two kernels are K(d) = exp(−|d|²/2) and K_A(d) = (|d|²/2)·K(d) = a·e.
//
// Sums. Row i needs, over j ≠ i, Z = Σ e_ij, S_Λ = Σ Λ_ij e_ij, A = Σ a_ij
// e_ij and A_Λ = Σ Λ_ij a_ij e_ij (e_ij = K(u_i − u_j)); with S1 = Z − S_Λ,
// S_A = A − A_Λ, L = log Z and ℓ = log ε_i, the as-if-outside part of
// stressbh.go is
//
//	Σ_j t_ij = (S_Λ + S1(−L − ℓ − 1) − S_A)/Z,  G⁰ = Σ_j g⁰_ij = that + S1/Z,
//
// and the K listed pairs are corrected exactly (d_q = g_iq − g⁰_iq), as BH
// does. For one-hot labels Λ_ij depends only on the groups of i and j
// (classes, and U for the unlabelled): τ_in, τ_out or γ. So S_Λ of a row of
// class c is the field M_c = τ_out Q_L + γ Q_U + (τ_in − τ_out) Q_c
// convolved with K, read at u_i (Q_g: unit charges of group g), and of an
// unlabelled row γZ; with no labels (or α = 0) there is one group.
//
// Gradient. ζ_i depends on the four sums and on the listed a_iq:
//
//	∂ζ_i/∂Z = −(1 + L + ℓ + G_i)/Z,  ∂ζ_i/∂S_Λ = (2 + L + ℓ)/Z,
//	∂ζ_i/∂A = −1/Z,  ∂ζ_i/∂A_Λ = 1/Z,  ∂ζ_i/∂a_iq = −d_q,
//
// G_i = G⁰ + Σ_q d_q (this gives c_ij = b_ij G_i − g_ij of stress.go). A
// pair (i, l) enters row i's sums as target and row l's as source; the
// grid kernel K̃ is symmetric, so ∂ζ/∂u_l is row l's coefficients times the
// gradients of its own fields at u_l (pass 1) plus the gradient at u_l of
// the field that the rows' coefficients spread as charges, per source
// group k: c_jk = ∂ζ_j/∂Z + Λ(g_j, k)·∂ζ_j/∂S_Λ with K, and the A pair with
// K_A (pass 2). The self pairs j = i are in the grid sums and are removed
// with their exact grid value K̃(u_i, u_i) (not K(0) = 1, so that an
// isolated row keeps its relative accuracy), and so is their derivative
// (2·∇₁K̃(u_i, u_i)). The gradient is that of the grid objective itself,
// interpolation included: central differences of Stress match it.
//
// Grid. A point's unit charge is spread onto the nodes (spacing δ) with
// the Gaussian window w(d) = exp(−d²/2τ) − edge (0 beyond the radius where
// it reaches edge), the charges are convolved with a Gaussian of variance
// σ_c² = 1 − 2τ, and fields are read back with the same window: since a
// Gaussian of variance 1 is the convolution of those of τ, σ_c² and τ,
//
//	K̃(u, v) = Σ_m Σ_m' w_m(u) k(m − m') w_m'(v),
//	k(o) = δ²/(2πτσ_c)·exp(−(oδ)²/2σ_c²)  per axis,
//
// is K(u − v) up to the grid's quadrature error, which by Poisson summation
// is relative and the same for near and far pairs: about
// 4·exp(−2π²τ(1 − τ)/δ²) + 2·exp(−4π²τσ_c²/δ²) per axis. (Lagrange
// interpolation, FIt-SNE's choice for t-SNE's Cauchy kernel, measured on
// this Gaussian with 3 to 8 nodes per interval and 2 to 4 per width: max
// absolute errors of 1e-2 to 4e-4, and relative errors above 1 at 4
// widths; no use at 1e-5.) K_A =
// s²∂K/∂s², so its taps are k's derivative in σ_c² (k_A). Windows and
// taps are truncated where the pairs up to the reach r_f = √(2 log(1/Tol))
// (e_ij = Tol) keep their relative accuracy; farther pairs fade out, as the
// cut-off drops them. All three are set by Tol (gridPlan).
//
// Convolution. The Gaussian is separable, so K = k_x k_y and K_A = k_Ax k_y +
// k_x k_Ay: direct convolutions along the rows, then across them (tap
// pairs ±o folded), 2t + 1 taps each (t = 10 at the default Tol, with δ =
// 0.52 s and windows of 14 nodes per axis). That is half the time of a
// zero-padded real FFT with kept kernel spectra (kernels.RealFFT2) on 256²
// and 1024² nodes (BenchmarkGridConvolution: 2.1 against 4.2 ms and 37
// against 75 ms), keeps each node's sums positive and relative (an FFT's
// rounding error is relative to the largest potential, so a sparse region
// beside a dense one would lose its accuracy), and skips the runs of zero
// charge at either end of a row.
//
// Islands. The grid's nodes lie on one global lattice (node m of an axis
// at u = mδ), so a point's windows depend on its own position only, and
// K̃(u, v) is exactly 0 unless |u − v| < (2·half + t)δ on every axis (the
// windows' spans and the taps' reach; 12.5 widths at the default Tol). The
// points are partitioned into islands: the connected components of the
// occupied cells of a coarse lattice, W = 2·half + t + 1 nodes a side
// (found by a hash map of the occupied cells and a union–find over their
// neighbours), so a pair with K̃ ≠ 0 lies in the same or adjacent cells,
// hence in one island. The islands decide which points get grid sums: a
// point alone in its island has none (K̃ = 0 with every other point), nor
// have the points of an island whose exact rows cost less than a grid over
// its bounding box (gridIslandPairs); they take the exact rows below.
//
// Tiles. The nodes are held in tiles, T×T squares of the lattice (tile
// (tx, ty) holds the nodes [tx·T, tx·T + T) × [ty·T, ty·T + T); one node
// across on a 1-D map's trivial axis), with T = max(2·half, t + 1) (14 at
// the default Tol), so that a window meets at most 2×2 tiles and a tap
// reaches only the tiles next to its own. The tiles are those that the
// windows of the points with grid sums cover (a point's own tile, that of
// its window's first node, and those right, above and diagonal of it that
// its window reaches into), and the corners: a missing tile with a
// covered one above or below it and one left or right of it. That is
// exact: charges lie in covered tiles only, and a missing tile is read as
// zero. The pass along the rows at a tile takes charges from it and the
// tiles left and right of it (T > t), zero where missing; the pass across
// at a covered tile reads the row-convolved grid of the tiles above and
// below it, which is zero where missing unless a tile left or right of
// that one holds charges: a corner, kept (its charges are zero, its
// row-convolved grid is not; no window reads its fields). K_A's taps have
// k's support, so the same holds for them. The objective is the same
// function of y as on one grid over the whole map. The consecutive tiles
// of a tile row make a run, stored as T rows of their joint width, the
// runs one after another: a window's row lies in one run (its two tiles
// are covered, so consecutive), and a window in at most two runs (its own
// tile row and the one above). So the nodes (memory and time) follow the
// occupied area: islands of classes far apart, or blobs joined into one
// island by a few points between them (whose bounding box may be mostly
// empty), cost their blobs' tiles and a band of tiles along the joining
// points.
//
// Selections. A group's charges and fields are taken over its selection
// only: the tiles within one tile of those its points cover (with a class
// per island, each class costs its own island's tiles). Its charges lie
// there and its fields are zero beyond (t < T), so the fields T and B that
// sum the groups' fields over their selections are exact on every covered
// tile; and the field of all the rows' charges (pass 2), read by the
// group's points, needs the row-convolved grid on the tiles above and
// below theirs, which takes charges from the tiles next to those: all of
// them within the selection. The selection's runs of tiles (segments) are
// convolved along the rows with zero padding at their ends (the tiles
// beyond are missing or hold no charge that reaches a covered tile the
// selection's fields are read on), and across the rows from the segment's
// own rows and those of the segments above and below it; the fields on
// the selection's other tiles are not read. A node outside the selection
// is never read (buffers keep the last group's values there).
//
// Rows whose grid normaliser is below exp(gridExactLogZ) (a point several
// widths from all others, whose sums lie beyond the windows' reach) take
// the cut-off's exact sums instead (CutoffStress's row, with tol = Tol), for
// their own terms and their reactions.

// DefaultGridTol is GridStress's default Tol. Against BH.Stress with tol =
// 0 (TestGridStressAgainstBH) it gives relative stress errors of 3e-11 to
// 1e-7 and gradient errors of 4e-7 to 2e-5 on spread and dense maps
// (TestGridStressIslands: 2e-11 to 1e-8 and 4e-7 to 1e-5 on maps of far
// islands), and 5.8e-7 and 1.1e-4 on a small crowded one (60 points, half
// of them within 0.3 widths, so that all pairs see about the same
// quadrature error); at 1e-4 that map gave 9.7e-6 and 9.3e-4, at the
// targets 1e-5 and 1e-3. (The errors depend on the points' offsets from
// the lattice: before the lattice was fixed at the origin, that map gave
// 2.3e-7 and 1e-4.) The gradient error is about 2 to 10 times Tol, the
// stress error below Tol/10.
const DefaultGridTol = 1e-5

// gridTau is the window variance τ in units of s². A larger τ allows a
// coarser grid with fewer taps for the same quadrature error, for windows
// about as wide in nodes; beyond 0.3 the error of the narrow convolution
// (σ_c² = 1 − 2τ) takes over. At N = 20,000 (benchSparse's map), 0.25 and
// 0.3 were fastest at the same errors, 0.1 and 0.45 up to twice as slow.
const gridTau = 0.25

// gridIslandPairs is the most nodes per pair of its points that a grid
// over an island's bounding box may take for its points to get grid sums.
// An island of c points costs about c² kernel terms in exact rows (fewer
// when it spans more than the reach) and a grid's nodes times the passes'
// work per node, about 10 kernel terms: an island of a few points (a grid
// over its box is mostly the halo of windows, 31 nodes per point at 10
// points, its tiles 91) takes exact rows.
const gridIslandPairs = 0.1

// gridExactLogZ: rows with a grid normaliser below exp(gridExactLogZ) (no
// point within about 4 widths) take exact cut-off sums.
const gridExactLogZ = -8

// gridBuffers is the number of node grids GridStress holds at most (pass
// 2 with labels: two base and two class charges, two with unlabelled
// sources, two row-convolved grids and the field; without labels five).
const gridBuffers = 9

// ErrGridTooLarge is returned by GridStress.Stress when the tiles under
// the points' windows would have more than MaxNodes nodes in all (a map
// far larger than its density suggests: most points in small islands of
// their own, each with its windows' halo), or a coordinate lies beyond
// gridMaxIndex nodes from the origin: use CutoffStress for it.
var ErrGridTooLarge = errors.New("nerv: the map's grid would exceed GridStress.MaxNodes")

// gridMaxIndex bounds |u|/δ, so that lattice indices and their products
// stay exact in an int and a float64.
const gridMaxIndex = 1 << 50

// DefaultGridMaxNodes returns GridStress's default MaxNodes for n points:
// max(16n, 2²⁰). The grids then take at most 72 bytes per node
// (gridBuffers float64s), 1,152n bytes, besides the per-point buffers
// (about 400 bytes per point in 2-D, most of them the 16 chunk
// accumulators of the gradient, as in BH). A converged map has about
// 0.75K points per disc of one width, and a grid at the default Tol 3.7
// nodes per square width, so about half a node per point at K = 32
// within the islands' outlines, plus the halo of windows (7 nodes each
// side at the default Tol) and the tiles' rounding up (14 nodes a side).
// The tiles follow the occupied area (see the top of gridstress.go):
// benchSparse's converged maps take 6.2 (10⁵ points) to 7.2 nodes per
// point (5,000), BenchmarkNeRVGridIslands' 30 islands of 3,334 points
// 7.4, TestGridStressIslands' islands of 400 points 11.6 and islands of
// 100 points 21 (a grid over each island's bounding box took 8 to 9.3, 8,
// 8 and 10.7). Blobs joined into one island by chains of points cost a
// band of tiles along the chains: BenchmarkNeRVGridBridged's map
// (BenchmarkNeRVGridIslands' 30 islands so joined, chains 2.5 or 6 widths
// apart, 3.5 or 1.5 % of the points) takes 11.9 nodes per point, 13 % of
// its bounding box (9.4·10⁶ nodes, beyond this MaxNodes), and
// TestGridStressBridged's smaller maps 30 to 37 (14 to 16 %).
func DefaultGridMaxNodes(n int) int { return max(16*n, 1<<20) }

// GridStress holds the reusable state of grid NeRV stresses. The zero value
// is ready to use; it is not safe for concurrent use.
type GridStress struct {
	// Tol sets the grid's accuracy: the relative error of every pair's
	// kernel within reach, and the share of a row's normaliser that pairs
	// beyond reach may lose; 0 means DefaultGridTol. Cost grows with
	// log(1/Tol).
	Tol float64
	// MaxNodes bounds the nodes of the grid's tiles in all (and so its
	// memory, gridBuffers float64s per node); 0 means
	// DefaultGridMaxNodes(n).
	MaxNodes int
	// SoftLevels is the number of levels L to which soft labels are
	// rounded for the fields of pairs beyond the listed ones (see
	// gridsoft.go); 0 means DefaultGridSoftLevels. Hard labels are exact
	// at any L.
	SoftLevels int

	plan     gridPlan
	group    []int32 // each point's group: its class, or plan.nCls when unlabelled
	class    []int32 // hardLabels' classes (one-hot rows, else −1), or nil
	classBuf []int32
	part     gridOrder // the points by group, then tile
	pos      []int32   // each point's position in part
	tile     []int32   // each point's tile, or −1 (no grid sums)
	first    []int     // each point's first window node on axes 0 and 1
	nGrid    int       // points with a tile (positions [0, nGrid) of part)
	soft     gridSoft  // soft labels' channels (plan.soft)
	sel      gridSel
	// The islands (see the top of the file): occupied coarse cells, their
	// union–find parents, islands' extents.
	cellID  map[[2]int]int32
	cellKey [][2]int
	cellOf  []int32
	parent  []int32
	islands []gridIsland
	// The tiles as findTiles finds them: ids, keys and crossings (see
	// tileAt) in the order found, each point's id (−1: none); their sort
	// and ranks; a mark per tile (all false between uses).
	tileID    map[[2]int]int32
	tileKeys  [][2]int
	tileCross []uint8
	tileOf    []int32
	tileSort  []int32
	tileRank  []int32
	tileMark  []bool
	cellTiles []int32 // per coarse cell, the ids of the 3×3 tiles it meets
	grids     [gridBuffers][]float64
	ext       []int32 // per grid row: nonzero column extent of a row-convolved grid
	pt        []float64
	coef      []float64
	exact     []bool
	rows      []float64
	slots     []float64
	work      []gridWork
	cells     CellGrid
}

// gridWork is one worker's scratch.
type gridWork struct {
	wx, dwx, wy, dwy []float64
	pad0, padA       []float64
	halo             [2][]float64 // colPass's rows of the neighbour segments
	refs             []gridRowRef // colPass's source rows
	bh               nervBHScratch
}

// gridAxis is one axis of the grid: the map coordinate along it, −1 for
// the trivial axis (the rows' axis of a 1-D map has one node per row).
type gridAxis struct {
	coord int
}

// gridIsland is one island's point count and the extent of its points'
// first window nodes on axes 0 and 1; grid says whether its points get
// grid sums (and tiles).
type gridIsland struct {
	count  int
	lo, hi [2]int
	nodes  float64 // a grid over its bounding box: its nodes
	grid   bool
}

// gridSeg is a segment of the selection: consecutive selected tiles of
// one run, t0 … t1−1 (their rows are ts[1] rows of width nodes, from node
// node0 in steps of stride); below and above are the selection's segments
// of the tile rows below and above that share columns with it (index
// ranges into gridSel.segs).
type gridSeg struct {
	t0, t1               int32
	node0, stride, width int
	below, above         [2]int32
}

// gridSel is the part of the grid that a step covers (see the top of the
// file): the segments of the selected tiles, sorted by tile row, then
// column, and their nodes.
type gridSel struct {
	segs   []gridSeg
	rowSeg []int32 // the first segment of each tile row, then len(segs)
	nodes  int
}

// gridPlan is the window, the taps and the layout of one call.
type gridPlan struct {
	tol           float64
	tau, delta    float64
	edge, qStep   float64
	half          int       // a window spans 2·half nodes per axis
	k0, kA        []float64 // taps 0…t of k and k_A
	ax            [2]gridAxis
	dims          int
	nGroup, nCls  int     // groups (classes + U, or with soft labels L + U) and classes
	tauIn, tauOut float64 // Λ within and between classes
	gamma, alpha  float64
	soft          bool // soft labels: channels (gridsoft.go)
	// The tiles (see the top of the file): their side in nodes per axis
	// (1 on the trivial axis); each tile's (tx, ty), sorted by ty, then
	// tx; its first node and row length (its run's); its 3×3 neighbours
	// (tileNb[9t + 3(dy+1) + dx+1], −1 when missing). Then the tiles'
	// nodes and the longest run's row.
	ts       [2]int
	tileKey  [][2]int
	tileNode []int
	tileRow  []int
	tileNb   []int32
	nodes    int
	maxRow   int
}

// setTol derives the window, spacing and taps from tol (see the top of the
// file); they are kept while tol stays.
func (p *gridPlan) setTol(tol float64) {
	if tol == p.tol && p.k0 != nil {
		return
	}
	l := math.Log(1 / tol)
	tau := gridTau
	v, sc2 := tau*(1-tau), 1-2*tau
	delta := min(math.Pi*math.Sqrt(2*v/(l+math.Log(8))), 2*math.Pi*math.Sqrt(tau*sc2/(l+math.Log(4))))
	reach := math.Sqrt(2 * l)
	z := math.Sqrt(2 * (l + math.Log(4)))
	rw := tau*reach + z*math.Sqrt(v)
	rc := sc2*reach + z*math.Sqrt(2*tau*sc2)
	p.tol, p.tau, p.delta = tol, tau, delta
	p.edge = math.Exp(-rw * rw / (2 * tau))
	p.qStep = math.Exp(-delta * delta / tau)
	p.half = int(math.Ceil(rw / delta))
	t := int(math.Ceil(rc / delta))
	p.k0 = kernels.Grow(p.k0, t+1)
	p.kA = kernels.Grow(p.kA, t+1)
	c := delta * delta / (2 * math.Pi * tau * math.Sqrt(sc2))
	for o := range t + 1 {
		d2 := float64(o*o) * delta * delta
		p.k0[o] = c * math.Exp(-d2/(2*sc2))
		p.kA[o] = p.k0[o] * (0.5 - 0.5/sc2 + d2/(2*sc2*sc2))
	}
}

// width returns the window's nodes on axis a.
func (p *gridPlan) width(a int) int {
	if p.ax[a].coord < 0 {
		return 1
	}
	return 2 * p.half
}

// taps returns axis a's taps (k, k_A): the trivial axis has k = 1, k_A = 0.
func (p *gridPlan) taps(a int) (k0, kA []float64) {
	if p.ax[a].coord < 0 {
		return gridUnitTap[:], gridZeroTap[:]
	}
	return p.k0, p.kA
}

var gridUnitTap, gridZeroTap = [1]float64{1}, [1]float64{0}

// firstNode returns the first node of the window of a point at v (units
// of s) on a non-trivial axis: the window spans firstNode … firstNode +
// 2·half − 1, its centre between the nodes half − 1 and half.
func (p *gridPlan) firstNode(v float64) int {
	return int(math.Floor(v/p.delta)) - p.half + 1
}

// reach returns W, the side in nodes of the coarse cells that make the
// islands: K̃(u, v) = 0 unless the points' first nodes differ by less than
// 2·half + t on every axis (their windows' nodes within t of each other).
func (p *gridPlan) reach() int { return 2*p.half + len(p.k0) }

// window fills w and dw (length p.width(a)) with the window weights of the
// point at coordinate v (units of s) on axis a and their derivatives in v,
// and returns its first lattice node (0 on the trivial axis). The weights
// come from two exponentials and a recurrence: w_{m+1}/w_m = exp(((d −
// mδ)δ − δ²/2)/τ).
func (p *gridPlan) window(a int, v float64, w, dw []float64) int {
	if p.ax[a].coord < 0 {
		w[0], dw[0] = 1, 0
		return 0
	}
	first := p.firstNode(v)
	d := v - float64(first)*p.delta
	inv := 1 / p.tau
	g := math.Exp(-d * d * inv / 2)
	q := math.Exp((d*p.delta - p.delta*p.delta/2) * inv)
	for m := range w {
		if g > p.edge {
			w[m], dw[m] = g-p.edge, -d*inv*g
		} else {
			w[m], dw[m] = 0, 0
		}
		g *= q
		q *= p.qStep
		d -= p.delta
	}
	return first
}

// tileSide returns T, the side of a tile in nodes on a non-trivial axis:
// the least that keeps a window within 2×2 tiles and a tap within the
// tiles next to its own, a window's 2·half nodes or the taps' t + 1 (see
// the top of the file). Larger tiles (up to 25 nodes at the default Tol)
// were as fast on BenchmarkNeRVGrid and BenchmarkNeRVGridIslands, with
// up to a quarter more nodes.
func (p *gridPlan) tileSide() int {
	return max(2*p.half, len(p.k0))
}

// setTiles lays out the tiles of p.tileKey (sorted by ty, then tx,
// distinct): the runs of consecutive tiles of a tile row are stored one
// after another, each as ts[1] rows of its tiles' width, so each tile's
// first node and row length; then the tiles' neighbours.
func (p *gridPlan) setTiles() {
	keys := p.tileKey
	m := len(keys)
	p.tileNode = kernels.Grow(p.tileNode, m)
	p.tileRow = kernels.Grow(p.tileRow, m)
	node, long := 0, 0
	for r := 0; r < m; {
		e := r + 1
		for e < m && keys[e][1] == keys[r][1] && keys[e][0] == keys[e-1][0]+1 {
			e++
		}
		width := (e - r) * p.ts[0]
		for k := r; k < e; k++ {
			p.tileNode[k], p.tileRow[k] = node+(k-r)*p.ts[0], width
		}
		node += width * p.ts[1]
		long = max(long, width)
		r = e
	}
	p.nodes, p.maxRow = node, long
	p.setNeighbours()
}

// setNeighbours fills tileNb: left and right within a tile row, and the
// three above (and so, symmetrically, the three below) by merging each
// tile row with the next when that is the row above.
func (p *gridPlan) setNeighbours() {
	keys := p.tileKey
	m := len(keys)
	p.tileNb = kernels.Grow(p.tileNb, 9*m)
	for k := range p.tileNb {
		p.tileNb[k] = -1
	}
	for t := range m {
		p.tileNb[9*t+4] = int32(t)
		if t > 0 && keys[t-1] == [2]int{keys[t][0] - 1, keys[t][1]} {
			p.tileNb[9*t+3], p.tileNb[9*(t-1)+5] = int32(t-1), int32(t)
		}
	}
	for r := 0; r < m; {
		e := r + 1 // the row [r, e), the next [e, f)
		for e < m && keys[e][1] == keys[r][1] {
			e++
		}
		f := e
		for f < m && keys[f][1] == keys[e][1] {
			f++
		}
		if e < m && keys[e][1] == keys[r][1]+1 {
			u := e
			for t := r; t < e; t++ {
				x := keys[t][0]
				for u < f && keys[u][0] < x-1 {
					u++
				}
				for v := u; v < f && keys[v][0] <= x+1; v++ {
					dx := keys[v][0] - x // the tile above, up-left or up-right
					p.tileNb[9*t+7+dx] = int32(v)
					p.tileNb[9*v+1-dx] = int32(t)
				}
			}
		}
		r = e
	}
}

// tileAt returns the tile holding a window whose first nodes are f (on
// axes 0 and 1) and which of the tiles right, above and diagonal of it the
// window reaches into (bits 1, 2 and 4).
func (p *gridPlan) tileAt(f [2]int) (key [2]int, cross uint8) {
	for a := range 2 {
		key[a] = floorDiv(f[a], p.ts[a])
		if f[a]-key[a]*p.ts[a]+p.width(a) > p.ts[a] {
			cross |= 1 << a
		}
	}
	if cross == 3 {
		cross |= 4
	}
	return key, cross
}

// layout partitions the points of y (scaled by 1/scale) into islands,
// decides which islands' points get grid sums, and finds the tiles under
// their windows (see the top of the file). It reports whether the
// coordinates and their extents are finite, and the tiles' nodes in all
// (as a float64, which cannot overflow; +Inf for a coordinate beyond
// gridMaxIndex nodes). The tiles' layout and the points' tiles are set
// only if the nodes are at most maxNodes.
func (g *GridStress) layout(y []float64, n, dims int, scale float64, maxNodes int) (nodes float64, ok bool) {
	p := &g.plan
	p.dims = dims
	p.ax[0].coord, p.ax[1].coord = -1, -1
	inv := 1 / scale // as gridEval.windows scales
	far := false
	for c := range dims {
		p.ax[c+2-dims].coord = c // dims 1: the coordinate across, one node per row
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range n {
			v := y[i*dims+c] * inv
			lo, hi = min(lo, v), max(hi, v)
		}
		if math.IsNaN(hi-lo) || math.IsInf(hi-lo, 0) {
			return 0, false
		}
		far = far || max(-lo, hi) > gridMaxIndex*p.delta
	}
	if far {
		return math.Inf(1), true
	}
	// Every point's first window nodes, and its coarse cell.
	g.first = kernels.Grow(g.first, 2*n)
	g.cellOf = kernels.Grow(g.cellOf, n)
	if g.cellID == nil {
		g.cellID = make(map[[2]int]int32)
	}
	clear(g.cellID)
	g.cellKey = g.cellKey[:0]
	w := p.reach()
	last, lastID := [2]int{}, int32(-1)
	for i := range n {
		var key [2]int
		for a := range 2 {
			f := 0
			if c := p.ax[a].coord; c >= 0 {
				f = p.firstNode(y[i*dims+c] * inv)
			}
			g.first[2*i+a] = f
			key[a] = floorDiv(f, w)
		}
		if lastID < 0 || key != last {
			id, seen := g.cellID[key]
			if !seen {
				id = int32(len(g.cellKey))
				g.cellID[key] = id
				g.cellKey = append(g.cellKey, key)
			}
			last, lastID = key, id
		}
		g.cellOf[i] = lastID
	}
	// Union–find over adjacent occupied cells; a component's root is its
	// smallest cell, so the islands come in the order of their first
	// points.
	cells := len(g.cellKey)
	g.parent = kernels.Grow(g.parent, cells)
	for c := range cells {
		g.parent[c] = int32(c)
	}
	for c, key := range g.cellKey {
		for _, o := range [4][2]int{{-1, -1}, {0, -1}, {1, -1}, {-1, 0}} {
			if o[0] != 0 && p.ax[0].coord < 0 {
				continue
			}
			if nb, found := g.cellID[[2]int{key[0] + o[0], key[1] + o[1]}]; found {
				g.union(int32(c), nb)
			}
		}
	}
	// Every parent precedes its cell, so in cell order the parent's entry
	// already holds its island: each entry becomes its cell's island.
	g.islands = g.islands[:0]
	for c := range cells {
		if pc := g.parent[c]; pc == int32(c) {
			g.parent[c] = int32(len(g.islands))
			g.islands = append(g.islands, gridIsland{lo: [2]int{math.MaxInt, math.MaxInt}, hi: [2]int{math.MinInt, math.MinInt}})
		} else {
			g.parent[c] = g.parent[pc]
		}
	}
	for i := range n {
		is := &g.islands[g.parent[g.cellOf[i]]]
		is.count++
		for a := range 2 {
			f := g.first[2*i+a]
			is.lo[a], is.hi[a] = min(is.lo[a], f), max(is.hi[a], f)
		}
	}
	// Grid sums for the points of every island of two or more points,
	// unless its exact rows are cheaper than a grid over its bounding box
	// (gridIslandPairs); those rows are exact (see the top of the file).
	for k := range g.islands {
		is := &g.islands[k]
		is.nodes = 1
		for a := range 2 {
			if p.ax[a].coord >= 0 {
				is.nodes *= float64(is.hi[a] - is.lo[a] + 2*p.half)
			}
		}
		c := float64(is.count)
		is.grid = c >= 2 && is.nodes <= gridIslandPairs*c*c
	}
	nodes = g.findTiles(n)
	if nodes > float64(maxNodes) {
		return nodes, true
	}
	g.setTiles(n)
	return nodes, true
}

// findTiles collects the tiles of the points with grid sums (see the top
// of the file): each point's own tile (that of its window's first node),
// those its window reaches into, and the corners (a missing tile with a
// covered one above or below and one left or right of it). It returns
// their nodes. The tiles are g.tileKeys in the order found, each point's
// g.tileOf.
func (g *GridStress) findTiles(n int) float64 {
	p := &g.plan
	ts := p.tileSide()
	p.ts = [2]int{ts, ts}
	if p.ax[0].coord < 0 {
		p.ts[0] = 1
	}
	if g.tileID == nil {
		g.tileID = make(map[[2]int]int32)
	}
	clear(g.tileID)
	g.tileKeys, g.tileCross = g.tileKeys[:0], g.tileCross[:0]
	g.tileOf = kernels.Grow(g.tileOf, n)
	// A coarse cell (W ≤ 2T nodes a side) meets at most 3×3 tiles: each
	// cell keeps their ids, so the map is asked once per cell and tile.
	w := p.reach()
	g.cellTiles = kernels.Grow(g.cellTiles, 9*len(g.cellKey))
	for k := range g.cellTiles {
		g.cellTiles[k] = -1
	}
	for i := range n {
		g.tileOf[i] = -1
		c := g.cellOf[i]
		if !g.islands[g.parent[c]].grid {
			continue
		}
		key, cross := p.tileAt([2]int{g.first[2*i], g.first[2*i+1]})
		slot := 9 * int(c)
		for a, m := range [2]int{1, 3} {
			slot += m * (key[a] - floorDiv(g.cellKey[c][a]*w, p.ts[a]))
		}
		id := g.cellTiles[slot]
		if id < 0 {
			id = g.addTile(key)
			g.cellTiles[slot] = id
		}
		g.tileOf[i] = id
		g.tileCross[id] |= cross
	}
	for id := range len(g.tileKeys) {
		key, cross := g.tileKeys[id], g.tileCross[id]
		for b, o := range [3][2]int{{1, 0}, {0, 1}, {1, 1}} {
			if cross&(1<<b) != 0 {
				g.addTile([2]int{key[0] + o[0], key[1] + o[1]})
			}
		}
	}
	if covered := int32(len(g.tileKeys)); p.ax[0].coord >= 0 {
		isCovered := func(key [2]int) bool {
			id, found := g.tileID[key]
			return found && id < covered
		}
		for id := range covered {
			key := g.tileKeys[id]
			for _, dy := range [2]int{-1, 1} {
				c := [2]int{key[0], key[1] + dy}
				if _, found := g.tileID[c]; found {
					continue
				}
				if isCovered([2]int{c[0] - 1, c[1]}) || isCovered([2]int{c[0] + 1, c[1]}) {
					g.addTile(c)
				}
			}
		}
	}
	return float64(len(g.tileKeys)) * float64(p.ts[0]*p.ts[1])
}

// addTile returns the id of the tile key, adding it if new.
func (g *GridStress) addTile(key [2]int) int32 {
	id, found := g.tileID[key]
	if !found {
		id = int32(len(g.tileKeys))
		g.tileID[key] = id
		g.tileKeys = append(g.tileKeys, key)
		g.tileCross = append(g.tileCross, 0)
	}
	return id
}

// setTiles sorts the tiles found by findTiles into the plan's layout and
// sets each point's tile (−1 without grid sums).
func (g *GridStress) setTiles(n int) {
	p := &g.plan
	m := len(g.tileKeys)
	g.tileSort = kernels.Grow(g.tileSort, m)
	for k := range m {
		g.tileSort[k] = int32(k)
	}
	keys := g.tileKeys
	slices.SortFunc(g.tileSort[:m], func(a, b int32) int {
		ka, kb := keys[a], keys[b]
		if c := cmp.Compare(ka[1], kb[1]); c != 0 {
			return c
		}
		return cmp.Compare(ka[0], kb[0])
	})
	g.tileRank = kernels.Grow(g.tileRank, m)
	p.tileKey = kernels.Grow(p.tileKey, m)
	for r, id := range g.tileSort[:m] {
		g.tileRank[id] = int32(r)
		p.tileKey[r] = keys[id]
	}
	p.setTiles()
	g.tile = kernels.Grow(g.tile, n)
	for i := range n {
		g.tile[i] = -1
		if id := g.tileOf[i]; id >= 0 {
			g.tile[i] = g.tileRank[id]
		}
	}
}

// find returns the root of cell c's component (path halving).
func (g *GridStress) find(c int32) int32 {
	for g.parent[c] != c {
		g.parent[c] = g.parent[g.parent[c]]
		c = g.parent[c]
	}
	return c
}

// union joins the components of cells a and b under the smaller root.
func (g *GridStress) union(a, b int32) {
	a, b = g.find(a), g.find(b)
	if a > b {
		a, b = b, a
	}
	g.parent[b] = a
}

// floorDiv returns ⌊a/b⌋ for b > 0.
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// GridSupports reports whether GridStress handles in with a map of dims
// dimensions: dims 1 or 2, and labels that are absent, ignored (α = 0),
// one-hot (ClassNeRV's, exact) or soft (SoftClassNeRV's, their fields
// rounded to SoftLevels levels, see gridsoft.go), rows possibly
// unlabelled, with n×c values.
func GridSupports(in *SparseInput, dims int) bool {
	if dims < 1 || dims > 2 {
		return false
	}
	if in.Soft == nil || in.Alpha == 0 {
		return true
	}
	return in.C >= 1 && len(in.Soft) == in.N*in.C
}

// labelsOneHot reports whether every row of the n×c soft is one-hot or
// unlabelled (all NaN): the labels of ClassNeRV, which Grid's per-class
// fields carry exactly.
func labelsOneHot(soft []float64, c int) bool {
	if soft == nil {
		return true
	}
	if c < 1 {
		return false
	}
	for i := 0; i+c <= len(soft); i += c {
		if row := soft[i : i+c]; !math.IsNaN(row[0]) && gridOneHot(row) < 0 {
			return false
		}
	}
	return true
}

// gridOneHot returns the class of a one-hot row, or −1.
func gridOneHot(row []float64) int32 {
	cls, ones := int32(-1), 0
	for k, v := range row {
		switch v {
		case 1:
			ones++
			cls = int32(k)
		case 0:
		default:
			return -1
		}
	}
	if ones != 1 {
		return -1
	}
	return cls
}

// Fits reports whether the grid over y (n×dims, output scale scale) has
// finite coordinates and at most MaxNodes nodes, i.e. whether Stress will
// neither return ErrGridTooLarge nor a NaN stress. The grid's tiles
// cover the points' windows (see the top of gridstress.go): many small
// islands far apart (most points outliers) make it large, and the caller
// then uses CutoffStress. It panics unless dims is 1 or 2.
func (g *GridStress) Fits(y []float64, n, dims int, scale float64) bool {
	kernels.CheckEmbedding(y, n, dims)
	if dims < 1 || dims > 2 {
		panic(fmt.Sprintf("nerv: GridStress needs dims 1 or 2, got %d", dims))
	}
	g.plan.setTol(g.tol())
	limit := g.maxNodes(n)
	nodes, ok := g.layout(y, n, dims, scale, limit)
	return ok && nodes <= float64(limit)
}

func (g *GridStress) tol() float64 {
	if g.Tol == 0 {
		return DefaultGridTol
	}
	if !(g.Tol > 0 && g.Tol < 1) {
		panic(fmt.Sprintf("nerv: GridStress.Tol = %v, want in (0, 1)", g.Tol))
	}
	return g.Tol
}

func (g *GridStress) maxNodes(n int) int {
	if g.MaxNodes > 0 {
		return g.MaxNodes
	}
	return DefaultGridMaxNodes(n)
}

// Stress returns the stress ζ (with the 1/n of the exact Stress) of the
// embedding y (n×dims, dims 1 or 2) for the objective of BH.Stress with
// tol = 0, its sums over all points taken on a grid (see the top of
// gridstress.go), and if grad is not nil writes its gradient into grad.
// in must satisfy GridSupports. A y with a non-finite coordinate has stress
// NaN (and a NaN gradient); a grid of more than MaxNodes nodes returns
// ErrGridTooLarge (see Fits) and leaves grad unchanged. Results are
// bit-identical for any thread count. It panics on wrong lengths or
// parameters, and returns ctx.Err() if cancelled.
func (g *GridStress) Stress(ctx context.Context, grad, y []float64, dims int, in *SparseInput, threads int) (float64, error) {
	if dims < 1 || dims > 2 {
		panic(fmt.Sprintf("nerv: GridStress needs dims 1 or 2, got %d", dims))
	}
	if done, err := in.begin(ctx, grad, y, dims, 0); done {
		return 0, err
	}
	if !GridSupports(in, dims) {
		panic("nerv: GridStress needs n×c labels or none (GridSupports)")
	}
	n := in.N
	p := &g.plan
	p.setTol(g.tol())
	maxNodes := g.maxNodes(n)
	nodes, ok := g.layout(y, n, dims, in.Scale, maxNodes)
	if !ok {
		for k := range grad {
			grad[k] = math.NaN()
		}
		return math.NaN(), nil
	}
	if nodes > float64(maxNodes) {
		return 0, ErrGridTooLarge
	}
	g.setGroups(in)
	g.sortPoints()

	e := &gridEval{g: g, p: p, in: in, y: y, grad: grad, threads: threads, inv: 1 / in.Scale}
	return e.run(ctx)
}

// setGroups fills the groups and the classes of hardLabels.
func (g *GridStress) setGroups(in *SparseInput) {
	n, p := in.N, &g.plan
	g.group = kernels.Grow(g.group, n)
	p.gamma = in.Gamma
	p.tauIn, p.tauOut = (1-in.Alpha)*in.Gamma+in.Alpha, (1-in.Alpha)*in.Gamma
	g.class = nil
	if in.Soft != nil {
		g.classBuf = kernels.Grow(g.classBuf, n)
		g.class = g.classBuf[:n]
		for i := range n {
			g.class[i] = gridOneHot(in.Soft[i*in.C : (i+1)*in.C])
		}
	}
	p.soft, p.alpha = false, in.Alpha
	if in.Soft == nil || in.Alpha == 0 {
		p.nCls, p.nGroup = 0, 1
		clear(g.group[:n])
		return
	}
	p.nCls, p.nGroup = in.C, in.C+1
	for i := range n {
		if in.labelled(i) && g.class[i] < 0 {
			p.soft = true
		}
	}
	if p.soft {
		// One group of the labelled points; Λ's fields by channel.
		p.nCls, p.nGroup = 1, 2
		g.setChannels(in)
	}
	for i := range n {
		switch {
		case !in.labelled(i):
			g.group[i] = int32(p.nCls)
		case p.soft:
			g.group[i] = 0
		default:
			g.group[i] = g.class[i]
		}
	}
}

// gridOrder is an ordering of points (or of memberships of points in
// channels) by group, then tile, stable; those without a tile come last.
// The points of group k with tiles lie at positions [start[k·nt],
// start[(k+1)·nt]) (nt tiles), those of a run of its tiles at a run of
// positions; tiles[tStart[k]:tStart[k+1]] is group k's selection
// (groupTiles).
type gridOrder struct {
	order  []int32 // the point at each position
	start  []int32 // position offsets per (group, tile), then those without
	key    []int32 // the sort keys
	tStart []int32
	tiles  []int32
	groups int
}

// sortPoints orders the points by group (partition), and with soft labels
// their memberships by channel (see gridsoft.go).
func (g *GridStress) sortPoints() {
	n, p := len(g.group), &g.plan
	g.sortInto(&g.part, p.nGroup, n, func(k int) (int32, int32) { return int32(k), g.group[k] })
	g.pos = kernels.Grow(g.pos, n)
	for q, i := range g.part.order[:n] {
		g.pos[i] = int32(q)
	}
	g.nGrid = int(g.part.start[p.nGroup*len(p.tileKey)])
	if p.soft {
		cs := &g.soft
		g.sortInto(&cs.order, len(cs.weight), len(cs.point), func(k int) (int32, int32) { return cs.point[k], cs.channel[k] })
	}
}

// sortInto fills ord with the m members (member(k): point and group) of
// the given number of groups, by group, then by tile (a counting sort,
// stable), and collects each group's tiles (groupTiles).
func (g *GridStress) sortInto(ord *gridOrder, groups, m int, member func(k int) (point, group int32)) {
	p := &g.plan
	nt := len(p.tileKey)
	size := groups*nt + 2
	ord.groups = groups
	ord.start = kernels.Grow(ord.start, size)
	ord.order = kernels.Grow(ord.order, m)
	ord.key = kernels.Grow(ord.key, m)
	clear(ord.start[:size])
	for k := range m {
		i, grp := member(k)
		key := int32(groups * nt)
		if t := g.tile[i]; t >= 0 {
			key = grp*int32(nt) + t
		}
		ord.key[k] = key
		ord.start[key+1]++
	}
	for k := 1; k < size; k++ {
		ord.start[k] += ord.start[k-1]
	}
	for k := range m {
		i, _ := member(k)
		key := ord.key[k]
		ord.order[ord.start[key]] = i
		ord.start[key]++
	}
	copy(ord.start[1:size], ord.start[:size-1])
	ord.start[0] = 0
	ord.tStart = kernels.Grow(ord.tStart, groups+1)
	ord.tiles = ord.tiles[:0]
	g.tileMark = kernels.Grow(g.tileMark, nt)
	clear(g.tileMark)
	for k := range groups {
		ord.tStart[k] = int32(len(ord.tiles))
		g.groupTiles(ord, k)
	}
	ord.tStart[groups] = int32(len(ord.tiles))
}

// groupTiles appends to ord's tiles, sorted, the tiles of group k's
// selection: the tiles its points' windows cover (C_k) and those next to
// them (the 3×3 neighbourhoods), the tiles where its charges make its
// fields nonzero and where the fields of all charges reach its points
// (see the top of the file).
func (g *GridStress) groupTiles(ord *gridOrder, k int) {
	p := &g.plan
	nt := len(p.tileKey)
	from := len(ord.tiles)
	add := func(t int32) {
		if t >= 0 && !g.tileMark[t] {
			g.tileMark[t] = true
			ord.tiles = append(ord.tiles, t)
		}
	}
	for _, i := range ord.order[ord.start[k*nt]:ord.start[(k+1)*nt]] {
		t := g.tile[i]
		_, cross := p.tileAt([2]int{g.first[2*i], g.first[2*i+1]})
		nb := p.tileNb[9*t : 9*t+9]
		add(t)
		for b, o := range [3]int{5, 7, 8} { // right, above, diagonal
			if cross&(1<<b) != 0 {
				add(nb[o])
			}
		}
	}
	covered := len(ord.tiles)
	for j := from; j < covered; j++ {
		t := ord.tiles[j]
		for _, u := range p.tileNb[9*t : 9*t+9] {
			add(u)
		}
	}
	list := ord.tiles[from:]
	slices.Sort(list)
	for _, t := range list {
		g.tileMark[t] = false
	}
}

// selectGroup sets the selection to the tiles of ord's group k
// (groupTiles), or to all tiles if k < 0: their segments, each segment's
// neighbours in the tile rows below and above, and the tile rows' first
// segments.
func (e *gridEval) selectGroup(ord *gridOrder, k int) {
	g, p := e.g, e.p
	s := &g.sel
	s.segs, s.nodes = s.segs[:0], 0
	add := func(t int32) {
		if m := len(s.segs); m > 0 {
			last := &s.segs[m-1]
			if last.t1 == t && p.tileKey[t] == [2]int{p.tileKey[t-1][0] + 1, p.tileKey[t-1][1]} {
				last.t1++
				last.width += p.ts[0]
				return
			}
		}
		s.segs = append(s.segs, gridSeg{t0: t, t1: t + 1, node0: p.tileNode[t], stride: p.tileRow[t], width: p.ts[0]})
	}
	if k < 0 {
		for t := range len(p.tileKey) {
			add(int32(t))
		}
	} else {
		for _, t := range ord.tiles[ord.tStart[k]:ord.tStart[k+1]] {
			add(t)
		}
	}
	s.rowSeg = s.rowSeg[:0]
	for j := range s.segs {
		sg := &s.segs[j]
		s.nodes += sg.width * p.ts[1]
		x0, x1, y := p.tileKey[sg.t0][0], p.tileKey[sg.t1-1][0]+1, p.tileKey[sg.t0][1]
		sg.below = e.segRange(y-1, x0, x1)
		sg.above = e.segRange(y+1, x0, x1)
		if j == 0 || y != p.tileKey[s.segs[j-1].t0][1] {
			s.rowSeg = append(s.rowSeg, int32(j))
		}
	}
	s.rowSeg = append(s.rowSeg, int32(len(s.segs)))
}

// segRange returns the range of the selection's segments in tile row y
// that meet the tile columns [x0, x1).
func (e *gridEval) segRange(y, x0, x1 int) [2]int32 {
	segs, keys := e.g.sel.segs, e.p.tileKey
	// The first segment of row ≥ y ending after x0, and the first of row ≥
	// y starting at x1 or later.
	lo := search(len(segs), func(j int) bool {
		k := keys[segs[j].t1-1]
		return k[1] > y || (k[1] == y && k[0] >= x0)
	})
	hi := search(len(segs), func(j int) bool {
		k := keys[segs[j].t0]
		return k[1] > y || (k[1] == y && k[0] >= x1)
	})
	return [2]int32{int32(lo), int32(max(lo, hi))}
}

// search returns the least j in [0, n) with f(j), or n (f is false, then
// true).
func search(n int, f func(int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if f(m) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// The grids of the two passes (see gridEval.pass1 and pass2); without
// labels each pass uses five of them, the same five.
const (
	gQ, gPhiA, gT0, gTA, gB0, gBA  = 0, 1, 2, 3, 4, 5 // pass 1
	gX0, gXA, gPhi0                = 6, 7, 8
	gC0, gCA, gC0U, gCAU, gD0, gDA = 0, 1, 2, 3, 4, 5 // pass 2: charges
	gX1, gX2, gF                   = 6, 7, 8
	gridPointGrain                 = 256  // points per chunk of the gathers
	gridRowCells                   = 4096 // nodes per chunk of the convolutions
)

// gridEval is the state of one Stress call.
type gridEval struct {
	g       *GridStress
	p       *gridPlan
	in      *SparseInput
	y, grad []float64
	threads int
	inv     float64 // 1/s: ∂/∂y = ∂/∂u / s
	nodes   int
	walk    *nervBHWalk // Λ's one-hot shortcut, and the exact rows
}

// gridTerm is one charge grid and its coefficient in a combined charge.
type gridTerm struct {
	c    float64
	grid []float64
}

// buf returns grid k, grown to the call's node count.
func (e *gridEval) buf(k int) []float64 {
	e.g.grids[k] = kernels.Grow(e.g.grids[k], e.nodes)
	return e.g.grids[k][:e.nodes]
}

// stride is the per-point record of pass 1: Z, A, ∇Z, ∇A, then S_Λ, A_Λ,
// ∇S_Λ, ∇A_Λ (the gradients with the self pair's removed).
func (e *gridEval) stride() int { return 4 * (1 + e.p.dims) }

// groupRange returns the positions in ord of group k's points with tiles.
func (e *gridEval) groupRange(ord *gridOrder, k int) (lo, hi int) {
	nt := len(e.p.tileKey)
	return int(ord.start[k*nt]), int(ord.start[(k+1)*nt])
}

func (e *gridEval) run(ctx context.Context) (float64, error) {
	g, p, in := e.g, e.p, e.in
	n, dims := in.N, p.dims
	g.pt = kernels.Grow(g.pt, n*e.stride())
	g.coef = kernels.Grow(g.coef, 4*n)
	g.exact = kernels.Grow(g.exact, n)
	g.rows = kernels.Grow(g.rows, n)
	e.setup()
	e.walk = &nervBHWalk{in: in, y: e.y, dims: dims, h: 1 / (2 * in.Scale * in.Scale),
		hardLabels: hardLabels{class: g.class, lamSame: p.tauIn, lamOther: p.tauOut}}
	if err := e.pass1(ctx); err != nil {
		return 0, err
	}
	e.markExact()
	stress, err := e.rowTerms(ctx)
	if err != nil || e.grad == nil {
		return stress, err
	}
	if err := e.pass2(ctx); err != nil {
		return 0, err
	}
	inv := 1 / float64(n)
	for k := range e.grad {
		e.grad[k] *= inv
	}
	return stress, nil
}

// setup sizes the node count, the row extents and the workers' scratch
// for the plan's layout.
func (e *gridEval) setup() {
	g, p := e.g, e.p
	e.nodes = p.nodes
	g.ext = kernels.Grow(g.ext, 2*len(p.tileKey)*p.ts[1])
	for len(g.work) < kernels.Threads(e.threads) {
		g.work = append(g.work, gridWork{})
	}
	w0, w1 := p.width(0), p.width(1)
	t0 := len(p.k0) - 1
	if p.ax[0].coord < 0 {
		t0 = 0
	}
	for k := range g.work {
		wk := &g.work[k]
		wk.wx, wk.dwx = kernels.Grow(wk.wx, w0), kernels.Grow(wk.dwx, w0)
		wk.wy, wk.dwy = kernels.Grow(wk.wy, w1), kernels.Grow(wk.dwy, w1)
		wk.pad0 = kernels.Grow(wk.pad0, p.maxRow+2*t0)
		wk.padA = kernels.Grow(wk.padA, p.maxRow+2*t0)
		for h := range wk.halo {
			wk.halo[h] = kernels.Grow(wk.halo[h], 2*(len(p.k0)-1)*p.maxRow)
		}
		wk.refs = kernels.Grow(wk.refs, p.ts[1]+2*(len(p.k0)-1))
	}
}

// pass1 computes every row's grid sums Z, S_Λ, A, A_Λ and their
// gradients into the per-point records. Each group's unit charges are
// convolved on their own (Φ_g), read by the group's labelled points, and
// summed node by node into T = Σ_g Φ_g (the field of Z and A) and, when
// both labelled and unlabelled points exist, B = τ_out Σ_c Φ_c + γ Φ_U;
// then every point reads T (and B). A labelled row's S_Λ is then B +
// (τ_in − τ_out) Φ_c at its position (B = τ_out T without unlabelled
// points), an unlabelled row's γZ. With soft labels the labelled points
// are one group, and their S_Λ is B + α Σ_m w_m Φ_m over their channels
// (gridsoft.go).
func (e *gridEval) pass1(ctx context.Context) error {
	p, part := e.p, &e.g.part
	var used []int
	for k := range p.nGroup {
		if lo, hi := e.groupRange(part, k); lo < hi {
			used = append(used, k)
		}
	}
	lo, hi := e.groupRange(part, p.nCls)
	withB := lo < hi && len(used) > 1 // unlabelled and other points
	q, phi0, phiA := e.buf(gQ), e.buf(gPhi0), e.buf(gPhiA)
	t0, tA := phi0, phiA // one group: T is its field
	var b0, bA []float64
	sum := len(used) > 1 || p.soft // the channels reuse Φ
	if sum {
		// T and B sum the groups' fields over the groups' tiles.
		t0, tA = e.buf(gT0), e.buf(gTA)
		clear(t0)
		clear(tA)
	}
	if withB {
		b0, bA = e.buf(gB0), e.buf(gBA)
		clear(b0)
		clear(bA)
	}
	for _, k := range used {
		lo, hi := e.groupRange(part, k)
		e.selectGroup(part, k)
		if err := e.spread(ctx, part, [][]float64{q}, k, k+1, func(_ int, c []float64) { c[0] = 1 }); err != nil {
			return err
		}
		if err := e.convolve1(ctx, []gridTerm{{1, q}}); err != nil {
			return err
		}
		if k < p.nCls && !p.soft {
			if err := e.gatherClass(ctx, lo, hi); err != nil {
				return err
			}
		}
		if sum {
			coef := p.tauOut
			if k == p.nCls {
				coef = p.gamma
			}
			if err := e.accumulate(ctx, t0, tA, b0, bA, coef); err != nil {
				return err
			}
		}
	}
	if p.soft {
		if err := e.channels1(ctx); err != nil {
			return err
		}
	}
	return e.gatherT(ctx, t0, tA, b0, bA)
}

// accumulate adds the field Φ (Φ0, ΦA) into T (and coef·Φ into B if b0 is
// not nil) over the selection's rows.
func (e *gridEval) accumulate(ctx context.Context, t0, tA, b0, bA []float64, coef float64) error {
	phi0, phiA := e.buf(gPhi0), e.buf(gPhiA)
	return kernels.ParallelFor(ctx, e.selRows(), e.threads, e.rowGrain(), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			a, w := e.selRow(j)
			b := a + w
			f0, fA := phi0[a:b], phiA[a:b]
			d0, dA := t0[a:b], tA[a:b]
			for c, v := range f0 {
				d0[c] += v
				dA[c] += fA[c]
			}
			if b0 == nil {
				continue
			}
			c0, cA := b0[a:b], bA[a:b]
			for c, v := range f0 {
				c0[c] += coef * v
				cA[c] += coef * fA[c]
			}
		}
	})
}

// markExact flags the rows whose grid normaliser is too small to trust
// (or not finite), and those without a tile, and if there are any builds
// the cell grid of their exact cut-off sums.
func (e *gridEval) markExact() {
	g, n, st := e.g, e.in.N, e.stride()
	zMin := math.Exp(gridExactLogZ)
	found := false
	for q := range n {
		g.exact[q] = q >= g.nGrid || !(g.pt[q*st] >= zMin)
		found = found || g.exact[q]
	}
	if found {
		// y is finite (layout checked it), so the build succeeds.
		g.cells.Build(e.y, n, e.p.dims, e.in.Scale)
		e.walk.grid, e.walk.cutTol, e.walk.cutoffMax = &g.cells, e.p.tol, math.MaxInt
	}
}

// rowTerms finishes every row: its stress, the exact correction of its
// listed pairs, its pass-2 coefficients and, with a gradient, its own
// forces (grid fields, listed pairs and their reactions) summed in fixed
// chunks into grad. Exact rows take the cut-off's row.
func (e *gridEval) rowTerms(ctx context.Context) (float64, error) {
	g, n, dims := e.g, e.in.N, e.p.dims
	grain := max(nervGrain, (n+nervBHChunks-1)/nervBHChunks)
	m := n * dims
	if e.grad != nil {
		g.slots = kernels.Grow(g.slots, kernels.NumChunks(n, grain)*m)
	}
	err := kernels.ParallelForWorker(ctx, n, e.threads, grain, func(wk, lo, hi int) {
		sc := &g.work[wk]
		var acc []float64
		if e.grad != nil {
			acc = g.slots[(lo/grain)*m : (lo/grain+1)*m]
			clear(acc)
		}
		for q := lo; q < hi; q++ {
			i := int(g.part.order[q])
			if g.exact[q] {
				e.walk.row(&sc.bh, g.rows, acc, i)
				clear(g.coef[4*q : 4*q+4])
				continue
			}
			e.gridRow(sc, acc, q, i)
		}
	})
	if err != nil {
		return 0, err
	}
	var stress float64
	for _, v := range g.rows[:n] {
		stress += v
	}
	stress /= float64(n)
	if e.grad != nil {
		copy(e.grad, g.slots[:m])
		for c := m; c < len(g.slots); c += m {
			for k, v := range g.slots[c : c+m] {
				e.grad[k] += v
			}
		}
	}
	return stress, nil
}

// gridRow is rowTerms for a grid row i at position q (see the top of the
// file for the formulas).
func (e *gridEval) gridRow(sc *gridWork, acc []float64, q, i int) {
	g, p, in := e.g, e.p, e.in
	dims, k := p.dims, in.K
	rec := g.pt[q*e.stride() : (q+1)*e.stride()]
	z, a, sl, al := rec[0], rec[1], rec[2+2*dims], rec[3+2*dims]
	logZ := math.Log(z)
	lbeta, lf := in.rowLogBeta(&sc.bh, i)
	s1, sa := z-sl, a-al
	st := (sl + s1*(-logZ-lf-1) - sa) / z
	sumG := st + s1/z
	h := e.walk.h
	yi := e.y[i*dims : (i+1)*dims]
	var gi []float64
	if acc != nil {
		gi = acc[i*dims : (i+1)*dims]
	}
	beta := in.Beta[i*k : (i+1)*k]
	soft := p.soft && in.labelled(i)
	for r, j := range in.Idx[i*k : (i+1)*k] {
		yj := e.y[int(j)*dims : int(j+1)*dims]
		logb := -h*kernels.EmbedSqDist(yi, yj) - logZ
		b := math.Exp(logb)
		lam := e.walk.tradeoff(i, int(j))
		ds, dg := gridListed(beta[r], lbeta[r], lf, b, logb, lam)
		if soft && in.labelled(int(j)) {
			s, d := e.softListed(i, int(j), lam, b, logb, lf)
			ds, dg = ds+s, dg+d
		}
		st += ds
		sumG += dg
		if acc != nil {
			f := -2 * h * dg
			gj := acc[int(j)*dims : int(j+1)*dims]
			for c := range gi {
				t := f * (yi[c] - yj[c])
				gi[c] += t
				gj[c] -= t
			}
		}
	}
	g.rows[i] = st
	pz, ps := -(1+logZ+lf+sumG)/z, (2+logZ+lf)/z
	pa, pal := -1/z, 1/z
	co := g.coef[4*q : 4*q+4]
	if int(g.group[i]) < p.nCls {
		co[0], co[1], co[2], co[3] = pz, ps, pa, pal
	} else {
		// Unlabelled (or no labels): Λ = γ with every source.
		co[0], co[1], co[2], co[3] = pz+p.gamma*ps, 0, pa+p.gamma*pal, 0
	}
	if acc == nil {
		return
	}
	gz, ga := rec[2:2+dims], rec[2+dims:2+2*dims]
	gsl, gal := rec[4+2*dims:4+3*dims], rec[4+3*dims:4+4*dims]
	for c := range gi {
		gi[c] += e.inv * (pz*gz[c] + ps*gsl[c] + pa*ga[c] + pal*gal[c])
	}
}

// gridListed returns s − s⁰ and g − g⁰ of nervPair for a listed pair (β,
// log β = lbeta) against the same pair as if unlisted (β = 0, log β = lf):
// the b and log b terms that both share cancel.
func gridListed(beta, lbeta, lf, b, logb, lam float64) (ds, dg float64) {
	var recall float64
	if beta > 0 {
		recall = beta * (lbeta - logb)
	}
	u := (1 - lam) * b * (lf - lbeta)
	return lam*(recall-beta) + u + (1-lam)*beta, u - lam*beta
}

// pass2 adds to grad the forces on every point as a source of the other
// rows' sums: per source group k, the gradient of the field of the rows'
// coefficients c_jk (see the top of the file). Row j's charge on a source
// of class k is c0P + Λ(g_j, k)·c0S (and the A pair), so the charges are
// spread as a base B = Σ (c0P + τ_out c0S) and per class D_k = Σ_{j∈k}
// c0S: channel k's charge is B + (τ_in − τ_out) D_k. The unlabelled
// sources see Λ = γ from every row: their base is Σ (c0P + γ c0S). With
// soft labels the labelled sources read B, and each channel's members
// α·w_m times the field of D_m (gridsoft.go).
func (e *gridEval) pass2(ctx context.Context) error {
	p, g := e.p, e.g
	part := &g.part
	cls := p.nCls
	lo, hi := e.groupRange(part, cls)
	hasU := lo < hi
	b0, ba := e.buf(gC0), e.buf(gCA)
	var b0u, bau []float64
	if hasU && cls > 0 {
		b0u, bau = e.buf(gC0U), e.buf(gCAU)
	}
	e.selectGroup(part, -1)
	err := e.spread(ctx, part, [][]float64{b0, ba, b0u, bau}, 0, p.nGroup, func(q int, c []float64) {
		co := g.coef[4*q : 4*q+4]
		c[0], c[1] = co[0]+p.tauOut*co[1], co[2]+p.tauOut*co[3]
		c[2], c[3] = co[0]+p.gamma*co[1], co[2]+p.gamma*co[3]
	})
	if err != nil {
		return err
	}
	dt := p.tauIn - p.tauOut
	for k := range p.nGroup {
		lo, hi := e.groupRange(part, k)
		if lo == hi {
			continue
		}
		// F is read by group k's points only: its tiles.
		e.selectGroup(part, k)
		t0, tA := []gridTerm{{1, b0}}, []gridTerm{{1, ba}}
		switch {
		case k < cls && !p.soft:
			d0, da := e.buf(gD0), e.buf(gDA)
			err := e.spread(ctx, part, [][]float64{d0, da}, k, k+1, func(q int, c []float64) {
				c[0], c[1] = g.coef[4*q+1], g.coef[4*q+3]
			})
			if err != nil {
				return err
			}
			t0, tA = append(t0, gridTerm{dt, d0}), append(tA, gridTerm{dt, da})
		case k == cls && cls > 0:
			t0, tA = []gridTerm{{1, b0u}}, []gridTerm{{1, bau}}
		}
		if err := e.convolve2(ctx, t0, tA); err != nil {
			return err
		}
		if err := e.gatherF(ctx, part, lo, hi); err != nil {
			return err
		}
	}
	if p.soft {
		return e.channels2(ctx)
	}
	return nil
}

// spread clears the selection's rows of the grids dst (nil entries are
// skipped) and adds onto them the charges of the points of groups [g0,
// g1) (whose tiles the selection must cover): charge(q, c) sets c[k],
// the charge of the point at position q on dst[k] (c is zeroed before).
// The chunks are runs of the selection's tile rows; a chunk takes the
// rows' points row by row (all groups, in order), each point's window
// rows in its own tile row and the row above, and first the upper rows of
// the windows from the tile row below its first. So every node of tile
// row y sums the points of row y − 1, then those of row y, in order,
// whatever the chunks. The groups' points lie in the selected tiles, and
// so do their windows.
func (e *gridEval) spread(ctx context.Context, ord *gridOrder, dst [][]float64, g0, g1 int, charge func(q int, c []float64)) error {
	g, p := e.g, e.p
	sel := &g.sel
	rows := len(sel.rowSeg) - 1
	grain := max(1, rows/(4*kernels.Threads(e.threads)))
	return kernels.ParallelForWorker(ctx, rows, e.threads, grain, func(wk, lo, hi int) {
		sc := &g.work[wk]
		for _, s := range sel.segs[sel.rowSeg[lo]:sel.rowSeg[hi]] {
			for _, d := range dst {
				if d == nil {
					continue
				}
				for r := range p.ts[1] {
					o := s.node0 + r*s.stride
					clear(d[o : o+s.width])
				}
			}
		}
		if lo > 0 && e.selRowY(lo-1) == e.selRowY(lo)-1 {
			e.spreadRow(sc, ord, dst, g0, g1, charge, lo-1, false, true)
		}
		for m := lo; m < hi; m++ {
			e.spreadRow(sc, ord, dst, g0, g1, charge, m, true, m < hi-1)
		}
	})
}

// selRowY returns the tile row y of the selection's m-th tile row.
func (e *gridEval) selRowY(m int) int {
	return e.p.tileKey[e.g.sel.segs[e.g.sel.rowSeg[m]].t0][1]
}

// spreadRow adds the charges of the points of groups [g0, g1) in the
// selection's m-th tile row: their windows' rows in that tile row if own,
// those in the row above if up.
func (e *gridEval) spreadRow(sc *gridWork, ord *gridOrder, dst [][]float64, g0, g1 int, charge func(q int, c []float64), m int, own, up bool) {
	g, p := e.g, e.p
	nt, w1 := len(p.tileKey), p.width(1)
	segs := g.sel.segs
	t0, t1 := int(segs[g.sel.rowSeg[m]].t0), int(segs[g.sel.rowSeg[m+1]-1].t1)
	var c [4]float64
	for grp := g0; grp < g1; grp++ {
		for q := int(ord.start[grp*nt+t0]); q < int(ord.start[grp*nt+t1]); q++ {
			i := int(ord.order[q])
			sp := e.span(i)
			r0, r1 := 0, w1
			if !own {
				r0 = sp.split
			}
			if !up {
				r1 = sp.split
			}
			if r0 >= r1 {
				continue
			}
			c = [4]float64{}
			charge(q, c[:len(dst)])
			e.weights(sc, i)
			if r0 < sp.split {
				e.spreadPoint(sc, dst, c[:len(dst)], &sp, r0, min(r1, sp.split))
			}
			if r1 > sp.split {
				e.spreadPoint(sc, dst, c[:len(dst)], &sp, max(r0, sp.split), r1)
			}
		}
	}
}

// spreadPoint adds the charges c of the point whose windows sc holds
// (placed as sp says) onto the window rows [r0, r1) of the grids dst,
// rows of one part of sp.
func (e *gridEval) spreadPoint(sc *gridWork, dst [][]float64, c []float64, sp *gridSpan, r0, r1 int) {
	part := 0
	if r0 >= sp.split {
		part = 1
	}
	w0 := len(sc.wx)
	first, _ := sp.rows(part, len(sc.wy))
	base := sp.base[part] + (r0-first)*sp.stride[part]
	for r := r0; r < r1; r++ {
		wy := sc.wy[r]
		for k, d := range dst {
			if c[k] == 0 || d == nil {
				continue
			}
			f := c[k] * wy
			row := d[base : base+w0]
			wx := sc.wx[:len(row)]
			for m := range row {
				row[m] += f * wx[m]
			}
		}
		base += sp.stride[part]
	}
}

// gridSpan is where a point's window lies in the grids: its rows [0,
// split) in its own tile's row of tiles, row r's first node base[0] +
// r·stride[0], and the rest in the row of tiles above, row r's first
// node base[1] + (r − split)·stride[1]. A window's row lies in one run
// (both of its tiles are covered, so they are consecutive tiles of a run).
type gridSpan struct {
	base, stride [2]int
	split        int
}

// rows returns the window rows [r0, r1) of part k of a window of w1 rows.
func (sp *gridSpan) rows(k, w1 int) (r0, r1 int) {
	if k == 0 {
		return 0, sp.split
	}
	return sp.split, w1
}

// span returns the span of the window of point i (which has a tile).
func (e *gridEval) span(i int) gridSpan {
	g, p := e.g, e.p
	t := int(g.tile[i])
	key := p.tileKey[t]
	lx := g.first[2*i] - key[0]*p.ts[0]
	ly := g.first[2*i+1] - key[1]*p.ts[1]
	w1 := p.width(1)
	sp := gridSpan{split: min(w1, p.ts[1]-ly)}
	sp.base[0], sp.stride[0] = p.tileNode[t]+ly*p.tileRow[t]+lx, p.tileRow[t]
	if sp.split < w1 {
		u := p.tileNb[9*t+7] // the tile above
		sp.base[1], sp.stride[1] = p.tileNode[u]+lx, p.tileRow[u]
	}
	return sp
}

// weights fills the worker's windows for point i: weights and their
// derivatives on axes 0 and 1.
func (e *gridEval) weights(sc *gridWork, i int) {
	p, dims := e.p, e.p.dims
	var v0 float64
	if c := p.ax[0].coord; c >= 0 {
		v0 = e.y[i*dims+c] * e.inv
	}
	p.window(0, v0, sc.wx, sc.dwx)
	p.window(1, e.y[i*dims+p.ax[1].coord]*e.inv, sc.wy, sc.dwy)
}

// windows fills the worker's windows for point i (which has a tile) and
// returns their span.
func (e *gridEval) windows(sc *gridWork, i int) gridSpan {
	e.weights(sc, i)
	return e.span(i)
}

// gather2 returns the window sums of the fields a and b at the point
// whose windows sc holds (placed as sp says) and their derivatives along
// axes 0 and 1.
func (e *gridEval) gather2(sc *gridWork, a, b []float64, sp *gridSpan) (va, vb float64, da, db [2]float64) {
	w0, w1 := len(sc.wx), len(sc.wy)
	for part := range 2 {
		r0, r1 := sp.rows(part, w1)
		base, stride := sp.base[part], sp.stride[part]
		for r := r0; r < r1; r++ {
			ra := a[base : base+w0]
			rb, wx, dwx := b[base:base+len(ra)], sc.wx[:len(ra)], sc.dwx[:len(ra)]
			var sa, sb, ta, tb float64
			for m, va := range ra {
				vb := rb[m]
				sa += wx[m] * va
				sb += wx[m] * vb
				ta += dwx[m] * va
				tb += dwx[m] * vb
			}
			wy, dwy := sc.wy[r], sc.dwy[r]
			va += wy * sa
			vb += wy * sb
			da[0] += wy * ta
			db[0] += wy * tb
			da[1] += dwy * sa
			db[1] += dwy * sb
			base += stride
		}
	}
	return va, vb, da, db
}

// gatherClass stores, for the points of positions [lo, hi) (one class c),
// their class field Φ_c (Φ0, ΦA) and its gradient in the S_Λ slots of
// their records, for gatherT.
func (e *gridEval) gatherClass(ctx context.Context, lo, hi int) error {
	g, p := e.g, e.p
	dims, st := p.dims, e.stride()
	phi0, phiA := e.buf(gPhi0), e.buf(gPhiA)
	return kernels.ParallelForWorker(ctx, hi-lo, e.threads, gridPointGrain, func(wk, a, b int) {
		sc := &g.work[wk]
		for q := lo + a; q < lo+b; q++ {
			sp := e.windows(sc, int(g.part.order[q]))
			v0, vA, d0, dA := e.gather2(sc, phi0, phiA, &sp)
			e.store(g.pt[q*st+2+2*dims:(q+1)*st], v0, vA, d0, dA)
		}
	})
}

// store writes v0, vA and the derivatives d0, dA (along axes 0 and 1)
// into rec as value, value, gradient, gradient (by coordinate).
func (e *gridEval) store(rec []float64, v0, vA float64, d0, dA [2]float64) {
	dims := e.p.dims
	rec[0], rec[1] = v0, vA
	for a := range 2 {
		if c := e.p.ax[a].coord; c >= 0 {
			rec[2+c], rec[2+dims+c] = d0[a], dA[a]
		}
	}
}

// gatherGrad returns the derivatives along axes 0 and 1 of the window sum
// of field f at the point whose windows sc holds (placed as sp says).
func (e *gridEval) gatherGrad(sc *gridWork, f []float64, sp *gridSpan) (d [2]float64) {
	w0, w1 := len(sc.wx), len(sc.wy)
	for part := range 2 {
		r0, r1 := sp.rows(part, w1)
		base, stride := sp.base[part], sp.stride[part]
		for r := r0; r < r1; r++ {
			row := f[base : base+w0]
			wx, dwx := sc.wx[:len(row)], sc.dwx[:len(row)]
			var s, t float64
			for m, v := range row {
				s += wx[m] * v
				t += dwx[m] * v
			}
			d[0] += sc.wy[r] * t
			d[1] += sc.dwy[r] * s
			base += stride
		}
	}
	return d
}

// gatherT reads T (and B) at every point, removes the self pair and
// completes the records: Z, A and their gradients, and S_Λ, A_Λ and theirs
// (see pass1).
func (e *gridEval) gatherT(ctx context.Context, t0, tA, b0, bA []float64) error {
	g, st := e.g, e.stride()
	return kernels.ParallelForWorker(ctx, g.nGrid, e.threads, gridPointGrain, func(wk, lo, hi int) {
		sc := &g.work[wk]
		var t, b, self [2 + 2*2]float64
		for q := lo; q < hi; q++ {
			i := int(g.part.order[q])
			sp := e.windows(sc, i)
			v0, vA, d0, dA := e.gather2(sc, t0, tA, &sp)
			e.store(t[:], v0, vA, d0, dA)
			v0, vA, d0, dA = e.self(sc)
			e.store(self[:], v0, vA, d0, dA)
			labelled := int(g.group[i]) < e.p.nCls
			if labelled && b0 != nil {
				v0, vA, d0, dA = e.gather2(sc, b0, bA, &sp)
				e.store(b[:], v0, vA, d0, dA)
			}
			e.finish(g.pt[q*st:(q+1)*st], i, &t, &b, &self, labelled, b0 != nil)
		}
	})
}

// finish completes a point's record from its readings of T, B (if withB)
// and its self pair, its class field Φ_c (with soft labels, its channels'
// sum) being in the S_Λ slots for a labelled point i. The self pair's value is subtracted, and its derivative
// twice (it moves as target and as source).
func (e *gridEval) finish(rec []float64, i int, t, b, self *[2 + 2*2]float64, labelled, withB bool) {
	p, m := e.p, 2+2*e.p.dims
	for k := range m {
		rec[k] = t[k] - gridSelfFactor(k)*self[k]
	}
	sl := rec[m:]
	if !labelled {
		for k := range sl {
			sl[k] = p.gamma * rec[k]
		}
		return
	}
	dt, lamSelf := p.tauIn-p.tauOut, p.tauIn
	if p.soft {
		// The slots hold α Σ_m w_m Φ_m; the self pair's Λ̂ is τ_out + α λ̂_ii.
		dt, lamSelf = 1, p.tauOut+p.alpha*e.g.soft.self[i]
	}
	for k := range m {
		base := p.tauOut * t[k]
		if withB {
			base = b[k]
		}
		sl[k] = base + dt*sl[k] - gridSelfFactor(k)*lamSelf*self[k]
	}
}

// gridSelfFactor is 1 for the values of a record (entries 0 and 1) and 2
// for the derivatives.
func gridSelfFactor(k int) float64 {
	if k < 2 {
		return 1
	}
	return 2
}

// gatherF adds to grad the gradient of pass 2's field F at the points of
// positions [lo, hi) of ord.
func (e *gridEval) gatherF(ctx context.Context, ord *gridOrder, lo, hi int) error {
	g, p := e.g, e.p
	dims := p.dims
	f := e.buf(gF)
	return kernels.ParallelForWorker(ctx, hi-lo, e.threads, gridPointGrain, func(wk, a, b int) {
		sc := &g.work[wk]
		for q := lo + a; q < lo+b; q++ {
			i := int(ord.order[q])
			sp := e.windows(sc, i)
			d := e.gatherGrad(sc, f, &sp)
			for ax := range 2 {
				if c := p.ax[ax].coord; c >= 0 {
					e.grad[i*dims+c] += e.inv * d[ax]
				}
			}
		}
	})
}

// self returns the grid kernels of the point with itself, K̃(u, u) and
// K̃_A(u, u), and their one-sided derivatives ∇₁ along axes 0 and 1 (half
// the derivatives of K̃(u, u)), for the windows in sc.
func (e *gridEval) self(sc *gridWork) (s0, sA float64, d0, dA [2]float64) {
	k0x, kAx := e.p.taps(0)
	ax0, axA, dx0, dxA := selfAxis(sc.wx, sc.dwx, k0x, kAx)
	ay0, ayA, dy0, dyA := selfAxis(sc.wy, sc.dwy, e.p.k0, e.p.kA)
	s0 = ax0 * ay0
	sA = axA*ay0 + ax0*ayA
	d0 = [2]float64{dx0 * ay0, ax0 * dy0}
	dA = [2]float64{dxA*ay0 + dx0*ayA, axA*dy0 + ax0*dyA}
	return s0, sA, d0, dA
}

// selfAxis returns wᵀk w, wᵀk_A w, dwᵀk w and dwᵀk_A w for the window w
// (derivatives dw) and the symmetric taps k, k_A (0…t), from the window's
// autocorrelation R_o = Σ_m w_m w_{m+o} and its derivative.
func selfAxis(w, dw, k0, kA []float64) (s0, sA, d0, dA float64) {
	for o := range min(len(k0), len(w)) {
		var r, dr float64
		a, b := w[:len(w)-o], w[o:]
		da, db := dw[:len(a)], dw[o:]
		b, db = b[:len(a)], db[:len(a)]
		for m, v := range a {
			r += v * b[m]
			dr += da[m]*b[m] + v*db[m]
		}
		if o > 0 {
			r, dr = 2*r, 2*dr
		}
		s0 += k0[o] * r
		sA += kA[o] * r
		d0 += k0[o] * dr
		dA += kA[o] * dr
	}
	// dr is the derivative of wᵀk w; ∇₁ is half of it.
	return s0, sA, d0 / 2, dA / 2
}

// convolve1 convolves the combined charge Σ c·grid (nil grids skipped) with
// K and K_A into Φ0 and ΦA over the selection's rows: along the rows into
// X0 = k_x∗Q and XA = k_Ax∗Q, then across, Φ0 = k_y∗X0 and ΦA = k_y∗XA +
// k_Ay∗X0.
func (e *gridEval) convolve1(ctx context.Context, terms []gridTerm) error {
	x0, xa := e.buf(gX0), e.buf(gXA)
	k0, kA := e.p.taps(0)
	err := e.rowPass(ctx, func(sc *gridWork, o, w, lo, hi int) bool {
		if !e.combine(sc.pad0, terms, o, w, len(k0)-1) {
			return false
		}
		convRow2(x0[o+lo:o+hi], xa[o+lo:o+hi], sc.pad0[lo:], k0, kA)
		return true
	}, [][]float64{x0, xa}, terms, nil)
	if err != nil {
		return err
	}
	phi0, phiA := e.buf(gPhi0), e.buf(gPhiA)
	return e.colPass(ctx, func(d int, a, b float64, p, q *[2][]float64) {
		p0, pA := p[0], p[1]
		d0 := phi0[d : d+len(p0)]
		dA, pA := phiA[d:d+len(d0)], pA[:len(d0)]
		if q[0] == nil {
			for c, v := range p0 {
				d0[c] += a * v
				dA[c] += a*pA[c] + b*v
			}
			return
		}
		q0, qA := q[0][:len(d0)], q[1][:len(d0)]
		for c, v := range p0 {
			v += q0[c]
			d0[c] += a * v
			dA[c] += a*(pA[c]+qA[c]) + b*v
		}
	}, [2][]float64{x0, xa}, [][]float64{phi0, phiA})
}

// convolve2 convolves the combined charges c0 (with K) and cA (with K_A)
// into F over the selection's rows: along the rows into X1 = k_x∗c0 +
// k_Ax∗cA and X2 = k_x∗cA, then across, F = k_y∗X1 + k_Ay∗X2.
func (e *gridEval) convolve2(ctx context.Context, t0, tA []gridTerm) error {
	x1, x2 := e.buf(gX1), e.buf(gX2)
	k0, kA := e.p.taps(0)
	t := len(k0) - 1
	err := e.rowPass(ctx, func(sc *gridWork, o, w, lo, hi int) bool {
		nz0 := e.combine(sc.pad0, t0, o, w, t)
		nzA := e.combine(sc.padA, tA, o, w, t)
		if !nz0 && !nzA {
			return false
		}
		d1, d2 := x1[o+lo:o+hi], x2[o+lo:o+hi]
		convRow2(d1, d2, sc.padA[lo:], kA, k0)
		convRowAdd(d1, sc.pad0[lo:], k0)
		return true
	}, [][]float64{x1, x2}, t0, tA)
	if err != nil {
		return err
	}
	f := e.buf(gF)
	return e.colPass(ctx, func(d int, a, b float64, p, q *[2][]float64) {
		p1, p2 := p[0], p[1]
		dst := f[d : d+len(p1)]
		p2 = p2[:len(dst)]
		if q[0] == nil {
			for c, v := range p1 {
				dst[c] += a*v + b*p2[c]
			}
			return
		}
		q1, q2 := q[0][:len(dst)], q[1][:len(dst)]
		for c, v := range p1 {
			dst[c] += a*(v+q1[c]) + b*(p2[c]+q2[c])
		}
	}, [2][]float64{x1, x2}, [][]float64{f})
}

// combine fills pad (t zeros each side) with the row of w nodes from node
// o of Σ c·grid and reports whether it is not all zero.
func (e *gridEval) combine(pad []float64, terms []gridTerm, o, w, t int) bool {
	row := pad[t : t+w]
	clear(pad[:t])
	clear(pad[t+w : 2*t+w])
	first := true
	for _, tm := range terms {
		if tm.grid == nil || tm.c == 0 {
			continue
		}
		src := tm.grid[o : o+w]
		if first {
			for c, v := range src {
				row[c] = tm.c * v
			}
			first = false
			continue
		}
		for c, v := range src {
			row[c] += tm.c * v
		}
	}
	if first {
		clear(row)
		return false
	}
	for _, v := range row {
		if v != 0 {
			return true
		}
	}
	return false
}

// selRows returns the number of the selection's rows: ts[1] per segment.
func (e *gridEval) selRows() int { return len(e.g.sel.segs) * e.p.ts[1] }

// selRow returns the first node and the width of the selection's row j
// (row j mod ts[1] of segment j / ts[1]).
func (e *gridEval) selRow(j int) (o, w int) {
	s := &e.g.sel.segs[j/e.p.ts[1]]
	return s.node0 + (j%e.p.ts[1])*s.stride, s.width
}

// rowPass runs conv over the selection's rows of the row-convolved grids
// out: conv(sc, o, w, lo, hi) writes the columns [lo, hi) of the row of w
// nodes from node o (the nonzero extent of the combined charges t0, tA
// widened by the taps) or reports false for a zero row. A row of the
// selection is a segment's, and the charges beyond its ends are zero
// (their tiles are not selected: see the top of the file), hence the
// zero padding. The extents go to g.ext for colPass; the rest of each row
// is cleared.
func (e *gridEval) rowPass(ctx context.Context, conv func(sc *gridWork, o, w, lo, hi int) bool, out [][]float64, t0, tA []gridTerm) error {
	g := e.g
	k0, _ := e.p.taps(0)
	t := len(k0) - 1
	return kernels.ParallelForWorker(ctx, e.selRows(), e.threads, e.rowGrain(), func(wk, lo, hi int) {
		sc := &g.work[wk]
		for j := lo; j < hi; j++ {
			o, w := e.selRow(j)
			a, b := e.extent(o, w, t0, tA)
			a, b = max(a-t, 0), min(b+t, w)
			if a >= b || !conv(sc, o, w, a, b) {
				a, b = 0, 0
			}
			for _, x := range out {
				clear(x[o : o+a])
				clear(x[o+b : o+w])
			}
			g.ext[2*j], g.ext[2*j+1] = int32(a), int32(b)
		}
	})
}

// rowGrain returns the selection's rows per chunk of the convolutions:
// about gridRowCells nodes (the chunks do not change the results).
func (e *gridEval) rowGrain() int {
	return max(1, gridRowCells*e.selRows()/max(e.g.sel.nodes, 1))
}

// extent returns the columns [a, b) of the row of w nodes from node o
// outside which every grid of the terms is zero.
func (e *gridEval) extent(o, w int, t0, tA []gridTerm) (a, b int) {
	a, b = w, 0
	for _, ts := range [2][]gridTerm{t0, tA} {
		for _, tm := range ts {
			if tm.grid == nil || tm.c == 0 {
				continue
			}
			row := tm.grid[o : o+w]
			for c := 0; c < a; c++ {
				if row[c] != 0 {
					a = c
					break
				}
			}
			for c := w - 1; c >= b; c-- {
				if row[c] != 0 {
					b = c + 1
					break
				}
			}
		}
	}
	return a, b
}

// gridRowRef is a source row of colPass for a segment: its columns [lo,
// hi) (the segment's) hold its nonzero values, row c at off + c of the
// row-convolved grids, or of the worker's halo rows if halo.
type gridRowRef struct {
	off, lo, hi int
	halo        bool
}

// colPass computes the across-row convolutions of the row-convolved grids
// xs into the grids out over the selection: for each output row (the
// selection's) and each tap o it calls add(d, k[o], k_A[o], p, q), p
// and q being the columns [lo, hi) of the source rows r − o and r + o in
// xs (q nil for o = 0 or a zero row) and d the node of column lo of
// the output row, [lo, hi) the union of the source rows' extents. The
// chunks are segments: the t rows below and above a segment are those of
// the segments of the tile rows below and above (the only tiles a tap
// reaches, T > t); where several of them share the segment's columns
// they are gathered into the worker's halo rows, zero between them, and
// where none does the rows are zero (a missing tile next to a covered
// one holds no row-convolved charge: see the top of the file).
func (e *gridEval) colPass(ctx context.Context, add func(d int, a, b float64, p, q *[2][]float64), xs [2][]float64, out [][]float64) error {
	p, g := e.p, e.g
	t, ts1 := len(p.k0)-1, p.ts[1]
	segs := g.sel.segs
	grain := max(1, e.rowGrain()/ts1)
	return kernels.ParallelForWorker(ctx, len(segs), e.threads, grain, func(wk, lo, hi int) {
		sc := &g.work[wk]
		refs := sc.refs[:ts1+2*t]
		var ps, qs [2][]float64
		for j := lo; j < hi; j++ {
			s := &segs[j]
			for r := -t; r < ts1+t; r++ {
				refs[r+t] = e.rowRef(sc, j, r, xs)
			}
			for r := range ts1 {
				d := s.node0 + r*s.stride
				for _, x := range out {
					clear(x[d : d+s.width])
				}
				for o := 0; o <= t; o++ {
					r1 := &refs[r-o+t]
					a1, b1, a2, b2 := r1.lo, r1.hi, 1, 0
					var r2 *gridRowRef
					if o > 0 {
						r2 = &refs[r+o+t]
						a2, b2 = r2.lo, r2.hi
					}
					var c0 int
					switch {
					case a1 < b1 && a2 < b2:
						c0 = min(a1, a2)
						sc.rowSlices(&ps, r1, xs, c0, max(b1, b2))
						sc.rowSlices(&qs, r2, xs, c0, max(b1, b2))
					case a1 < b1:
						c0 = a1
						sc.rowSlices(&ps, r1, xs, a1, b1)
						qs = [2][]float64{}
					case a2 < b2:
						c0 = a2
						sc.rowSlices(&ps, r2, xs, a2, b2)
						qs = [2][]float64{}
					default:
						continue
					}
					add(d+c0, p.k0[o], p.kA[o], &ps, &qs)
				}
			}
		}
	})
}

// rowSlices sets ps to the columns [lo, hi) of the source row ref in xs
// (or in the worker's halo rows).
func (sc *gridWork) rowSlices(ps *[2][]float64, ref *gridRowRef, xs [2][]float64, lo, hi int) {
	for k, x := range xs {
		if ref.halo {
			x = sc.halo[k]
		}
		ps[k] = x[ref.off+lo : ref.off+hi]
	}
}

// rowRef returns the source row r of segment j for colPass: one of its
// own rows (0 ≤ r < ts[1]), or a row of the segments below (r < 0) or
// above, gathered into the worker's halo rows when there are several.
func (e *gridEval) rowRef(sc *gridWork, j, r int, xs [2][]float64) gridRowRef {
	p, g := e.p, e.g
	ts1, segs := p.ts[1], g.sel.segs
	s := &segs[j]
	if r >= 0 && r < ts1 {
		k := j*ts1 + r
		return gridRowRef{off: s.node0 + r*s.stride, lo: int(g.ext[2*k]), hi: int(g.ext[2*k+1])}
	}
	nb, slot := s.below, r+len(p.k0)-1 // halo slots: t below, then t above
	if r < 0 {
		r += ts1
	} else {
		nb, r, slot = s.above, r-ts1, slot-ts1
	}
	// The neighbours' extents in the segment's columns: a neighbour's
	// column c is the segment's c − shift. colPass may read a source row
	// over all of the segment's columns (the union of two rows' extents),
	// so a neighbour's row serves in place only if it spans them all (it
	// is zero outside its extent); else the neighbours' rows are gathered
	// into a halo row, zero elsewhere.
	x0 := p.tileKey[s.t0][0]
	ref, inPlace := gridRowRef{lo: s.width, hi: 0}, false
	for m := nb[0]; m < nb[1]; m++ {
		n := &segs[m]
		shift := (p.tileKey[n.t0][0] - x0) * p.ts[0]
		inPlace = shift <= 0 && shift+n.width >= s.width
		k := int(m)*ts1 + r
		lo, hi := max(int(g.ext[2*k])+shift, 0), min(int(g.ext[2*k+1])+shift, s.width)
		if lo < hi {
			ref.lo, ref.hi = min(ref.lo, lo), max(ref.hi, hi)
			ref.off = n.node0 + r*n.stride - shift
		}
	}
	if inPlace || ref.lo >= ref.hi {
		return ref
	}
	off := slot * p.maxRow
	for h, x := range xs {
		row := sc.halo[h][off : off+s.width]
		clear(row)
		for m := nb[0]; m < nb[1]; m++ {
			n := &segs[m]
			shift := (p.tileKey[n.t0][0] - x0) * p.ts[0]
			k := int(m)*ts1 + r
			lo, hi := max(int(g.ext[2*k])+shift, 0), min(int(g.ext[2*k+1])+shift, s.width)
			if lo < hi {
				src := n.node0 + r*n.stride - shift
				copy(row[lo:hi], x[src+lo:src+hi])
			}
		}
	}
	return gridRowRef{off: off, lo: ref.lo, hi: ref.hi, halo: true}
}

// convRow2 sets d0[c] = Σ_{|o|≤t} k0[|o|]·pad[t+c+o] and dA likewise with
// kA, for c < len(d0) (pad holds the row from t before d0's first column).
func convRow2(d0, dA, pad, k0, kA []float64) {
	t := len(k0) - 1
	mid := pad[t : t+len(d0)]
	dA = dA[:len(mid)]
	a, b := k0[0], kA[0]
	for c, v := range mid {
		d0[c], dA[c] = a*v, b*v
	}
	for o := 1; o <= t; o++ {
		l, r := pad[t-o:t-o+len(mid)], pad[t+o:t+o+len(mid)]
		a, b := k0[o], kA[o]
		for c, v := range l {
			s := v + r[c]
			d0[c] += a * s
			dA[c] += b * s
		}
	}
}

// convRowAdd adds to d[c] Σ_{|o|≤t} k[|o|]·pad[t+c+o], c < len(d).
func convRowAdd(d, pad, k []float64) {
	t := len(k) - 1
	mid := pad[t : t+len(d)]
	for c, v := range mid {
		d[c] += k[0] * v
	}
	for o := 1; o <= t; o++ {
		l, r := pad[t-o:t-o+len(mid)], pad[t+o:t+o+len(mid)]
		a := k[o]
		for c, v := range l {
			d[c] += a * (v + r[c])
		}
	}
}
