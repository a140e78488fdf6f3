package kernels

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// gemmRef is the textbook triple loop for c = alpha·op(a)·op(b) + beta·c,
// and the bound Σ_l |op(a)_il|·|op(b)_lj| of each element's rounding error.
func gemmRef(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) (want, bound []float64) {
	want = make([]float64, m*n)
	bound = make([]float64, m*n)
	for i := range m {
		for j := range n {
			var s, t float64
			for l := range k {
				var x, y float64
				if transA {
					x = a[l*lda+i]
				} else {
					x = a[i*lda+l]
				}
				if transB {
					y = b[j*ldb+l]
				} else {
					y = b[l*ldb+j]
				}
				s += x * y
				t += math.Abs(x * y)
			}
			v := alpha * s
			if beta != 0 {
				v += beta * c[i*ldc+j]
			}
			want[i*n+j] = v
			bound[i*n+j] = math.Abs(alpha)*t + math.Abs(beta*c[i*ldc+j])
		}
	}
	return want, bound
}

func TestGemm(t *testing.T) {
	type tc struct {
		m, n, k        int
		transA, transB bool
		pad            int // extra stride beyond the columns
		alpha, beta    float64
	}
	var cases []tc
	for _, s := range [][3]int{{1, 1, 1}, {3, 5, 7}, {4, 8, 1}, {4, 8, 256}, {5, 9, 257}, {17, 3, 2}, {2, 31, 64}, {130, 1030, 300}, {513, 9, 600}, {7, 7, 0}} {
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				cases = append(cases, tc{s[0], s[1], s[2], ta, tb, 0, 1, 0})
			}
		}
		cases = append(cases, tc{s[0], s[1], s[2], false, true, 3, -0.5, 2}, tc{s[0], s[1], s[2], true, false, 1, 2, 1})
	}
	// One packed pair of operands for all cases: reuse across sizes,
	// growing and shrinking, must not leak between products.
	var pa PackedA
	var pb PackedB
	for _, c := range cases {
		name := fmt.Sprintf("m=%d/n=%d/k=%d/tA=%v/tB=%v/pad=%d/alpha=%g/beta=%g", c.m, c.n, c.k, c.transA, c.transB, c.pad, c.alpha, c.beta)
		rng := rand.New(rand.NewPCG(uint64(c.m*1000+c.n), uint64(c.k)))
		ar, ac := c.m, c.k
		if c.transA {
			ar, ac = c.k, c.m
		}
		br, bc := c.k, c.n
		if c.transB {
			br, bc = c.n, c.k
		}
		lda, ldb, ldc := max(ac, 1)+c.pad, max(bc, 1)+c.pad, max(c.n, 1)+c.pad
		// One element of offset: the operands are not 32-byte aligned.
		a := randomPoints(rng, 1, 1+max(ar*lda, 1))[1:]
		b := randomPoints(rng, 1, 1+max(br*ldb, 1))[1:]
		c0 := randomPoints(rng, 1, 1+max(c.m*ldc, 1))[1:]
		if c.beta == 0 {
			for i := range c0 {
				c0[i] = math.NaN() // beta = 0 must not read c
			}
		}
		want, bound := gemmRef(c.transA, c.transB, c.m, c.n, c.k, c.alpha, a, lda, b, ldb, c.beta, c0, ldc)
		var first []float64
		for _, threads := range []int{1, 2, 3, 7} {
			got := append([]float64(nil), c0...)
			if err := Gemm(context.Background(), threads, c.transA, c.transB, c.m, c.n, c.k, c.alpha, a, lda, b, ldb, c.beta, got, ldc); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for i := range c.m {
				for j := range c.n {
					g, w := got[i*ldc+j], want[i*c.n+j]
					if tol := 4 * float64(c.k+2) * 0x1p-52 * bound[i*c.n+j]; math.Abs(g-w) > tol || math.IsNaN(g) {
						t.Fatalf("%s, threads %d: c[%d,%d] = %v, want %v (tolerance %g)", name, threads, i, j, g, w, tol)
					}
				}
				for j := c.n; j < ldc && i*ldc+j < len(got); j++ {
					if math.Float64bits(got[i*ldc+j]) != math.Float64bits(c0[i*ldc+j]) {
						t.Fatalf("%s, threads %d: padding c[%d,%d] changed", name, threads, i, j)
					}
				}
			}
			if first == nil {
				first = got
				continue
			}
			if !slicesEqualBits(got, first) {
				t.Fatalf("%s: threads %d differ from threads 1", name, threads)
			}
		}
		// Packed operands give Gemm's bits, packed on any thread count.
		for _, threads := range []int{1, 3} {
			if err := PackA(context.Background(), threads, &pa, c.transA, c.m, c.k, a, lda); err != nil {
				t.Fatalf("%s: PackA: %v", name, err)
			}
			if err := PackB(context.Background(), 4-threads, &pb, c.transB, c.k, c.n, b, ldb); err != nil {
				t.Fatalf("%s: PackB: %v", name, err)
			}
			got := append([]float64(nil), c0...)
			if err := GemmPacked(context.Background(), 2, &pa, &pb, c.alpha, c.beta, got, ldc); err != nil {
				t.Fatalf("%s: GemmPacked: %v", name, err)
			}
			if !slicesEqualBits(got, first) {
				t.Fatalf("%s: GemmPacked (packed on %d and %d threads) differs from Gemm", name, threads, 4-threads)
			}
		}
	}
}

// TestGemmKernel checks the selected micro-kernel (AVX2/FMA where the CPU
// has it) against the pure-Go one on odd depths.
func TestGemmKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 8))
	for _, k := range []int{1, 2, 3, 4, 5, 16, 255, 256} {
		a, b := randomPoints(rng, 1, k*gemmMR), randomPoints(rng, 1, k*gemmNR)
		var got, want [gemmMR * gemmNR]float64
		gemmKernel(k, a, b, &got)
		gemmKernelGo(k, a, b, &want)
		for i := range got {
			r, c := i/gemmNR, i%gemmNR
			var bound float64
			for l := range k {
				bound += math.Abs(a[l*gemmMR+r] * b[l*gemmNR+c])
			}
			if d := math.Abs(got[i] - want[i]); d > 2*float64(k)*0x1p-52*bound {
				t.Errorf("k=%d (FMA kernel: %v): element (%d,%d) = %v, pure Go %v", k, hasFMA, r, c, got[i], want[i])
			}
		}
	}
}

func TestGemmErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := make([]float64, 64*64)
	c := make([]float64, 64*64)
	if err := Gemm(ctx, 2, false, false, 64, 64, 64, 1, a, 64, a, 64, 0, c, 64); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want context.Canceled", err)
	}
	for _, tc := range []struct {
		name string
		call func()
	}{
		{"short a", func() { Gemm(context.Background(), 1, false, false, 4, 4, 4, 1, a[:15], 4, a, 4, 0, c, 4) }},
		{"short c", func() { Gemm(context.Background(), 1, false, false, 4, 4, 4, 1, a, 4, a, 4, 0, c[:15], 4) }},
		{"stride below columns", func() { Gemm(context.Background(), 1, false, true, 4, 4, 5, 1, a, 4, a, 5, 0, c, 4) }},
		{"negative dimension", func() { Gemm(context.Background(), 1, false, false, -1, 4, 4, 1, a, 4, a, 4, 0, c, 4) }},
		{"PackA short a", func() { PackA(context.Background(), 1, new(PackedA), false, 4, 4, a[:15], 4) }},
		{"PackB short b", func() { PackB(context.Background(), 1, new(PackedB), true, 4, 4, a[:15], 4) }},
		{"GemmPacked depths differ", func() {
			var pa PackedA
			var pb PackedB
			PackA(context.Background(), 1, &pa, false, 4, 4, a, 4)
			PackB(context.Background(), 1, &pb, false, 5, 4, a, 4)
			GemmPacked(context.Background(), 1, &pa, &pb, 1, 0, c, 4)
		}},
		{"GemmPacked short c", func() {
			var pa PackedA
			var pb PackedB
			PackA(context.Background(), 1, &pa, false, 4, 4, a, 4)
			PackB(context.Background(), 1, &pb, false, 4, 4, a, 4)
			GemmPacked(context.Background(), 1, &pa, &pb, 1, 0, c[:15], 4)
		}},
	} {
		if !panics(tc.call) {
			t.Errorf("%s: no panic", tc.name)
		}
	}
}

// BenchmarkGemm reports GFLOP/s (2mnk flops) for square products and for
// the Gram shape X·Xᵀ of all-pairs distances (N = 10,000 rows of D).
func BenchmarkGemm(b *testing.B) {
	for _, s := range []struct {
		name    string
		m, n, k int
		transB  bool
	}{
		{"square/n=1000", 1000, 1000, 1000, false},
		{"square/n=2000", 2000, 2000, 2000, false},
		{"gram/N=10000/D=32", 10000, 10000, 32, true},
		{"gram/N=10000/D=512", 10000, 10000, 512, true},
	} {
		b.Run(s.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			x := randomPoints(rng, 1, s.m*s.k)
			y := x
			ldb := s.k
			if !s.transB {
				y, ldb = randomPoints(rng, 1, s.k*s.n), s.n
			}
			c := make([]float64, s.m*s.n)
			b.ResetTimer()
			for b.Loop() {
				if err := Gemm(context.Background(), 0, false, s.transB, s.m, s.n, s.k, 1, x, s.k, y, ldb, 0, c, s.n); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(2*float64(s.m)*float64(s.n)*float64(s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkGemmKernel runs the micro-kernel on cache-resident panels on
// one thread: the ceiling per core that Gemm's packing and memory traffic
// take from.
func BenchmarkGemmKernel(b *testing.B) {
	a := make([]float64, gemmKC*gemmMR)
	bb := make([]float64, gemmKC*gemmNR)
	var c [gemmMR * gemmNR]float64
	for b.Loop() {
		gemmKernel(gemmKC, a, bb, &c)
	}
	b.ReportMetric(2*gemmKC*gemmMR*gemmNR*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
