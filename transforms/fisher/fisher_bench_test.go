package fisher

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/ordinate/ordinate/kernels"
)

// mixtureKernel is an RBF kernel (bandwidth 1) of a seeded 5-class Gaussian
// mixture in 10 dimensions; with noise > 0 a symmetric Gaussian noise matrix
// is added and the spectrum clipped, which makes an indefinite kernel
// corrected as the paper does.
func mixtureKernel(tb testing.TB, n int, noise float64) ([]float64, []int) {
	tb.Helper()
	const dim, k = 10, 5
	rng := rand.New(rand.NewPCG(uint64(n), 2026))
	centres := make([]float64, k*dim)
	for q := range centres {
		centres[q] = 1.5 * rng.NormFloat64()
	}
	x := make([]float64, n*dim)
	cls := make([]int, n)
	for i := range n {
		c := rng.IntN(k)
		cls[i] = c
		for d := range dim {
			x[i*dim+d] = centres[c*dim+d] + rng.NormFloat64()
		}
	}
	s := make([]float64, n*n)
	for i := range n {
		for j := 0; j <= i; j++ {
			var d2 float64
			for d := range dim {
				e := x[i*dim+d] - x[j*dim+d]
				d2 += e * e
			}
			v := math.Exp(-d2 / (2 * dim))
			if noise > 0 {
				v += noise * rng.NormFloat64()
			}
			s[i*n+j], s[j*n+i] = v, v
		}
	}
	if noise > 0 {
		if _, err := kernels.CorrectSpectrum(s, s, n, kernels.Clip); err != nil {
			tb.Fatal(err)
		}
	}
	return s, cls
}

// BenchmarkFisher is the dense trapezoid rule with T = 10 at the data set
// sizes of the paper (Aural Sonar 100, Voting 435, Sonatas 1068).
func BenchmarkFisher(b *testing.B) {
	for _, n := range []int{100, 435, 1068, 2000} {
		s, cls := mixtureKernel(b, n, 0.02)
		b.Run("N="+itoa(n), func(b *testing.B) {
			c0 := cpuSeconds()
			start := time.Now()
			for b.Loop() {
				if _, _, err := Distances(context.Background(), s, n, cls, 5, sigmaOptions(0.3)); err != nil {
					b.Fatal(err)
				}
			}
			cpu := cpuSeconds() - c0
			flops := pathSumFlops(n, DefaultSteps) * float64(b.N)
			b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
			// Per wall second, and per CPU second (one core's rate, which
			// other jobs on the machine disturb less).
			b.ReportMetric(flops/time.Since(start).Seconds()/1e9, "GFLOP/s")
			b.ReportMetric(flops/cpu/1e9, "GFLOP/cpu-s")
		})
	}
}

// pathSumFlops counts the floating-point operations of PathSums' inner
// loops for n points and T steps: per pair, g_l = s_jl − s_il (1 per l),
// the two end points' Σξ and Σξg (3 per l each) and the T − 1 interior
// points' products ξ = a·b, Σξ and Σξg (4 per l each), so n(4T + 3) per
// pair. Exponential tables, the per-class F and the fallbacks are left
// out: they are O(n²T), not O(n³T).
func pathSumFlops(n, steps int) float64 {
	pairs := float64(n) * float64(n-1) / 2
	return pairs * float64(n) * float64(4*steps+3)
}

// BenchmarkPathSums is PathSums alone at N = 2,000 (BenchmarkFisher's
// mixture, σ = 0.3, T = 10): the pair sums without the set-up. Its speed
// counts the Gemm form's products, (3T+3)n³ flops, and is quoted as a
// share of the micro-kernel's peak measured on the same threads just
// before (kernels.MicroKernelPeak): the clock of a shared CPU moves
// between runs, and the share moves less.
func BenchmarkPathSums(b *testing.B) {
	const n, steps = 2000, DefaultSteps
	s, cls := mixtureKernel(b, n, 0.02)
	f0, mid := make([]float64, n*n), make([]float64, n*n)
	p := PathParams{Sigma: 0.3, Steps: steps, Threads: 2}
	peak := kernels.MicroKernelPeak(p.Threads, time.Second)
	b.ResetTimer()
	c0 := cpuSeconds()
	start := time.Now()
	for b.Loop() {
		if _, err := PathSums(context.Background(), f0, mid, s, n, cls, 5, p); err != nil {
			b.Fatal(err)
		}
	}
	wall := time.Since(start).Seconds() / float64(b.N)
	gflops := float64(3*steps+3) * math.Pow(n, 3) / wall / 1e9
	b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
	b.ReportMetric(gflops, "GFLOP/s")
	b.ReportMetric(peak, "peak-GFLOP/s")
	b.ReportMetric(100*gflops/peak, "%peak")
}

// BenchmarkFisherSparse is the sparse mode at N = 2000, K = 90, T = 10 with
// the perplexity-30 bandwidth.
func BenchmarkFisherSparse(b *testing.B) {
	const n = 2000
	s, cls := mixtureKernel(b, n, 0)
	sigma := perplexitySigma(s, n, 30, 100)
	b.ResetTimer()
	c0 := cpuSeconds()
	defer func() { b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op") }()
	o := sigmaOptions(sigma)
	o.Neighbors = 90
	for b.Loop() {
		_, _, st, err := SparseDistances(context.Background(), s, n, cls, 5, o)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(st.KeptTerms)/float64(st.DenseTerms), "kept/dense")
	}
}

// BenchmarkFisherSparseHuge is the sparse mode at N = 10,000, K = 90, T = 10
// (run with ORDINATE_BENCH_HUGE=1). The kernel is a PSD RBF kernel without
// noise: clipping a 10,000² matrix would dominate the run.
func BenchmarkFisherSparseHuge(b *testing.B) {
	if os.Getenv("ORDINATE_BENCH_HUGE") != "1" {
		b.Skip("ORDINATE_BENCH_HUGE=1 runs it: the sparse mode at N = 10,000 takes one and a half minutes and 1.6 GB")
	}
	const n = 10000
	s, cls := mixtureKernel(b, n, 0)
	sigma := perplexitySigma(s, n, 30, 200)
	b.Logf("σ = %.4g (mean perplexity-30 bandwidth of 200 rows)", sigma)
	b.ResetTimer()
	c0 := cpuSeconds()
	defer func() { b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op") }()
	o := sigmaOptions(sigma)
	o.Neighbors = 90
	for b.Loop() {
		_, _, st, err := SparseDistances(context.Background(), s, n, cls, 5, o)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(st.KeptTerms)/float64(st.DenseTerms), "kept/dense")
	}
}

// perplexitySigma is the mean perplexity bandwidth (2β)^(−1/2) over the
// first rows rows of the kernel-induced distances, as the fisher stage uses.
func perplexitySigma(s []float64, n int, perp float64, rows int) float64 {
	d2 := make([]float64, n)
	var sum float64
	for i := range rows {
		for j := range n {
			d2[j] = max(0, s[i*n+i]+s[j*n+j]-2*s[i*n+j])
		}
		beta, err := kernels.PerplexityRow(nil, d2, i, perp, 0)
		if err != nil {
			panic(err)
		}
		sum += 1 / math.Sqrt(2*beta)
	}
	return sum / float64(rows)
}

// cpuSeconds is the process's user + system CPU time: on the shared
// machine wall time depends on the load, CPU time much less.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var buf [20]byte
	p := len(buf)
	for ; n > 0; n /= 10 {
		p--
		buf[p] = byte('0' + n%10)
	}
	return string(buf[p:])
}
