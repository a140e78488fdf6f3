package score_test

import (
	"context"
	"fmt"

	"github.com/ordinate/ordinate/transforms/score"
	"github.com/ordinate/ordinate/transforms/triplets"
)

// Two aspects over six objects: aspect 0 groups {0, 1, 2} against
// {3, 4, 5}; aspect 1 groups the even against the odd objects.
func ExampleFit() {
	group := [2]func(int) int{
		func(i int) int { return i / 3 },
		func(i int) int { return i % 2 },
	}
	tab := &triplets.Table{}
	for t, g := range group {
		for i := range 6 {
			for j := range 6 {
				for k := range 6 {
					if i != j && g(i) == g(j) && g(k) != g(i) {
						tab.Append(int32(i), int32(j), int32(k), int32(t))
					}
				}
			}
		}
	}
	o := score.DefaultOptions()
	o.Deterministic = true
	m, _, err := score.Fit(context.Background(), tab, 6, 2, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	per, _ := m.Accuracy(tab)
	fmt.Printf("accuracy per aspect: %.2f\n", per)
	maps := m.Maps()
	fmt.Println(len(maps), "maps of", len(maps[0])/m.Dims, "objects in", m.Dims, "dimensions")
	// Output:
	// accuracy per aspect: [1.00 1.00]
	// 2 maps of 6 objects in 2 dimensions
}
