package arrowio

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// frReader is an in-memory Reader over record batches. It takes over the
// batches and releases them in Release.
type frReader struct {
	schema *arrow.Schema
	recs   []arrow.RecordBatch
	files  []string // file of each batch
	first  []int64  // first input row of each batch
	i      int
	err    error // returned by Err after the last batch
}

// newFrReader splits rec into batches of the given sizes; batch k comes
// from file "part-k" and rows are numbered across batches.
func newFrReader(rec arrow.RecordBatch, sizes ...int64) *frReader {
	r := &frReader{schema: rec.Schema(), i: -1}
	var at int64
	for k, n := range sizes {
		r.recs = append(r.recs, rec.NewSlice(at, at+n))
		r.files = append(r.files, fmt.Sprintf("part-%d", k))
		r.first = append(r.first, at)
		at += n
	}
	return r
}

func (r *frReader) Schema() *arrow.Schema { return r.schema }
func (r *frReader) Next() bool {
	if r.i+1 >= len(r.recs) {
		return false
	}
	r.i++
	return true
}
func (r *frReader) RecordBatch() arrow.RecordBatch { return r.recs[r.i] }
func (r *frReader) Position() (string, int64)      { return r.files[r.i], r.first[r.i] }
func (r *frReader) Err() error                     { return r.err }
func (r *frReader) Source() Source                 { return Source{Path: "parts/", Files: r.files} }
func (r *frReader) Release() {
	for _, rec := range r.recs {
		rec.Release()
	}
	r.recs = nil
}

// frRandomBatch makes n rows: id (string), x0..x3 (float64), y (int32), p_a,
// p_b (float64), k (string, kept). About one row in eight has an invalid
// value somewhere.
func frRandomBatch(t testing.TB, mem memory.Allocator, rng *rand.Rand, n int) arrow.RecordBatch {
	names := []string{"id", "x0", "x1", "x2", "x3", "y", "p_a", "p_b", "k"}
	ids := array.NewStringBuilder(mem)
	keep := array.NewStringBuilder(mem)
	ys := array.NewInt32Builder(mem)
	fs := make([]*array.Float64Builder, 6)
	for j := range fs {
		fs[j] = array.NewFloat64Builder(mem)
	}
	for r := range n {
		ids.Append(fmt.Sprintf("id%03d", r))
		keep.Append(fmt.Sprintf("k%d", rng.IntN(100)))
		ys.Append(int32(rng.IntN(3)))
		bad := -1
		if rng.IntN(8) == 0 {
			bad = rng.IntN(len(fs))
		}
		for j, b := range fs {
			v := rng.NormFloat64()
			if j >= 4 {
				v = rng.Float64() + 0.1 // weights
			}
			switch {
			case j != bad:
				b.Append(v)
			case rng.IntN(2) == 0:
				b.AppendNull()
			default:
				b.Append(math.NaN())
			}
		}
	}
	cols := []arrow.Array{ids.NewArray()}
	for _, b := range fs[:4] {
		cols = append(cols, b.NewArray())
	}
	cols = append(cols, ys.NewArray())
	for _, b := range fs[4:] {
		cols = append(cols, b.NewArray())
	}
	cols = append(cols, keep.NewArray())
	ids.Release()
	keep.Release()
	ys.Release()
	for _, b := range fs {
		b.Release()
	}
	return frRecord(t, names, cols)
}

// TestReadFrameMatchesExtract reads a table in batches and compares with
// the extraction of the whole table as one batch.
func TestReadFrameMatchesExtract(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int64
		sel   Selection
	}{
		{"three batches drop", []int64{40, 1, 59}, Selection{ID: "id", Label: "y", SoftLabels: []string{"p_*"},
			Keep: []string{"k", "y"}, OnInvalid: InvalidDrop}},
		{"synthesised id drop", []int64{10, 0, 30, 60}, Selection{Features: []string{"x1", "x0"}, Label: "y",
			OnInvalid: InvalidDrop}},
		{"one batch drop", []int64{100}, Selection{ID: "id", Features: []string{"x*"}, OnInvalid: InvalidDrop}},
		{"no features", []int64{50, 50}, Selection{ID: "id", Label: "y", NoFeatures: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := frMem(t)
			rec := frRandomBatch(t, mem, rand.New(rand.NewPCG(7, 11)), 100)
			defer rec.Release()
			r := newFrReader(rec, tc.sizes...)
			defer r.Release()

			got, err := ReadFrame(context.Background(), r, tc.sel, WithFrameAllocator(mem))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			defer got.Release()
			p, err := tc.sel.Compile(rec.Schema(), r.Source(), WithFrameAllocator(mem))
			if err != nil {
				t.Fatal(err)
			}
			want, err := p.Extract(rec, "all", 0)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			defer want.Release()
			if tc.sel.OnInvalid == InvalidDrop && want.Dropped == 0 {
				t.Fatalf("%s: the data has no invalid rows; the test would prove little", tc.name)
			}
			frCompareFrames(t, tc.name, got, want)
		})
	}
}

func frCompareFrames(t *testing.T, name string, got, want *Frame) {
	t.Helper()
	if got.N != want.N || got.D != want.D || got.Dropped != want.Dropped || got.IDName != want.IDName ||
		!slices.Equal(got.FeatureNames, want.FeatureNames) || !slices.Equal(got.SoftNames, want.SoftNames) {
		t.Fatalf("%s: N %d D %d dropped %d id %q names %q soft %q, want %d %d %d %q %q %q", name,
			got.N, got.D, got.Dropped, got.IDName, got.FeatureNames, got.SoftNames,
			want.N, want.D, want.Dropped, want.IDName, want.FeatureNames, want.SoftNames)
	}
	if !frSameFloats(got.X, want.X) || !slices.Equal(got.Rows, want.Rows) || !frSameFloats(got.Soft, want.Soft) {
		t.Errorf("%s: X, Rows or Soft differ", name)
	}
	if (got.Label == nil) != (want.Label == nil) ||
		got.Label != nil && (!frSameFloats(got.Label.Num, want.Label.Num) || !slices.Equal(got.Label.Str, want.Label.Str)) {
		t.Errorf("%s: labels differ", name)
	}
	if !array.Equal(got.ID, want.ID) {
		t.Errorf("%s: ids %v, want %v", name, got.ID, want.ID)
	}
	if len(got.Keep) != len(want.Keep) || !slices.Equal(frNames(got.KeepFields), frNames(want.KeepFields)) {
		t.Fatalf("%s: keep %v, want %v", name, frNames(got.KeepFields), frNames(want.KeepFields))
	}
	for k := range got.Keep {
		if !array.Equal(got.Keep[k], want.Keep[k]) {
			t.Errorf("%s: kept %s %v, want %v", name, got.KeepFields[k].Name, got.Keep[k], want.Keep[k])
		}
	}
}

func TestReadFrameErrors(t *testing.T) {
	// x = 0..5 with NaN at row 4 (in the second batch, from part-1).
	build := func(t *testing.T, mem memory.Allocator, xs string) arrow.RecordBatch {
		return frRecord(t, []string{"id", "x"}, []arrow.Array{
			frCol(t, mem, frString, `["a", "b", "c", "d", "e", "f"]`), frCol(t, mem, frFloat, xs)})
	}
	tests := []struct {
		name   string
		xs     string
		sizes  []int64
		sel    Selection
		err    error
		file   string
		row    int64
		id     string
		msg    string
		cancel bool
		rdErr  error
	}{
		{name: "invalid in second batch", xs: `[0, 1, 2, 3, "NaN", 5]`, sizes: []int64{3, 3}, sel: Selection{ID: "id"},
			err: ErrInvalidValue, file: "part-1", row: 4, id: "e",
			msg: `part-1: column "x", row 4 (id e): invalid value: NaN`},
		{name: "no batches", xs: `[0, 1, 2, 3, 4, 5]`, sizes: nil, err: ErrEmpty, file: "parts/", row: -1,
			msg: "parts/: no rows"},
		{name: "empty batches", xs: `[0, 1, 2, 3, 4, 5]`, sizes: []int64{0, 0}, err: ErrEmpty, file: "parts/", row: -1},
		{name: "all dropped", xs: `["NaN", null, "Inf", "-Inf", "NaN", null]`, sizes: []int64{2, 4},
			sel: Selection{OnInvalid: InvalidDrop}, err: ErrEmpty, file: "parts/", row: -1,
			msg: "no rows: all 6 rows were dropped"},
		{name: "missing column", xs: `[0, 1, 2, 3, 4, 5]`, sizes: []int64{6}, sel: Selection{Features: []string{"z"}},
			err: ErrMissingColumn, file: "parts/", row: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := frMem(t)
			rec := build(t, mem, tc.xs)
			defer rec.Release()
			r := newFrReader(rec, tc.sizes...)
			defer r.Release()
			f, err := ReadFrame(context.Background(), r, tc.sel, WithFrameAllocator(mem))
			if err == nil {
				f.Release()
				t.Fatalf("%s: no error", tc.name)
			}
			var e *Error
			if !errors.Is(err, tc.err) || !errors.As(err, &e) {
				t.Fatalf("%s: error %v, want an *Error wrapping %v", tc.name, err, tc.err)
			}
			if e.File != tc.file || e.Row != tc.row || e.ID != tc.id {
				t.Errorf("%s: error at %q row %d id %q, want %q %d %q", tc.name, e.File, e.Row, e.ID, tc.file, tc.row, tc.id)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%s: message %q, want %q in it", tc.name, err, tc.msg)
			}
		})
	}
}

func TestReadFrameContextAndReaderError(t *testing.T) {
	mem := frMem(t)
	rec := frRecord(t, []string{"x"}, []arrow.Array{frCol(t, mem, frFloat, `[1, 2, 3, 4]`)})
	defer rec.Release()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := newFrReader(rec, 2, 2)
	defer r.Release()
	if f, err := ReadFrame(ctx, r, Selection{}, WithFrameAllocator(mem)); !errors.Is(err, context.Canceled) {
		f.Release()
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}

	broken := errors.New("disk on fire")
	r2 := newFrReader(rec, 2, 2)
	defer r2.Release()
	r2.err = broken
	if f, err := ReadFrame(context.Background(), r2, Selection{}, WithFrameAllocator(mem)); !errors.Is(err, broken) {
		f.Release()
		t.Errorf("reader error: got %v, want %v", err, broken)
	}
}

// TestReadFrameList reads a list feature across batches: the length of the
// first kept list holds for the whole input.
func TestReadFrameList(t *testing.T) {
	tests := []struct {
		name   string
		js     string
		sizes  []int64
		drop   bool
		wantX  []float64
		errRow int64 // -1: none
	}{
		{"same lengths", `[[1, 2], [3, 4], [5, 6], [7, 8]]`, []int64{1, 3}, false, []float64{1, 2, 3, 4, 5, 6, 7, 8}, -1},
		{"length changes in second batch", `[[1, 2], [3, 4], [5, 6, 0], [7, 8, 0]]`, []int64{2, 2}, false, nil, 2},
		{"first batch all dropped", `[null, [3, 4, 5], [5, 6, 7], [7, 8, 9]]`, []int64{1, 3}, true,
			[]float64{3, 4, 5, 5, 6, 7, 7, 8, 9}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := frMem(t)
			rec := frRecord(t, []string{"emb"}, []arrow.Array{frCol(t, mem, arrow.ListOf(frFloat), tc.js)})
			defer rec.Release()
			r := newFrReader(rec, tc.sizes...)
			defer r.Release()
			sel := Selection{}
			if tc.drop {
				sel.OnInvalid = InvalidDrop
			}
			f, err := ReadFrame(context.Background(), r, sel, WithFrameAllocator(mem))
			if tc.errRow >= 0 {
				var e *Error
				if !errors.As(err, &e) || !errors.Is(err, ErrInvalidValue) || e.Row != tc.errRow || e.File != "part-1" {
					t.Errorf("%s: error %v, want ErrInvalidValue at part-1 row %d", tc.name, err, tc.errRow)
				}
				if err == nil {
					f.Release()
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			defer f.Release()
			if !slices.Equal(f.X, tc.wantX) || f.N*f.D != len(tc.wantX) {
				t.Errorf("%s: X %v (N %d D %d), want %v", tc.name, f.X, f.N, f.D, tc.wantX)
			}
		})
	}
}

func TestConcatFramesMismatch(t *testing.T) {
	mem := frMem(t)
	a := frRecord(t, []string{"x"}, []arrow.Array{frCol(t, mem, frFloat, `[1, 2]`)})
	defer a.Release()
	b := frRecord(t, []string{"z"}, []arrow.Array{frCol(t, mem, frFloat, `[3]`)})
	defer b.Release()
	var frames []*Frame
	for _, rec := range []arrow.RecordBatch{a, b} {
		p, err := Selection{}.Compile(rec.Schema(), Source{Path: "p"}, WithFrameAllocator(mem))
		if err != nil {
			t.Fatal(err)
		}
		f, err := p.Extract(rec, "p", 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Release()
		frames = append(frames, f)
	}
	if f, err := ConcatFrames(mem, frames); !errors.Is(err, ErrSchema) {
		f.Release()
		t.Errorf("error %v, want ErrSchema", err)
	}
	f, err := ConcatFrames(mem, frames[:1])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	if !slices.Equal(f.X, []float64{1, 2}) || f.ID.Len() != 2 {
		t.Errorf("one frame: X %v ids %v", f.X, f.ID)
	}
}
