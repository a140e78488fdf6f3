package oe_test

import (
	"context"
	"fmt"
	"math"

	"github.com/ordinate/ordinate/transforms/oe"
	"github.com/ordinate/ordinate/transforms/triplets"
)

// Five objects on a line; all triplets that the line implies.
func ExampleSOE() {
	pos := []float64{0, 1, 2, 4, 7}
	t := &triplets.Table{}
	for j := range pos {
		for i := range pos {
			for k := range pos {
				if i != j && j != k && i != k && math.Abs(pos[j]-pos[i]) < math.Abs(pos[j]-pos[k]) {
					t.Append(int32(i), int32(j), int32(k), 0)
				}
			}
		}
	}
	o := oe.DefaultSOEOptions()
	o.Dims = 1
	res, err := oe.SOE(context.Background(), len(pos), t, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	ok := 0
	for r := range t.I {
		j, i, k := res.Y[t.J[r]], res.Y[t.I[r]], res.Y[t.K[r]]
		if math.Abs(j-i) < math.Abs(j-k) {
			ok++
		}
	}
	fmt.Printf("%d triplets, %d satisfied\n", t.Len(), ok)
	// Output: 27 triplets, 27 satisfied
}
