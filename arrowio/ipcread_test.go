package arrowio

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// floatRecord is a record of one float64 column x of n rows.
func floatRecord(n int) arrow.RecordBatch {
	b := array.NewFloat64Builder(memory.NewGoAllocator())
	defer b.Release()
	for i := range n {
		b.Append(float64(i))
	}
	col := b.NewArray()
	defer col.Release()
	s := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)
	return array.NewRecordBatch(s, []arrow.Array{col}, int64(n))
}

// TestIPCStreamFile reads streams from files: .arrows, and a stream that
// was given the .arrow extension.
func TestIPCStreamFile(t *testing.T) {
	rec := makeTestRecord(memory.NewGoAllocator(), 50, 10)
	defer rec.Release()
	want := rowsOf(rec, testCols)
	dir := t.TempDir()
	stream := ipcStreamBytes(t, rec.NewSlice(0, 20), rec.NewSlice(20, 50))
	for _, name := range []string{"s.arrows", "s.arrow"} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		path := filepath.Join(dir, name)
		writeFile(t, path, stream)
		res, err := readAll(t, path, testCols, WithReadAllocator(mem), WithBatchSize(16))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		compareRows(t, name, res.rows, want)
		if want := []int64{0, 16, 20, 36}; !slices.Equal(res.firsts, want) {
			t.Errorf("%s: batches start at %v, want %v", name, res.firsts, want)
		}
		mem.AssertSize(t, 0)
	}
}

// TestIPCNullColumn reads a column of type null, which arrow-go's IPC
// readers load without the buffer its validation expects.
func TestIPCNullColumn(t *testing.T) {
	x := floatRecord(10)
	defer x.Release()
	nulls := array.NewNull(10)
	defer nulls.Release()
	s := arrow.NewSchema([]arrow.Field{x.Schema().Field(0), {Name: "n", Type: arrow.Null, Nullable: true}}, nil)
	rec := array.NewRecordBatch(s, []arrow.Array{x.Column(0), nulls}, 10)
	defer rec.Release()
	want := rowsOf(rec, []string{"x", "n"})
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "n.arrow"), ipcFileBytes(t, rec))
	stream := ipcStreamBytes(t, rec)
	for _, path := range []string{filepath.Join(dir, "n.arrow"), "-"} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		res, err := readAll(t, path, []string{"x", "n"}, WithReadAllocator(mem), WithStdin(bytes.NewReader(stream)))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		compareRows(t, path, res.rows, want)
		mem.AssertSize(t, 0)
	}
}
