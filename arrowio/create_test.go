package arrowio

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// The write tests share one table: an int64, a float64 (with NaN, ±Inf, -0
// and extremes), a string (with CSV metacharacters), a dictionary of
// strings, a list of float64 and a fixed-size list of 3 float64, every
// column with nulls. wtData holds it as Go values, the oracle every output
// is read back against.

var wtCategories = []string{"low", "mid", "high", "très haut"}

type wtData struct {
	n     int
	i64   []int64
	f64   []float64
	str   []string
	cat   []string
	lst   [][]float64
	fsl   [][3]float64
	valid [6][]bool
}

const wtCols = 6

func wtSchema() *arrow.Schema {
	md := arrow.NewMetadata([]string{"origin"}, []string{"test"})
	return arrow.NewSchema([]arrow.Field{
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "str", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "cat", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, Nullable: true},
		{Name: "lst", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64), Nullable: true},
		{Name: "fsl", Type: arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float64), Nullable: true},
	}, &md)
}

func wtMake(n int, seed uint64) *wtData {
	rnd := rand.New(rand.NewPCG(seed, 7))
	d := &wtData{n: n}
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 5e-324, math.MaxFloat64, 0.1, 1e21}
	texts := []string{"plain", "a,b", `say "hi"`, "two\nlines", " padded ", "ünï©ødé"}
	for c := range d.valid {
		d.valid[c] = make([]bool, n)
	}
	for i := range n {
		for c := range wtCols {
			// Each column has its own null pattern, row 0 is never null.
			d.valid[c][i] = i == 0 || rnd.IntN(6) != 0
		}
		d.i64 = append(d.i64, rnd.Int64()-math.MaxInt64/2)
		f := rnd.NormFloat64() * 1e3
		if i%17 < len(special) {
			f = special[i%17]
		}
		d.f64 = append(d.f64, f)
		d.str = append(d.str, fmt.Sprintf("%s %d", texts[i%len(texts)], i))
		d.cat = append(d.cat, wtCategories[rnd.IntN(len(wtCategories))])
		l := make([]float64, rnd.IntN(5)) // includes empty lists
		for k := range l {
			l[k] = rnd.NormFloat64()
		}
		d.lst = append(d.lst, l)
		d.fsl = append(d.fsl, [3]float64{rnd.Float64(), -rnd.Float64(), float64(i)})
	}
	return d
}

// row returns row i as the values wtCell gives: nil, int64, float64,
// string or []float64.
func (d *wtData) row(i int) []any {
	vals := []any{d.i64[i], d.f64[i], d.str[i], d.cat[i], d.lst[i], d.fsl[i][:]}
	for c := range vals {
		if !d.valid[c][i] {
			vals[c] = nil
		}
	}
	return vals
}

// batch builds rows [lo, hi) as a record batch. Each batch has its own
// dictionary, in the order its rows first use the values, so dictionaries
// differ from batch to batch as they do when reading Parquet.
func (d *wtData) batch(mem memory.Allocator, lo, hi int) arrow.RecordBatch {
	schema := wtSchema()
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	ib := b.Field(0).(*array.Int64Builder)
	fb := b.Field(1).(*array.Float64Builder)
	sb := b.Field(2).(*array.StringBuilder)
	cb := b.Field(3).(*array.BinaryDictionaryBuilder)
	lb := b.Field(4).(*array.ListBuilder)
	lvb := lb.ValueBuilder().(*array.Float64Builder)
	xb := b.Field(5).(*array.FixedSizeListBuilder)
	xvb := xb.ValueBuilder().(*array.Float64Builder)
	for i := lo; i < hi; i++ {
		v := func(c int) bool { return d.valid[c][i] }
		if v(0) {
			ib.Append(d.i64[i])
		} else {
			ib.AppendNull()
		}
		if v(1) {
			fb.Append(d.f64[i])
		} else {
			fb.AppendNull()
		}
		if v(2) {
			sb.Append(d.str[i])
		} else {
			sb.AppendNull()
		}
		if v(3) {
			if err := cb.AppendString(d.cat[i]); err != nil {
				panic(err)
			}
		} else {
			cb.AppendNull()
		}
		if v(4) {
			lb.Append(true)
			lvb.AppendValues(d.lst[i], nil)
		} else {
			lb.AppendNull()
		}
		if v(5) {
			xb.Append(true)
			xvb.AppendValues(d.fsl[i][:], nil)
		} else {
			xb.AppendNull()
		}
	}
	return b.NewRecordBatch()
}

// wtCell reads value i of a as nil, int64, float64, string or []float64.
func wtCell(t *testing.T, a arrow.Array, i int) any {
	t.Helper()
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Dictionary:
		return wtCell(t, a.Dictionary(), a.GetValueIndex(i))
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		vals := a.ListValues().(*array.Float64)
		out := []float64{}
		for k := start; k < end; k++ {
			out = append(out, vals.Value(int(k)))
		}
		return out
	}
	t.Fatalf("unexpected column type %s", a.DataType())
	return nil
}

// wtSame reports whether two cells are equal. Storage must give back the
// very bits written, so floats are compared exactly (all NaNs alike, -0
// distinct from 0), not with a tolerance.
func wtSame(a, b any) bool {
	switch a := a.(type) {
	case float64:
		b, ok := b.(float64)
		return ok && sameFloat(a, b)
	case []float64:
		b, ok := b.([]float64)
		return ok && slices.EqualFunc(a, b, sameFloat)
	}
	return a == b
}

func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

// wtCheckRows compares the rows read back with the oracle.
func wtCheckRows(t *testing.T, name string, d *wtData, got [][]any) {
	t.Helper()
	if len(got) != d.n {
		t.Fatalf("%s: read %d rows, wrote %d", name, len(got), d.n)
	}
	bad := 0
	for i, row := range got {
		want := d.row(i)
		for c := range want {
			if !wtSame(row[c], want[c]) {
				if bad++; bad <= 5 {
					t.Errorf("%s: row %d column %d: got %#v, want %#v", name, i, c, row[c], want[c])
				}
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d cells differ in all", name, bad)
	}
}

func wtRecordRows(t *testing.T, rec arrow.RecordBatch) [][]any {
	t.Helper()
	var rows [][]any
	for i := range int(rec.NumRows()) {
		row := make([]any, rec.NumCols())
		for c := range row {
			row[c] = wtCell(t, rec.Column(c), i)
		}
		rows = append(rows, row)
	}
	return rows
}

// wtReadParquet reads a Parquet file back with pqarrow alone.
func wtReadParquet(t *testing.T, path string) (*arrow.Schema, [][]any) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 97}, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer rr.Release()
	var rows [][]any
	for rr.Next() {
		rows = append(rows, wtRecordRows(t, rr.RecordBatch())...)
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		t.Fatalf("%s: %v", path, err)
	}
	return rr.Schema(), rows
}

// wtReadIPCFile reads an Arrow IPC file back with ipc.FileReader.
func wtReadIPCFile(t *testing.T, path string) (*arrow.Schema, [][]any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer r.Close()
	var rows [][]any
	for i := range r.NumRecords() {
		rec, err := r.RecordBatchAt(i)
		if err != nil {
			t.Fatalf("%s: batch %d: %v", path, i, err)
		}
		rows = append(rows, wtRecordRows(t, rec)...)
		rec.Release()
	}
	return r.Schema(), rows
}

// wtReadIPCStream reads an Arrow IPC stream back with ipc.Reader.
func wtReadIPCStream(t *testing.T, r io.Reader) (*arrow.Schema, [][]any) {
	t.Helper()
	rd, err := ipc.NewReader(r)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	defer rd.Release()
	var rows [][]any
	for rd.Next() {
		rows = append(rows, wtRecordRows(t, rd.RecordBatch())...)
	}
	if err := rd.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	return rd.Schema(), rows
}

// wtReadCSV reads a CSV output back with encoding/csv, parsing each field
// as the oracle types it: lists through encoding/json.
func wtReadCSV(t *testing.T, path string) ([]string, [][]any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(recs) == 0 {
		t.Fatalf("%s: no header", path)
	}
	var rows [][]any
	for i, rec := range recs[1:] {
		row := make([]any, len(rec))
		for c, s := range rec {
			if s == "" {
				continue // null
			}
			var err error
			switch c {
			case 0:
				row[c], err = strconv.ParseInt(s, 10, 64)
			case 1:
				row[c], err = strconv.ParseFloat(s, 64)
			case 2, 3:
				row[c] = s
			case 4, 5:
				var l []float64
				err = json.Unmarshal([]byte(s), &l)
				row[c] = l
			}
			if err != nil {
				t.Fatalf("%s: line %d field %d %q: %v", path, i+2, c, s, err)
			}
		}
		rows = append(rows, row)
	}
	return recs[0], rows
}

// wtBatchSizes cuts n rows into uneven batches, including an empty one and
// one of a single row.
func wtBatchSizes(n int) []int {
	var sizes []int
	for i, left := 0, n; left > 0; i++ {
		k := min(left, []int{1, 0, 60, 113}[min(i, 3)])
		sizes = append(sizes, k)
		left -= k
	}
	return sizes
}

// wtWrite writes d in uneven batches to w and returns the error of the
// first failing Write.
func wtWrite(t *testing.T, mem memory.Allocator, w Writer, d *wtData) error {
	t.Helper()
	lo := 0
	for _, k := range wtBatchSizes(d.n) {
		rec := d.batch(mem, lo, lo+k)
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			return err
		}
		lo += k
	}
	return nil
}

func TestCreateRoundTrip(t *testing.T) {
	const n = 350
	d := wtMake(n, 1)
	for _, tc := range []struct {
		name string
		file string // "" writes to stdout
		opts []WriteOption
	}{
		{name: "parquet", file: "out.parquet"},
		{name: "parquet one-row groups", file: "out.pq", opts: []WriteOption{WithRowGroupRows(1)}},
		{name: "arrow file", file: "out.arrow"},
		{name: "feather", file: "out.feather"},
		{name: "arrow stream file", file: "out.arrows"},
		{name: "arrow stream stdout"},
		{name: "csv", file: "out.csv"},
		{name: "csv forced", file: "out.txt", opts: []WriteOption{WithFormat(FormatCSV)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			path, stdout := "-", &bytes.Buffer{}
			if tc.file != "" {
				path = filepath.Join(t.TempDir(), tc.file)
			}
			opts := append([]WriteOption{WithWriteAllocator(mem), WithStdout(stdout)}, tc.opts...)
			w, err := Create(context.Background(), path, wtSchema(), opts...)
			if err != nil {
				t.Fatalf("%s: Create: %v", tc.name, err)
			}
			defer w.Abort()
			if err := wtWrite(t, mem, w, d); err != nil {
				t.Fatalf("%s: Write: %v", tc.name, err)
			}
			if got := w.Rows(); got != n {
				t.Errorf("%s: Rows() = %d, want %d", tc.name, got, n)
			}
			if w.Path() != path {
				t.Errorf("%s: Path() = %q, want %q", tc.name, w.Path(), path)
			}
			if err := w.Close(); err != nil {
				t.Fatalf("%s: Close: %v", tc.name, err)
			}
			var rows [][]any
			format := FormatOf(path)
			if tc.name == "csv forced" {
				format = FormatCSV
			}
			switch format {
			case FormatParquet:
				_, rows = wtReadParquet(t, path)
			case FormatIPCFile:
				_, rows = wtReadIPCFile(t, path)
			case FormatIPCStream:
				var r io.Reader = stdout
				if path != "-" {
					f, err := os.Open(path)
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					r = f
				} else if stdout.Len() == 0 {
					t.Fatalf("%s: nothing written to stdout", tc.name)
				}
				_, rows = wtReadIPCStream(t, r)
			case FormatCSV:
				var header []string
				header, rows = wtReadCSV(t, path)
				if want := []string{"i64", "f64", "str", "cat", "lst", "fsl"}; !slices.Equal(header, want) {
					t.Errorf("%s: header %q, want %q", tc.name, header, want)
				}
			}
			wtCheckRows(t, tc.name, d, rows)
			if path != "-" {
				wtCheckOnly(t, tc.name, filepath.Dir(path), filepath.Base(path))
			}
		})
	}
}

// wtCheckOnly fails unless dir holds exactly the named files.
func wtCheckOnly(t *testing.T, name, dir string, files ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	slices.Sort(files)
	if !slices.Equal(got, files) {
		t.Errorf("%s: folder holds %q, want %q", name, got, files)
	}
}

// wtTemps lists the temporary files of base in dir.
func wtTemps(t *testing.T, dir, base string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "."+base+".tmp-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCreateAtomic(t *testing.T) {
	d := wtMake(200, 2)
	ctx := context.Background()
	for _, base := range []string{"out.parquet", "out.arrow", "out.csv"} {
		// step runs one scenario in a fresh folder with a leak check.
		step := func(what string, f func(t *testing.T, mem memory.Allocator, dir, path string)) {
			t.Run(base+"/"+what, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				dir := t.TempDir()
				f(t, mem, dir, filepath.Join(dir, base))
			})
		}
		step("hidden until Close", func(t *testing.T, mem memory.Allocator, dir, path string) {
			w, err := Create(ctx, path, wtSchema(), WithWriteAllocator(mem))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			if err := wtWrite(t, mem, w, d); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: final path exists before Close (stat: %v)", path, err)
			}
			if tmp := wtTemps(t, dir, base); len(tmp) != 1 {
				t.Errorf("%s: temporary files %q, want one", path, tmp)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			wtCheckOnly(t, path, dir, base)
			if err := w.Abort(); err != nil {
				t.Errorf("%s: Abort after Close: %v", path, err)
			}
			wtCheckOnly(t, path+" after Abort", dir, base)
			if err := w.Close(); err != nil {
				t.Errorf("%s: second Close: %v", path, err)
			}
			empty := d.batch(mem, 0, 0)
			defer empty.Release()
			if err := w.Write(empty); err == nil {
				t.Errorf("%s: Write after Close succeeded", path)
			}
		})
		step("Abort", func(t *testing.T, mem memory.Allocator, dir, path string) {
			w, err := Create(ctx, path, wtSchema(), WithWriteAllocator(mem))
			if err != nil {
				t.Fatal(err)
			}
			if err := wtWrite(t, mem, w, d); err != nil {
				t.Fatal(err)
			}
			if err := w.Abort(); err != nil {
				t.Fatalf("%s: Abort: %v", path, err)
			}
			wtCheckOnly(t, path, dir)
			if err := w.Abort(); err != nil {
				t.Errorf("%s: second Abort: %v", path, err)
			}
			if err := w.Close(); err == nil {
				t.Errorf("%s: Close after Abort succeeded", path)
			}
			wtCheckOnly(t, path, dir)
		})
		step("schema mismatch", func(t *testing.T, mem memory.Allocator, dir, path string) {
			w, err := Create(ctx, path, wtSchema(), WithWriteAllocator(mem))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			if err := wtWrite(t, mem, w, d); err != nil {
				t.Fatal(err)
			}
			other := wtSchema().Field(0)
			b := array.NewInt64Builder(mem)
			b.Append(1)
			col := b.NewArray()
			b.Release()
			rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{other}, nil), []arrow.Array{col}, 1)
			col.Release()
			err = w.Write(rec)
			rec.Release()
			if err == nil {
				t.Fatalf("%s: Write of another schema succeeded", path)
			}
			empty := d.batch(mem, 0, 0)
			defer empty.Release()
			if err := w.Write(empty); err == nil {
				t.Errorf("%s: Write after a failed Write succeeded", path)
			}
			if err := w.Close(); err == nil {
				t.Errorf("%s: Close after a failed Write succeeded", path)
			}
			wtCheckOnly(t, path, dir)
		})
		step("cancelled during writing", func(t *testing.T, mem memory.Allocator, dir, path string) {
			cctx, cancel := context.WithCancel(ctx)
			w, err := Create(cctx, path, wtSchema(), WithWriteAllocator(mem))
			if err != nil {
				t.Fatal(err)
			}
			rec := d.batch(mem, 0, 50)
			defer rec.Release()
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			cancel()
			if err := w.Write(rec); !errors.Is(err, context.Canceled) {
				t.Errorf("%s: Write after cancel: %v, want context.Canceled", path, err)
			}
			if err := w.Close(); !errors.Is(err, context.Canceled) {
				t.Errorf("%s: Close after cancel: %v, want context.Canceled", path, err)
			}
			wtCheckOnly(t, path, dir)
		})
		step("cancelled before Close", func(t *testing.T, mem memory.Allocator, dir, path string) {
			cctx, cancel := context.WithCancel(ctx)
			w, err := Create(cctx, path, wtSchema(), WithWriteAllocator(mem))
			if err != nil {
				t.Fatal(err)
			}
			if err := wtWrite(t, mem, w, d); err != nil {
				t.Fatal(err)
			}
			cancel()
			if err := w.Close(); !errors.Is(err, context.Canceled) {
				t.Errorf("%s: Close after cancel: %v, want context.Canceled", path, err)
			}
			wtCheckOnly(t, path, dir)
		})
		step("replaces at Close", func(t *testing.T, mem memory.Allocator, dir, path string) {
			if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			w, err := Create(ctx, path, wtSchema(), WithWriteAllocator(mem))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			if err := wtWrite(t, mem, w, d); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(path); string(b) != "old" {
				t.Errorf("%s: old file changed before Close: %q", path, b)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Size() <= 3 {
				t.Errorf("%s: not replaced (%d bytes)", path, st.Size())
			}
			if st.Mode().Perm() != 0o644 {
				t.Errorf("%s: mode %v, want 0644", path, st.Mode().Perm())
			}
			wtCheckOnly(t, path, dir, base)
		})
		step("Abort keeps the old file", func(t *testing.T, mem memory.Allocator, dir, path string) {
			if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			w, err := Create(ctx, path, wtSchema(), WithWriteAllocator(mem))
			if err != nil {
				t.Fatal(err)
			}
			if err := wtWrite(t, mem, w, d); err != nil {
				t.Fatal(err)
			}
			if err := w.Abort(); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(path); string(b) != "old" {
				t.Errorf("%s: old file changed by Abort: %q", path, b)
			}
			wtCheckOnly(t, path, dir, base)
		})
	}
}

func TestCreateErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	aFile := filepath.Join(dir, "plain")
	if err := os.WriteFile(aFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		path     string
		schema   *arrow.Schema
		is       error  // nil: any error
		contains string // the message must name this
	}{
		{name: "missing folder", path: filepath.Join(dir, "nope", "out.parquet"), is: fs.ErrNotExist, contains: filepath.Join(dir, "nope")},
		{name: "unknown extension", path: filepath.Join(dir, "out.xlsx"), is: ErrFormat, contains: "out.xlsx"},
		{name: "no extension", path: filepath.Join(dir, "out"), is: ErrFormat, contains: "out"},
		{name: "target is a folder", path: filepath.Join(dir, "sub.parquet"), contains: "sub.parquet"},
		{name: "parent is a file", path: filepath.Join(aFile, "out.csv"), contains: aFile},
		{name: "nil schema", path: filepath.Join(dir, "x.parquet"), schema: nil, contains: "schema"},
	} {
		schema := tc.schema
		if schema == nil && tc.name != "nil schema" {
			schema = wtSchema()
		}
		if tc.name == "target is a folder" {
			if err := os.Mkdir(filepath.Join(dir, "sub.parquet"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		w, err := Create(ctx, tc.path, schema)
		if err == nil {
			w.Abort()
			t.Errorf("%s: Create(%q) succeeded", tc.name, tc.path)
			continue
		}
		if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: error %v is not %v", tc.name, err, tc.is)
		}
		if !strings.Contains(err.Error(), tc.contains) {
			t.Errorf("%s: error %q does not name %q", tc.name, err, tc.contains)
		}
	}
	// Nothing was left behind by the failures.
	wtCheckOnly(t, "errors", dir, "plain", "sub.parquet")

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Create(cctx, filepath.Join(dir, "c.parquet"), wtSchema()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v, want context.Canceled", err)
	}
}

func TestCreateWithFormat(t *testing.T) {
	magic := map[Format]string{FormatParquet: "PAR1", FormatIPCFile: "ARROW1", FormatIPCStream: "\xff\xff\xff\xff", FormatCSV: "i64,f64"}
	for f, m := range magic {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		path := filepath.Join(t.TempDir(), "out.dat")
		w, err := Create(context.Background(), path, wtSchema(), WithFormat(f), WithWriteAllocator(mem))
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), m) {
			t.Errorf("%v: file starts %q, want %q", f, b[:min(len(b), 8)], m)
		}
		mem.AssertSize(t, 0)
	}
}

func TestCreateStdoutAbort(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var out bytes.Buffer
	w, err := Create(context.Background(), "-", wtSchema(), WithStdout(&out), WithWriteAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	if err := wtWrite(t, mem, w, wtMake(20, 3)); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	// Less than a buffer was written: Abort drops all of it.
	if out.Len() != 0 {
		t.Errorf("Abort on stdout left %d bytes", out.Len())
	}
}

func TestFormatOf(t *testing.T) {
	for _, tc := range []struct {
		path string
		want Format
	}{
		{"-", FormatIPCStream},
		{"a.parquet", FormatParquet},
		{"dir.v2/A.PARQUET", FormatParquet},
		{"a.parq", FormatParquet},
		{"a.pq", FormatParquet},
		{"a.arrow", FormatIPCFile},
		{"a.feather", FormatIPCFile},
		{"a.ipc", FormatIPCFile},
		{"a.arrows", FormatIPCStream},
		{"a.csv", FormatCSV},
		{"a.csv.gz", FormatUnknown},
		{"a", FormatUnknown},
		{"parquet", FormatUnknown},
	} {
		if got := FormatOf(tc.path); got != tc.want {
			t.Errorf("FormatOf(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestProtect(t *testing.T) {
	err := protect(func() error { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("protect of a panic: %v", err)
	}
	want := errors.New("plain")
	if err := protect(func() error { return want }); err != want {
		t.Errorf("protect of an error: %v", err)
	}
}

// Batches that are slices of a larger record (non-zero array offsets) must
// be written as the rows they show, in every format.
func TestCreateSlicedBatches(t *testing.T) {
	const n = 300
	d := wtMake(n, 4)
	for _, base := range []string{"s.parquet", "s.arrow", "s.arrows", "s.csv"} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		path := filepath.Join(t.TempDir(), base)
		w, err := Create(context.Background(), path, wtSchema(), WithWriteAllocator(mem), WithRowGroupRows(70))
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		all := d.batch(mem, 0, n)
		for _, cut := range [][2]int64{{0, 37}, {37, 38}, {38, 200}, {200, n}} {
			s := all.NewSlice(cut[0], cut[1])
			err := w.Write(s)
			s.Release()
			if err != nil {
				t.Fatalf("%s: %v", base, err)
			}
		}
		all.Release()
		if err := w.Close(); err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		var rows [][]any
		switch FormatOf(path) {
		case FormatParquet:
			_, rows = wtReadParquet(t, path)
		case FormatIPCFile:
			_, rows = wtReadIPCFile(t, path)
		case FormatIPCStream:
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			_, rows = wtReadIPCStream(t, f)
			f.Close()
		case FormatCSV:
			_, rows = wtReadCSV(t, path)
		}
		wtCheckRows(t, base, d, rows)
		mem.AssertSize(t, 0)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fig.svg")
	if err := WriteFileAtomic(path, []byte("<svg/>")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o644 || st.Size() != 6 {
		t.Fatalf("stat %v, %v; want 6 bytes, mode 0644", st, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("%d entries in the folder, want only fig.svg", len(ents))
	}
	if err := WriteFileAtomic(filepath.Join(dir, "no", "fig.svg"), []byte("x")); err == nil {
		t.Error("missing folder: no error")
	}
}

// WriteRecord writes a batch whole, and on an error writes nothing.
func TestWriteRecord(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil))
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{4, 5, 6}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	dir := t.TempDir()
	for _, tc := range []struct {
		name, file string
		ok         bool
	}{{"parquet", "r.parquet", true}, {"csv", "r.csv", true}, {"unknown format", "r.txt", false}} {
		path := filepath.Join(dir, tc.file)
		err := WriteRecord(context.Background(), path, rec, WithWriteAllocator(mem))
		if tc.ok != (err == nil) {
			t.Fatalf("%s: error %v", tc.name, err)
		}
		res, rerr := readAll(t, path, []string{"v"})
		switch {
		case !tc.ok && !errors.Is(rerr, fs.ErrNotExist):
			t.Errorf("%s: failed write left %s (read error %v)", tc.name, path, rerr)
		case tc.ok && (rerr != nil || len(res.rows) != 3 || res.rows[2][0] != "6"):
			t.Errorf("%s: read back %v, %v", tc.name, res.rows, rerr)
		}
	}
}
