package fisher

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// Local is a feature table prepared for the local Fisher sums: rows in a
// space where the kernel's metric is a function of plain Euclidean
// distance, each row's K nearest rows in it, and their kernel squared
// distances. No n×n array is ever built (see LocalPathSums).
type Local struct {
	X       []float64 // n×d rows: the features, unit rows for cosine
	N, D    int
	Kernel  kernels.Kernel
	Classes []int
	K       int     // classes
	Knn     int     // neighbours per row
	Idx     []int32 // n×Knn nearest rows, nearest first
	D2      []float64
	// Parzen is L ≤ Knn, the leading rows of each list that enter the
	// Parzen sums (NewLocal sets it to Knn).
	Parzen int
}

// KernelSqDist is the kernel's squared distance s_aa + s_bb − 2s_ab between
// rows a and b of Local.X (cosine: rows already unit).
func (lc *Local) KernelSqDist(a, b []float64) float64 {
	return kernelSqDist(lc.Kernel, kernels.SqDist(a, b))
}

// kernelSqDist maps a Euclidean squared distance e of the prepared rows to
// the kernel's squared distance: itself for linear and cosine (unit rows),
// 2 − 2·exp(−γe) for rbf, with expm1 for near pairs (γe < 1/2), which keep
// their relative precision so; beyond, 1 − exp(−γe) > 0.39 loses nothing
// and exp is the faster of the two.
func kernelSqDist(k kernels.Kernel, e float64) float64 {
	if k.Kind != "rbf" {
		return e
	}
	if x := k.Gamma * e; x >= 0.5 {
		return 2 - 2*math.Exp(-x)
	}
	return -2 * math.Expm1(-k.Gamma*e)
}

// LocalKernels lists the kernels of the local mode: those whose metric is
// an increasing function of the Euclidean distance of prepared rows, so
// that the exact k-d tree and NN-descent of package kernels find its
// neighbours.
var LocalKernels = []string{"linear", "rbf", "cosine"}

// NewLocal prepares the n×d rows x (not modified) for kernel kern
// (resolved: rbf γ > 0) and finds each row's knn nearest rows with the
// search m (set tunes NN-descent). Cosine rows must not be all zeros
// (kernels.Kernel.Resolve checks it).
func NewLocal(ctx context.Context, x []float64, n, d int, kern kernels.Kernel, classes []int, k, knn, threads int, m kernels.KNNMethod, set kernels.NNDescentSettings) (*Local, kernels.KNNMethod, error) {
	if !slices.Contains(LocalKernels, kern.Kind) {
		panic(fmt.Sprintf("fisher: NewLocal: kernel %q has no local mode", kern.Kind))
	}
	rows, _ := kernelRows(x, n, d, kern)
	lc := &Local{X: rows, N: n, D: d, Kernel: kern, Classes: classes, K: k, Knn: knn, Parzen: knn}
	lc.Idx = make([]int32, n*knn)
	lc.D2 = make([]float64, n*knn)
	ran, err := kernels.FindKNN(ctx, lc.Idx, lc.D2, lc.X, n, d, knn, threads, m, set)
	if err != nil {
		return nil, ran, err
	}
	// The search's distances may round differently (it ranks by expanded
	// inner products): the lists' kernel distances are measured again as
	// the sums measure every distance, so that a model that stores only the
	// lists gives the same bits (see Local.measure).
	return lc, ran, lc.measure(ctx, threads)
}

// measure fills D2 with the kernel squared distances of each row to its
// listed rows, by KernelSqDist.
func (lc *Local) measure(ctx context.Context, threads int) error {
	n, D, M := lc.N, lc.D, lc.Knn
	if len(lc.D2) != n*M {
		lc.D2 = make([]float64, n*M)
	}
	return kernels.ParallelFor(ctx, n, threads, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for q, l := range lc.Idx[i*M : (i+1)*M] {
				lc.D2[i*M+q] = lc.KernelSqDist(lc.X[i*D:(i+1)*D], lc.X[int(l)*D:(int(l)+1)*D])
			}
		}
	})
}

// localOf prepares the fitted rows x (n×d, as fitted) with their lists
// (n×M, nearest first), classes (k of them) and kernel for the local sums
// over their first L rows, as NewLocal would have: unit rows for cosine,
// the lists' kernel distances measured again. It refuses an all-zero row
// under cosine.
func localOf(ctx context.Context, x []float64, n, d int, kern kernels.Kernel, classes []int, k int, lists []int32, M, L, threads int) (*Local, error) {
	rows, zero := kernelRows(x, n, d, kern)
	if zero >= 0 {
		return nil, fmt.Errorf("%w: row %d is all zeros under the cosine kernel", transforms.ErrModel, zero)
	}
	lc := &Local{X: rows, N: n, D: d, Kernel: kern, Classes: classes, K: k, Knn: M, Idx: lists, Parzen: L}
	return lc, lc.measure(ctx, threads)
}

// kernelRows returns the n×d rows in which kern's metric is the Euclidean
// one: x itself, or for cosine a copy scaled to unit length, with the first
// all-zero row (which has no direction), or −1.
func kernelRows(x []float64, n, d int, kern kernels.Kernel) (rows []float64, zero int) {
	if kern.Kind != "cosine" {
		return x, -1
	}
	rows, zero = make([]float64, n*d), -1
	for i := range n {
		row := x[i*d : (i+1)*d]
		if zero < 0 && dotSelf(row) == 0 {
			zero = i
		}
		unitRow(rows[i*d:(i+1)*d], row)
	}
	return rows, zero
}

// LocalSums holds the local path integrands of LocalPathSums per (row,
// neighbour) entry, as SparseSums does, and the bound on the Parzen mass
// the truncation dropped.
type LocalSums struct {
	F0, F1, Mid []float64
	// Dropped is, per entry, a bound on the normalised Parzen mass of the
	// rows outside the pair's two neighbourhoods, the largest over the
	// path's T+1 points (see LocalPathSums).
	Dropped   []float64
	Kept      int64 // Parzen terms used over all entries
	Fallbacks int64 // (pair, path point) evaluations redone in the log domain
}

// LocalPathSums computes the Fisher path integrands of PathSums for every
// row i and each of its Knn neighbours j, with the Parzen sums over U(i, j)
// = {i, j} ∪ N(i) ∪ N(j), the two end points' neighbourhoods of Parzen rows
// (less i and j with ExcludeEndpoints). Kernel squared distances come from the lists or,
// for the rows of one list missing from the other, from the features; with
// them g_l is replaced by h_l = (d²_il − d²_jl)/2, which differs from
// s_jl − s_il by a constant of the pair (F does not change).
//
// Truncation: a row l outside U has d²_il ≥ ρ²_i and d²_jl ≥ ρ²_j, the
// squared distances of the end points' farthest listed neighbours, so its
// weight exp(−[(1−a)d²_il + a d²_jl]/(2σ²)) at path point a is at most
// exp(−[(1−a)ρ²_i + aρ²_j]/(2σ²)). Dropped[q] is that times the number of
// rows outside U, over the kept weights' sum W(a), the largest over the
// T+1 points: a bound on the normalised mass the sums lack. As in
// SparsePathSums, F² then changes by at most 2·Dropped·G² with G the
// spread of h over all rows (G ≤ 2 for rbf, ≤ 4 for cosine).
//
// Rows are computed by one worker each, in a fixed order: results do not
// depend on the thread count. The only error is ctx.Err().
func LocalPathSums(ctx context.Context, lc *Local, p PathParams) (*LocalSums, error) {
	n, knn := lc.N, lc.Knn
	r := &LocalSums{
		F0: make([]float64, n*knn), F1: make([]float64, n*knn), Mid: make([]float64, n*knn),
		Dropped: make([]float64, n*knn),
	}
	kept, fb, err := localSums(ctx, lc, knn, p, false, nil, func(_, e int, f0, f1, mid, dropped float64) {
		r.F0[e], r.F1[e], r.Mid[e], r.Dropped[e] = f0, f1, mid, dropped
	})
	r.Kept, r.Fallbacks = kept, fb
	if err != nil {
		return nil, err
	}
	return r, nil
}

// localSums runs the sums of LocalPathSums for the pairs of each row with
// the first pairs ≤ Knn rows of its list, and hands each entry
// e = i·pairs + q to emit from worker w (entries are distinct, so emit may
// write e's slots without locking). With mirror it skips the entries whose
// twin, (j, i) with j < i, is among j's pairs (see Local.twin): the same
// path backwards, whose sums are the twin's with F(0) and F(1) swapped.
// want, if not nil, keeps only the entries (i, j) it returns true for. It
// returns the kept terms and the fallbacks.
func localSums(ctx context.Context, lc *Local, pairs int, p PathParams, mirror bool, want func(i, j int) bool, emit func(w, e int, f0, f1, mid, dropped float64)) (kept, fallbacks int64, err error) {
	n, knn, L := lc.N, lc.Knn, lc.Parzen
	if !(p.Sigma > 0) || p.Steps < 1 || knn < 1 || knn > n-1 || pairs < 1 || pairs > knn || L < 1 || L > knn {
		panic("fisher: LocalPathSums: bad parameters")
	}
	const grain = 8
	workers := kernels.Workers(n, p.Threads, grain)
	ws := make([]*localWork, workers)
	for w := range ws {
		ws[w] = newLocalWork(lc, p)
	}
	var (
		progMu   sync.Mutex
		progDone int64
	)
	err = kernels.ParallelForWorker(ctx, n, p.Threads, grain, func(w, lo, hi int) {
		wk := ws[w]
		for i := lo; i < hi; i++ {
			if want != nil && !slices.ContainsFunc(lc.Idx[i*knn:i*knn+pairs], func(j int32) bool { return want(i, int(j)) }) {
				continue
			}
			wk.setEnd(lc.X[i*lc.D:(i+1)*lc.D], lc.Idx[i*knn:i*knn+L], lc.D2[i*knn:i*knn+L], i)
			for q := range pairs {
				j := int(lc.Idx[i*knn+q])
				if mirror && j < i && lc.twin(j, i, pairs) >= 0 {
					continue
				}
				if want != nil && !want(i, j) {
					continue
				}
				f0, f1, mid, dropped := wk.pair(j, lc.D2[i*knn+q])
				emit(w, i*pairs+q, f0, f1, mid, dropped)
			}
			wk.clearEnd()
		}
		if p.Progress != nil {
			progMu.Lock()
			progDone += int64(hi - lo)
			p.Progress(progDone, int64(n))
			progMu.Unlock()
		}
	})
	for _, wk := range ws {
		kept += wk.kept
		fallbacks += wk.fallbacks
	}
	return kept, fallbacks, err
}

// localWork is one worker's state for the local sums of one end point a
// (a row of the table, or a new row placed against it) and its pairs.
type localWork struct {
	lc *Local
	p  PathParams
	sparseWork
	inv float64 // −1/(2σ²)
	// The end point a: its features, neighbours and their squared
	// distances, its row (−1 for a new row), and posA[l] = 1 + l's
	// position in a's list (0: not listed), kept between pairs.
	xa   []float64
	idxA []int32
	d2A  []float64
	self int
	posA []int32
	posJ []int32 // the same for the pair's other end j, per pair
	// cacheD[l] is d²_al when cacheAt[l] == stamp (this end point's
	// number): rows of several pairs' far-end lists are measured once.
	cacheD  []float64
	cacheAt []int32
	stamp   int32
	// Terms of the pair before ordering by class.
	tc        []int32
	ta, tb    []float64 // d²_al, d²_jl
	next      []int     // counting sort: the next slot of each class
	kept      int64
	fallbacks int64
}

func newLocalWork(lc *Local, p PathParams) *localWork {
	return newLocalWorkTerms(lc, p, 2*lc.Parzen+2)
}

// newLocalWorkTerms is newLocalWork with room for m Parzen terms a pair.
func newLocalWorkTerms(lc *Local, p PathParams, m int) *localWork {
	T := p.Steps
	wk := &localWork{
		lc: lc, p: p, inv: -1 / (2 * p.Sigma * p.Sigma),
		posA: make([]int32, lc.N), posJ: make([]int32, lc.N),
		cacheD: make([]float64, lc.N), cacheAt: make([]int32, lc.N),
		tc: make([]int32, 0, m), ta: make([]float64, 0, m), tb: make([]float64, 0, m),
		next: make([]int, lc.K),
	}
	wk.sparseWork = sparseWork{
		ei: make([]float64, m), ej: make([]float64, m), g: make([]float64, m),
		xl: make([]float64, m), rl: make([]float64, m), lg: make([]float64, m),
		cnt: make([]int, lc.K), wcT: make([]float64, (T+1)*lc.K), gcT: make([]float64, (T+1)*lc.K),
		accW: make([]float64, T+1), accG: make([]float64, T+1),
		wc: make([]float64, lc.K), gc: make([]float64, lc.K), f: make([]float64, T+1),
	}
	return wk
}

// setEnd makes a the pairs' first end point: features xa, its Parzen
// neighbours idx with squared kernel distances d2, and its row (−1: not a
// row of the table, so not a Parzen term).
func (wk *localWork) setEnd(xa []float64, idx []int32, d2 []float64, self int) {
	wk.xa, wk.idxA, wk.d2A, wk.self = xa, idx, d2, self
	for q, l := range idx {
		wk.posA[l] = int32(q + 1)
	}
	if wk.stamp == math.MaxInt32 {
		clear(wk.cacheAt)
		wk.stamp = 0
	}
	wk.stamp++
}

// distA returns d²_al, measured once per end point.
func (wk *localWork) distA(l int) float64 {
	if wk.cacheAt[l] == wk.stamp {
		return wk.cacheD[l]
	}
	D := wk.lc.D
	v := wk.lc.KernelSqDist(wk.xa, wk.lc.X[l*D:(l+1)*D])
	wk.cacheD[l], wk.cacheAt[l] = v, wk.stamp
	return v
}

func (wk *localWork) clearEnd() {
	for _, l := range wk.idxA {
		wk.posA[l] = 0
	}
}

// pair returns F(0), F(1), Σ_{t=1}^{T−1} F(t/T) and the dropped-mass bound
// of the path from the current end point a to row j, at squared kernel
// distance d2aj.
func (wk *localWork) pair(j int, d2aj float64) (f0, f1, mid, dropped float64) {
	lc := wk.lc
	knn, D := lc.Knn, lc.D
	idxJ, d2J := lc.Idx[j*knn:j*knn+lc.Parzen], lc.D2[j*knn:j*knn+lc.Parzen]
	xj := lc.X[j*D : (j+1)*D]
	for q, l := range idxJ {
		wk.posJ[l] = int32(q + 1)
	}
	excl := wk.p.ExcludeEndpoints
	wk.tc, wk.ta, wk.tb = wk.tc[:0], wk.ta[:0], wk.tb[:0]
	add := func(l int, da, dj float64) {
		if excl && (l == j || l == wk.self) {
			return
		}
		wk.tc = append(wk.tc, int32(lc.Classes[l]))
		wk.ta = append(wk.ta, da)
		wk.tb = append(wk.tb, dj)
	}
	// The end points: a's own row, unless a is new or listed by j, and j,
	// unless listed by a (then they come below).
	if wk.self >= 0 && wk.posJ[wk.self] == 0 {
		add(wk.self, 0, d2aj)
	}
	if wk.posA[j] == 0 {
		add(j, d2aj, 0)
	}
	for q, l32 := range wk.idxA {
		l := int(l32)
		var dj float64
		switch {
		case l == j:
		case wk.posJ[l] > 0:
			dj = d2J[wk.posJ[l]-1]
		default:
			dj = lc.KernelSqDist(xj, lc.X[l*D:(l+1)*D])
		}
		add(l, wk.d2A[q], dj)
	}
	for q, l32 := range idxJ {
		l := int(l32)
		if wk.posA[l] > 0 {
			continue
		}
		var da float64
		if l != wk.self {
			da = wk.distA(l)
		}
		add(l, da, d2J[q])
	}
	for _, l := range idxJ {
		wk.posJ[l] = 0
	}
	union := len(wk.tc)
	if excl {
		union += 2 // the end points are left out on purpose, not dropped
		if wk.self < 0 {
			union--
		}
	}
	// Lists are nearest first: their last rows are the radii ρ².
	f0, f1, mid, dropped = wk.integrands(lc.N-union, wk.d2A[len(wk.d2A)-1], d2J[len(d2J)-1])
	return f0, f1, mid, dropped
}

// twin returns the position of row i among the first pairs rows of row
// j's list, or −1.
func (lc *Local) twin(j, i, pairs int) int {
	for q, l := range lc.Idx[j*lc.Knn : j*lc.Knn+pairs] {
		if int(l) == i {
			return q
		}
	}
	return -1
}

// pairFull returns what pair returns for rows i and j, with the Parzen
// sums over every row (nothing dropped): the reference of the truncation
// check. The work must have room for N terms.
func (wk *localWork) pairFull(i, j int) (f0, f1, mid float64) {
	lc := wk.lc
	D := lc.D
	xi, xj := lc.X[i*D:(i+1)*D], lc.X[j*D:(j+1)*D]
	excl := wk.p.ExcludeEndpoints
	wk.tc, wk.ta, wk.tb = wk.tc[:0], wk.ta[:0], wk.tb[:0]
	for l := range lc.N {
		if excl && (l == i || l == j) {
			continue
		}
		var da, dj float64
		xl := lc.X[l*D : (l+1)*D]
		if l != i {
			da = lc.KernelSqDist(xi, xl)
		}
		if l != j {
			dj = lc.KernelSqDist(xj, xl)
		}
		wk.tc = append(wk.tc, int32(lc.Classes[l]))
		wk.ta = append(wk.ta, da)
		wk.tb = append(wk.tb, dj)
	}
	f0, f1, mid, _ = wk.integrands(0, 0, 0)
	return f0, f1, mid
}

// integrands orders the pair's terms by class and evaluates F at the T+1
// path points; outside is the number of rows not in the sums, rhoA and
// rhoJ the end points' farthest listed squared distances.
func (wk *localWork) integrands(outside int, rhoA, rhoJ float64) (f0, f1, mid, dropped float64) {
	T := wk.p.Steps
	k := len(wk.cnt)
	m := len(wk.tc)
	clear(wk.cnt)
	for _, c := range wk.tc {
		wk.cnt[c]++
	}
	s := 0
	for c, nc := range wk.cnt {
		wk.next[c] = s
		s += nc
	}
	wk.ei, wk.ej, wk.g, wk.xl, wk.rl = wk.ei[:m], wk.ej[:m], wk.g[:m], wk.xl[:m], wk.rl[:m]
	for v, c := range wk.tc {
		pos := wk.next[c]
		wk.next[c]++
		a, b := wk.inv*wk.ta[v], wk.inv*wk.tb[v]
		wk.ei[pos], wk.ej[pos], wk.g[pos] = a, b, (wk.ta[v]-wk.tb[v])/2
		if a >= b || a >= -700 {
			wk.xl[pos] = math.Exp(a)
			wk.rl[pos] = math.Exp((b - a) / float64(T))
		}
	}
	wk.kept += int64(m)
	wk.pathSums(T)
	logOut := math.Inf(-1)
	if outside > 0 {
		logOut = math.Log(float64(outside))
	}
	for t := 0; t <= T; t++ {
		copy(wk.wc, wk.wcT[t*k:(t+1)*k])
		copy(wk.gc, wk.gcT[t*k:(t+1)*k])
		var W float64
		for _, w := range wk.wc {
			W += w
		}
		ca, cb := float64(T-t)/float64(T), float64(t)/float64(T)
		logW := math.Log(W)
		if W < fisherUnderflow {
			wk.fallbacks++
			mx := wk.logSumsMax(ca, cb)
			W = 0
			for _, w := range wk.wc {
				W += w
			}
			logW = math.Log(W) + mx
		}
		dropped = max(dropped, math.Exp(logOut+wk.inv*(ca*rhoA+cb*rhoJ)-logW))
		wk.f[t] = fisherF(wk.wc, wk.gc)
	}
	for t := 1; t < T; t++ {
		mid += wk.f[t]
	}
	return wk.f[0], wk.f[T], mid, dropped
}

// logSumsMax is sparseWork.logSums that also returns the subtracted
// maximum of the logits.
func (wk *localWork) logSumsMax(ca, cb float64) float64 {
	mx := math.Inf(-1)
	for v := range wk.g {
		mx = max(mx, ca*wk.ei[v]+cb*wk.ej[v])
	}
	wk.logSums(ca, cb)
	return mx
}
