package arrowio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// testSchema has a column of every kind the readers must carry through.
var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "d", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, Nullable: true},
	{Name: "dec", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
	{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64), Nullable: true},
	{Name: "fsl", Type: arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float64), Nullable: true},
}, nil)

// makeTestRecord builds n rows of testSchema from a seeded generator, with
// nulls in every column; row r of column i holds r, so that values show
// where they came from.
func makeTestRecord(mem memory.Allocator, n int, seed uint64) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(seed, 7))
	b := array.NewRecordBuilder(mem, testSchema)
	defer b.Release()
	words := []string{"alpha", "beta", "gamma", "delta"}
	for r := range n {
		if r%7 == 3 {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(int64(r))
		}
		if r%5 == 1 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Float64Builder).Append(rng.NormFloat64())
		}
		if r%11 == 2 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("row %d, \"quoted\"", r))
		}
		if r%13 == 4 {
			b.Field(3).AppendNull()
		} else if err := b.Field(3).(*array.BinaryDictionaryBuilder).AppendString(words[rng.IntN(len(words))]); err != nil {
			panic(err)
		}
		if r%9 == 5 {
			b.Field(4).AppendNull()
		} else {
			b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(rng.IntN(2000000) - 1000000)))
		}
		lb := b.Field(5).(*array.ListBuilder)
		if r%9 == 6 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			for range r % 4 {
				lb.ValueBuilder().(*array.Float64Builder).Append(rng.Float64())
			}
		}
		// pqarrow (v18.8) cannot write a null fixed-size list entry
		// ("lists with non-zero length null components are not
		// supported"): the nulls go into the elements.
		fb := b.Field(6).(*array.FixedSizeListBuilder)
		fb.Append(true)
		for k := range 3 {
			if (r+k)%6 == 0 {
				fb.ValueBuilder().AppendNull()
			} else {
				fb.ValueBuilder().(*array.Float64Builder).Append(rng.Float64())
			}
		}
	}
	return b.NewRecordBatch()
}

// writeParquet writes recs to path with row groups of rgRows rows.
func writeParquet(t testing.TB, path string, rgRows int64, recs ...arrow.RecordBatch) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := writeParquetTo(f, rgRows, recs...); err != nil {
		t.Fatal(err)
	}
}

func writeParquetTo(w interface{ Write([]byte) (int, error) }, rgRows int64, recs ...arrow.RecordBatch) error {
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(rgRows))
	fw, err := pqarrow.NewFileWriter(recs[0].Schema(), w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return err
	}
	// pqarrow (v18.8) writes a sliced fixed-size list from the start of
	// its child array, ignoring the slice offset, and slices a record
	// itself when it spans row groups: so every row group is written from
	// a compacted copy.
	for _, rec := range recs {
		for off := int64(0); off < rec.NumRows(); off += rgRows {
			chunk := compactRecord(rec.NewSlice(off, min(off+rgRows, rec.NumRows())))
			err := fw.Write(chunk)
			chunk.Release()
			if err != nil {
				fw.Close()
				return err
			}
		}
	}
	return fw.Close()
}

// compactRecord copies rec into fresh arrays without offsets, and releases
// rec.
func compactRecord(rec arrow.RecordBatch) arrow.RecordBatch {
	defer rec.Release()
	mem := memory.NewGoAllocator()
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		var err error
		if cols[i], err = array.Concatenate([]arrow.Array{c}, mem); err != nil {
			panic(err)
		}
		defer cols[i].Release()
	}
	return array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
}

// parquetBytes is writeParquet to memory.
func parquetBytes(t testing.TB, rgRows int64, recs ...arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeParquetTo(&buf, rgRows, recs...); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ipcFileBytes writes recs as an Arrow IPC file.
func ipcFileBytes(t testing.TB, recs ...arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(recs[0].Schema()))
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ipcStreamBytes writes recs as an Arrow IPC stream.
func ipcStreamBytes(t testing.TB, recs ...arrow.RecordBatch) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(recs[0].Schema()))
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rowsOf renders every value of the columns cols of rec as text, row by
// row; ValueStr decodes dictionaries, so the text does not depend on how a
// format stores them.
func rowsOf(rec arrow.RecordBatch, cols []string) [][]string {
	out := make([][]string, rec.NumRows())
	for r := range out {
		for _, name := range cols {
			idx := rec.Schema().FieldIndices(name)
			if len(idx) != 1 {
				out[r] = append(out[r], "<missing column "+name+">")
				continue
			}
			out[r] = append(out[r], rec.Column(idx[0]).ValueStr(r))
		}
	}
	return out
}

// readResult is everything a test checks about a read.
type readResult struct {
	rows      [][]string // values, via rowsOf
	firsts    []int64    // Position's first row of every batch
	files     []string   // Position's file of every batch
	batchRows []int64
	schema    *arrow.Schema
	src       Source
}

// readAll opens path, reads every batch and checks the row numbering
// of Position against the rows counted.
func readAll(t testing.TB, path string, cols []string, opts ...ReadOption) (readResult, error) {
	t.Helper()
	r, err := Open(context.Background(), path, opts...)
	if err != nil {
		return readResult{}, err
	}
	defer r.Release()
	res := readResult{schema: r.Schema(), src: r.Source()}
	var n int64
	for r.Next() {
		rec := r.RecordBatch()
		if !rec.Schema().Equal(r.Schema()) {
			t.Errorf("%s: batch schema %v differs from the reader's %v", path, rec.Schema(), r.Schema())
		}
		file, first := r.Position()
		if first != n {
			t.Errorf("%s: batch %d starts at row %d, want %d", path, len(res.firsts), first, n)
		}
		n += rec.NumRows()
		res.firsts = append(res.firsts, first)
		res.files = append(res.files, file)
		res.batchRows = append(res.batchRows, rec.NumRows())
		res.rows = append(res.rows, rowsOf(rec, cols)...)
	}
	return res, r.Err()
}

var testCols = []string{"i", "f", "s", "d", "dec", "l", "fsl"}

func TestOpenRoundTrip(t *testing.T) {
	const n = 1000
	gen := memory.NewGoAllocator()
	rec := makeTestRecord(gen, n, 1)
	defer rec.Release()
	want := rowsOf(rec, testCols)
	// Three parts of unequal size.
	cuts := []int64{0, 430, 431, n}
	parts := make([]arrow.RecordBatch, 3)
	for i := range parts {
		parts[i] = rec.NewSlice(cuts[i], cuts[i+1])
		defer parts[i].Release()
	}

	dir := t.TempDir()
	pq := filepath.Join(dir, "pq")
	for i, p := range parts {
		// Written in two calls, so that row groups do not line up with
		// the batches or the parts.
		h := p.NumRows() / 2
		a, b := p.NewSlice(0, h), p.NewSlice(h, p.NumRows())
		writeParquet(t, filepath.Join(pq, fmt.Sprintf("part-%05d.parquet", i)), 128, a, b)
		a.Release()
		b.Release()
	}
	writeFile(t, filepath.Join(pq, "_SUCCESS"), nil)
	writeFile(t, filepath.Join(pq, ".part-00000.parquet.crc"), []byte("junk"))
	writeFile(t, filepath.Join(pq, "_temporary", "x.parquet"), []byte("junk"))
	single := filepath.Join(dir, "all.parquet")
	writeParquet(t, single, 300, rec)

	arrowDir := filepath.Join(dir, "arrow")
	for i, p := range parts {
		// Record batches of 200 rows, larger than some batch sizes below.
		var recs []arrow.RecordBatch
		for off := int64(0); off < p.NumRows(); off += 200 {
			s := p.NewSlice(off, min(off+200, p.NumRows()))
			defer s.Release()
			recs = append(recs, s)
		}
		writeFile(t, filepath.Join(arrowDir, fmt.Sprintf("part-%d.arrow", i)), ipcFileBytes(t, recs...))
	}
	stream := ipcStreamBytes(t, parts...)

	partFiles := func(d, ext string) []string {
		var out []string
		for i := range 3 {
			out = append(out, filepath.Join(d, fmt.Sprintf("part-%05d%s", i, ext)))
		}
		return out
	}
	arrowFiles := []string{filepath.Join(arrowDir, "part-0.arrow"), filepath.Join(arrowDir, "part-1.arrow"), filepath.Join(arrowDir, "part-2.arrow")}

	cases := []struct {
		name  string
		path  string
		opts  []ReadOption
		files []string
		batch int64 // expected rows of a full batch
	}{
		{"parquet dir", pq, nil, partFiles(pq, ".parquet"), DefaultBatchSize},
		{"parquet dir batch 50", pq, []ReadOption{WithBatchSize(50)}, partFiles(pq, ".parquet"), 50},
		{"parquet glob", filepath.Join(pq, "*.parquet"), []ReadOption{WithBatchSize(64)}, partFiles(pq, ".parquet"), 64},
		{"parquet single", single, []ReadOption{WithBatchSize(1000)}, []string{single}, 1000},
		{"arrow dir", arrowDir, nil, arrowFiles, DefaultBatchSize},
		{"arrow dir batch 64", arrowDir, []ReadOption{WithBatchSize(64)}, arrowFiles, 64},
		{"arrow glob", filepath.Join(arrowDir, "part-*"), nil, arrowFiles, DefaultBatchSize},
		{"stream stdin", "-", []ReadOption{WithStdin(bytes.NewReader(stream)), WithBatchSize(100)}, []string{"-"}, 100},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			res, err := readAll(t, c.path, testCols, append(c.opts, WithReadAllocator(mem))...)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if d := schemaDiff(testSchema, res.schema); d != "" {
				t.Errorf("%s: schema: %s", c.name, d)
			}
			if !slices.Equal(res.src.Files, c.files) {
				t.Errorf("%s: Source().Files = %q, want %q", c.name, res.src.Files, c.files)
			}
			if res.src.Path != c.path {
				t.Errorf("%s: Source().Path = %q, want %q", c.name, res.src.Path, c.path)
			}
			var size int64
			for _, f := range c.files {
				if fi, err := os.Stat(f); err == nil {
					size += fi.Size()
				}
			}
			if res.src.Bytes != size {
				t.Errorf("%s: Source().Bytes = %d, want %d", c.name, res.src.Bytes, size)
			}
			compareRows(t, c.name, res.rows, want)
			// Batches are full except at the end of a row group, record
			// batch or part; the files seen follow the part boundaries.
			for i, nr := range res.batchRows {
				if nr > c.batch || nr <= 0 {
					t.Errorf("%s: batch %d has %d rows, batch size %d", c.name, i, nr, c.batch)
				}
				file, first := res.files[i], res.firsts[i]
				part := 0
				for part < 2 && first >= cuts[part+1] {
					part++
				}
				if c.path != "-" && file != c.files[min(part, len(c.files)-1)] && len(c.files) == 3 {
					t.Errorf("%s: batch at row %d is from %s, want %s", c.name, first, file, c.files[part])
				}
				if len(c.files) == 3 && first+nr > cuts[part+1] {
					t.Errorf("%s: batch at row %d with %d rows crosses the end of part %d", c.name, first, nr, part)
				}
			}
		})
	}
}

// compareRows compares read values with the expected ones row by row.
func compareRows(t testing.TB, name string, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows, want %d", name, len(got), len(want))
	}
	bad := 0
	for r := range min(len(got), len(want)) {
		if !slices.Equal(got[r], want[r]) {
			t.Errorf("%s: row %d = %q, want %q", name, r, got[r], want[r])
			if bad++; bad == 5 {
				t.Fatalf("%s: too many differences", name)
			}
		}
	}
}

func TestOpenColumns(t *testing.T) {
	gen := memory.NewGoAllocator()
	rec := makeTestRecord(gen, 300, 2)
	defer rec.Release()
	dir := t.TempDir()
	pq := filepath.Join(dir, "t.parquet")
	writeParquet(t, pq, 100, rec)
	arw := filepath.Join(dir, "t.arrow")
	writeFile(t, arw, ipcFileBytes(t, rec))
	stream := ipcStreamBytes(t, rec)
	// Asked in another order: the batches keep schema order.
	ask := []string{"fsl", "i", "l"}
	order := []string{"i", "l", "fsl"}
	want := rowsOf(rec, order)

	for _, path := range []string{pq, arw, "-"} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			opts := []ReadOption{WithReadAllocator(mem), WithColumns(ask), WithBatchSize(64), WithStdin(bytes.NewReader(stream))}
			res, err := readAll(t, path, order, opts...)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			var names []string
			for _, f := range res.schema.Fields() {
				names = append(names, f.Name)
			}
			if !slices.Equal(names, order) {
				t.Errorf("%s: columns %q, want %q", path, names, order)
			}
			compareRows(t, path, res.rows, want)

			_, err = readAll(t, path, nil, WithReadAllocator(mem), WithColumns([]string{"i", "nope"}), WithStdin(bytes.NewReader(stream)))
			var e *Error
			if !errors.Is(err, ErrMissingColumn) || !errors.As(err, &e) || e.Column != "nope" {
				t.Errorf("%s: unknown column: got %v, want ErrMissingColumn for \"nope\"", path, err)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	gen := memory.NewGoAllocator()
	rec := makeTestRecord(gen, 20, 3)
	defer rec.Release()
	other := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	ob := array.NewRecordBuilder(gen, other)
	ob.Field(0).(*array.Int64Builder).Append(1)
	ob.Field(1).(*array.Int64Builder).Append(2)
	orec := ob.NewRecordBatch()
	ob.Release()
	defer orec.Release()
	pq := parquetBytes(t, 100, rec)

	dir := t.TempDir()
	path := func(p string) string { return filepath.Join(dir, p) }
	writeFile(t, path("schema/a.parquet"), pq)
	writeFile(t, path("schema/b.parquet"), parquetBytes(t, 100, orec))
	writeFile(t, path("schemaipc/a.arrow"), ipcFileBytes(t, rec))
	writeFile(t, path("schemaipc/b.arrow"), ipcFileBytes(t, orec))
	writeFile(t, path("schemacsv/a.csv"), []byte("x,y\n1,2\n"))
	writeFile(t, path("schemacsv/b.csv"), []byte("x,z\n1,2\n"))
	writeFile(t, path("mixed/a.parquet"), pq)
	writeFile(t, path("mixed/b.csv"), []byte("x\n1\n"))
	writeFile(t, path("empty/x.parquet"), nil)
	writeFile(t, path("empty/x.arrow"), nil)
	writeFile(t, path("empty/x.csv"), nil)
	writeFile(t, path("empty/x.dat"), nil)
	writeFile(t, path("sniff/data.bin"), pq)
	writeFile(t, path("sniff/arrow.bin"), ipcFileBytes(t, rec))
	writeFile(t, path("sniff/text.bin"), []byte("hello"))
	writeFile(t, path("stream/s.arrow"), ipcStreamBytes(t, rec)) // a stream under .arrow
	writeFile(t, path("nodata/notes.txt"), []byte("hello"))
	writeFile(t, path("nodata/_SUCCESS"), nil)
	writeFile(t, path("file.csv"), []byte("i\n1\n"))
	loops := os.Symlink("loop2", path("loop1")) == nil && os.Symlink("loop1", path("loop2")) == nil &&
		os.MkdirAll(path("loopdir"), 0o755) == nil && os.Symlink("self.parquet", path("loopdir/self.parquet")) == nil

	cases := []struct {
		name  string
		path  string
		opts  []ReadOption
		want  error  // nil: reads fine
		file  string // the file the *Error names
		rows  int
		inMsg string
	}{
		{"missing file", path("nope.parquet"), nil, fs.ErrNotExist, path("nope.parquet"), 0, "nope.parquet"},
		{"glob without match", path("*.parquet"), nil, ErrNoFiles, path("*.parquet"), 0, ""},
		{"dir without tables", path("nodata"), nil, ErrNoFiles, path("nodata"), 0, ""},
		{"schema parquet", path("schema"), nil, ErrSchema, path("schema/b.parquet"), 0, `column "f" is int64, want float64`},
		{"schema ipc", path("schemaipc"), nil, ErrSchema, path("schemaipc/b.arrow"), 0, `column "f" is int64`},
		{"schema csv", path("schemacsv"), nil, ErrSchema, path("schemacsv/b.csv"), 0, `"z"`},
		{"schema selected columns agree", path("schema"), []ReadOption{WithColumns([]string{"i"})}, nil, "", 21, ""},
		{"mixed formats", path("mixed"), nil, ErrFormat, path("mixed/b.csv"), 0, "mixed"},
		{"empty parquet", path("empty/x.parquet"), nil, ErrEmpty, path("empty/x.parquet"), 0, ""},
		{"empty arrow", path("empty/x.arrow"), nil, ErrEmpty, path("empty/x.arrow"), 0, ""},
		{"empty csv", path("empty/x.csv"), nil, ErrEmpty, path("empty/x.csv"), 0, ""},
		{"empty unknown", path("empty/x.dat"), nil, ErrEmpty, path("empty/x.dat"), 0, ""},
		{"empty stdin", "-", []ReadOption{WithStdin(bytes.NewReader(nil))}, ErrEmpty, "-", 0, ""},
		{"garbage stdin", "-", []ReadOption{WithStdin(strings.NewReader("not arrow at all"))}, ErrCorrupt, "-", 0, ""},
		{"sniff parquet", path("sniff/data.bin"), nil, nil, "", 20, ""},
		{"sniff arrow", path("sniff/arrow.bin"), nil, nil, "", 20, ""},
		{"sniff fails", path("sniff/text.bin"), nil, ErrFormat, path("sniff/text.bin"), 0, ""},
		{"stream under .arrow", path("stream/s.arrow"), nil, nil, "", 20, ""},
		// Paths that cannot name a file are the caller's fault, like a
		// missing file: they match ErrInvalidOption and the system's error.
		{"symbolic link loop", path("loop1"), nil, syscall.ELOOP, path("loop1"), 0, "symbolic links"},
		{"symbolic link loop in a folder", path("loopdir"), nil, syscall.ELOOP, path("loopdir/self.parquet"), 0, "symbolic links"},
		{"file as a folder", path("file.csv/x.parquet"), nil, syscall.ENOTDIR, path("file.csv/x.parquet"), 0, "not a directory"},
		{"name too long", path(strings.Repeat("n", 300) + ".parquet"), nil, syscall.ENAMETOOLONG, path(strings.Repeat("n", 300) + ".parquet"), 0, "too long"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if errors.Is(c.want, syscall.ELOOP) && !loops {
				t.Skip("this file system refuses symbolic links, so a link loop cannot be made; the other open errors of this table run")
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			res, err := readAll(t, c.path, []string{"i"}, append(c.opts, WithReadAllocator(mem))...)
			if c.want == nil {
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if len(res.rows) != c.rows {
					t.Errorf("%s: %d rows, want %d", c.name, len(res.rows), c.rows)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("%s: got %v, want %v", c.name, err, c.want)
			}
			if errors.As(c.want, new(syscall.Errno)) && !errors.Is(err, ErrInvalidOption) {
				t.Errorf("%s: %v does not match ErrInvalidOption", c.name, err)
			}
			var e *Error
			if !errors.As(err, &e) || e.File != c.file {
				t.Errorf("%s: error %v does not name file %s", c.name, err, c.file)
			}
			if !strings.Contains(err.Error(), c.inMsg) {
				t.Errorf("%s: error %q does not say %q", c.name, err, c.inMsg)
			}
		})
	}
}

// checkCancelAfterFirst opens path, reads one batch, cancels, and checks
// that the reader stops with context.Canceled, that Release may be called
// twice, and that no memory is left allocated.
func checkCancelAfterFirst(t *testing.T, name, path string, opts ...ReadOption) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := Open(ctx, path, append([]ReadOption{WithReadAllocator(mem)}, opts...)...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !r.Next() {
		t.Fatalf("%s: no first batch: %v", name, r.Err())
	}
	cancel()
	if r.Next() {
		t.Errorf("%s: Next after cancel returned true", name)
	}
	if !errors.Is(r.Err(), context.Canceled) {
		t.Errorf("%s: Err() = %v, want context.Canceled", name, r.Err())
	}
	r.Release()
	r.Release() // twice is harmless
	mem.AssertSize(t, 0)
}

func TestOpenCancel(t *testing.T) {
	gen := memory.NewGoAllocator()
	rec := makeTestRecord(gen, 500, 4)
	defer rec.Release()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "t.parquet"), parquetBytes(t, 100, rec))
	writeFile(t, filepath.Join(dir, "t.arrow"), ipcFileBytes(t, rec))
	writeFile(t, filepath.Join(dir, "t.csv"), []byte("x\n1\n2\n3\n4\n5\n"))
	for _, name := range []string{"t.parquet", "t.arrow", "t.csv"} {
		checkCancelAfterFirst(t, name, filepath.Join(dir, name), WithBatchSize(2))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Open(ctx, filepath.Join(dir, "t.csv")); !errors.Is(err, context.Canceled) {
		t.Errorf("Open with a cancelled context: %v, want context.Canceled", err)
	}
}

// TestOpenDamaged overwrites a few bytes of valid files at seeded random
// places: every read must end without a panic, and every error must be
// ErrCorrupt. arrow-go has no page checksums, so some damage goes unseen
// and the file reads "successfully" with other values; that is allowed.
func TestOpenDamaged(t *testing.T) {
	gen := memory.NewGoAllocator()
	rec := makeTestRecord(gen, 200, 5)
	defer rec.Release()
	formats := []struct {
		name string
		data []byte
	}{
		{"t.parquet", parquetBytes(t, 64, rec)},
		{"t.arrow", ipcFileBytes(t, rec.NewSlice(0, 100), rec.NewSlice(100, 200))},
		{"-", ipcStreamBytes(t, rec.NewSlice(0, 100), rec.NewSlice(100, 200))},
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, f := range formats {
		var nerr, npanic int
		for v := range 300 {
			data := slices.Clone(f.data)
			for range 1 + rng.IntN(8) {
				data[rng.IntN(len(data))] = byte(rng.IntN(256))
			}
			err := readDamaged(t, dir, f.name, data)
			if err != nil {
				nerr++
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("%s variant %d: error %v is not ErrCorrupt", f.name, v, err)
				}
				if afterPanic(err) {
					npanic++
				}
			}
		}
		t.Logf("%s: 300 damaged variants, %d errors (%d caught panics)", f.name, nerr, npanic)
		if nerr == 0 {
			t.Errorf("%s: no damaged variant was detected", f.name)
		}
	}
}

// readDamaged reads data as a file named name (or stdin for "-") and checks
// for leaks, except after a caught panic of arrow-go (whose memory the
// allocator cannot get back).
func readDamaged(t *testing.T, dir, name string, data []byte) error {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	path := name
	if name != "-" {
		path = filepath.Join(dir, name)
		writeFile(t, path, data)
	}
	r, err := Open(context.Background(), path, WithReadAllocator(mem), WithStdin(bytes.NewReader(data)), WithBatchSize(30))
	if err == nil {
		for r.Next() {
			touchAll(r.RecordBatch())
		}
		err = r.Err()
		r.Release()
	}
	if !afterPanic(err) {
		mem.AssertSize(t, 0)
	}
	return err
}

// afterPanic reports whether err comes from a panic in arrow-go, caught by
// the reader (panicError) or by arrow-go itself (which says so in the
// message). The arrays that the panicking code had made are never
// released, so the allocator's count cannot come back to 0; the garbage
// collector frees their memory all the same.
func afterPanic(err error) bool {
	if pe := (*panicError)(nil); errors.As(err, &pe) {
		return true
	}
	if err == nil {
		return false
	}
	for _, msg := range []string{
		"arrow/ipc: error reading record batch",        // ipc.FileReader
		"arrow/ipc: unknown error while reading",       // ipc.Reader
		"arrow/array: failed to construct child array", // array.ValidateRecordFull
	} {
		if strings.Contains(err.Error(), msg) {
			return true
		}
	}
	return false
}

// touchAll reads every value of rec, as downstream code would: it must not
// panic on a batch that a reader handed out.
func touchAll(rec arrow.RecordBatch) {
	for _, c := range rec.Columns() {
		for i := range c.Len() {
			_ = c.ValueStr(i)
		}
	}
}

func TestOpenTruncated(t *testing.T) {
	gen := memory.NewGoAllocator()
	rec := makeTestRecord(gen, 200, 6)
	defer rec.Release()
	formats := []struct {
		name string
		data []byte
	}{
		{"t.parquet", parquetBytes(t, 64, rec)},
		{"t.arrow", ipcFileBytes(t, rec.NewSlice(0, 100), rec.NewSlice(100, 200))},
		{"-", ipcStreamBytes(t, rec.NewSlice(0, 100), rec.NewSlice(100, 200))},
	}
	dir := t.TempDir()
	for _, f := range formats {
		n := len(f.data)
		cuts := []int{1, 3, 4, 7, 8, 12, 100, n / 3, n / 2, n - 100, n - 12, n - 8, n - 4, n - 1}
		for _, cut := range cuts {
			err := readDamaged(t, dir, f.name, f.data[:cut])
			switch {
			case f.name == "-" && err == nil:
				// A stream cut between two messages is a shorter stream.
			case !errors.Is(err, ErrCorrupt):
				t.Errorf("%s cut at %d of %d bytes: got %v, want ErrCorrupt", f.name, cut, n, err)
			}
		}
	}
}
