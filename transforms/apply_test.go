package transforms

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// TestApplyStreams applies a model to a file of many batches and checks
// every row against the model's direct transform, that ids and kept columns
// stay aligned, and that the work was done batch by batch.
func TestApplyStreams(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.parquet")
	const n = 25_000
	rng := rand.New(rand.NewPCG(5, 6))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "x1", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x2", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x3", Type: arrow.PrimitiveTypes.Float64},
		{Name: "tag", Type: arrow.BinaryTypes.String},
	}, nil)
	x := make([]float64, n*3)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(1000 + i))
		for f := range 3 {
			x[i*3+f] = rng.NormFloat64()
			b.Field(1 + f).(*array.Float64Builder).Append(x[i*3+f])
		}
		b.Field(4).(*array.StringBuilder).Append([]string{"a", "b", "c"}[i%3])
	}
	rec := b.NewRecordBatch()
	b.Release()
	writeTable(t, in, nil, rec)

	m := testModel()
	want := m.Transform(nil, x, n)
	// Batches larger than transformGrain are transformed in blocks on
	// several goroutines: the same bits.
	for _, tc := range []struct{ threads, batch int }{{1, 4096}, {3, 20_000}} {
		r, err := arrowio.Open(ctx, in, arrowio.WithBatchSize(tc.batch))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Release()
		out := filepath.Join(dir, fmt.Sprintf("out-%d.parquet", tc.threads))
		var w arrowio.Writer
		st, err := Apply(ctx, m, r, arrowio.Selection{ID: "id", Keep: []string{"tag"}}, func(s *arrow.Schema) (arrowio.Writer, error) {
			w, err = arrowio.Create(ctx, out, s)
			return w, err
		}, ApplyConfig{Mem: memory.DefaultAllocator, Threads: tc.threads})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if st.Rows != n || st.Batches < n/tc.batch {
			t.Errorf("stats %+v: want %d rows in at least %d batches", st, n, n/tc.batch)
		}
		r2, err := arrowio.Open(ctx, out)
		if err != nil {
			t.Fatal(err)
		}
		defer r2.Release()
		f, err := arrowio.ReadFrame(ctx, r2, arrowio.Selection{ID: "id", Features: []string{"emb_*"}, Keep: []string{"tag"}})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Release()
		if f.N != n || f.D != 2 {
			t.Fatalf("output %d×%d, want %d×2", f.N, f.D, n)
		}
		ids := f.ID.(*array.Int64)
		tags := f.Keep[0].(*array.String)
		for i := range n {
			if ids.Value(i) != int64(1000+i) || tags.Value(i) != []string{"a", "b", "c"}[i%3] {
				t.Fatalf("row %d: id %d tag %s", i, ids.Value(i), tags.Value(i))
			}
			for j := range 2 {
				if f.X[i*2+j] != want[i*2+j] {
					t.Fatalf("threads %d: row %d: y%d = %v, want %v", tc.threads, i, j, f.X[i*2+j], want[i*2+j])
				}
			}
		}
	}
}

// TestApplyStageNoLeaks runs the apply stage on in-memory records, several
// batches of them, with a checked allocator: every buffer the stage
// allocates (the model it reads, the output batches) is freed with the
// outputs, and the placed rows are the model's transform of the inputs.
func TestApplyStageNoLeaks(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := testModel()

	// The model, written in memory as a run's model-out.
	fit := NewMemTables(nil, "model-out")
	defer fit.Release()
	env := &Env{Tables: fit, Mem: mem}
	env.defaults()
	env.Prov = &arrowio.Provenance{Stage: "bvp", Figures: map[string]any{}}
	if err := env.WriteModel(ctx, "model-out", m); err != nil {
		t.Fatal(err)
	}

	schema := arrow.NewSchema([]arrow.Field{
		{Name: "x1", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x2", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x3", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	var recs []arrow.RecordBatch
	var x []float64
	for k := range 3 {
		b := array.NewRecordBuilder(mem, schema)
		for i := range 5 {
			for f := range 3 {
				v := float64(k*100 + i*10 + f)
				x = append(x, v)
				b.Field(f).(*array.Float64Builder).Append(v)
			}
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	place := &MemTables{In: map[string][]arrow.RecordBatch{"model": fit.Out("model-out").Records, "in": recs}, Want: []string{"out"}}
	defer place.Release()
	if err := Run(ctx, ApplyStage{}, ApplyStage{}.NewOptions(), &Env{Tables: place, Mem: mem}); err != nil {
		t.Fatal(err)
	}
	out := place.Out("out")
	if out.NumRows() != 15 || len(out.Records) != 3 {
		t.Fatalf("%d rows in %d batches, want 15 in 3", out.NumRows(), len(out.Records))
	}
	want := m.Transform(nil, x, 15)
	row := 0
	for _, r := range out.Records {
		e0, e1 := r.Column(1).(*array.Float64), r.Column(2).(*array.Float64)
		for i := range e0.Len() {
			if e0.Value(i) != want[row*2] || e1.Value(i) != want[row*2+1] {
				t.Fatalf("row %d: (%v, %v), want (%v, %v)", row, e0.Value(i), e1.Value(i), want[row*2], want[row*2+1])
			}
			row++
		}
	}
	if p := out.Provenance(); p.Kind != "embedding" || p.Figures["model_stage"] != "bvp" || len(p.Inputs) != 2 || p.Inputs[1].Rows != 15 {
		t.Errorf("provenance %+v", p)
	}
}

// TestApplyColumnsInvalid: an affine map takes float64 features as
// columns, unchecked; a NaN, ±Inf or an overflow in a batch sends it back
// for X, so the row is reported (error), dropped (drop) or its overflow
// refused, exactly as on the row path.
func TestApplyColumnsInvalid(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const n = 3000
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "x1", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x2", Type: arrow.PrimitiveTypes.Float64},
		{Name: "x3", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	m := testModel()
	for _, tc := range []struct {
		name    string
		col     int
		value   float64
		mode    arrowio.OnInvalid
		wantErr string // "" for success
	}{
		{"NaN, error", 1, math.NaN(), arrowio.InvalidError, `column "x2"`},
		{"+Inf, error", 0, math.Inf(1), arrowio.InvalidError, `column "x1"`},
		{"NaN, drop", 2, math.NaN(), arrowio.InvalidDrop, ""},
		{"overflow of a finite value", 0, 1.7e308, arrowio.InvalidDrop, "emb_0"},
	} {
		const bad = 2345 // in the second batch of 2048 rows
		x := make([]float64, n*3)
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := range n {
			for f := range 3 {
				v := float64((i*7+f)%13) - 6
				if i == bad && f == tc.col {
					v = tc.value
				}
				x[i*3+f] = v
				b.Field(f).(*array.Float64Builder).Append(v)
			}
		}
		rec := b.NewRecordBatch()
		b.Release()
		in := filepath.Join(dir, "in.parquet")
		writeTable(t, in, nil, rec)
		rec.Release()
		r, err := arrowio.Open(ctx, in, arrowio.WithBatchSize(2048))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out.parquet")
		var w arrowio.Writer
		st, err := Apply(ctx, m, r, arrowio.Selection{OnInvalid: tc.mode}, func(s *arrow.Schema) (arrowio.Writer, error) {
			w, err = arrowio.Create(ctx, out, s)
			return w, err
		}, ApplyConfig{Mem: memory.DefaultAllocator, Threads: 2})
		r.Release()
		if w != nil {
			w.Abort()
		}
		if tc.wantErr != "" {
			var de *DataError
			if !errors.As(err, &de) || de.Row != bad || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want a data error at row %d naming %s", tc.name, err, bad, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if st.Rows != n-1 || st.Dropped != 1 {
			t.Errorf("%s: %d rows, %d dropped; want %d and 1", tc.name, st.Rows, st.Dropped, n-1)
		}
	}
}
