package arrowio

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// TestParquetWriteEncodings reads the footer of a file written by Create
// and checks what each column chunk carries: zstd everywhere, no
// dictionary for floats, BYTE_STREAM_SPLIT for full-precision floats and
// plain for floats whose values repeat (four decimals), a dictionary for
// integers and texts that repeat and none for unique ones (row numbers,
// ids).
func TestParquetWriteEncodings(t *testing.T) {
	const rows = 50_000
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "full", Type: arrow.PrimitiveTypes.Float64},
		{Name: "dec", Type: arrow.PrimitiveTypes.Float64},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "row", Type: arrow.PrimitiveTypes.Int64},
		{Name: "id", Type: arrow.BinaryTypes.String},
		{Name: "grade", Type: arrow.BinaryTypes.String},
	}, nil)
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(3, 4))
	fb, db, f32, ib := array.NewFloat64Builder(mem), array.NewFloat64Builder(mem), array.NewFloat32Builder(mem), array.NewInt64Builder(mem)
	rb, idb, gb := array.NewInt64Builder(mem), array.NewStringBuilder(mem), array.NewStringBuilder(mem)
	for r := range rows {
		fb.Append(rng.NormFloat64())
		db.Append(float64(rng.IntN(20000)-10000) / 1000)
		if r%50 == 3 {
			f32.AppendNull()
		} else {
			f32.Append(float32(1 + rng.Float64())) // one exponent: split pays
		}
		ib.Append(int64(rng.IntN(100)))
		rb.Append(int64(r))
		idb.Append(fmt.Sprintf("id-%06d", r))
		gb.Append([]string{"low", "mid", "high"}[rng.IntN(3)])
	}
	cols := []arrow.Array{fb.NewArray(), db.NewArray(), f32.NewArray(), ib.NewArray(), rb.NewArray(), idb.NewArray(), gb.NewArray()}
	rec := array.NewRecordBatch(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "enc.parquet")
	w, err := Create(context.Background(), path, schema, WithRowGroupRows(20_000))
	if err != nil {
		t.Fatal(err)
	}
	for off := int64(0); off < rows; off += 7_000 { // batches across row groups
		s := rec.NewSlice(off, min(off+7_000, rows))
		err := w.Write(s)
		s.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	want := []struct {
		name  string
		split bool
		dict  bool
	}{
		{"full", true, false},
		{"dec", false, false},
		{"f32", true, false},
		{"i", false, true},
		{"row", false, false},  // unique: no dictionary
		{"id", false, false},   // unique text: none either
		{"grade", false, true}, // three levels: a dictionary
	}
	if pf.NumRowGroups() != 3 {
		t.Errorf("%d row groups, want 3", pf.NumRowGroups())
	}
	for rg := range pf.NumRowGroups() {
		md := pf.MetaData().RowGroup(rg)
		for i, c := range want {
			cc, err := md.ColumnChunk(i)
			if err != nil {
				t.Fatal(err)
			}
			if cc.Compression() != compress.Codecs.Zstd {
				t.Errorf("row group %d, column %s: codec %s, want ZSTD", rg, c.name, cc.Compression())
			}
			encs := cc.Encodings()
			if got := slices.Contains(encs, parquet.Encodings.ByteStreamSplit); got != c.split {
				t.Errorf("row group %d, column %s: encodings %v, BYTE_STREAM_SPLIT %v, want %v", rg, c.name, encs, got, c.split)
			}
			if got := cc.HasDictionaryPage(); got != c.dict {
				t.Errorf("row group %d, column %s: dictionary page %v, want %v", rg, c.name, got, c.dict)
			}
		}
	}
	// And the values come back.
	res, err := readAll(t, path, []string{"full", "dec", "f32", "i"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.rows) != rows {
		t.Fatalf("read %d rows, want %d", len(res.rows), rows)
	}
	wantRows := rowsOf(rec, []string{"full", "dec", "f32", "i"})
	for r := range wantRows {
		if !slices.Equal(res.rows[r], wantRows[r]) {
			t.Fatalf("row %d reads %v, want %v", r, res.rows[r], wantRows[r])
		}
	}
}
