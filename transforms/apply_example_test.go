package transforms_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/linear"
	"github.com/ordinate/ordinate/transforms/tsne"
)

// points is an in-memory table of n rows with an id and two features.
func points(n int, shift float64) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "u", Type: arrow.PrimitiveTypes.Float64},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Float64Builder).Append(float64(i) + shift)
		b.Field(2).(*array.Float64Builder).Append(float64(i%3) - shift)
	}
	return b.NewRecordBatch()
}

// ExampleApplyStage fits PCA on one in-memory table, keeps its model in
// memory, and places the rows of another table with the apply stage.
func ExampleApplyStage() {
	ctx := context.Background()
	train := points(10, 0)
	defer train.Release()
	fit := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": train}, "out", "model-out")
	defer fit.Release()
	popts := linear.PCAStage{}.NewOptions().(*linear.PCAOptions)
	popts.ID, popts.Dims = "id", 1
	if err := transforms.Run(ctx, linear.PCAStage{}, popts, &transforms.Env{Tables: fit}); err != nil {
		log.Fatal(err)
	}

	fresh := points(4, 0.5)
	defer fresh.Release()
	place := &transforms.MemTables{
		In:   map[string][]arrow.RecordBatch{"model": fit.Out("model-out").Records, "in": {fresh}},
		Want: []string{"out"},
	}
	defer place.Release()
	opts := transforms.ApplyStage{}.NewOptions().(*transforms.ApplyOptions)
	opts.ID = "id"
	if err := transforms.Run(ctx, transforms.ApplyStage{}, opts, &transforms.Env{Tables: place}); err != nil {
		log.Fatal(err)
	}
	out := place.Out("out")
	fmt.Println("model of stage:", out.Provenance().Figures["model_stage"], "rows:", out.NumRows())
	emb := out.Records[0].Column(1).(*array.Float64)
	for i := range emb.Len() {
		fmt.Printf("id %d -> %.3f\n", i, emb.Value(i))
	}
	// Output:
	// model of stage: pca rows: 4
	// id 0 -> -2.065
	// id 1 -> -1.024
	// id 2 -> 0.017
	// id 3 -> -1.364
}

// ExampleApplyStage_placement fits a t-SNE map of three clusters with its
// model, then places new rows into the fixed map: each lands in its own
// cluster, whatever batch it comes in.
func ExampleApplyStage_placement() {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	cluster := func(n int, first int64) (arrow.RecordBatch, []int) {
		x, labels := make([]float64, 0, 2*n), make([]string, n)
		cls := make([]int, n)
		for i := range n {
			c := i % 3
			cls[i], labels[i] = c, fmt.Sprint("c", c)
			x = append(x, 10*float64(c)+rng.NormFloat64(), 5*float64(c%2)+rng.NormFloat64())
		}
		return featureRecords(x, 2, labels, first, n)[0], cls
	}
	train, trainClass := cluster(150, 0)
	defer train.Release()
	fit := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": train}, "out", "model-out")
	defer fit.Release()
	topts := tsne.Stage{}.NewOptions().(*tsne.Options)
	topts.ID, topts.Label, topts.Perplexity = "id", "label", 15
	if err := transforms.Run(ctx, tsne.Stage{}, topts, &transforms.Env{Tables: fit}); err != nil {
		log.Fatal(err)
	}

	fresh, freshClass := cluster(6, 1000)
	defer fresh.Release()
	place := &transforms.MemTables{
		In:   map[string][]arrow.RecordBatch{"model": fit.Out("model-out").Records, "in": {fresh}},
		Want: []string{"out"},
	}
	defer place.Release()
	opts := transforms.ApplyStage{}.NewOptions().(*transforms.ApplyOptions)
	opts.ID = "id"
	if err := transforms.Run(ctx, transforms.ApplyStage{}, opts, &transforms.Env{Tables: place}); err != nil {
		log.Fatal(err)
	}
	// The class of each placed row's nearest reference row in the map.
	emb := func(m *transforms.MemTable) []float64 {
		rec := m.Records[0]
		a, b := rec.Column(int(rec.NumCols())-2).(*array.Float64), rec.Column(int(rec.NumCols())-1).(*array.Float64)
		out := make([]float64, 0, 2*a.Len())
		for i := range a.Len() {
			out = append(out, a.Value(i), b.Value(i))
		}
		return out
	}
	ref, placed := emb(fit.Out("out")), emb(place.Out("out"))
	for i := range len(placed) / 2 {
		best, bestD := -1, math.Inf(1)
		for j := range len(ref) / 2 {
			if d := math.Hypot(placed[2*i]-ref[2*j], placed[2*i+1]-ref[2*j+1]); d < bestD {
				best, bestD = j, d
			}
		}
		fmt.Printf("new row of cluster %d lands in cluster %d\n", freshClass[i], trainClass[best])
	}
	// Output:
	// new row of cluster 0 lands in cluster 0
	// new row of cluster 1 lands in cluster 1
	// new row of cluster 2 lands in cluster 2
	// new row of cluster 0 lands in cluster 0
	// new row of cluster 1 lands in cluster 1
	// new row of cluster 2 lands in cluster 2
}
