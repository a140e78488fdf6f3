package transforms_test

import (
	"context"
	"fmt"
	"log"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// ExampleFitBVP fits BVP on the newthyroid data set and places the first
// row, as `ordinate bvp` does.
func ExampleFitBVP() {
	ctx := context.Background()
	r, err := arrowio.Open(ctx, "../testdata/ordinal/newthyroid.csv")
	if err != nil {
		log.Fatal(err)
	}
	defer r.Release()
	f, err := arrowio.ReadFrame(ctx, r, arrowio.Selection{Label: "label"})
	if err != nil {
		log.Fatal(err)
	}
	defer f.Release()

	fit, err := transforms.FitBVP(ctx, f, transforms.LinearOptions{Dims: 2, Standardize: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("features:", fit.Model.Features)
	fmt.Println("classes in order:", fit.Classes.Names, "counts:", fit.Classes.Counts)
	fmt.Printf("row 0 -> (%.3f, %.3f)\n", fit.Embedding[0], fit.Embedding[1])
	// The model places new rows exactly as the fit placed the training rows.
	y := fit.Model.Transform(nil, f.X[:f.D], 1)
	fmt.Printf("apply  -> (%.3f, %.3f)\n", y[0], y[1])
	// Output:
	// features: [x1 x2 x3 x4 x5]
	// classes in order: [1 2 3] counts: [30 150 35]
	// row 0 -> (-4.040, 2.329)
	// apply  -> (-4.040, 2.329)
}
