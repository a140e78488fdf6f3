package arrowio

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestRecycleAllocatorRead reads tables of every format and type the tests
// know (nulls in every column, dictionaries, lists, decimals, several row
// groups and pages; ordinate's own writer's output; the Parquet files of
// testdata) twice, through Go's allocator and through a recycling one, in
// small batches so that buffers are reused: the batches must be equal.
func TestRecycleAllocatorRead(t *testing.T) {
	dir := t.TempDir()
	gen := memory.NewGoAllocator()
	rec := makeTestRecord(gen, 20_000, 3)
	defer rec.Release()
	files := map[string]string{}
	add := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		writeFile(t, p, data)
		files[name] = p
	}
	add("pqarrow, row groups of 3,000.parquet", parquetBytes(t, 3000, rec))
	add("ipc file.arrow", ipcFileBytes(t, rec))
	add("ipc stream.arrows", ipcStreamBytes(t, rec))
	own := filepath.Join(dir, "ordinate's writer.parquet")
	if err := WriteRecord(context.Background(), own, synthFloats(gen, 70_000)); err != nil {
		t.Fatal(err)
	}
	files["ordinate's writer.parquet"] = own
	matches, err := filepath.Glob("../testdata/*/*.parquet")
	if err != nil || len(matches) == 0 {
		t.Fatalf("testdata Parquet files: %v, %v", matches, err)
	}
	for _, m := range matches {
		files[m] = m
	}
	for name, path := range files {
		for _, batch := range []int{1000, 4096} {
			rec := newRecycleAllocator()
			want := readCopies(t, path, WithReadAllocator(memory.NewCheckedAllocator(memory.NewGoAllocator())), WithBatchSize(batch), WithReadThreads(2))
			got := readCopies(t, path, WithReadAllocator(rec), WithBatchSize(batch), WithReadThreads(2))
			if len(got) != len(want) {
				t.Fatalf("%s batch %d: %d batches through the recycling allocator, %d through Go's", name, batch, len(got), len(want))
			}
			for b := range want {
				if !array.RecordEqual(got[b], want[b]) {
					t.Fatalf("%s batch size %d: batch %d differs through the recycling allocator", name, batch, b)
				}
			}
			// Parquet batches are cut from reused column buffers; an IPC
			// batch is the file's, and one batch frees nothing before the end.
			if strings.HasSuffix(name, ".parquet") && len(want) > 2 && rec.reused == 0 {
				t.Errorf("%s batch size %d: no buffer was reused (%d fresh)", name, batch, rec.fresh)
			}
		}
	}
}

// readCopies reads every batch of path and returns copies made with Go's
// allocator (compactRecord): unlike readBatches, the reader gets its own
// buffers back batch by batch, so the recycling allocator reuses them.
func readCopies(t *testing.T, path string, opts ...ReadOption) []arrow.RecordBatch {
	t.Helper()
	r, err := Open(context.Background(), path, opts...)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer r.Release()
	var out []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		out = append(out, compactRecord(rec))
	}
	if err := r.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	t.Cleanup(func() {
		for _, rec := range out {
			rec.Release()
		}
	})
	return out
}

// synthFloats is a table of a row number and four float64 columns with
// repeating four-decimal values and a few nulls, as ordinate's stages write.
func synthFloats(mem memory.Allocator, n int) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(5, 6))
	fields := []arrow.Field{{Name: "row", Type: arrow.PrimitiveTypes.Int64}}
	for c := range 4 {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("x%d", c), Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	for r := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(r))
		for c := range 4 {
			if (r+c)%97 == 0 {
				b.Field(1 + c).AppendNull()
				continue
			}
			b.Field(1 + c).(*array.Float64Builder).Append(float64(rng.IntN(20000)) / 1e4)
		}
	}
	return b.NewRecordBatch()
}

func TestRecycleAllocator(t *testing.T) {
	a := newRecycleAllocator()
	for _, n := range []int{0, 1, 100, recycleMin - 1, recycleMin, recycleMin + 1, 1 << 20, 3<<20 + 5} {
		b := a.Allocate(n)
		if len(b) != n || uintptr(unsafePointer(b))%recycleAlign != 0 {
			t.Fatalf("Allocate(%d): len %d, address %% 64 = %d", n, len(b), uintptr(unsafePointer(b))%recycleAlign)
		}
		for i := range b {
			b[i] = byte(i) | 1
		}
		g := a.Reallocate(2*n+1, b)
		if len(g) != 2*n+1 {
			t.Fatalf("Reallocate(%d): len %d", 2*n+1, len(g))
		}
		for i, v := range g {
			if want := byte(i) | 1; (i < n && v != want) || (i >= n && v != 0) {
				t.Fatalf("Reallocate(%d) from %d bytes: byte %d = %d", 2*n+1, n, i, v)
			}
		}
		a.Free(g)
	}
	// A freed buffer of a recycled size comes back, zeroed, for the next
	// request of its size class; regrown in place, its tail is zeroed too.
	a = newRecycleAllocator()
	b := a.Allocate(100_000)
	p := unsafePointer(b)
	b = b[:cap(b)]
	for i := range b {
		b[i] = 0xa5
	}
	a.Free(b)
	c := a.Allocate(70_000)
	if unsafePointer(c) != p || cap(c) != 1<<17 || a.kept != 0 {
		t.Fatalf("Allocate after Free: a new buffer (cap %d, kept %d), want the freed one", cap(c), a.kept)
	}
	c = a.Reallocate(1<<17, c)
	if unsafePointer(c) != p {
		t.Fatal("Reallocate within the capacity moved the buffer")
	}
	for i, v := range c {
		if v != 0 {
			t.Fatalf("recycled buffer: byte %d = %#x, want 0", i, v)
		}
	}
	// The free lists stay within recycleKeep.
	big := make([][]byte, 0, 40)
	for range cap(big) {
		big = append(big, a.Allocate(16<<20))
	}
	for _, b := range big {
		a.Free(b)
	}
	if a.kept > recycleKeep || a.kept < recycleKeep-16<<20 {
		t.Errorf("kept %d bytes, want at most recycleKeep = %d and close to it", a.kept, recycleKeep)
	}
}

// TestFixedWidthOnly: the schemas whose batches Open may recycle.
func TestFixedWidthOnly(t *testing.T) {
	f := func(dt arrow.DataType) arrow.Field { return arrow.Field{Name: "c", Type: dt} }
	for _, tc := range []struct {
		name   string
		fields []arrow.Field
		want   bool
	}{
		{"numbers", []arrow.Field{f(arrow.PrimitiveTypes.Float64), f(arrow.PrimitiveTypes.Int64), f(arrow.FixedWidthTypes.Boolean), f(arrow.FixedWidthTypes.Date32)}, true},
		{"decimal", []arrow.Field{f(&arrow.Decimal128Type{Precision: 10, Scale: 2})}, true},
		{"a string", []arrow.Field{f(arrow.PrimitiveTypes.Float64), f(arrow.BinaryTypes.String)}, false},
		{"binary", []arrow.Field{f(arrow.BinaryTypes.Binary)}, false},
		{"fixed-size binary", []arrow.Field{f(&arrow.FixedSizeBinaryType{ByteWidth: 4})}, false},
		{"dictionary", []arrow.Field{f(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String})}, false},
		{"list", []arrow.Field{f(arrow.ListOf(arrow.PrimitiveTypes.Float64))}, false},
	} {
		if got := fixedWidthOnly(arrow.NewSchema(tc.fields, nil)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRecycleAliasing keeps the strings that String.Value returns (which
// alias the batch's bytes) past the release of their batches, over several
// batches and files, as evaluate --partials does: they must keep their
// text. Recycling a string column's buffers broke this.
func TestRecycleAliasing(t *testing.T) {
	dir := t.TempDir()
	gen := memory.NewGoAllocator()
	var want []string
	for part := range 2 {
		sb := array.NewStringBuilder(gen)
		fb := array.NewFloat64Builder(gen)
		for r := range 30_000 {
			s := fmt.Sprintf("part %d row %d", part, r)
			sb.Append(s)
			fb.Append(float64(r))
			want = append(want, s)
		}
		cols := []arrow.Array{sb.NewArray(), fb.NewArray()}
		sb.Release()
		fb.Release()
		schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}, {Name: "x", Type: arrow.PrimitiveTypes.Float64}}, nil)
		rec := array.NewRecordBatch(schema, cols, 30_000)
		for _, c := range cols {
			c.Release()
		}
		if err := WriteRecord(context.Background(), filepath.Join(dir, fmt.Sprintf("part-%d.parquet", part)), rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	r, err := Open(context.Background(), filepath.Join(dir, "part-*.parquet"), WithBatchSize(4000))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for r.Next() {
		s := r.RecordBatch().Column(0).(*array.String)
		for i := range s.Len() {
			kept = append(kept, s.Value(i))
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	r.Release()
	if !slices.Equal(kept, want) {
		for i := range kept {
			if kept[i] != want[i] {
				t.Fatalf("string %d read as %q, now %q", i, want[i], kept[i])
			}
		}
		t.Fatalf("%d strings, want %d", len(kept), len(want))
	}
}

func unsafePointer(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }
