package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/bvp"
	"github.com/ordinate/ordinate/transforms/ckpca"
	"github.com/ordinate/ordinate/transforms/fisher"
	"github.com/ordinate/ordinate/transforms/linear"
	"github.com/ordinate/ordinate/transforms/lsp"
	"github.com/ordinate/ordinate/transforms/nerv"
	"github.com/ordinate/ordinate/transforms/oe"
	"github.com/ordinate/ordinate/transforms/quality"
	"github.com/ordinate/ordinate/transforms/score"
	"github.com/ordinate/ordinate/transforms/triplets"
	"github.com/ordinate/ordinate/transforms/tsne"
)

// cancelOn is a Progress that cancels the run when the stage reaches a
// phase whose name starts with phase: at its first Add (inside the phase's
// loop), or at its Start when the phase reports no work (a single long
// call such as an eigendecomposition).
type cancelOn struct {
	phase  string
	onAdd  bool
	cancel context.CancelFunc

	mu     sync.Mutex
	armed  bool
	at     time.Time // when it cancelled
	phases []string
}

func (c *cancelOn) Start(phase string, total int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.phases = append(c.phases, phase)
	c.armed = false
	if !c.at.IsZero() || !strings.HasPrefix(phase, c.phase) {
		return
	}
	if c.onAdd {
		c.armed = true
		return
	}
	c.at = time.Now()
	c.cancel()
}

func (c *cancelOn) Add(int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.armed && c.at.IsZero() {
		c.at = time.Now()
		c.cancel()
	}
}

func (c *cancelOn) Finish() {}

// featureRecord is n rows of an id, d Gaussian features around one centre
// per class, and a label of three classes; control adds two target columns
// cx, cy set on the first 8 rows and null elsewhere.
func featureRecord(n, d int, control bool) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(d)))
	fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}
	for a := range d {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("x%d", a), Type: arrow.PrimitiveTypes.Float64})
	}
	fields = append(fields, arrow.Field{Name: "label", Type: arrow.PrimitiveTypes.Int64})
	if control {
		fields = append(fields, arrow.Field{Name: "cx", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
			arrow.Field{Name: "cy", Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i := range n {
		c := i % 3
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		for a := range d {
			v := rng.NormFloat64()
			if a == c {
				v += 3
			}
			b.Field(1 + a).(*array.Float64Builder).Append(v)
		}
		b.Field(1 + d).(*array.Int64Builder).Append(int64(c))
		if control {
			for q := range 2 {
				if i < 8 {
					b.Field(2 + d + q).(*array.Float64Builder).Append(rng.NormFloat64())
				} else {
					b.Field(2 + d + q).(*array.Float64Builder).AppendNull()
				}
			}
		}
	}
	return b.NewRecordBatch()
}

// embeddingRecord is an id and two embedding columns for n rows.
func embeddingRecord(n int) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(7, uint64(n)))
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "emb_0", Type: arrow.PrimitiveTypes.Float64},
		{Name: "emb_1", Type: arrow.PrimitiveTypes.Float64},
	}, nil))
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Float64Builder).Append(rng.NormFloat64())
		b.Field(2).(*array.Float64Builder).Append(rng.NormFloat64())
	}
	return b.NewRecordBatch()
}

// tripletRecord is m random triplets over n objects in two aspects.
func tripletRecord(n, m int) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(11, uint64(n)))
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "j", Type: arrow.PrimitiveTypes.Int64},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "aspect", Type: arrow.BinaryTypes.String},
	}, nil))
	defer b.Release()
	for q := range m {
		i := rng.IntN(n)
		j := (i + 1 + rng.IntN(n-1)) % n
		k := (j + 1 + rng.IntN(n-1)) % n
		for k == i {
			k = (k + 1) % n
		}
		for c, v := range []int{i, j, k} {
			b.Field(c).(*array.Int64Builder).Append(int64(v))
		}
		b.Field(3).(*array.StringBuilder).Append([]string{"a", "b"}[q%2])
	}
	return b.NewRecordBatch()
}

// objectRecord is n objects with an id and three categorical attributes.
func objectRecord(n int) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(13, uint64(n)))
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "colour", Type: arrow.BinaryTypes.String},
		{Name: "size", Type: arrow.BinaryTypes.String},
		{Name: "shape", Type: arrow.BinaryTypes.String},
	}, nil))
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprint("o", i))
		for c := 1; c <= 3; c++ {
			b.Field(c).(*array.StringBuilder).Append(fmt.Sprint(rng.IntN(4)))
		}
	}
	return b.NewRecordBatch()
}

// TestCancelEveryStage runs every stage on an input that keeps it busy for
// a while, cancels the context when the stage reports its main phase, and
// checks that Run returns an error matching context.Canceled and that no
// output was written. The time from the cancellation to the return is
// logged (go test -v), never asserted.
func TestCancelEveryStage(t *testing.T) {
	feats := func(n, d int) func() map[string]arrow.RecordBatch {
		return func() map[string]arrow.RecordBatch {
			return map[string]arrow.RecordBatch{"in": featureRecord(n, d, false)}
		}
	}
	controlled := func(n, d int) func() map[string]arrow.RecordBatch {
		return func() map[string]arrow.RecordBatch {
			return map[string]arrow.RecordBatch{"in": featureRecord(n, d, true)}
		}
	}
	trip := func(n, m int) func() map[string]arrow.RecordBatch {
		return func() map[string]arrow.RecordBatch { return map[string]arrow.RecordBatch{"in": tripletRecord(n, m)} }
	}
	cases := []struct {
		name    string
		stage   transforms.Stage
		in      func() map[string]arrow.RecordBatch
		outs    []string
		opts    map[string]string
		phase   string
		onAdd   bool
		threads int
	}{
		{"bvp", bvp.Stage{}, feats(100000, 10), []string{"out", "model-out"}, map[string]string{"id": "id", "label": "label", "solver": "rgd"}, "placing", true, 0},
		{"pca", linear.PCAStage{}, feats(100000, 10), []string{"out", "model-out"}, map[string]string{"id": "id", "label": "label"}, "placing", true, 0},
		{"lda", linear.LDAStage{}, feats(100000, 10), []string{"out", "model-out"}, map[string]string{"id": "id", "label": "label"}, "placing", true, 0},
		{"ckpca linear", ckpca.Stage{}, controlled(100000, 10), []string{"out", "model-out"}, map[string]string{"id": "id", "label": "label", "control": "cx,cy", "features": "x*", "scale": "auto"}, "placing", true, 0},
		{"ckpca rbf exact", ckpca.Stage{}, controlled(1500, 5), []string{"out", "model-out"}, map[string]string{"id": "id", "label": "label", "control": "cx,cy", "features": "x*", "kernel": "rbf", "scale": "auto"}, "eigendecomposition", false, 0},
		{"ckpca rbf nystrom", ckpca.Stage{}, controlled(20000, 5), []string{"out", "model-out"}, map[string]string{"id": "id", "label": "label", "control": "cx,cy", "features": "x*", "kernel": "rbf", "landmarks": "1500", "scale": "auto"}, "kernel matrix", false, 0},
		{"lsp", lsp.Stage{}, controlled(20000, 10), []string{"out"}, map[string]string{"id": "id", "label": "label", "control": "cx,cy", "features": "x*", "variant": "laplacian", "neighbors": "10"}, "optimising", false, 0},
		{"tsne exact", tsne.Stage{}, feats(2000, 10), []string{"out"}, map[string]string{"id": "id", "label": "label", "method": "exact"}, "optimising", true, 0},
		{"tsne bh", tsne.Stage{}, feats(5000, 10), []string{"out"}, map[string]string{"id": "id", "label": "label", "method": "bh"}, "optimising", true, 0},
		{"nerv exact", nerv.Stage{}, feats(1500, 10), []string{"out"}, map[string]string{"id": "id", "label": "label", "method": "exact"}, "optimising", true, 0},
		{"nerv bh", nerv.Stage{}, feats(5000, 10), []string{"out"}, map[string]string{"id": "id", "label": "label", "method": "bh"}, "optimising", true, 0},
		{"fisher dense", fisher.Stage{}, feats(700, 5), []string{"out"}, map[string]string{"id": "id", "label": "label", "kernel": "rbf"}, "pair distances", true, 0},
		{"fisher neighbors", fisher.Stage{}, feats(3000, 5), []string{"out"}, map[string]string{"id": "id", "label": "label", "kernel": "rbf", "neighbors": "30"}, "pair distances", true, 0},
		{"score", score.Stage{}, trip(2000, 100000), []string{"out", "aspects-out"}, map[string]string{}, "optimising", true, 0},
		{"tste", oe.TSTEStage{}, trip(2000, 100000), []string{"out"}, map[string]string{}, "optimising", true, 0},
		{"soe", oe.SOEStage{}, trip(2000, 100000), []string{"out"}, map[string]string{}, "optimising", true, 0},
		{"triplets", triplets.Stage{}, func() map[string]arrow.RecordBatch { return map[string]arrow.RecordBatch{"in": objectRecord(3000)} },
			[]string{"out"}, map[string]string{"id": "name"}, "generating", true, 0},
		{"evaluate", quality.Stage{}, func() map[string]arrow.RecordBatch {
			return map[string]arrow.RecordBatch{"in": featureRecord(20000, 10, false), "embedding": embeddingRecord(20000)}
		}, []string{"out"}, map[string]string{"id": "id", "label": "label", "features": "x*"}, "neighbour ranks", true, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in()
			defer func() {
				for _, r := range in {
					r.Release()
				}
			}()
			tables := transforms.NewMemTables(in, tc.outs...)
			defer tables.Release()
			opts := tc.stage.NewOptions()
			if err := transforms.SetOptions(opts, tc.opts); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			prog := &cancelOn{phase: tc.phase, onAdd: tc.onAdd, cancel: cancel}
			err := transforms.Run(ctx, tc.stage, opts, &transforms.Env{Tables: tables, Progress: prog, Threads: tc.threads})
			returned := time.Now()
			prog.mu.Lock()
			at, phases := prog.at, prog.phases
			prog.mu.Unlock()
			if at.IsZero() {
				t.Fatalf("phase %q never reached (phases %q); Run: %v", tc.phase, phases, err)
			}
			t.Logf("returned %v after the cancellation (phases %q)", returned.Sub(at).Round(time.Millisecond), phases)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Run = %v, want an error matching context.Canceled", err)
			}
			if outs := tables.Outputs(); len(outs) != 0 {
				t.Errorf("outputs written after cancellation: %v", outs)
			}
		})
	}
}
