package kernels_test

import (
	"context"
	"fmt"

	"github.com/ordinate/ordinate/kernels"
)

func ExampleKNN() {
	// Five points on a line; points 1 and 3 are equally far from point 2,
	// and the tie goes to the smaller index.
	x := []float64{0, 1, 2, 3, 10}
	const n, d, k = 5, 1, 2
	idx := make([]int32, n*k)
	dist := make([]float64, n*k)
	if err := kernels.KNN(context.Background(), idx, dist, x, n, d, k, 0); err != nil {
		fmt.Println(err)
		return
	}
	for i := range n {
		fmt.Println(i, idx[i*k:(i+1)*k], dist[i*k:(i+1)*k])
	}
	// Output:
	// 0 [1 2] [1 4]
	// 1 [0 2] [1 1]
	// 2 [1 3] [1 1]
	// 3 [2 1] [1 4]
	// 4 [3 2] [49 64]
}

func ExampleNeighborRanks() {
	row := []float64{4, 0, 1, 4, 2} // distances from point 1
	order := make([]int32, len(row)-1)
	rank := make([]int32, len(row))
	kernels.NeighborRanks(order, rank, row, 1)
	fmt.Println(order, rank)
	// Output:
	// [2 4 0 3] [3 0 1 4 2]
}

func ExampleParallelSum() {
	// Σ 1/i² for i = 1..10⁶, the same to the last bit for any thread count.
	sum := func(threads int) float64 {
		s, _ := kernels.ParallelSum(context.Background(), 1_000_000, threads, 4096, func(lo, hi int) float64 {
			var s float64
			for i := lo; i < hi; i++ {
				s += 1 / (float64(i+1) * float64(i+1))
			}
			return s
		})
		return s
	}
	fmt.Printf("%.10f %v\n", sum(1), sum(1) == sum(3))
	// Output:
	// 1.6449330668 true
}
