package kernels

import (
	"sync"
	"time"
)

// MicroKernelPeak measures Gemm's micro-kernel on cache-resident panels
// on threads goroutines at once (≤ 0: GOMAXPROCS) for about d, and
// returns the total speed in GFLOP/s: the machine's practical peak for
// Gemm's kind of work at the moment of the call. Benchmarks quote their
// speed as a share of it; on a shared or throttled CPU the clock, and so
// the peak, changes from run to run (51–70 GFLOP/s per core on the
// benchmark machine).
func MicroKernelPeak(threads int, d time.Duration) float64 {
	threads = Workers(1<<30, threads, 1)
	flops := make([]float64, threads)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			flops[w] = kernelLoop(start.Add(d))
		}()
	}
	wg.Wait()
	var total float64
	for _, f := range flops {
		total += f
	}
	return total / time.Since(start).Seconds() / 1e9
}

// kernelLoop runs the widest micro-kernel on one depth-gemmKC block until
// the deadline and returns the flops done.
func kernelLoop(deadline time.Time) float64 {
	a := make([]float64, gemmKC*gemmMR)
	b := make([]float64, 2*gemmKC*gemmNR)
	c := make([]float64, gemmMR*2*gemmNR)
	for i := range a {
		a[i] = 1e-3
	}
	var tile [gemmMR * gemmNR]float64
	var flops float64
	for time.Now().Before(deadline) {
		for range 256 {
			switch {
			case gemmKernelWideC(gemmKC, a, b, c, 2*gemmNR, 1, true):
				flops += 2 * gemmKC * gemmMR * 2 * gemmNR
			case gemmKernelC(gemmKC, a, b, c, 2*gemmNR, 1, true):
				flops += 2 * gemmKC * gemmMR * gemmNR
			default:
				gemmKernelGo(gemmKC, a, b, &tile)
				flops += 2 * gemmKC * gemmMR * gemmNR
			}
		}
	}
	return flops
}
