package apply

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/affine"
)

// testModel is a 2-D affine model of the features x1, x2, x3, as bvp
// writes one.
func testModel() *affine.Model {
	s := &transforms.Scaling{Names: []string{"x1", "x2", "x3"}, Cols: []int{0, 1, 2}, Mean: []float64{1, 2, 3}, Scale: []float64{0.5, 2, 4}}
	axes := mat.NewDense(3, 2, []float64{0.6, 0, 0, 1, 0.8, 0})
	return affine.New("bvp", s, "", true, []float64{0.1, -0.2, 0.3}, axes, map[string]any{"solver": "svd"})
}

// transform is m's transform of the n rows of x.
func transform(t testing.TB, m transforms.Model, x []float64, n int) []float64 {
	t.Helper()
	y := make([]float64, n*m.Header().Dims)
	if err := m.Transform(context.Background(), y, x, n, 0); err != nil {
		t.Fatal(err)
	}
	return y
}

// testEnv is an Env outside a stage run, as Run would set it up.
func testEnv(tables transforms.Tables, mem memory.Allocator, prov *arrowio.Provenance) *transforms.Env {
	return &transforms.Env{Tables: tables, Log: slog.New(slog.DiscardHandler), Mem: mem, Prov: prov}
}

// saveModel writes m to path as the model-out output of a run.
func saveModel(ctx context.Context, path string, m transforms.Model) error {
	env := testEnv(&transforms.FileTables{Paths: map[string]string{"model-out": path}}, memory.DefaultAllocator,
		&arrowio.Provenance{Tool: "ordinate", Stage: m.Header().Stage, Seed: 9, Figures: map[string]any{}})
	return env.WriteModel(ctx, "model-out", m)
}

// writeTable writes records to path (and releases them).
func writeTable(t testing.TB, path string, recs ...arrow.RecordBatch) {
	t.Helper()
	w, err := arrowio.Create(context.Background(), path, recs[0].Schema())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRowsStreams applies a model to a file of many batches and checks
// every row against the model's direct transform, that ids and kept
// columns stay aligned, and that the work was done batch by batch.
func TestRowsStreams(t *testing.T) {
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
	writeTable(t, in, rec)

	m := testModel()
	want := transform(t, m, x, n)
	// Batches larger than the model's grain are transformed in blocks on
	// several goroutines: the same bits.
	for _, tc := range []struct{ threads, batch int }{{1, 4096}, {3, 20_000}} {
		r, err := arrowio.Open(ctx, in, arrowio.WithBatchSize(tc.batch))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Release()
		out := filepath.Join(dir, fmt.Sprintf("out-%d.parquet", tc.threads))
		var w arrowio.Writer
		st, err := Rows(ctx, m, r, arrowio.Selection{ID: "id", Keep: []string{"tag"}}, func(s *arrow.Schema) (arrowio.Writer, error) {
			w, err = arrowio.Create(ctx, out, s)
			return w, err
		}, Config{Mem: memory.DefaultAllocator, Threads: tc.threads})
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

// TestStageNoLeaks runs the apply stage on in-memory records, several
// batches of them, with a checked allocator: every buffer the stage
// allocates (the model it reads, the output batches) is freed with the
// outputs, and the placed rows are the model's transform of the inputs.
func TestStageNoLeaks(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := testModel()

	// The model, written in memory as a run's model-out.
	fit := transforms.NewMemTables(nil, "model-out")
	defer fit.Release()
	env := testEnv(fit, mem, &arrowio.Provenance{Stage: "bvp", Figures: map[string]any{}})
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
	place := &transforms.MemTables{In: map[string][]arrow.RecordBatch{"model": fit.Out("model-out").Records, "in": recs}, Want: []string{"out"}}
	defer place.Release()
	if err := transforms.Run(ctx, Stage{}, Stage{}.NewOptions(), &transforms.Env{Tables: place, Mem: mem}); err != nil {
		t.Fatal(err)
	}
	out := place.Out("out")
	if out.NumRows() != 15 || len(out.Records) != 3 {
		t.Fatalf("%d rows in %d batches, want 15 in 3", out.NumRows(), len(out.Records))
	}
	want := transform(t, m, x, 15)
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

// TestRowsColumnsInvalid: an affine map takes float64 features as
// columns, unchecked; a NaN, ±Inf or an overflow in a batch sends it back
// for X, so the row is reported (error), dropped (drop) or its overflow
// refused, exactly as on the row path.
func TestRowsColumnsInvalid(t *testing.T) {
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
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := range n {
			for f := range 3 {
				v := float64((i*7+f)%13) - 6
				if i == bad && f == tc.col {
					v = tc.value
				}
				b.Field(f).(*array.Float64Builder).Append(v)
			}
		}
		rec := b.NewRecordBatch()
		b.Release()
		in := filepath.Join(dir, "in.parquet")
		writeTable(t, in, rec)
		r, err := arrowio.Open(ctx, in, arrowio.WithBatchSize(2048))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out.parquet")
		var w arrowio.Writer
		st, err := Rows(ctx, m, r, arrowio.Selection{OnInvalid: tc.mode}, func(s *arrow.Schema) (arrowio.Writer, error) {
			w, err = arrowio.Create(ctx, out, s)
			return w, err
		}, Config{Mem: memory.DefaultAllocator, Threads: 2})
		r.Release()
		if w != nil {
			w.Abort()
		}
		if tc.wantErr != "" {
			var de *transforms.DataError
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
