package tsne_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/ordinate/ordinate/transforms/tsne"
)

func ExampleFromFeatures() {
	// Three clusters of 30 points in 5-D, ten units apart.
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d = 90, 5
	x := make([]float64, n*d)
	for i := range n {
		for a := range d {
			x[i*d+a] = rng.NormFloat64()
		}
		x[i*d+i/30] += 10
	}
	o := tsne.DefaultOptions()
	o.Perplexity, o.MaxIter = 10, 300
	r, err := tsne.FromFeatures(context.Background(), x, n, d, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Each point's nearest neighbour in the embedding is from its cluster.
	same := 0
	for i := range n {
		best, bd := -1, 0.0
		for j := range n {
			dx, dy := r.Y[2*i]-r.Y[2*j], r.Y[2*i+1]-r.Y[2*j+1]
			if j != i && (best < 0 || dx*dx+dy*dy < bd) {
				best, bd = j, dx*dx+dy*dy
			}
		}
		if best/30 == i/30 {
			same++
		}
	}
	fmt.Printf("method %s, init %s, learning rate %v then %v\n", r.Method, r.Init, r.EarlyRate, r.LearningRate)
	fmt.Printf("%d of %d nearest neighbours in the same cluster; KL below 0.5: %v\n", same, n, r.KL < 0.5)
	// Output:
	// method exact, init pca, learning rate 50 then 90
	// 90 of 90 nearest neighbours in the same cluster; KL below 0.5: true
}
