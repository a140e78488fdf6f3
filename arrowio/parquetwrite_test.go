package arrowio

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
)

func TestParquetRowGroupsAndFooter(t *testing.T) {
	const n = 350
	d := wtMake(n, 5)
	for _, tc := range []struct {
		name   string
		rows   int64 // WithRowGroupRows; 0 for the default
		groups []int64
	}{
		{"default", 0, []int64{350}},
		{"100", 100, []int64{100, 100, 100, 50}},
		{"64", 64, []int64{64, 64, 64, 64, 64, 30}},
		{"exact", 350, []int64{350}},
		{"larger than the data", 1000, []int64{350}},
		{"one", 1, slices.Repeat([]int64{1}, n)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			path := filepath.Join(t.TempDir(), "rg.parquet")
			w, err := Create(context.Background(), path, wtSchema(), WithWriteAllocator(mem), WithRowGroupRows(tc.rows))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			w.SetMetadata(MetadataKey, "before the first batch")
			w.SetMetadata("origin", "overridden") // a key of the schema metadata
			if err := wtWrite(t, mem, w, d); err != nil {
				t.Fatal(err)
			}
			w.SetMetadata(MetadataKey, "after the last batch")
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}

			pf, err := file.OpenParquetFile(path, false)
			if err != nil {
				t.Fatal(err)
			}
			defer pf.Close()
			md := pf.MetaData()
			var got []int64
			for i := range md.NumRowGroups() {
				got = append(got, md.RowGroup(i).NumRows())
			}
			if !slices.Equal(got, tc.groups) {
				t.Errorf("%s: row groups %v, want %v", tc.name, got, tc.groups)
			}
			if !strings.HasPrefix(md.GetCreatedBy(), "ordinate") {
				t.Errorf("%s: created_by %q", tc.name, md.GetCreatedBy())
			}
			// Every key once, with the last value set.
			kv := md.KeyValueMetadata()
			want := map[string]string{MetadataKey: "after the last batch", "origin": "overridden"}
			count := map[string]int{}
			for _, e := range kv {
				count[e.Key]++
				if v, ok := want[e.Key]; ok && *e.Value != v {
					t.Errorf("%s: footer %s = %q, want %q", tc.name, e.Key, *e.Value, v)
				}
			}
			for k := range want {
				if count[k] != 1 {
					t.Errorf("%s: footer holds key %q %d times, want once", tc.name, k, count[k])
				}
			}
			if count[parquetSchemaKey] != 1 {
				t.Errorf("%s: no stored Arrow schema", tc.name)
			}
			// zstd everywhere; no dictionary for the float leaves nor for
			// columns of unique values (random int64s, numbered texts).
			// TestParquetWriteEncodings checks the columns that keep one.
			leaves := map[string]bool{"f64": false, "lst.list.element": false, "fsl.list.element": false, "str": false, "i64": false}
			for i := range md.NumRowGroups() {
				rg := md.RowGroup(i)
				for j := range rg.NumColumns() {
					cc, err := rg.ColumnChunk(j)
					if err != nil {
						t.Fatal(err)
					}
					if cc.Compression() != compress.Codecs.Zstd {
						t.Errorf("%s: row group %d column %s compressed with %v", tc.name, i, cc.PathInSchema(), cc.Compression())
					}
					path := cc.PathInSchema().String()
					if dict, ok := leaves[path]; ok && hasDictionary(cc.Encodings()) != dict {
						t.Errorf("%s: row group %d column %s: dictionary encoded %v, want %v (encodings %v)", tc.name, i, path, !dict, dict, cc.Encodings())
					}
				}
			}
			schema, rows := wtReadParquet(t, path)
			wtCheckRows(t, tc.name, d, rows)
			for i, f := range wtSchema().Fields() {
				if !arrow.TypeEqual(schema.Field(i).Type, f.Type) {
					t.Errorf("%s: column %s reads back as %s, want %s", tc.name, f.Name, schema.Field(i).Type, f.Type)
				}
			}
		})
	}
}

func hasDictionary(encs []parquet.Encoding) bool {
	return slices.Contains(encs, parquet.Encodings.RLEDict) || slices.Contains(encs, parquet.Encodings.PlainDict)
}

func TestDefaultRowGroupRows(t *testing.T) {
	floats := func(n int) *arrow.Schema {
		fs := make([]arrow.Field, n)
		for i := range fs {
			fs[i] = arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64}
		}
		return arrow.NewSchema(fs, nil)
	}
	for _, tc := range []struct {
		name   string
		schema *arrow.Schema
		want   int64
	}{
		// 64 MiB / (32·8 B) = 262144
		{"32 float64", floats(32), 262144},
		// 64 MiB / (256·8 B) = 32768
		{"256 float64", floats(256), 32768},
		// 64 MiB / 80000 B = 838, raised to 1024
		{"10000 float64", floats(10000), 1024},
		// 64 MiB / 4 B, capped at 1<<20
		{"one int32", arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int32}}, nil), 1 << 20},
		// 8 + 4 + 16 + 16 + 16 + 3·8 = 84 bytes: 64 MiB / 84 = 798915
		{"mixed", arrow.NewSchema([]arrow.Field{
			{Name: "a", Type: arrow.PrimitiveTypes.Int64},
			{Name: "b", Type: arrow.PrimitiveTypes.Float32},
			{Name: "c", Type: arrow.BinaryTypes.String},
			{Name: "d", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}},
			{Name: "e", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64)},
			{Name: "f", Type: arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float64)},
		}, nil), 798915},
		{"no columns", arrow.NewSchema(nil, nil), 1 << 20},
	} {
		if got := defaultRowGroupRows(tc.schema); got != tc.want {
			t.Errorf("%s: %d rows per group, want %d", tc.name, got, tc.want)
		}
	}
}

// benchRecord is a rows×cols record of float64 normal deviates.
func benchRecord(mem memory.Allocator, rows, cols int, seed uint64) arrow.RecordBatch {
	rnd := rand.New(rand.NewPCG(seed, 1))
	fields := make([]arrow.Field, cols)
	arrs := make([]arrow.Array, cols)
	vals := make([]float64, rows)
	for j := range cols {
		fields[j] = arrow.Field{Name: fmt.Sprintf("emb_%d", j), Type: arrow.PrimitiveTypes.Float64}
		for i := range vals {
			vals[i] = rnd.NormFloat64()
		}
		b := array.NewFloat64Builder(mem)
		b.AppendValues(vals, nil)
		arrs[j] = b.NewArray()
		b.Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(rows))
	for _, a := range arrs {
		a.Release()
	}
	return rec
}

// benchWrite writes total rows as copies of rec to a new Parquet file in dir.
func benchWrite(b *testing.B, dir string, rec arrow.RecordBatch, total int) {
	path := filepath.Join(dir, "bench.parquet")
	w, err := Create(context.Background(), path, rec.Schema())
	if err != nil {
		b.Fatal(err)
	}
	defer w.Abort()
	for left := total; left > 0; left -= int(rec.NumRows()) {
		r := rec
		if left < int(rec.NumRows()) {
			r = rec.NewSlice(0, int64(left))
			defer r.Release()
		}
		if err := w.Write(r); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

func benchmarkWriteParquet(b *testing.B, dir string, rows, cols, batch int) {
	rec := benchRecord(memory.DefaultAllocator, batch, cols, 1)
	defer rec.Release()
	b.SetBytes(int64(rows * cols * 8))
	for b.Loop() {
		benchWrite(b, dir, rec, rows)
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkWriteParquet writes 1e5 rows × 32 float64 columns (random
// normal values, zstd) in batches of 10,000 rows.
func BenchmarkWriteParquet(b *testing.B) {
	benchmarkWriteParquet(b, b.TempDir(), 100_000, 32, 10_000)
}

// BenchmarkWriteParquetHuge writes 1e7 rows × 32 float64 columns (2.4 GiB of
// values) in batches of 65536 rows into os.TempDir(). It runs only with
// ORDINATE_BENCH_HUGE=1.
func BenchmarkWriteParquetHuge(b *testing.B) {
	if os.Getenv("ORDINATE_BENCH_HUGE") != "1" {
		b.Skip("ORDINATE_BENCH_HUGE=1 runs it: it writes a 10,000,000 × 32 float64 Parquet file (about 1 GB in the temporary folder), too much for every go test run")
	}
	dir, err := os.MkdirTemp(os.TempDir(), "ordinate-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	benchmarkWriteParquet(b, dir, 10_000_000, 32, 65536)
}

// When pqarrow refuses a batch half-way through a row group (here a
// dictionary holding a null, which it cannot write), Close fails (a Write
// may fail first), nothing is left in the folder and no memory is held.
func TestParquetWriteRefused(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "x", Type: arrow.PrimitiveTypes.Float64},
		{Name: "d", Type: dt, Nullable: true},
	}, nil)
	sb := array.NewStringBuilder(mem)
	sb.Append("a")
	sb.AppendNull()
	dict := sb.NewArray()
	sb.Release()
	ib := array.NewInt8Builder(mem)
	ib.AppendValues([]int8{0, 1, 0}, nil)
	idx := ib.NewArray()
	ib.Release()
	d := array.NewDictionaryArray(dt, idx, dict)
	idx.Release()
	dict.Release()
	fb := array.NewFloat64Builder(mem)
	fb.AppendValues([]float64{1, 2, 3}, nil)
	x := fb.NewArray()
	fb.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{x, d}, 3)
	x.Release()
	d.Release()
	defer rec.Release()

	dir := t.TempDir()
	w, err := Create(context.Background(), filepath.Join(dir, "r.parquet"), schema, WithWriteAllocator(mem), WithRowGroupRows(2))
	if err != nil {
		t.Fatal(err)
	}
	// The row group fails on the writer's goroutine: this Write or a later
	// one, or Close, reports it.
	werr := w.Write(rec)
	if werr == nil {
		werr = w.Write(rec)
	}
	if err := w.Close(); err == nil {
		t.Errorf("Close after a row group that cannot be written succeeded (Write: %v)", werr)
	}
	wtCheckOnly(t, "refused", dir)
}

// TestParquetWriteRowGroupsInFlight: row groups written on the writer's
// goroutine give the file a synchronous writer would (the rows, in order, in
// row groups of the requested size), and Abort or Close with one in flight
// waits for it: nothing is left behind and no memory is held.
func TestParquetWriteRowGroupsInFlight(t *testing.T) {
	for _, abort := range []bool{false, true} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		dir := t.TempDir()
		path := filepath.Join(dir, "g.parquet")
		rec := synthFloats(mem, 10_000)
		w, err := Create(context.Background(), path, rec.Schema(), WithWriteAllocator(mem), WithRowGroupRows(3000))
		if err != nil {
			t.Fatal(err)
		}
		for k := int64(0); k < 10_000; k += 700 {
			part := rec.NewSlice(k, min(k+700, 10_000))
			err := w.Write(part)
			part.Release()
			if err != nil {
				t.Fatalf("abort=%v: %v", abort, err)
			}
		}
		if abort {
			if err := w.Abort(); err != nil {
				t.Fatal(err)
			}
			rec.Release()
			wtCheckOnly(t, "aborted with a row group in flight", dir)
			mem.AssertSize(t, 0)
			continue
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := file.NewParquetReader(f)
		if err != nil {
			t.Fatal(err)
		}
		var groups []int64
		for g := range pf.NumRowGroups() {
			groups = append(groups, pf.RowGroup(g).NumRows())
		}
		pf.Close()
		if !slices.Equal(groups, []int64{3000, 3000, 3000, 1000}) {
			t.Errorf("row groups of %v rows, want 3000, 3000, 3000, 1000", groups)
		}
		got := readCopies(t, path, WithBatchSize(10_000))
		for c := range int(rec.NumCols()) {
			parts := make([]arrow.Array, len(got))
			for k, b := range got {
				parts[k] = b.Column(c)
			}
			col, err := array.Concatenate(parts, memory.NewGoAllocator())
			if err != nil {
				t.Fatal(err)
			}
			if !array.Equal(col, rec.Column(c)) {
				t.Errorf("column %s read back differs from the one written", rec.ColumnName(c))
			}
			col.Release()
		}
		rec.Release()
		mem.AssertSize(t, 0)
	}
}
