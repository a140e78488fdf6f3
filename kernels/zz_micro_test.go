package kernels

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkZZKernel4x2(b *testing.B) {
	for _, w := range []int{64, 256, 512} {
		stride := w + 4
		a := randomPoints(rand.New(rand.NewPCG(1, 1)), 4, stride)
		bb := randomPoints(rand.New(rand.NewPCG(1, 2)), 2, stride)
		var s [32]float64
		b.Run(itoa(w), func(b *testing.B) {
			for b.Loop() {
				sqDist4x2Packed(&s, w/4, a, bb, stride)
			}
			b.ReportMetric(float64(8*w*3)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
