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

// GemmPacked multiplies operands packed once for several products: here
// one left operand A against two right operands, as Gemm would, with the
// same bits.
func ExampleGemmPacked() {
	ctx := context.Background()
	a := []float64{ // 2×3
		1, 2, 3,
		4, 5, 6,
	}
	b1 := []float64{ // 3×2
		1, 0,
		0, 1,
		1, 1,
	}
	b2 := []float64{ // stored 2×3, used transposed: 3×2
		1, 1, 1,
		0, 0, 2,
	}
	var pa kernels.PackedA
	var pb kernels.PackedB
	if err := kernels.PackA(ctx, 1, &pa, false, 2, 3, a, 3); err != nil {
		panic(err)
	}
	c := make([]float64, 4)
	for _, op := range []struct {
		trans bool
		b     []float64
		ld    int
	}{{false, b1, 2}, {true, b2, 3}} {
		if err := kernels.PackB(ctx, 1, &pb, op.trans, 3, 2, op.b, op.ld); err != nil {
			panic(err)
		}
		if err := kernels.GemmPacked(ctx, 1, &pa, &pb, 1, 0, c, 2); err != nil {
			panic(err)
		}
		fmt.Println(c)
	}
	// Output:
	// [4 5 10 11]
	// [6 6 15 12]
}
