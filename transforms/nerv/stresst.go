package nerv

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ordinate/ordinate/internal/lbfgs"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// The sparse-input NeRV stress with Student's t output kernel (TStress;
// Options.OutputKernel KernelT).
//
// It keeps everything of BH's objective (the sparse β, the floors log ε_i,
// Λ, the generalised KL per row, the 1/n) but the output neighbourhood:
//
//	b_ij = w_ij / Z_i,  w_ij = 1/(1 + a_ij),  a_ij = h·D²_ij,  h = 1/(2s²),
//
// still normalised per row, as NeRV's retrieval of each point's
// neighbours is (Venna et al.'s t-NeRV, JMLR 2010, normalises over all
// pairs instead; an exact prototype, scripts/nervbh/tkernel.py, kept
// the rows). The kernel's heavy tail lets a 2-D map keep the local
// neighbourhoods of many dimensions apart without crowding them, which a
// Gaussian of one width cannot (BENCHMARKS.md, "What the T(10) gap is made
// of"). In the units u = √h·y the sums every row needs run over all
// points, and tinterp.go interpolates them, per plane: with u_ij = 1 − Λ_ij
// written as (1 − γ) + [both labelled](γ − τ_out) − α Σ_m w_m [i, j ∈ M_m]
// over the label channels M_m (gridsoft.go; one-hot rows give one channel
// per class of weight 1, ClassNeRV), the planes are all points (weight
// 1 − γ, and Z_i), the labelled points (γ − τ_out; folded into the first
// when every row is labelled) and each channel (−α w_m). Row i's far
// terms are then, with U_i = Σ_j u_ij w_ij and V_i = Σ_j u_ij w_ij L_ij
// (L = log(1 + a) = −log w),
//
//	Σ_j t⁰_ij = 1 − (U_i (2 + log Z_i + ℓ_i) + V_i)/Z_i,
//	G_i = Σ_j g⁰_ij = 1 − (U_i (1 + log Z_i + ℓ_i) + V_i)/Z_i,
//
// the listed pairs corrected exactly as in BH (their field part taken with
// the rounded Λ̂ the planes carry, so soft labels' rounding touches only
// the far pairs). With ∂ζ_i/∂a_ij = c_ij w_ij (log w = −log(1 + a)), the
// far forces are, in u,
//
//	∂ζ_i/∂u_i = 2 Σ_j c⁰_ij w_ij (u_i − u_j)
//	          = 2 ((G_i − 1) Σ w²r + (1 + log Z_i + ℓ_i) Σ u w²r + Σ u w²L r)/Z_i,
//
// r = u_i − u_j, and each point l is the source of every row's sum: the
// same kernels with charges A_j = (G_j − 1)/Z_j on all points and
// B_j = (1 + log Z_j + ℓ_j)/Z_j, C_j = 1/Z_j on every plane by its weight.
// Two passes of the interpolation per evaluation: the fields F0, F1, G0,
// G1 of unit charges, then G0 and G1 of the charges, each the far part of
// the kernels interpolated and the near part summed over the pairs within
// the near radius (near). The class planes take a coarser grid (at most
// tClassIntervals per axis) and a wider near radius, their near pairs a
// class's own: their FFTs were nine tenths of the time with full grids.

// TStress holds the reusable state of t-kernel NeRV stresses. The zero
// value is ready to use; it is not safe for concurrent use.
type TStress struct {
	// NodesPerInterval is the interpolation's number of Lagrange nodes per
	// interval and axis (0: tNodesPerInterval).
	NodesPerInterval int
	// gridOnly interpolates every plane of more than tDirectMax members
	// (tInterp.gridOnly), for tests of the interpolation.
	gridOnly bool

	interp tInterp // all points and the labelled ones
	coarse tInterp // the class (channel) planes
	soft   gridSoft
	w0, wl float64    // the weights of the planes of all points and of the labelled ones
	byCls  []CellGrid // hard labels: each class's points, for the class planes' near pairs
	clsIdx [][]int32  // their indices
	// Per hard class, for this map (chooseGrids): the class plane's
	// interval width in fine intervals (1: on the fine grid, its near
	// pairs a subset of the fine ones, found in the same scan; more: on a
	// grid of its own over its members), and its near radius.
	factor []int32
	clsR   []float64
	own    tInterp   // a hard class plane's own grid
	ownU   []float64 // its members' map, in kernel units
	ownIdx []int32   // 0 … m−1
	count  []int32   // nearPairs' cells
	planes []tPlane
	key    tKey // the input the planes were built for
	hard   hardLabels
	rounds bool      // some labels are soft: the planes carry a rounded Λ̂
	u      []float64 // the map in kernel units
	pt     []float64 // per point: Z, U, V, Σw²r, Σu w²r, Σu w²L r
	row    []float64 // per point: A, B, C (pass 2), then stress
	out    []float64 // a plane's sums, by member
	chg    []float64 // a plane's charges, by member
	slots  []float64 // the rows' chunk accumulators
	work   []nervBHScratch
	cells  CellGrid // the map in kernel units, for the near pairs
	// The near pairs' data in the cells' order (nearSym).
	cellCls   []int32   // class, where its plane is on the fine grid, else −1
	cellLab   []bool    // labelled (when the labelled plane has a weight, or labels are soft)
	cellLevel []uint8   // soft labels' levels, c a row
	chgC      []float64 // pass 2's charges A, B, C
	acc       []float64 // the sums
	strips    []int32
}

// tPlane is one plane: its members (who are also its readers) and its
// weight in u_ij; all is the plane of every point (Z and the A charges).
type tPlane struct {
	members []int32
	weight  float64
	all     bool
	class   bool  // a class (channel) plane
	cls     int32 // its hard class, or −1 (soft labels)
}

// tKey identifies what the planes depend on: the input and its labels
// (a pointer alone could be an old input's address reused).
type tKey struct {
	in           *SparseInput
	n, c         int
	soft         *float64
	alpha, gamma float64
}

func newTKey(in *SparseInput) tKey {
	k := tKey{in: in, n: in.N, c: in.C, alpha: in.Alpha, gamma: in.Gamma}
	if len(in.Soft) > 0 {
		k.soft = &in.Soft[0]
	}
	return k
}

// tRec is the number of per-point values of pass 1.
func tRec(dims int) int { return 3 + 3*dims }

// Stress returns the stress ζ (with the 1/n of the exact Stress) of y
// (n×dims, dims ≤ MaxInterpDims) under the t kernel and, if grad is not nil,
// writes its gradient into grad. Rows are split into 16 fixed chunks, each
// with its own accumulator, and every plane sums in member order, so
// results are bit-identical for any thread count. It panics on wrong
// lengths or parameters, and returns ctx.Err() if cancelled.
func (t *TStress) Stress(ctx context.Context, grad, y []float64, dims int, in *SparseInput, threads int) (float64, error) {
	if done, err := in.begin(ctx, grad, y, dims, 0); done {
		return 0, err
	}
	if dims > gridMaxDims {
		panic("nerv: the t kernel needs dims ≤ 2")
	}
	n := in.N
	t.interp.p, t.coarse.p, t.coarse.maxI = t.NodesPerInterval, t.NodesPerInterval, tClassIntervals
	t.interp.capI, t.coarse.capI = tMaxFineIntervals, tClassIntervals
	t.interp.gridOnly, t.coarse.gridOnly, t.own.gridOnly = t.gridOnly, t.gridOnly, t.gridOnly
	if key := newTKey(in); t.key != key {
		t.setPlanes(in)
		t.key = key
	}
	for len(t.work) < kernels.Workers(n, threads, 1) {
		t.work = append(t.work, nervBHScratch{})
	}
	sq := 1 / (math.Sqrt2 * in.Scale) // √h
	t.u = kernels.Grow(t.u, n*dims)
	for k, v := range y {
		t.u[k] = v * sq
	}
	t.interp.maxI = 0
	t.interp.setGrid(t.u, n, dims)
	t.chooseFine()
	if t.rounds {
		t.coarse.setGrid(t.u, n, dims)
	}
	t.chooseGrids()
	// Cells half the near radius wide: a ball's runs then visit about 1.7
	// times its points (2.9 with cells the radius wide), where a quarter
	// would visit 1.3 times in four times the runs.
	if !t.cells.Build(t.u, n, dims, t.interp.r/2) || !t.buildClasses(dims) {
		for k := range grad {
			grad[k] = math.NaN()
		}
		return math.NaN(), nil
	}
	t.cellAttrs(in)
	if err := t.pass1(ctx, dims, threads); err != nil {
		return 0, err
	}
	if err := t.near(ctx, in, dims, false, threads); err != nil {
		return 0, err
	}
	stress, err := t.rows(ctx, grad, dims, in, threads)
	if err != nil || grad == nil {
		return stress, err
	}
	if err := t.pass2(ctx, dims, threads); err != nil {
		return 0, err
	}
	if err := t.near(ctx, in, dims, true, threads); err != nil {
		return 0, err
	}
	// grad holds the rows' own and listed forces in u; add the far
	// reactions, then turn ∂/∂u into ∂/∂y (1/n of the stress included).
	rec := tRec(dims)
	f := sq / float64(n)
	for i := range n {
		p2 := t.pt[i*rec+3 : i*rec+3+dims]
		for c := range dims {
			grad[i*dims+c] = f * (grad[i*dims+c] + 2*p2[c])
		}
	}
	return stress, nil
}

// setPlanes lists the planes of in.
func (t *TStress) setPlanes(in *SparseInput) {
	n := in.N
	t.hard = newHardLabels(in.Soft, in.N, in.C, in.Alpha, in.Gamma)
	t.rounds = in.Soft != nil && in.Alpha != 0 && !labelsOneHot(in.Soft, in.C)
	t.planes = t.planes[:0]
	all := make([]int32, n)
	var lab []int32
	for i := range n {
		all[i] = int32(i)
		if in.labelled(i) {
			lab = append(lab, int32(i))
		}
	}
	tauOut := (1 - in.Alpha) * in.Gamma
	w0, wl := 1-in.Gamma, in.Gamma-tauOut
	if len(lab) == n {
		w0, wl = w0+wl, 0
	}
	t.w0, t.wl = w0, 0
	if wl != 0 && len(lab) > 0 {
		t.wl = wl
	}
	t.planes = append(t.planes, tPlane{members: all, weight: w0, all: true})
	if wl != 0 && len(lab) > 0 {
		t.planes = append(t.planes, tPlane{members: lab, weight: wl})
	}
	if in.Alpha == 0 || len(lab) == 0 {
		return
	}
	t.soft.set(in, DefaultGridSoftLevels)
	counts := make([]int, len(t.soft.weight))
	for _, m := range t.soft.channel {
		counts[m]++
	}
	first := len(t.planes)
	for m, c := range counts {
		t.planes = append(t.planes, tPlane{members: make([]int32, 0, c), weight: -in.Alpha * t.soft.weight[m], class: true, cls: -1})
	}
	for k, m := range t.soft.channel {
		p := &t.planes[first+int(m)]
		p.members = append(p.members, t.soft.point[k])
	}
	if t.hard.class == nil || t.rounds {
		return
	}
	for q := first; q < len(t.planes); q++ {
		if p := &t.planes[q]; len(p.members) > 0 {
			p.cls = t.hard.class[p.members[0]]
		}
	}
}

// lamHat is Λ̂_ij, the trade-off the planes carry for the pair: Λ_ij with
// the soft labels rounded (gridsoft.go), exact for one-hot rows.
func (t *TStress) lamHat(in *SparseInput, i, j int) float64 {
	if in.Alpha == 0 || !in.labelled(i) || !in.labelled(j) {
		return in.Gamma
	}
	return (1-in.Alpha)*in.Gamma + in.Alpha*t.soft.lamHat(i, j, in.C)
}

// pass1 sums the unit-charge fields of every plane into t.pt.
func (t *TStress) pass1(ctx context.Context, dims, threads int) error {
	k, rec := tFields(dims), tRec(dims)
	n := len(t.u) / dims
	t.pt = kernels.Grow(t.pt, n*rec)
	clear(t.pt[:n*rec])
	comps := tComps(dims, 0, k)
	for _, p := range t.planes {
		m := len(p.members)
		t.out = kernels.Grow(t.out, m*k)
		out := t.out[:m*k]
		if err := t.planeSums(ctx, p, out, nil, comps, threads); err != nil {
			return err
		}
		for r, i := range p.members {
			v := out[r*k : (r+1)*k]
			d := t.pt[int(i)*rec : int(i+1)*rec]
			if p.all {
				d[0] += v[0]
				for c := range dims {
					d[3+c] += v[2+c]
				}
			}
			d[1] += p.weight * v[0]
			d[2] += p.weight * v[1]
			for c := range dims {
				d[3+dims+c] += p.weight * v[2+c]
				d[3+2*dims+c] += p.weight * v[2+dims+c]
			}
		}
	}
	return nil
}

// tComps returns the field indices lo … hi−1.
func tComps(dims, lo, hi int) []int {
	c := make([]int, 0, hi-lo)
	for f := lo; f < hi; f++ {
		c = append(c, f)
	}
	return c
}

// rows computes every row's stress, its own far forces and the listed
// pairs' forces (into grad, in u units, without the 1/n), and the charges
// A, B, C of pass 2.
func (t *TStress) rows(ctx context.Context, grad []float64, dims int, in *SparseInput, threads int) (float64, error) {
	n, k, rec := in.N, in.K, tRec(dims)
	grain := max(nervGrain, (n+nervBHChunks-1)/nervBHChunks)
	chunks := kernels.NumChunks(n, grain)
	m := n * dims
	if grad != nil {
		t.slots = kernels.Grow(t.slots, chunks*m)
	}
	t.row = kernels.Grow(t.row, 4*n)
	hard := &t.hard
	err := kernels.ParallelForWorker(ctx, n, threads, grain, func(wk, lo, hi int) {
		sc := &t.work[wk]
		var acc []float64
		if grad != nil {
			acc = t.slots[(lo/grain)*m : (lo/grain+1)*m]
			clear(acc)
		}
		for i := lo; i < hi; i++ {
			d := t.pt[i*rec : (i+1)*rec]
			ui := t.u[i*dims : (i+1)*dims]
			// The listed neighbours' kernels bound Z from below: where the
			// interpolation's error passes Z itself (a row far from all
			// others on a coarse grid), the bound stands in.
			var zl float64
			for _, j := range in.Idx[i*k : (i+1)*k] {
				zl += 1 / (1 + kernels.EmbedSqDist(ui, t.u[int(j)*dims:int(j+1)*dims]))
			}
			z, uu, vv := d[0], d[1], d[2]
			if !(z >= zl) {
				z = zl
				uu, vv = min(max(uu, 0), z), max(vv, 0)
			}
			logZ := math.Log(z)
			lbeta, lf := in.rowLogBeta(sc, i)
			st := 1 - (uu*(2+logZ+lf)+vv)/z
			sumG := 1 - (uu*(1+logZ+lf)+vv)/z
			var gi []float64
			if acc != nil {
				gi = acc[i*dims : (i+1)*dims]
			}
			beta := in.Beta[i*k : (i+1)*k]
			for q, j := range in.Idx[i*k : (i+1)*k] {
				uj := t.u[int(j)*dims : int(j+1)*dims]
				a := kernels.EmbedSqDist(ui, uj)
				w := 1 / (1 + a)
				logb := -math.Log1p(a) - logZ
				b := math.Exp(logb)
				lam := hard.tradeoff(in.Soft, in.C, in.Alpha, in.Gamma, i, int(j))
				ds, dg := gridListed(beta[q], lbeta[q], lf, b, logb, lam)
				if t.rounds {
					if hat := t.lamHat(in, i, int(j)); hat != lam {
						c := b * (lam - hat)
						ds += c * (2 + lf - logb)
						dg += c * (1 + lf - logb)
					}
				}
				st += ds
				sumG += dg
				if acc != nil {
					f := -2 * dg * w
					gj := acc[int(j)*dims : int(j+1)*dims]
					for c := range gi {
						v := f * (ui[c] - uj[c])
						gi[c] += v
						gj[c] -= v
					}
				}
			}
			t.row[4*i+3] = st
			pb := (1 + logZ + lf) / z
			t.row[4*i], t.row[4*i+1], t.row[4*i+2] = (sumG-1)/z, pb, 1/z
			if acc != nil {
				g0, ug0, ug1 := d[3:3+dims], d[3+dims:3+2*dims], d[3+2*dims:3+3*dims]
				for c := range gi {
					gi[c] += 2 * ((sumG-1)*g0[c] + (1+logZ+lf)*ug0[c] + ug1[c]) / z
				}
			}
		}
	})
	if err != nil {
		return 0, err
	}
	var stress float64
	for i := range n {
		stress += t.row[4*i+3]
	}
	if grad != nil {
		copy(grad, t.slots[:m])
		for c := m; c < chunks*m; c += m {
			for q, v := range t.slots[c : c+m] {
				grad[q] += v
			}
		}
	}
	return stress / float64(n), nil
}

// pass2 sums every plane's fields of the charges A, B, C into the first
// dims values of each point's record (pass 1's are spent).
func (t *TStress) pass2(ctx context.Context, dims, threads int) error {
	k, rec := tFields(dims), tRec(dims)
	n := len(t.u) / dims
	for i := range n {
		clear(t.pt[i*rec+3 : i*rec+3+dims])
	}
	g0, g1 := tComps(dims, 2, 2+dims), tComps(dims, 2+dims, k)
	for _, p := range t.planes {
		m := len(p.members)
		t.out = kernels.Grow(t.out, m*dims)
		t.chg = kernels.Grow(t.chg, m)
		out, chg := t.out[:m*dims], t.chg[:m]
		for pass, comps := range [][]int{g0, g1} {
			for r, j := range p.members {
				if pass == 0 {
					chg[r] = p.weight * t.row[4*j+1]
					if p.all {
						chg[r] += t.row[4*j]
					}
				} else {
					chg[r] = p.weight * t.row[4*j+2]
				}
			}
			if err := t.planeSums(ctx, p, out, chg, comps, threads); err != nil {
				return err
			}
			for r, i := range p.members {
				d := t.pt[int(i)*rec+3 : int(i)*rec+3+dims]
				for c := range dims {
					d[c] += out[r*dims+c]
				}
			}
		}
	}
	return nil
}

// tMapScale returns the t kernel's map scale for n rows: the median row's
// mean distance to its ten nearest listed neighbours, in kernel widths, at
// the start of the t level, whose spread then stays (doc.go, "Quality
// against t-SNE, and the t kernel"). 3 at 3,000 rows, where 1, 3 and 10
// gave T(10) 0.897, 0.920 and 0.913 on overlap (exact sums, 300
// iterations), growing as the cube root of n: at 20,000 rows 1.5, 3 and 6
// gave 0.893, 0.903 and 0.909.
func tMapScale(n int) float64 {
	return 3 * math.Cbrt(max(1, float64(n)/3000))
}

// refineT runs the t kernel's level of a fit with output kernel t: the
// map y of the Gaussian levels, scaled to tMapScale(n), optimised under
// TStress on the last level's input with its spread held (heldSpread).
func (l *sparseLevels) refineT(y, x []float64, d int, o Options, rep transforms.Progress) (Level, []float64, error) {
	in, dims, n := l.cur, o.Dims, l.n
	m := min(10, in.K)
	near := make([]float64, n)
	for i := range n {
		var sum float64
		for _, j := range in.Idx[i*in.K : i*in.K+m] {
			sum += math.Sqrt(kernels.EmbedSqDist(y[i*dims:(i+1)*dims], y[int(j)*dims:int(j+1)*dims]))
		}
		near[i] = sum / float64(m)
	}
	slices.Sort(near)
	f := 1.0
	if med := near[n/2]; med > 0 {
		f = tMapScale(n) * math.Sqrt2 * in.Scale / med
	}

	yt := make([]float64, len(y))
	var mean [gridMaxDims]float64
	for i := range n {
		for c := range dims {
			mean[c] += y[i*dims+c] / float64(n)
		}
	}
	for i := range n {
		for c := range dims {
			yt[i*dims+c] = (y[i*dims+c] - mean[c]) * f
		}
	}
	r0 := tSpread(yt, n, dims, nil)
	eval := heldSpread(func(v, g []float64) float64 {
		s, err := l.tst.Stress(l.ctx, g, v, dims, in, o.Threads)
		if err != nil {
			return math.NaN()
		}
		return s
	}, n, dims, r0)
	rep.Start("optimising the t kernel", int64(o.MaxIter))
	defer rep.Finish()
	set := lbfgs.Settings{MaxIter: o.MaxIter, Store: 10, Tol: o.Tol, Step: func(int, float64) { rep.Add(1) }}
	mon, err := lastMonitor(l.ctx, l, true, x, n, d, l.soft, l.c, o)
	if err != nil {
		return Level{}, nil, err
	}
	if mon != nil {
		mon.span = tMonitorSpan
		set.Converged = func(it int, y []float64, _ float64) bool { return mon.converged(l.ctx, it, y) }
	}
	r, err := lbfgs.Run(l.ctx, eval, yt, set)
	if err != nil {
		return Level{}, nil, err
	}
	if err := l.ctx.Err(); err != nil {
		return Level{}, nil, err
	}
	if math.IsNaN(r.F) || math.IsInf(r.F, 0) {
		return Level{}, nil, fmt.Errorf("nerv: stress became %g under the t kernel", r.F)
	}
	status := r.Status
	if status == lbfgs.StatusConverged {
		status = StatusNeighbours
	}
	lv := Level{Perplexity: o.Perplexity, Stress: r.F, Iterations: r.Iterations, Evaluations: r.Evaluations, Status: status, Kernel: KernelT}
	out := r.X
	f = r0 / tSpread(out, n, dims, nil)
	for k := range out {
		out[k] *= f
	}
	return lv, out, nil
}

// tMonitorSpan is how many checks back the t level's monitor compares
// with: its rows' neighbourhoods form slowly from the Gaussian map's and
// keep drifting by about half the tolerance a check. On 30,000 rows of
// blobs of unequal widths the one-check rule stopped at 50 iterations
// (preservation 0.268, T(10) 0.962), two checks at 80 (0.277, 0.967;
// 150 iterations 0.291, 0.968; t-SNE 0.973).
const tMonitorSpan = 2

// heldSpread returns f with the map's spread held at r0: it evaluates f
// at v = r0·y/r(y), r the root mean square distance from the centroid, and
// turns the gradient at v into the gradient in y, from which the scale's
// direction drops out (the result is the same for every multiple of y).
func heldSpread(f func(v, g []float64) float64, n, dims int, r0 float64) func(y, g []float64) float64 {
	v := make([]float64, n*dims)
	return func(y, g []float64) float64 {
		var mean [gridMaxDims]float64
		r := tSpread(y, n, dims, mean[:])
		for k, x := range y {
			v[k] = x * r0 / r
		}
		s := f(v, g)
		if g == nil {
			return s
		}
		// ∂v_k/∂y_m = (r0/r)(δ_km − (y_k − ȳ)(y_m − ȳ)/(n r²)).
		var radial float64
		for i := range n {
			for c := range dims {
				radial += g[i*dims+c] * (y[i*dims+c] - mean[c])
			}
		}
		radial /= float64(n) * r * r
		for i := range n {
			for c := range dims {
				g[i*dims+c] = r0 / r * (g[i*dims+c] - radial*(y[i*dims+c]-mean[c]))
			}
		}
		return s
	}
}

// tSpread returns the root mean square distance of the n points of y from
// their centroid, which it writes to mean when mean is not nil.
func tSpread(y []float64, n, dims int, mean []float64) float64 {
	var m [gridMaxDims]float64
	for i := range n {
		for c := range dims {
			m[c] += y[i*dims+c]
		}
	}
	for c := range dims {
		m[c] /= float64(n)
	}
	var ss float64
	for i := range n {
		for c := range dims {
			d := y[i*dims+c] - m[c]
			ss += d * d
		}
	}
	if mean != nil {
		copy(mean, m[:dims])
	}
	return math.Sqrt(ss / float64(n))
}

// planeSums writes the far parts of plane p's fields comps, sources
// weighted by charge, to out (tInterp.sums) on the plane's grid.
func (t *TStress) planeSums(ctx context.Context, p tPlane, out, charge []float64, comps []int, threads int) error {
	switch {
	case !p.class:
		return t.interp.sums(ctx, out, t.u, p.members, charge, comps, threads)
	case p.cls < 0:
		return t.coarse.sums(ctx, out, t.u, p.members, charge, comps, threads)
	case t.factor[p.cls] == 1:
		return t.interp.sums(ctx, out, t.u, p.members, charge, comps, threads)
	}
	dims, m := t.interp.dims, len(p.members)
	t.ownU = kernels.Grow(t.ownU, m*dims)
	for r, j := range p.members {
		copy(t.ownU[r*dims:(r+1)*dims], t.u[int(j)*dims:int(j+1)*dims])
	}
	for len(t.ownIdx) < m {
		t.ownIdx = append(t.ownIdx, int32(len(t.ownIdx)))
	}
	t.own.p, t.own.width = t.interp.p, float64(t.factor[p.cls])*t.fineWidth()
	t.own.setGrid(t.ownU[:m*dims], m, dims)
	return t.own.sums(ctx, out, t.ownU[:m*dims], t.ownIdx[:m], charge, comps, threads)
}

// fineWidth returns the fine grid's widest interval.
func (t *TStress) fineWidth() float64 {
	if t.interp.dims == 1 {
		return t.interp.w[0]
	}
	return max(t.interp.w[0], t.interp.w[1])
}

// The cost model that lays the grids (chooseGrids, chooseFine), per
// evaluation on two threads: a node of a plane's window, its share of the
// 19 transforms of the two passes and the kernels' spectra; a near pair
// (ordered, as nearPairs counts them), both passes: 17 to 23 ns once each
// pair is visited once (nearSym), against 57 before, measured on
// BenchmarkNeRVTStress's maps at each fine cap and on overlap's map at
// 10⁵ rows (BenchmarkGridConvolution for the nodes).
const (
	tNodeSeconds = 0.3e-6
	tPairSeconds = 0.020e-6
	// tDirectPairSeconds is a pair of a plane summed directly, one call
	// (all fields), and tFFTPointSeconds a point of one of the grid's
	// transforms, on two threads (tInterp.direct; BenchmarkTDirect, and
	// a pass-1 call on digits' 1,797 rows, 85 × 97 intervals: 7
	// transforms of 1,024² points in 95 ms).
	tDirectPairSeconds = 10e-9
	tFFTPointSeconds   = 6.5e-9
)

// chooseGrids gives every hard class plane the grid of least cost
// (tNodeSeconds, tPairSeconds): the fine grid, whose near pairs are among
// the fine ones already (no cost of their own), or a grid of its own of
// intervals 2^k fine ones wide over its members, whose nodes are fewer
// and near pairs, within a wider radius, its own. A compact class (as
// ClassNeRV's maps make them) takes the fine grid; a class spread over the
// map a coarse one, where its own pairs are few. (One coarse grid over
// the whole map for every class, as soft labels' channels have, took a
// near radius over whole compact classes: 3,300 pairs a row on 100,000
// rows of 30 classes, BenchmarkNeRVTStress, four fifths of an
// evaluation.)
func (t *TStress) chooseGrids() {
	t.factor, t.clsR = t.factor[:0], t.clsR[:0]
	if t.hard.class == nil || t.rounds {
		return
	}
	p, dims, wf := t.interp.nodes(), t.interp.dims, t.fineWidth()
	for _, pl := range t.planes {
		if pl.cls < 0 {
			continue
		}
		for len(t.factor) <= int(pl.cls) {
			t.factor = append(t.factor, 1)
			t.clsR = append(t.clsR, 0)
		}
		i0, i1 := t.interp.window(pl.members)
		best, bestCost := 1, math.Inf(1)
		for f := 1; f <= 1<<20; f *= 2 {
			nodes, fits := 1.0, true
			for c := range dims {
				// The window's extent in intervals of f fine widths, with
				// one to spare for the alignment of its own grid.
				k := math.Ceil(float64(i1[c]-i0[c]+1)*t.interp.w[c]/(float64(f)*wf)) + 1
				if f == 1 {
					k = float64(i1[c] - i0[c] + 1)
				}
				nodes *= k * float64(p)
				fits = fits && k <= tMaxIntervals
			}
			if !fits {
				continue
			}
			cost := nodes * tNodeSeconds
			if f > 1 {
				cost += t.nearPairs(pl.members, t.ownRadius(f)) * tPairSeconds
			}
			if cost < bestCost {
				best, bestCost = f, cost
			}
			if nodes <= float64(len(pl.members)) {
				break // coarser grids cost more in pairs than they save
			}
		}
		t.factor[pl.cls] = int32(best)
		t.clsR[pl.cls] = t.interp.r
		if best > 1 {
			t.clsR[pl.cls] = t.ownRadius(best)
		}
	}
}

// tFineCaps are the fine grid's intervals per axis that chooseFine
// weighs, where the map is wider than tMaxIntervals units.
var tFineCaps = [...]int{tMaxIntervals, 212, tMaxFineIntervals}

// chooseFine lays the fine grid again with more intervals when the cost
// model (tNodeSeconds, tPairSeconds) finds it cheaper: on a wide map the
// intervals, and with them the near radius, grow with the map, and its
// near pairs with their square. The nodes are those of every plane on the
// fine grid, the hard classes' windows among them (their sum grows with
// the intervals as the map's does). At 10⁵ rows of BenchmarkNeRVTStress
// it picks 300 intervals on islands (4.6 s an evaluation; 5.2 s at 150),
// 212 on blobs (3.0 s; 3.0 at 150, 4.2 at 300) and 150 on mixed (3.5 s;
// 3.0 at 212).
func (t *TStress) chooseFine() {
	w := t.fineWidth()
	if w <= tIntervalWidth || t.planes == nil {
		return
	}
	all := t.planes[0].members
	// The nodes of the planes on the fine grid, the hard classes' windows
	// among them (a class may yet take a grid of its own; chooseGrids).
	var nodes float64
	for _, pl := range t.planes {
		if pl.class && pl.cls < 0 {
			continue // soft labels' channels: the coarse grid
		}
		i0, i1 := t.interp.window(pl.members)
		k := 1.0
		for a := range t.interp.dims {
			k *= float64(i1[a]-i0[a]+1) * float64(t.interp.nodes())
		}
		nodes += k
	}
	best, bestCost := tMaxIntervals, math.Inf(1)
	for _, c := range tFineCaps {
		f := float64(tMaxIntervals) / float64(c)
		if w*f < tIntervalWidth {
			break
		}
		cost := nodes/math.Pow(f, float64(t.interp.dims))*tNodeSeconds + t.nearPairs(all, tNearRadius*w*f)*tPairSeconds
		if cost < bestCost {
			best, bestCost = c, cost
		}
	}
	if best != tMaxIntervals {
		t.interp.maxI = best
		t.interp.setGrid(t.u, len(all), t.interp.dims)
	}
}

// ownRadius is the near radius of a class's own grid of intervals f fine
// ones wide.
func (t *TStress) ownRadius(f int) float64 {
	return tNearRadius * max(1, float64(f)*t.fineWidth()/tIntervalWidth)
}

// nearPairs estimates the ordered pairs of members within r of each
// other: Σ c(c − 1)·π/4 over square cells 2r wide (a uniform density in
// each), c the members in a cell.
func (t *TStress) nearPairs(members []int32, r float64) float64 {
	dims, side := t.interp.dims, 2*r
	var nc [2]int
	nc[1] = 1
	for c := range dims {
		nc[c] = int(float64(t.interp.nb[c])*t.interp.w[c]/side) + 1
	}
	t.count = kernels.Grow(t.count, nc[0]*nc[1])
	cnt := t.count[:nc[0]*nc[1]]
	clear(cnt)
	for _, j := range members {
		k := 0
		for c := dims - 1; c >= 0; c-- {
			b := int((t.u[int(j)*dims+c] - t.interp.lo[c]) / side)
			k = k*nc[c] + min(max(b, 0), nc[c]-1)
		}
		cnt[k]++
	}
	var pairs float64
	for _, c := range cnt {
		pairs += float64(c) * float64(c-1)
	}
	return pairs * math.Pi / 4
}

// buildClasses builds, for one-hot labels, the cell list over the map in
// kernel units of each class on a grid of its own, with that grid's near
// radius (chooseGrids); it reports false for a map with non-finite
// coordinates.
func (t *TStress) buildClasses(dims int) bool {
	cls := t.hard.class
	if cls == nil || !t.hasClassPlanes() || t.rounds {
		return true
	}
	c := 0
	for _, k := range cls {
		c = max(c, int(k)+1)
	}
	for len(t.byCls) < c {
		t.byCls = append(t.byCls, CellGrid{})
		t.clsIdx = append(t.clsIdx, nil)
	}
	for k := range c {
		t.clsIdx[k] = t.clsIdx[k][:0]
	}
	for i, k := range cls {
		if k >= 0 {
			t.clsIdx[k] = append(t.clsIdx[k], int32(i))
		}
	}
	var pos []float64
	for k := range c {
		if k >= len(t.factor) || t.factor[k] == 1 {
			continue
		}
		pos = pos[:0]
		for _, i := range t.clsIdx[k] {
			pos = append(pos, t.u[int(i)*dims:int(i+1)*dims]...)
		}
		if !t.byCls[k].Build(pos, len(t.clsIdx[k]), dims, t.clsR[k]/2) {
			return false
		}
	}
	return true
}

// hasClassPlanes reports whether the planes include class (channel) ones.
func (t *TStress) hasClassPlanes() bool {
	for _, p := range t.planes {
		if p.class {
			return true
		}
	}
	return false
}

// near adds to every point's record the near parts K·(1 − S) of its sums
// (tinterp.go): over the points within the fine near radius for the planes
// of all points and of the labelled ones (weight w0 + wl·[both
// labelled]; a class on the fine grid adds −α for its own rows there),
// and for a class plane on a coarser grid over the points within that
// grid's radius (weight −α·λ̂_ij: with one-hot labels the row's own class
// on a grid of its own, from its cell list; soft labels' channels on the
// coarse grid). Pass 1's sums, or with second pass 2's charged
// ones.
func (t *TStress) near(ctx context.Context, in *SparseInput, dims int, second bool, threads int) error {
	fine := tNearSet{g: &t.cells, r: t.interp.r, all: true, fine: true, alpha: in.Alpha}
	if err := t.nearSym(ctx, &fine, dims, second, threads); err != nil {
		return err
	}
	if !t.hasClassPlanes() {
		return nil
	}
	if t.softNear() {
		soft := tNearSet{g: &t.cells, r: t.coarse.r, soft: true, alpha: in.Alpha, c: in.C}
		return t.nearSym(ctx, &soft, dims, second, threads)
	}
	for k := range t.factor {
		if t.factor[k] == 1 || k >= len(t.byCls) || len(t.clsIdx[k]) == 0 {
			continue // on the fine grid, or no members
		}
		own := tNearSet{g: &t.byCls[k], idx: t.clsIdx[k], r: t.clsR[k], u: -in.Alpha}
		if err := t.nearSym(ctx, &own, dims, second, threads); err != nil {
			return err
		}
	}
	return nil
}

// softNear reports whether the class planes' near pairs are soft labels'
// channels, by λ̂ (else each hard class's own, by −α).
func (t *TStress) softNear() bool { return t.rounds || t.hard.class == nil }

// tNearSet is a cell list whose near pairs nearSym sums: the fine one
// over all points (weights by TStress.weight, and the planes of all points
// with them), or a hard class's own (weight u, its plane only).
type tNearSet struct {
	g     *CellGrid
	idx   []int32 // the list's points' rows; nil: the list is over all rows
	r     float64 // the near radius
	u     float64 // the pairs' weight, unless fine or soft
	alpha float64 // α, for fine and soft weights
	all   bool    // the pairs count in the planes of all points (Z, A)
	fine  bool    // the fine list: weights by weight
	// soft: soft labels' channels on the fine list within the coarse
	// grid's radius, weight −α·λ̂ between labelled rows (c channels).
	soft bool
	c    int
}

// row returns the row of the list's point at cell position p.
func (s *tNearSet) row(p int) int {
	j := int(s.g.Perm[p])
	if s.idx != nil {
		j = int(s.idx[j])
	}
	return j
}

// weight returns u_ij of the pair at cell positions p < q.
func (t *TStress) weight(s *tNearSet, p, q int) float64 {
	if s.soft {
		if !t.cellLab[p] || !t.cellLab[q] {
			return 0
		}
		return -s.alpha * levelsCommunity(t.cellLevel[p*s.c:(p+1)*s.c], t.cellLevel[q*s.c:(q+1)*s.c], t.soft.levels)
	}
	if !s.fine {
		return s.u
	}
	u := t.w0
	if len(t.cellLab) != 0 && t.cellLab[p] && t.cellLab[q] {
		u += t.wl
	}
	if len(t.cellCls) != 0 && t.cellCls[p] >= 0 && t.cellCls[p] == t.cellCls[q] {
		u -= s.alpha
	}
	return u
}

// cellAttrs lays out, in the order of the fine cell list, what the fine
// near pairs read of each point: its class where that class's plane is on
// the fine grid (else −1) and whether it is labelled, so that the pair
// loop streams through memory.
func (t *TStress) cellAttrs(in *SparseInput) {
	perm := t.cells.Perm
	t.cellCls = t.cellCls[:0]
	if t.hasClassPlanes() && !t.rounds && t.hard.class != nil {
		for _, i := range perm {
			k := t.classOf(int(i))
			if k < 0 || k >= len(t.factor) || t.factor[k] != 1 {
				k = -1
			}
			t.cellCls = append(t.cellCls, int32(k))
		}
	}
	t.cellLab = t.cellLab[:0]
	soft := t.hasClassPlanes() && t.softNear()
	if t.wl != 0 || soft {
		for _, i := range perm {
			t.cellLab = append(t.cellLab, in.labelled(int(i)))
		}
	}
	// Soft labels' rounded levels (λ̂, gridSoft.lamHat), for nearSym.
	t.cellLevel = t.cellLevel[:0]
	if soft {
		c := in.C
		t.cellLevel = slices.Grow(t.cellLevel, len(perm)*c)[:len(perm)*c]
		for p, i := range perm {
			dst := t.cellLevel[p*c : (p+1)*c]
			if t.cellLab[p] {
				copy(dst, t.soft.level[int(i)*c:int(i+1)*c])
			} else {
				clear(dst) // never read (levelFor checks cellLab), but not stale
			}
		}
	}
}

// nearSym sums the near parts over the cell list of s, each pair once:
// the pair's kernels are symmetric and its forces antisymmetric, so one
// visit adds to both points. Points go in strips of cell rows along the
// slowest axis, at least the near radius tall, so a point's partners
// (those after it in cell order) lie in its strip or the next; the even
// strips run in parallel, then the odd ones, and no two running strips
// write the same point. Each point's sum thus gathers in a fixed order,
// whatever the thread count. The sums gather in cell order (t.acc) and
// are then added to the points' records.
func (t *TStress) nearSym(ctx context.Context, s *tNearSet, dims int, second bool, threads int) error {
	g := s.g
	m, rec := len(g.Perm), tRec(dims)
	width := rec
	if second {
		width = dims
		t.chgC = kernels.Grow(t.chgC, 3*m)
		for p := range m {
			i := s.row(p)
			copy(t.chgC[3*p:3*p+3], t.row[4*i:4*i+3])
		}
	}
	t.acc = kernels.Grow(t.acc, m*width)
	clear(t.acc[:m*width])
	slow := dims - 1
	rowCells := 1
	for c := range slow {
		rowCells *= g.Shape[c]
	}
	h := max(1, int(math.Ceil(s.r/g.Side)))
	strips := (g.Shape[slow] + h - 1) / h
	bounds := func(k int) (int32, int32) {
		return g.Start[k*h*rowCells], g.Start[min((k+1)*h, g.Shape[slow])*rowCells]
	}
	for phase := range 2 {
		// The largest strips first, so that the last to finish is small.
		t.strips = t.strips[:0]
		for k := phase; k < strips; k += 2 {
			if lo, hi := bounds(k); hi > lo {
				t.strips = append(t.strips, int32(k))
			}
		}
		slices.SortStableFunc(t.strips, func(a, b int32) int {
			la, ha := bounds(int(a))
			lb, hb := bounds(int(b))
			return int(hb-lb) - int(ha-la)
		})
		err := kernels.ParallelForWorker(ctx, len(t.strips), threads, 1, func(wk, lo, hi int) {
			sc := &t.work[wk]
			for _, k := range t.strips[lo:hi] {
				p0, p1 := bounds(int(k))
				for p := p0; p < p1; p++ {
					sc.runs = g.AppendRuns(sc.runs[:0], g.Pos[int(p)*dims:int(p+1)*dims], s.r)
					if second {
						t.nearRow2(s, sc.runs, int(p), dims)
					} else {
						t.nearRow1(s, sc.runs, int(p), dims)
					}
				}
			}
		})
		if err != nil {
			return err
		}
	}
	off := 0
	if second {
		off = 3
	}
	for p := range m {
		i := s.row(p)
		d := t.pt[i*rec+off : i*rec+off+width]
		for c, v := range t.acc[p*width : (p+1)*width] {
			d[c] += v
		}
	}
	return nil
}

// nearRow1 adds pass 1's near parts of the pairs (p, q), q > p, of the
// runs to both points' sums in t.acc.
func (t *TStress) nearRow1(s *tNearSet, runs [][2]int32, p, dims int) {
	g := s.g
	r := s.r
	r2 := r * r
	rec := tRec(dims)
	ui := g.Pos[p*dims : (p+1)*dims]
	var own [3 + 3*gridMaxDims]float64
	for _, run := range runs {
		for q := max(int(run[0]), p+1); q < int(run[1]); q++ {
			uj := g.Pos[q*dims : (q+1)*dims]
			a := kernels.EmbedSqDist(ui, uj)
			if a >= r2 {
				continue
			}
			u := t.weight(s, p, q)
			if u == 0 && !s.all {
				continue // soft rows with nothing in common, or an unlabelled one
			}
			w := 1 / (1 + a)
			wk := w * (1 - tSplit(a, r))
			l := math.Log(1 + a) // a ≥ 0: Log1p's care is not needed, at half its speed
			w2 := w * wk
			s1 := u * wk
			s2 := s1 * l
			dj := t.acc[q*rec : (q+1)*rec]
			if s.all {
				own[0] += wk
				dj[0] += wk
			}
			own[1] += s1
			own[2] += s2
			dj[1] += s1
			dj[2] += s2
			for c := range dims {
				f := w2 * (ui[c] - uj[c])
				uf := u * f
				if s.all {
					own[3+c] += f
					dj[3+c] -= f
				}
				own[3+dims+c] += uf
				own[3+2*dims+c] += uf * l
				dj[3+dims+c] -= uf
				dj[3+2*dims+c] -= uf * l
			}
		}
	}
	di := t.acc[p*rec : (p+1)*rec]
	for c := range di {
		di[c] += own[c]
	}
}

// nearRow2 adds pass 2's charged near parts of the pairs (p, q), q > p,
// of the runs to both points' sums in t.acc: the force on p from q's
// charges u(B + C·L), and A with all, and the reaction on q from p's.
func (t *TStress) nearRow2(s *tNearSet, runs [][2]int32, p, dims int) {
	g := s.g
	r := s.r
	r2 := r * r
	ui := g.Pos[p*dims : (p+1)*dims]
	ci := t.chgC[3*p : 3*p+3]
	var own [gridMaxDims]float64
	for _, run := range runs {
		for q := max(int(run[0]), p+1); q < int(run[1]); q++ {
			uj := g.Pos[q*dims : (q+1)*dims]
			a := kernels.EmbedSqDist(ui, uj)
			if a >= r2 {
				continue
			}
			u := t.weight(s, p, q)
			if u == 0 && !s.all {
				continue // soft rows with nothing in common, or an unlabelled one
			}
			w := 1 / (1 + a)
			w2 := w * w * (1 - tSplit(a, r))
			l := math.Log(1 + a)
			cj := t.chgC[3*q : 3*q+3]
			chj, chi := u*(cj[1]+cj[2]*l), u*(ci[1]+ci[2]*l)
			if s.all {
				chj += cj[0]
				chi += ci[0]
			}
			fi, fj := w2*chj, w2*chi
			dj := t.acc[q*dims : (q+1)*dims]
			for c := range dims {
				v := ui[c] - uj[c]
				own[c] += fi * v
				dj[c] -= fj * v
			}
		}
	}
	di := t.acc[p*dims : (p+1)*dims]
	for c := range di {
		di[c] += own[c]
	}
}

// classOf returns row i's class with one-hot labels and class cell lists,
// else −1.
func (t *TStress) classOf(i int) int {
	if t.hard.class == nil || t.rounds || len(t.byCls) == 0 {
		return -1
	}
	return int(t.hard.class[i])
}
