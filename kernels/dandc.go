package kernels

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/gonum"
)

// Tridiagonal divide and conquer (Cuppen 1981; Gu & Eisenstat 1995), the
// design of LAPACK's dstedc/dlaed0–dlaed4, written afresh. The symmetric
// tridiagonal T is torn at its middle into two halves plus a rank-one
// term,
//
//	T = diag(T₁, T₂) + |β|·u uᵀ,  u = e_{m−1} + sign(β)·e_m,
//
// (β the coupling off-diagonal, subtracted from the two diagonal entries
// it joins), the halves are solved recursively, T₁ = Q₁D₁Q₁ᵀ and
// T₂ = Q₂D₂Q₂ᵀ, and T = Q (D + ρ z zᵀ) Qᵀ with Q = diag(Q₁, Q₂) and z the
// last row of Q₁ next to sign(β) times the first row of Q₂. The
// eigenvalues of D + ρ z zᵀ are the roots of the secular equation
//
//	f(λ) = 1/ρ + Σ_j z_j² / (d_j − λ) = 0,
//
// one between each pair of consecutive poles d_j and one above the last.
// Before solving it, entries with a negligible z_j, and pairs of nearly
// equal d_j (after a Givens rotation that zeroes one z), are deflated: they
// are eigenpairs already. Each remaining root is found as an offset τ from
// its nearer pole, so that every difference d_j − λ is known to high
// relative accuracy; z is then recomputed from the roots (the Löwner
// formula of Gu & Eisenstat), which makes the eigenvectors
// ẑ_j/(d_j − λ_i) of the rank-one problem numerically orthogonal, and the
// eigenvectors of T are Q times them: a matrix product over the
// non-deflated columns only, split into the rows of T₁ and of T₂ so that
// columns known to be zero in one half cost nothing there.
//
// Subproblems of at most dandcLeaf rows are solved by implicit QL/QR
// (gonum's Dsteqr). The merges of one level of the recursion are
// independent and run in parallel; within a merge, roots, rows of the
// rank-one eigenvector matrix and tiles of the matrix products are static
// chunks. Every number is computed by one chunk with a fixed operation
// order, so the result does not depend on the thread count.

// dandcLeaf is the order up to which a subproblem is solved directly.
const dandcLeaf = 32

// dandcEps is the unit roundoff (LAPACK's dlamch('E')).
const dandcEps = 0x1p-53

// TridiagonalEigen computes all eigenvalues and eigenvectors of the
// symmetric tridiagonal n×n matrix with diagonal d (length n) and
// off-diagonal e (length n−1) by divide and conquer. On return d holds the
// eigenvalues in ascending order, e is destroyed, and z (n×n, row-major)
// holds the orthonormal eigenvectors as its columns: column k belongs to
// d[k]. Wrong lengths or n < 1 panic. It returns ctx.Err() on
// cancellation, and an error wrapping ErrEigen if a value is not finite
// or a small subproblem's QL iteration does not converge.
func TridiagonalEigen(ctx context.Context, d, e, z []float64, n, threads int) error {
	if n < 1 || len(d) != n || len(e) != n-1 || len(z) != n*n {
		panic("kernels: TridiagonalEigen: bad size")
	}
	for i, v := range d {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: diagonal entry %d = %v is not finite", ErrEigen, i, v)
		}
	}
	for i, v := range e {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: off-diagonal entry %d = %v is not finite", ErrEigen, i, v)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	clear(z)
	// Split where an off-diagonal entry is negligible (dstedc's test:
	// |e_i| ≤ ε·√|d_i|·√|d_{i+1}|) and solve each unreduced block in its
	// own diagonal block of z.
	blocks := 0
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n {
			tiny := dandcEps * math.Sqrt(math.Abs(d[hi-1])) * math.Sqrt(math.Abs(d[hi]))
			if math.Abs(e[hi-1]) <= tiny {
				e[hi-1] = 0
				break
			}
			hi++
		}
		blocks++
		if err := dandcBlock(ctx, d[lo:hi], e[lo:max(lo, hi-1)], z[lo*n+lo:], n, hi-lo, threads); err != nil {
			return err
		}
		lo = hi
	}
	if blocks > 1 {
		return sortEigen(ctx, d, z, n, threads)
	}
	return nil
}

// sortEigen sorts the eigenvalues d ascending (stable, so equal values
// keep their order) and permutes the columns of the n×n z to match.
func sortEigen(ctx context.Context, d, z []float64, n, threads int) error {
	perm := ascendingOrder(d[:n])
	vals := make([]float64, n)
	for k, p := range perm {
		vals[k] = d[p]
	}
	copy(d, vals)
	workers := Workers(n, threads, rowGrain(n))
	rows := make([]float64, workers*n)
	return ParallelForWorker(ctx, n, threads, rowGrain(n), func(w, lo, hi int) {
		tmp := rows[w*n : (w+1)*n]
		for i := lo; i < hi; i++ {
			row := z[i*n : (i+1)*n]
			for k, p := range perm {
				tmp[k] = row[p]
			}
			copy(row, tmp)
		}
	})
}

// dandcNode is a merge of the recursion: rows [lo, hi) of the block, torn
// at mid with coupling beta. height is 1 + the larger height of its
// children (leaves have height 0).
type dandcNode struct {
	lo, mid, hi, height int
	beta                float64
}

// dandcBlock solves one unreduced block of order m (d, e of lengths m and
// m−1) into the m×m matrix at q with row stride ldq, which is zero on
// entry.
func dandcBlock(ctx context.Context, d, e, q []float64, ldq, m, threads int) error {
	if m == 1 {
		q[0] = 1
		return nil
	}
	// Scale to max-norm 1, as dstedc does, and back at the end.
	var norm float64
	for _, v := range d {
		norm = max(norm, math.Abs(v))
	}
	for _, v := range e {
		norm = max(norm, math.Abs(v))
	}
	if norm == 0 {
		for i := range m {
			q[i*ldq+i] = 1
		}
		return nil
	}
	for i := range d {
		d[i] /= norm
	}
	for i := range e {
		e[i] /= norm
	}
	defer func() {
		for i := range d {
			d[i] *= norm
		}
	}()

	// The recursion tree: halve until the parts have at most dandcLeaf
	// rows; tear the tridiagonal at every cut.
	var nodes []dandcNode
	var leaves [][2]int
	var build func(lo, hi int) int
	build = func(lo, hi int) int {
		if hi-lo <= dandcLeaf {
			leaves = append(leaves, [2]int{lo, hi})
			return 0
		}
		mid := lo + (hi-lo)/2
		h := 1 + max(build(lo, mid), build(mid, hi))
		beta := e[mid-1]
		d[mid-1] -= math.Abs(beta)
		d[mid] -= math.Abs(beta)
		nodes = append(nodes, dandcNode{lo: lo, mid: mid, hi: hi, height: h, beta: beta})
		return h
	}
	build(0, m)

	impl := gonum.Implementation{}
	failed := make([]bool, len(leaves))
	if err := ParallelFor(ctx, len(leaves), threads, 1, func(lo, hi int) {
		for l := lo; l < hi; l++ {
			a, b := leaves[l][0], leaves[l][1]
			size := b - a
			work := make([]float64, max(1, 2*size-2))
			if !impl.Dsteqr(lapack.EVTridiag, size, d[a:b], e[a:max(a, b-1)], q[a*ldq+a:], ldq, work) {
				failed[l] = true
			}
		}
	}); err != nil {
		return err
	}
	for l, f := range failed {
		if f {
			return fmt.Errorf("%w: QL iteration on rows %d–%d of the tridiagonal did not converge", ErrEigen, leaves[l][0], leaves[l][1]-1)
		}
	}

	maxh := 0
	for _, nd := range nodes {
		maxh = max(maxh, nd.height)
	}
	var level []dandcNode
	for h := 1; h <= maxh; h++ {
		level = level[:0]
		for _, nd := range nodes {
			if nd.height == h {
				level = append(level, nd)
			}
		}
		inner := threads
		if len(level) >= Threads(threads) {
			inner = 1
		}
		errs := make([]error, len(level))
		if err := ParallelFor(ctx, len(level), threads, 1, func(lo, hi int) {
			for t := lo; t < hi; t++ {
				nd := level[t]
				errs[t] = dandcMerge(ctx, d[nd.lo:nd.hi], q[nd.lo*ldq+nd.lo:], ldq, nd.mid-nd.lo, nd.hi-nd.lo, nd.beta, inner)
			}
		}); err != nil {
			return err
		}
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// Column types of a merge: nonzero only in the rows of the first half,
// in both halves, only in the second half.
const (
	colTop int8 = iota
	colDense
	colBottom
)

// dandcMerge merges two solved halves: d[:n1] and d[n1:m] are the
// eigenvalues (each ascending) of the torn halves and the m×m matrix at q
// (stride ldq) holds their eigenvectors in its diagonal blocks (zero off
// them); beta is the coupling. On return d[:m] holds the eigenvalues of
// the whole, ascending, and q its eigenvectors.
func dandcMerge(ctx context.Context, d, q []float64, ldq, n1, m int, beta float64, threads int) error {
	// z = (last row of Q₁, sign(β)·first row of Q₂)/√2, ρ = 2|β|, so that
	// ‖z‖ = 1.
	z := make([]float64, m)
	copy(z[:n1], q[(n1-1)*ldq:(n1-1)*ldq+n1])
	copy(z[n1:], q[n1*ldq+n1:n1*ldq+m])
	if beta < 0 {
		for j := n1; j < m; j++ {
			z[j] = -z[j]
		}
	}
	for j := range z {
		z[j] *= 1 / math.Sqrt2
	}
	rho := 2 * math.Abs(beta)

	// The poles in ascending order (a merge of the two sorted halves, the
	// first half first on ties).
	order := make([]int, 0, m)
	for i, j := 0, n1; i < n1 || j < m; {
		if j == m || (i < n1 && d[i] <= d[j]) {
			order = append(order, i)
			i++
		} else {
			order = append(order, j)
			j++
		}
	}
	ctype := make([]int8, m)
	for j := n1; j < m; j++ {
		ctype[j] = colBottom
	}
	// Deflation (dlaed2): negligible weights, and close poles after a
	// rotation of their columns of q.
	keep, defl := deflateSecular(d[:m], z, rho, order, func(pj, j int, c, s float64) {
		if ctype[j] != ctype[pj] {
			ctype[j] = colDense
		}
		for r := range m {
			x, y := q[r*ldq+pj], q[r*ldq+j]
			q[r*ldq+pj] = c*x + s*y
			q[r*ldq+j] = c*y - s*x
		}
	})

	k := len(keep)
	// The eigenvalues of the merge and, for the non-deflated ones, their
	// eigenvectors as the columns of u (m×k).
	lam := make([]float64, k)
	var u []float64
	if k > 0 {
		dl := make([]float64, k)
		w := make([]float64, k)
		for i, j := range keep {
			dl[i], w[i] = d[j], z[j]
		}
		s := make([]float64, k*k) // row j: pole j; column i: root i
		if err := secularVectors(ctx, lam, s, dl, w, rho, k, threads); err != nil {
			return err
		}
		// u = Q[:, keep]·S, split into the rows of each half: the first
		// half's rows need only the columns that are nonzero there.
		u = make([]float64, m*k)
		for _, half := range [2][2]int{{0, n1}, {n1, m}} {
			r0, r1 := half[0], half[1]
			var cols []int
			for i, j := range keep {
				if ctype[j] == colDense || (r0 == 0) == (ctype[j] == colTop) {
					cols = append(cols, i)
				}
			}
			if len(cols) == 0 {
				continue
			}
			nc := len(cols)
			a := make([]float64, (r1-r0)*nc)
			b := make([]float64, nc*k)
			for r := r0; r < r1; r++ {
				row := a[(r-r0)*nc : (r-r0+1)*nc]
				for t, i := range cols {
					row[t] = q[r*ldq+keep[i]]
				}
			}
			for t, i := range cols {
				copy(b[t*k:(t+1)*k], s[i*k:(i+1)*k])
			}
			if err := Gemm(ctx, threads, false, false, r1-r0, k, nc, 1, a, nc, b, k, 0, u[r0*k:], k); err != nil {
				return err
			}
		}
	}

	// All m eigenpairs in ascending order: source ≥ 0 is a root (column
	// of u), source < 0 the deflated column −source−1 of q.
	pairs := make([]eigenSource, 0, m)
	for i, l := range lam {
		pairs = append(pairs, eigenSource{l, i})
	}
	for _, j := range defl {
		pairs = append(pairs, eigenSource{d[j], -j - 1})
	}
	sortEigenSources(pairs)
	for c, p := range pairs {
		d[c] = p.val
	}
	grain := max(1, (1<<16)/m)
	tmp := make([]float64, Workers(m, threads, grain)*m)
	return ParallelForWorker(ctx, m, threads, grain, func(w, lo, hi int) {
		row := tmp[w*m : (w+1)*m]
		for r := lo; r < hi; r++ {
			qr := q[r*ldq : r*ldq+m]
			for c, p := range pairs {
				if p.src >= 0 {
					row[c] = u[r*k+p.src]
				} else {
					row[c] = qr[-p.src-1]
				}
			}
			copy(qr, row)
		}
	})
}

// deflateSecular is the deflation of dlaed2 for diag(d) + ρ·z·zᵀ (‖z‖ = 1,
// ρ > 0), visiting the coordinates in order (d ascending): a negligible
// ρ·|z_j| leaves e_j an eigenvector; two poles closer than the tolerance
// allows are rotated (rotate is told the rotation, new axes
// e_pj ← c·e_pj + s·e_j and e_j ← c·e_j − s·e_pj) so that z_pj vanishes,
// and the rotated e_pj is an eigenvector. It updates d and z and returns
// the kept coordinates (ascending poles) and the deflated ones.
func deflateSecular(d, z []float64, rho float64, order []int, rotate func(pj, j int, c, s float64)) (keep, defl []int) {
	var dmax, zmax float64
	for _, j := range order {
		dmax = max(dmax, math.Abs(d[j]))
		zmax = max(zmax, math.Abs(z[j]))
	}
	tol := 8 * dandcEps * max(dmax, zmax)
	if rho*zmax <= tol {
		return nil, order
	}
	pj := -1
	for _, j := range order {
		if rho*math.Abs(z[j]) <= tol {
			defl = append(defl, j)
			continue
		}
		if pj < 0 {
			pj = j
			continue
		}
		s, c := z[pj], z[j]
		tau := math.Hypot(c, s)
		t := d[j] - d[pj]
		c /= tau
		s = -s / tau
		if math.Abs(t*c*s) > tol {
			keep = append(keep, pj)
			pj = j
			continue
		}
		z[j], z[pj] = tau, 0
		rotate(pj, j, c, s)
		dp := d[pj]*c*c + d[j]*s*s
		d[j] = d[pj]*s*s + d[j]*c*c
		d[pj] = dp
		defl = append(defl, pj)
		pj = j
	}
	if pj >= 0 {
		keep = append(keep, pj)
	}
	return keep, defl
}

// eigenSource is an eigenvalue and where its vector comes from (a root of
// the secular equation, or a deflated column).
type eigenSource struct {
	val float64
	src int
}

// sortEigenSources sorts by value, stably.
func sortEigenSources(pairs []eigenSource) {
	slices.SortStableFunc(pairs, func(a, b eigenSource) int { return cmp.Compare(a.val, b.val) })
}

// ascendingOrder returns the indices of d in ascending order of value,
// equal values in index order.
func ascendingOrder(d []float64) []int {
	order := make([]int, len(d))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(d[a], d[b]) })
	return order
}

// secularVectors solves the rank-one problem diag(dl) + ρ w wᵀ (dl strictly
// ascending, every w_j nonzero, ρ > 0) of order k: lam receives its
// eigenvalues in ascending order and s (k×k, row-major) its orthonormal
// eigenvectors as columns, computed from the Löwner vector ẑ.
func secularVectors(ctx context.Context, lam, s, dl, w []float64, rho float64, k, threads int) error {
	if k == 1 {
		lam[0] = dl[0] + rho*w[0]*w[0]
		s[0] = 1
		return nil
	}
	z2 := make([]float64, k)
	for j, v := range w {
		z2[j] = v * v
	}
	// delta[i*k+j] = dl_j − λ_i, to high relative accuracy.
	delta := make([]float64, k*k)
	grain := max(1, 4096/k)
	if err := ParallelFor(ctx, k, threads, grain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			lam[i] = secularRoot(i, dl, z2, rho, delta[i*k:(i+1)*k])
		}
	}); err != nil {
		return err
	}
	// The Löwner vector: ẑ_j² = −Π_i (dl_j − λ_i) / Π_{i≠j} (dl_j − dl_i)
	// (times 1/ρ, which the normalisation cancels), with the sign of w_j;
	// then column i of s is ẑ_j/(dl_j − λ_i), normalised. Row j of s is
	// built from column j of delta, read in blocks.
	zh := make([]float64, k)
	if err := ParallelFor(ctx, k, threads, grain, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			p := delta[j*k+j]
			dj := dl[j]
			for i := range k {
				if i != j {
					p *= delta[i*k+j] / (dj - dl[i])
				}
			}
			zh[j] = math.Copysign(math.Sqrt(-p), w[j])
		}
	}); err != nil {
		return err
	}
	if err := ParallelFor(ctx, k, threads, grain, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			row := s[j*k : (j+1)*k]
			zj := zh[j]
			for i := range k {
				row[i] = zj / delta[i*k+j]
			}
		}
	}); err != nil {
		return err
	}
	// Column norms, summed over j in order.
	norms := make([]float64, k)
	for j := range k {
		row := s[j*k : (j+1)*k]
		for i, v := range row {
			norms[i] += v * v
		}
	}
	for i := range norms {
		norms[i] = 1 / math.Sqrt(norms[i])
	}
	return ParallelFor(ctx, k, threads, grain, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			row := s[j*k : (j+1)*k]
			for i := range row {
				row[i] *= norms[i]
			}
		}
	})
}

// secularMaxIter bounds the iterations of one root; after secularBisectAfter
// the steps are plain bisections.
const (
	secularMaxIter     = 400
	secularBisectAfter = 60
)

// secularRoot returns root i (0-based, ascending) of
// f(λ) = 1/ρ + Σ_j z2_j/(dl_j − λ) and writes dl_j − λ_i into delta.
//
// Root i < k−1 lies in (dl_i, dl_{i+1}); f at the midpoint says which pole
// is nearer, and the iteration runs in τ = λ − origin with origin that
// pole, so that the differences (dl_j − origin) − τ keep their relative
// accuracy even when τ is tiny. The last root lies in
// (dl_{k−1}, dl_{k−1} + ρ·Σz2] and has origin dl_{k−1}. Each step is
// Li's "middle way" rational model (two poles, the nearer one on each
// side, with the weights of all poles on that side), falling back to
// Newton when the model step goes the wrong way and to bisection when a
// step leaves the bracket of signs seen so far. It stops when |f| is
// within its rounding error bound, or when τ stops changing.
func secularRoot(i int, dl, z2 []float64, rho float64, delta []float64) float64 {
	origin, tau := secularRootAt(i, dl, z2, rho, delta)
	return dl[origin] + tau
}

// secularRootAt is secularRoot returning the root as its pole and offset,
// λ_i = dl[origin] + tau, so that a caller can recompute every
// dl_j − λ_i = (dl_j − dl[origin]) − tau with the bits of delta.
func secularRootAt(i int, dl, z2 []float64, rho float64, delta []float64) (origin int, tau float64) {
	k := len(dl)
	rhoinv := 1 / rho
	var lb, ub float64
	// il and il+1 are the poles of the model.
	il := i
	if i < k-1 {
		half := (dl[i+1] - dl[i]) / 2
		f := rhoinv
		for j := range k {
			f += z2[j] / ((dl[j] - dl[i]) - half)
		}
		if f >= 0 {
			origin, lb, ub, tau = i, 0, half, half
		} else {
			origin, lb, ub, tau = i+1, -half, 0, -half
		}
	} else {
		il = k - 2
		var sum float64
		for _, v := range z2 {
			sum += v
		}
		origin, lb, ub = k-1, 0, rho*sum
		tau = ub
	}
	do := dl[origin]
	for iter := 0; ; iter++ {
		var psi, dpsi, phi, dphi, abs float64
		for j := range k {
			dj := (dl[j] - do) - tau
			delta[j] = dj
			t := z2[j] / dj
			abs += math.Abs(t)
			if j <= il {
				psi += t
				dpsi += t / dj
			} else {
				phi += t
				dphi += t / dj
			}
		}
		f := rhoinv + psi + phi
		errb := dandcEps * (8*abs + 2*rhoinv + math.Abs(tau)*(dpsi+dphi))
		if math.Abs(f) <= errb || iter >= secularMaxIter {
			break
		}
		if f < 0 {
			lb = max(lb, tau)
		} else {
			ub = min(ub, tau)
		}
		next := math.NaN()
		if iter < secularBisectAfter {
			da, db := delta[il], delta[il+1]
			c := f - da*dpsi - db*dphi
			a := (da+db)*f - da*db*(dpsi+dphi)
			b := da * db * f
			disc := math.Sqrt(math.Abs(a*a - 4*b*c))
			var eta float64
			switch {
			case c == 0:
				eta = b / a
			case i < k-1 && a <= 0:
				eta = (a - disc) / (2 * c)
			case i < k-1:
				eta = 2 * b / (a + disc)
			case a >= 0:
				eta = (a + disc) / (2 * c)
			default:
				eta = 2 * b / (a - disc)
			}
			if !(f*eta < 0) || math.IsInf(eta, 0) {
				eta = -f / (dpsi + dphi)
			}
			next = tau + eta
		}
		if !(next > lb && next < ub) {
			next = lb + (ub-lb)/2
		}
		if next == tau {
			break
		}
		tau = next
	}
	return origin, tau
}
