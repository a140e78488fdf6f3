package quality_test

import (
	"context"
	"fmt"

	"github.com/ordinate/ordinate/transforms/quality"
)

func ExampleEvaluate() {
	// Six points in the plane, two classes, and a 1-D embedding that moves
	// point 2 of class 0 among the points of class 1.
	x := []float64{
		0, 0, 1, 0, 0, 1,
		5, 5, 6, 5, 5, 7,
	}
	y := []float64{0, 1, 5.5, 5, 7, 6}
	classes := []int{0, 0, 0, 1, 1, 1}

	rep, err := quality.Evaluate(context.Background(), x, 2, y, 1, classes, quality.Options{Ks: []int{2}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rep.Rows {
		fmt.Printf("%-16s k=%d %-9s %.4f\n", r.Metric, r.K, r.Subset, r.Value)
	}
	// Output:
	// trustworthiness  k=2 all       0.6333
	// trustworthiness  k=2 intra     1.0000
	// trustworthiness  k=2 inter     0.6333
	// continuity       k=2 all       0.6667
	// continuity       k=2 intra     0.6667
	// continuity       k=2 inter     1.0000
	// rnx              k=2 all       0.0278
	// rnx_auc          k=0 all       0.2028
	// knn_accuracy     k=2 embedding 0.5000
	// knn_accuracy     k=2 input     1.0000
	// nn_error         k=1 embedding 0.5000
	// nn_error         k=1 input     0.0000
	// knn_gain         k=2 all       -0.5833
}

func ExampleEvaluate_badData() {
	x := []float64{0, 1, 2, 3}
	_, err := quality.Evaluate(context.Background(), x, 1, x, 1, []int{0, 1, 0, -2}, quality.Options{})
	fmt.Println(err)
	// Output:
	// row 3 of classes: negative class: -2
}

func ExampleEvaluateDistances() {
	// A precomputed distance matrix of four points in two classes. Points 2
	// and 3 of class 1 both have their nearest neighbour in class 0.
	dist := []float64{
		0, 1, 5, 2,
		1, 0, 4, 3,
		5, 4, 0, 6,
		2, 3, 6, 0,
	}
	rep, err := quality.EvaluateDistances(context.Background(), dist, 4, []int{0, 0, 1, 1}, quality.Options{Ks: []int{1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rep.Rows {
		fmt.Printf("%s k=%d %s %.2f\n", r.Metric, r.K, r.Subset, r.Value)
	}
	// Output:
	// knn_accuracy k=1 distances 0.50
	// nn_error k=1 distances 0.50
}
