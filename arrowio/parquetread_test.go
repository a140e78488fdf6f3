package arrowio

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/ordinate/ordinate/internal/synth"
)

// TestParquetBatches checks that batches follow the row groups: full
// batches within a row group, a short one at its end, and row numbers that
// run on across row groups and files.
func TestParquetBatches(t *testing.T) {
	cases := []struct {
		rows, rgRows, batch int64
		files               int
	}{
		{250, 100, 64, 1},
		{250, 100, 100, 1},
		{250, 100, 1000, 1},
		{7, 3, 2, 2},
		{1000, 1000, 1, 1},
	}
	for _, c := range cases {
		name := fmt.Sprintf("rows=%d rg=%d batch=%d files=%d", c.rows, c.rgRows, c.batch, c.files)
		t.Run(name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rec := floatRecord(int(c.rows))
			defer rec.Release()
			dir := t.TempDir()
			for f := range c.files {
				writeParquet(t, filepath.Join(dir, fmt.Sprintf("p%d.parquet", f)), c.rgRows, rec)
			}
			res, err := readAll(t, dir, []string{"x"}, WithReadAllocator(mem), WithBatchSize(int(c.batch)))
			if err != nil {
				t.Fatal(err)
			}
			// The expected batches, from the layout alone.
			var wantRows []int64
			for range c.files {
				for rg := int64(0); rg < c.rows; rg += c.rgRows {
					n := min(c.rgRows, c.rows-rg)
					for ; n > 0; n -= min(n, c.batch) {
						wantRows = append(wantRows, min(n, c.batch))
					}
				}
			}
			if !slices.Equal(res.batchRows, wantRows) {
				t.Errorf("%s: batch sizes %v, want %v", name, res.batchRows, wantRows)
			}
			for i, row := range res.rows {
				if want := fmt.Sprint(int64(i) % c.rows); row[0] != want {
					t.Fatalf("%s: row %d holds %s, want %s", name, i, row[0], want)
				}
			}
		})
	}
}

func TestParquetZeroRows(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := makeTestRecord(memory.NewGoAllocator(), 0, 1)
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "empty.parquet")
	writeParquet(t, path, 10, rec)
	res, err := readAll(t, path, testCols, WithReadAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.rows) != 0 || len(res.firsts) != 0 {
		t.Errorf("%d rows in %d batches, want none", len(res.rows), len(res.firsts))
	}
	if d := schemaDiff(testSchema, res.schema); d != "" {
		t.Errorf("schema: %s", d)
	}
}

// TestParquetHostileStoredSchema damages the Arrow schema that Parquet
// files carry under ARROW:schema, which pqarrow decodes without limits;
// Open and Inspect must both refuse it.
func TestParquetHostileStoredSchema(t *testing.T) {
	full := makeTestRecord(memory.NewGoAllocator(), 5, 2)
	defer full.Release()
	stream := ipcStreamBytes(t, full)
	// The children vector of the list column "l" (field 5) of the schema
	// message, claimed 2^31-1 long.
	n := int(binary.LittleEndian.Uint32(stream[4:]))
	meta := stream[8 : 8+n]
	m, err := metaRoot(meta)
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := m.table(2)
	var fields []metaTable
	if err := s.tables(1, func(f metaTable) error { fields = append(fields, f); return nil }); err != nil {
		t.Fatal(err)
	}
	v, err := fields[5].ref(5)
	if err != nil || v == 0 {
		t.Fatalf("no children vector: %v", err)
	}
	binary.LittleEndian.PutUint32(meta[v:], 0x7fffffff)

	cases := []struct{ name, value string }{
		{"children length", base64.StdEncoding.EncodeToString(stream)},
		{"not base64", "!!!"},
		{"truncated", base64.StdEncoding.EncodeToString(stream[:12])},
		{"schema body length", base64.StdEncoding.EncodeToString(schemaMessageWithBody(t, full.Schema(), 1<<40))},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := &maxAllocator{Allocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
			path := filepath.Join(dir, "s.parquet")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			fw, err := pqarrow.NewFileWriter(full.Schema(), f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
			if err != nil {
				t.Fatal(err)
			}
			if err := fw.Write(full); err != nil {
				t.Fatal(err)
			}
			if err := fw.AppendKeyValueMetadata("ARROW:schema", c.value); err != nil {
				t.Fatal(err)
			}
			if err := fw.Close(); err != nil {
				t.Fatal(err)
			}
			f.Close()
			_, err = readAll(t, path, nil, WithReadAllocator(mem))
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "ARROW:schema") {
				t.Errorf("%s: got %v, want ErrCorrupt naming ARROW:schema", c.name, err)
			}
			_, err = Inspect(t.Context(), path, WithReadAllocator(mem))
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "ARROW:schema") {
				t.Errorf("%s: Inspect: got %v, want ErrCorrupt naming ARROW:schema", c.name, err)
			}
			if mem.max > 8<<20 {
				t.Errorf("%s: allocated %d bytes at once", c.name, mem.max)
			}
			mem.Allocator.(*memory.CheckedAllocator).AssertSize(t, 0)
		})
	}
}

// benchParquet writes (once) a zstd Parquet file of rows × cols float64
// values (synth.DecimalBatches), in row groups of 1<<20 rows.
func benchParquet(b *testing.B, path string, rows, cols int) {
	if _, err := os.Stat(path); err == nil {
		return
	}
	schema := synth.DecimalSchema(cols)
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		b.Fatal(err)
	}
	defer os.Remove(tmp)
	const rg = 1 << 20
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(rg), parquet.WithDictionaryDefault(false))
	fw, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		b.Fatal(err)
	}
	if err := synth.DecimalBatches(rows, cols, rg, memory.NewGoAllocator(), fw.Write); err != nil {
		b.Fatal(err)
	}
	if err := fw.Close(); err != nil { // closes f too
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
}

// benchRead reads path whole b.N times, reporting decoded MB/s (SetBytes)
// and rows/s.
func benchRead(b *testing.B, path string, rows, cols int) {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(rows) * int64(cols) * 8)
	b.ResetTimer()
	for range b.N {
		r, err := Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		for r.Next() {
			n += r.RecordBatch().NumRows()
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
		r.Release()
		if n != int64(rows) {
			b.Fatalf("read %d rows, want %d", n, rows)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(fi.Size())/(1<<20), "file-MiB")
}

func BenchmarkReadParquet(b *testing.B) {
	const rows, cols = 100_000, 32
	path := filepath.Join(b.TempDir(), "bench.parquet")
	benchParquet(b, path, rows, cols)
	benchRead(b, path, rows, cols)
}

// BenchmarkReadParquetHuge reads 10^7 rows × 32 columns (about 2.5 GB of
// values); it runs only with ORDINATE_BENCH_HUGE=1 and keeps its file in
// the system's temporary folder between runs.
func BenchmarkReadParquetHuge(b *testing.B) {
	if os.Getenv("ORDINATE_BENCH_HUGE") != "1" {
		b.Skip("ORDINATE_BENCH_HUGE=1 runs it: it reads a 10,000,000 × 32 Parquet file (about 1 GB in the temporary folder), too much for every go test run")
	}
	const rows, cols = 10_000_000, 32
	path := filepath.Join(os.TempDir(), "ordinate-bench-10M-32.parquet")
	benchParquet(b, path, rows, cols)
	benchRead(b, path, rows, cols)
}
