package transforms_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/bvp"
	"github.com/ordinate/ordinate/transforms/quality"
)

// readAll reads a table into record batches (any Arrow source will do: a
// Flight stream, a pqarrow reader, records built in memory).
func readAll(ctx context.Context, path string) ([]arrow.RecordBatch, error) {
	r, err := arrowio.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	var recs []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	return recs, r.Err()
}

// Example_pipeline runs two stages from Go on Arrow records, without files:
// BVP fits an embedding and a model, and evaluate scores the embedding in
// the space it was fitted in (taken from the embedding's provenance).
func Example_pipeline() {
	ctx := context.Background()
	recs, err := readAll(ctx, "../testdata/ordinal/newthyroid.csv")
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()

	// Fit: options start at the stage's defaults; set them as Go fields or
	// by name as text (what a host's flags or config file would give).
	fit := &transforms.MemTables{In: map[string][]arrow.RecordBatch{"in": recs}, Want: []string{"out", "model-out"}}
	defer fit.Release()
	opts := bvp.Stage{}.NewOptions().(*bvp.Options)
	if err := transforms.SetOptions(opts, map[string]string{"label": "label", "dims": "2"}); err != nil {
		log.Fatal(err)
	}
	if err := transforms.Run(ctx, bvp.Stage{}, opts, &transforms.Env{Tables: fit}); err != nil {
		if errors.Is(err, transforms.ErrInvalidData) || errors.Is(err, transforms.ErrInvalidOption) {
			log.Fatalf("the input or the options are at fault: %v", err)
		}
		log.Fatal(err)
	}
	emb := fit.Out("out")
	fmt.Println("embedding:", emb.NumRows(), "rows, kind", emb.Provenance().Kind, "features", emb.Provenance().Figures["features"])

	// Evaluate the embedding against the input it came from.
	eval := &transforms.MemTables{In: map[string][]arrow.RecordBatch{"embedding": emb.Records, "in": recs}, Want: []string{"out"}}
	defer eval.Release()
	eo := quality.DefaultOptions()
	eo.Label = "label"
	eo.Ks = []int{10}
	if err := transforms.Run(ctx, quality.Stage{}, &eo, &transforms.Env{Tables: eval}); err != nil {
		log.Fatal(err)
	}
	p := eval.Out("out").Provenance()
	fmt.Println("metrics:", eval.Out("out").NumRows(), "rows; standardize", p.Figures["standardize"], "taken from the", p.Figures["standardize_source"])
	fmt.Printf("trustworthiness@10 = %.3f\n", p.Figures["trustworthiness_k10"])
	// Output:
	// embedding: 215 rows, kind embedding features [x1 x2 x3 x4 x5]
	// metrics: 13 rows; standardize true taken from the embedding
	// trustworthiness@10 = 0.816
}
