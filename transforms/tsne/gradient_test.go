package tsne

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ordinate/ordinate/kernels"
)

// tsneBruteGrad is the t-SNE gradient written straight from its definition,
// 4 Σ_j (α p_ij − q_ij) w_ij (y_i − y_j), with Z summed over all pairs
// first.
func tsneBruteGrad(y, p []float64, n, dims int, alpha float64) []float64 {
	w := func(i, j int) float64 {
		var d2 float64
		for c := range dims {
			t := y[i*dims+c] - y[j*dims+c]
			d2 += t * t
		}
		return 1 / (1 + d2)
	}
	var z float64
	for i := range n {
		for j := range n {
			if i != j {
				z += w(i, j)
			}
		}
	}
	g := make([]float64, n*dims)
	for i := range n {
		for j := range n {
			if i == j {
				continue
			}
			wij := w(i, j)
			f := 4 * (alpha*p[i*n+j] - wij/z) * wij
			for c := range dims {
				g[i*dims+c] += f * (y[i*dims+c] - y[j*dims+c])
			}
		}
	}
	return g
}

// tsneRandomP returns a random symmetric joint P (zero diagonal, sum 1).
func tsneRandomP(rng *rand.Rand, n int) []float64 {
	p := make([]float64, n*n)
	var s float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			v := rng.Float64()
			if rng.IntN(4) == 0 {
				v = 0
			}
			p[i*n+j], p[j*n+i] = v, v
			s += 2 * v
		}
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func randomPoints(rng *rand.Rand, n, d int) []float64 {
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// rowSqDist is ‖y_i − y_j‖² of the n×dims embedding y, written plainly.
func rowSqDist(y []float64, dims, i, j int) float64 {
	var s float64
	for c := range dims {
		t := y[i*dims+c] - y[j*dims+c]
		s += t * t
	}
	return s
}

func tsneRelErr(got, want []float64) float64 {
	var num, den float64
	for i := range got {
		num += (got[i] - want[i]) * (got[i] - want[i])
		den += want[i] * want[i]
	}
	return math.Sqrt(num / den)
}

func tsneDense(p *SparseAffinities) []float64 {
	d := make([]float64, p.N*p.N)
	for i := range p.N {
		for e := p.RowPtr[i]; e < p.RowPtr[i+1]; e++ {
			d[i*p.N+int(p.Col[e])] = p.Val[e]
		}
	}
	return d
}

func TestTSNEGradExactFiniteDifferences(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(12, 34))
	for _, c := range []struct{ n, dims int }{{5, 1}, {12, 2}, {9, 3}, {40, 2}, {150, 2}, {130, 3}} {
		name := fmt.Sprintf("n=%d dims=%d", c.n, c.dims)
		p := tsneRandomP(rng, c.n)
		y := randomPoints(rng, c.n, c.dims)
		grad := make([]float64, len(y))
		if _, err := GradExact(ctx, grad, y, p, c.n, c.dims, 1, 1); err != nil {
			t.Fatal(err)
		}
		fd := make([]float64, len(y))
		const h = 1e-5
		for k := range y {
			old := y[k]
			y[k] = old + h
			kp, _ := KLExact(ctx, y, p, c.n, c.dims, 1)
			y[k] = old - h
			km, _ := KLExact(ctx, y, p, c.n, c.dims, 1)
			y[k] = old
			fd[k] = (kp - km) / (2 * h)
		}
		if e := tsneRelErr(grad, fd); e > 1e-6 {
			t.Errorf("%s: relative error vs central differences %.3g", name, e)
		}
		for _, alpha := range []float64{1, 12} {
			want := tsneBruteGrad(y, p, c.n, c.dims, alpha)
			if _, err := GradExact(ctx, grad, y, p, c.n, c.dims, alpha, 1); err != nil {
				t.Fatal(err)
			}
			if e := tsneRelErr(grad, want); e > 1e-13 {
				t.Errorf("%s α=%v: relative error vs brute force %.3g", name, alpha, e)
			}
		}
	}
}

// The KL at a configuration computed independently: q from all pairs.
func TestTSNEKLExact(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	const n, dims = 15, 2
	p := tsneRandomP(rng, n)
	y := randomPoints(rng, n, dims)
	var z float64
	w := make([]float64, n*n)
	for i := range n {
		for j := range n {
			if i != j {
				w[i*n+j] = 1 / (1 + rowSqDist(y, dims, i, j))
				z += w[i*n+j]
			}
		}
	}
	var want float64
	for i := range p {
		if p[i] > 0 {
			want += p[i] * math.Log(p[i]/(w[i]/z))
		}
	}
	got, err := KLExact(ctx, y, p, n, dims, 2)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-want) > 1e-13 {
		t.Errorf("KL = %v, want %v", got, want)
	}
}

// tsneSparseSetup builds the sparse P of n random points from k neighbours.
func tsneSparseSetup(t *testing.T, rng *rand.Rand, n, d, k int, perp float64) (*SparseAffinities, []float64) {
	t.Helper()
	ctx := context.Background()
	x := randomPoints(rng, n, d)
	idx := make([]int32, n*k)
	d2 := make([]float64, n*k)
	if err := kernels.KNN(ctx, idx, d2, x, n, d, k, 1); err != nil {
		t.Fatal(err)
	}
	cond := make([]float64, n*k)
	if err := kernels.PerplexitySparse(ctx, make([]float64, n), cond, d2, n, k, perp, 1); err != nil {
		t.Fatal(err)
	}
	return JointPSparse(idx, cond, n, k), x
}

func TestTSNEJointPSparse(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(8, 8))
	const n, d = 60, 3
	for _, k := range []int{5, 20, n - 1} {
		name := fmt.Sprintf("k=%d", k)
		p, x := tsneSparseSetup(t, rng, n, d, k, 4)
		dp := tsneDense(p)
		var s float64
		for i := range n {
			for j := range n {
				s += dp[i*n+j]
				if dp[i*n+j] != dp[j*n+i] {
					t.Fatalf("%s: p[%d,%d] = %v ≠ p[%d,%d] = %v", name, i, j, dp[i*n+j], j, i, dp[j*n+i])
				}
			}
			if dp[i*n+i] != 0 {
				t.Fatalf("%s: p[%d,%d] = %v", name, i, i, dp[i*n+i])
			}
			for e := p.RowPtr[i] + 1; e < p.RowPtr[i+1]; e++ {
				if p.Col[e] <= p.Col[e-1] {
					t.Fatalf("%s: row %d columns not increasing", name, i)
				}
			}
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("%s: Σp = %v", name, s)
		}
		if k != n-1 {
			continue
		}
		// With all neighbours the sparse P is the dense one.
		d2 := make([]float64, n*n)
		if err := kernels.SqDistances(ctx, d2, x, n, d, 1); err != nil {
			t.Fatal(err)
		}
		cond := make([]float64, n*n)
		if err := kernels.Perplexity(ctx, make([]float64, n), cond, d2, n, 4, 1); err != nil {
			t.Fatal(err)
		}
		JointP(cond, n)
		if e := tsneRelErr(dp, cond); e > 1e-9 {
			t.Errorf("%s: sparse P vs dense P relative error %.3g", name, e)
		}
		y := randomPoints(rng, n, 2)
		gd := make([]float64, n*2)
		gs := make([]float64, n*2)
		if _, err := GradExact(ctx, gd, y, cond, n, 2, 1, 1); err != nil {
			t.Fatal(err)
		}
		var bh BHGradient
		z, err := bh.Grad(ctx, gs, y, p, 2, 0, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if e := tsneRelErr(gs, gd); e > 1e-9 {
			t.Errorf("%s: sparse-P gradient (θ = 0) vs dense relative error %.3g", name, e)
		}
		kld, _ := KLExact(ctx, y, cond, n, 2, 1)
		if kls := KLSparse(y, p, 2, z); math.Abs(kls-kld) > 1e-9 {
			t.Errorf("%s: sparse KL %v, dense %v", name, kls, kld)
		}
	}
}

func TestTSNEGradBHConverges(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(21, 22))
	const n, d, k = 400, 5, 30
	p, _ := tsneSparseSetup(t, rng, n, d, k, 10)
	dp := tsneDense(p)
	for _, dims := range []int{1, 2, 3} {
		y := randomPoints(rng, n, dims)
		for i := range y {
			y[i] *= 5
		}
		want := tsneBruteGrad(y, dp, n, dims, 1)
		grad := make([]float64, n*dims)
		var bh BHGradient
		prev := math.Inf(1)
		for _, theta := range []float64{1, 0.5, 0.25, 0.1, 0} {
			name := fmt.Sprintf("dims=%d θ=%v", dims, theta)
			if _, err := bh.Grad(ctx, grad, y, p, dims, theta, 1, 1); err != nil {
				t.Fatal(err)
			}
			e := tsneRelErr(grad, want)
			t.Logf("%s: relative error %.3g", name, e)
			switch {
			case theta == 0 && e > 1e-12:
				t.Errorf("%s: relative error %.3g, want ≤ 1e-12", name, e)
			case theta == 0.1 && e > 2e-3:
				t.Errorf("%s: relative error %.3g, want ≤ 2e-3", name, e)
			case theta == 0.5 && e > 0.05:
				// The usual setting; about 0.02 here.
				t.Errorf("%s: relative error %.3g, want ≤ 0.05", name, e)
			case e >= prev && e > 1e-14:
				t.Errorf("%s: relative error %.3g did not decrease (previous %.3g)", name, e, prev)
			}
			prev = e
		}
	}
}

func TestTSNEDeterministic(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(77, 1))
	const n, dims = 300, 2
	p, _ := tsneSparseSetup(t, rng, n, 4, 20, 6)
	dp := tsneDense(p)
	y := randomPoints(rng, n, dims)
	var refE, refB []float64
	var refZE, refZB float64
	for _, threads := range []int{1, 2, 7} {
		ge := make([]float64, n*dims)
		gb := make([]float64, n*dims)
		ze, err := GradExact(ctx, ge, y, dp, n, dims, 12, threads)
		if err != nil {
			t.Fatal(err)
		}
		var bh BHGradient
		zb, err := bh.Grad(ctx, gb, y, p, dims, 0.5, 12, threads)
		if err != nil {
			t.Fatal(err)
		}
		if refE == nil {
			refE, refB, refZE, refZB = ge, gb, ze, zb
			continue
		}
		if ze != refZE || zb != refZB {
			t.Errorf("threads=%d: Z differs from threads=1", threads)
		}
		for i := range ge {
			if ge[i] != refE[i] || gb[i] != refB[i] {
				t.Fatalf("threads=%d: gradient element %d differs from threads=1", threads, i)
			}
		}
	}
}

func TestTSNEBHDuplicates(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	const n, dims = 50, 2
	p := tsneRandomP(rng, n)
	var idx []int32
	var val []float64
	sp := &SparseAffinities{N: n, RowPtr: make([]int, n+1)}
	for i := range n {
		for j := range n {
			if p[i*n+j] != 0 {
				idx = append(idx, int32(j))
				val = append(val, p[i*n+j])
			}
		}
		sp.RowPtr[i+1] = len(idx)
	}
	sp.Col, sp.Val = idx, val
	y := randomPoints(rng, n, dims)
	for i := 10; i < 30; i++ { // 20 copies of one point, plus near-copies
		copy(y[i*dims:], y[:dims])
	}
	y[30*dims] = y[0] + 1e-300
	want := tsneBruteGrad(y, p, n, dims, 1)
	grad := make([]float64, n*dims)
	var bh BHGradient
	for _, theta := range []float64{0, 0.5} {
		if _, err := bh.Grad(ctx, grad, y, sp, dims, theta, 1, 2); err != nil {
			t.Fatal(err)
		}
		for i, v := range grad {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("θ=%v: grad[%d] = %v", theta, i, v)
			}
		}
		if e := tsneRelErr(grad, want); theta == 0 && e > 1e-12 {
			t.Errorf("θ=0: relative error %.3g with duplicates", e)
		}
	}
	// All points identical.
	clear(y)
	if _, err := bh.Grad(ctx, grad, y, sp, dims, 0.5, 1, 1); err != nil {
		t.Fatal(err)
	}
	for i, v := range grad {
		if v != 0 {
			t.Fatalf("all identical: grad[%d] = %v, want 0", i, v)
		}
	}
}

func BenchmarkGradExact(b *testing.B) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 1))
	const n, dims = 2000, 2
	p := tsneRandomP(rng, n)
	y := randomPoints(rng, n, dims)
	grad := make([]float64, n*dims)
	for b.Loop() {
		if _, err := GradExact(ctx, grad, y, p, n, dims, 1, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGradBH(b *testing.B) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 1))
	const n, d, k = 20000, 10, 90
	x := randomPoints(rng, n, d)
	idx := make([]int32, n*k)
	d2 := make([]float64, n*k)
	if err := kernels.KNN(ctx, idx, d2, x, n, d, k, 0); err != nil {
		b.Fatal(err)
	}
	if err := kernels.PerplexitySparse(ctx, make([]float64, n), d2, d2, n, k, 30, 0); err != nil {
		b.Fatal(err)
	}
	p := JointPSparse(idx, d2, n, k)
	y := randomPoints(rng, n, 2)
	for i := range y {
		y[i] *= 30
	}
	grad := make([]float64, n*2)
	var bh BHGradient
	for b.Loop() {
		if _, err := bh.Grad(ctx, grad, y, p, 2, 0.5, 1, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestJointPSparseBruteForce compares the symmetrised P with the dense sum
// (p_{j|i} + p_{i|j})/(2n) built pair by pair, on neighbour lists that are
// not kNN lists (random, unsorted, some pairs mutual, some not, and with
// repeats: a neighbour listed twice counts twice).
func TestJointPSparseBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 1))
	for _, tc := range []struct {
		n, k    int
		repeats bool
	}{{2, 1, false}, {7, 3, false}, {50, 10, false}, {300, 29, false}, {7, 5, true}, {40, 20, true}} {
		name := fmt.Sprintf("n=%d k=%d repeats=%v", tc.n, tc.k, tc.repeats)
		n, k := tc.n, tc.k
		idx := make([]int32, n*k)
		cond := make([]float64, n*k)
		want := make([]float64, n*n)
		for i := range n {
			others := rng.Perm(n - 1)[:k]
			if tc.repeats {
				for q := range others {
					others[q] = rng.IntN(n - 1)
				}
			}
			for q, o := range others {
				j := o
				if j >= i {
					j++
				}
				idx[i*k+q], cond[i*k+q] = int32(j), rng.Float64()
				want[i*n+j] += cond[i*k+q]
				want[j*n+i] += cond[i*k+q]
			}
		}
		p := JointPSparse(idx, cond, n, k)
		got := tsneDense(p)
		for i := range n {
			for e := p.RowPtr[i] + 1; e < p.RowPtr[i+1]; e++ {
				if p.Col[e] <= p.Col[e-1] {
					t.Fatalf("%s: row %d columns not increasing", name, i)
				}
			}
			for j := range n {
				w := want[i*n+j] / (2 * float64(n))
				if math.Abs(got[i*n+j]-w) > 1e-14*w {
					t.Fatalf("%s: p[%d,%d] = %v, want %v", name, i, j, got[i*n+j], w)
				}
				if got[i*n+j] != got[j*n+i] {
					t.Fatalf("%s: p[%d,%d] ≠ p[%d,%d]", name, i, j, j, i)
				}
				if (w == 0) != (got[i*n+j] == 0) {
					t.Fatalf("%s: pattern differs at (%d,%d)", name, i, j)
				}
			}
		}
		if nnz := len(p.Col); nnz != len(p.Val) || nnz != p.RowPtr[n] {
			t.Errorf("%s: %d columns, %d values, RowPtr[n] = %d", name, nnz, len(p.Val), p.RowPtr[n])
		}
	}
}

func TestJointPSparsePanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		idx  []int32
	}{
		{"self", []int32{0, 1, 0, 2, 0, 1}},
		{"out of range", []int32{1, 3, 0, 2, 0, 1}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			JointPSparse(tc.idx, make([]float64, 6), 3, 2)
		}()
	}
}
