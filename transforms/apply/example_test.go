package apply_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/apply"
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

// labelledPoints is a table (id, f0 …, label) of the n×d row-major x, ids
// from first.
func labelledPoints(x []float64, d int, labels []string, first int64) arrow.RecordBatch {
	fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}
	for j := range d {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("f%d", j), Type: arrow.PrimitiveTypes.Float64})
	}
	fields = append(fields, arrow.Field{Name: "label", Type: arrow.BinaryTypes.String})
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i := range len(labels) {
		b.Field(0).(*array.Int64Builder).Append(first + int64(i))
		for j := range d {
			b.Field(1 + j).(*array.Float64Builder).Append(x[i*d+j])
		}
		b.Field(1 + d).(*array.StringBuilder).Append(labels[i])
	}
	return b.NewRecordBatch()
}

// fitPCA fits a one-dimensional PCA on the rows of train, with its model,
// in memory (release the tables).
func fitPCA(ctx context.Context, train arrow.RecordBatch) *transforms.MemTables {
	fit := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": train}, "out", "model-out")
	popts := linear.PCAStage{}.NewOptions().(*linear.PCAOptions)
	popts.ID, popts.Dims = "id", 1
	if err := transforms.Run(ctx, linear.PCAStage{}, popts, &transforms.Env{Tables: fit}); err != nil {
		log.Fatal(err)
	}
	return fit
}

// ExampleStage fits PCA on one in-memory table, keeps its model in
// memory, and places the rows of another table with the apply stage.
func ExampleStage() {
	ctx := context.Background()
	train := points(10, 0)
	defer train.Release()
	fit := fitPCA(ctx, train)
	defer fit.Release()

	fresh := points(4, 0.5)
	defer fresh.Release()
	place := &transforms.MemTables{
		In:   map[string][]arrow.RecordBatch{"model": fit.Out("model-out").Records, "in": {fresh}},
		Want: []string{"out"},
	}
	defer place.Release()
	opts := apply.Stage{}.NewOptions().(*apply.Options)
	opts.ID = "id"
	if err := transforms.Run(ctx, apply.Stage{}, opts, &transforms.Env{Tables: place}); err != nil {
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

// ExampleStage_placement fits a t-SNE map of three clusters with its
// model, then places new rows into the fixed map: each lands in its own
// cluster, whatever batch it comes in.
func ExampleStage_placement() {
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
		return labelledPoints(x, 2, labels, first), cls
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
	opts := apply.Stage{}.NewOptions().(*apply.Options)
	opts.ID = "id"
	if err := transforms.Run(ctx, apply.Stage{}, opts, &transforms.Env{Tables: place}); err != nil {
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

// ExampleRows streams new rows through a model in a Go program, without
// the stage: the model read from a PCA fit's model-out records with
// transforms.LoadModel, the rows from any arrowio.Reader, the embedding
// batch by batch into any arrowio.Writer. The rows get what the apply
// stage gives them (ExampleStage).
func ExampleRows() {
	ctx := context.Background()
	train := points(10, 0)
	defer train.Release()
	fit := fitPCA(ctx, train)
	defer fit.Release()
	model := fit.Out("model-out")
	mr := arrowio.NewRecordsReader("pca-model", model.Schema, model.Records)
	defer mr.Release()
	m, err := transforms.LoadModel(mr)
	if err != nil {
		log.Fatal(err)
	}

	fresh := points(4, 0.5)
	defer fresh.Release()
	r := arrowio.NewRecordsReader("fresh", nil, []arrow.RecordBatch{fresh})
	defer r.Release()
	out := transforms.NewMemTables(nil, "out")
	defer out.Release()
	var w arrowio.Writer
	st, err := apply.Rows(ctx, m, r, arrowio.Selection{ID: "id"}, func(s *arrow.Schema) (arrowio.Writer, error) {
		w, err = out.Create(ctx, "out", s, memory.DefaultAllocator)
		return w, err
	}, apply.Config{})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("model kind:", m.Header().Kind, "rows:", st.Rows, "batches:", st.Batches)
	emb := out.Out("out").Records[0].Column(1).(*array.Float64)
	for i := range emb.Len() {
		fmt.Printf("id %d -> %.3f\n", i, emb.Value(i))
	}
	// Output:
	// model kind: affine rows: 4 batches: 1
	// id 0 -> -2.065
	// id 1 -> -1.024
	// id 2 -> 0.017
	// id 3 -> -1.364
}
