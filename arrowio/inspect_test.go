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
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func wtProvenance() *Provenance {
	return &Provenance{
		Tool: "ordinate", Version: "test", Stage: "bvp",
		Params:      map[string]any{"dims": 2.0, "solver": "svd"},
		Seed:        1,
		Inputs:      []InputInfo{{Role: "in", Path: "in.parquet", Rows: 350, Bytes: 1234}},
		RowsWritten: 350, Started: "2025-01-02T03:04:05Z", RunSeconds: 1.5,
	}
}

// wtWriteFile writes d to path (with prov as metadata unless nil) and
// checks the writer for leaks.
func wtWriteFile(t testing.TB, path string, d *wtData, prov *Provenance, opts ...WriteOption) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	w, err := Create(context.Background(), path, wtSchema(), append([]WriteOption{WithWriteAllocator(mem)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if prov != nil {
		js, err := prov.JSON()
		if err != nil {
			t.Fatal(err)
		}
		w.SetMetadata(MetadataKey, js)
	}
	lo := 0
	for _, k := range []int{1, 0, 60, 113, 113, 113} {
		k = min(k, d.n-lo)
		rec := d.batch(mem, lo, lo+k)
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		lo += k
	}
	if lo != d.n {
		t.Fatalf("wrote %d of %d rows", lo, d.n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestInspectWritten(t *testing.T) {
	const n = 350
	d := wtMake(n, 8)
	prov := wtProvenance()
	wantProv, _ := prov.JSON()
	for _, tc := range []struct {
		base      string
		format    Format
		groups    []int64 // Parquet only
		prov      bool
		wantTypes []arrow.DataType // nil: the written schema
	}{
		{base: "i.parquet", format: FormatParquet, groups: []int64{100, 100, 100, 50}, prov: true},
		{base: "i.arrow", format: FormatIPCFile, prov: true, wantTypes: []arrow.DataType{
			arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String, arrow.BinaryTypes.String,
			arrow.ListOf(arrow.PrimitiveTypes.Float64), arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float64)}},
		{base: "i.arrows", format: FormatIPCStream, prov: true},
		// CSV: types guessed from the text; the lists are text.
		{base: "i.csv", format: FormatCSV, wantTypes: []arrow.DataType{
			arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String, arrow.BinaryTypes.String,
			arrow.BinaryTypes.String, arrow.BinaryTypes.String}},
	} {
		path := filepath.Join(t.TempDir(), tc.base)
		wtWriteFile(t, path, d, prov, WithRowGroupRows(100))
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		fi, err := Inspect(context.Background(), path, WithReadAllocator(mem))
		mem.AssertSize(t, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.base, err)
		}
		st, _ := os.Stat(path)
		if fi.Path != path || fi.Format != tc.format || fi.Rows != n || fi.Bytes != st.Size() {
			t.Errorf("%s: path %q format %v rows %d bytes %d, want %q %v %d %d", tc.base, fi.Path, fi.Format, fi.Rows, fi.Bytes, path, tc.format, n, st.Size())
		}
		var groups []int64
		for _, rg := range fi.RowGroups {
			groups = append(groups, rg.Rows)
			if rg.Compression != "ZSTD" || rg.CompressedBytes <= 0 || rg.UncompressedBytes <= 0 {
				t.Errorf("%s: row group %+v", tc.base, rg)
			}
		}
		if fmt.Sprint(groups) != fmt.Sprint(tc.groups) {
			t.Errorf("%s: row groups %v, want %v", tc.base, groups, tc.groups)
		}
		want := wtSchema()
		if fi.Schema.NumFields() != want.NumFields() {
			t.Fatalf("%s: schema %v", tc.base, fi.Schema)
		}
		for i, f := range want.Fields() {
			wt := f.Type
			if tc.wantTypes != nil {
				wt = tc.wantTypes[i]
			}
			if g := fi.Schema.Field(i); g.Name != f.Name || !arrow.TypeEqual(g.Type, wt) || !g.Nullable {
				t.Errorf("%s: column %d is %v, want %s %s nullable", tc.base, i, g, f.Name, wt)
			}
		}
		if !tc.prov {
			if fi.Provenance != nil || len(fi.Metadata) != 0 {
				t.Errorf("%s: provenance %+v, metadata %v, want none", tc.base, fi.Provenance, fi.Metadata)
			}
			continue
		}
		if fi.Metadata["origin"] != "test" {
			t.Errorf("%s: metadata %v lacks origin=test", tc.base, fi.Metadata)
		}
		if _, ok := fi.Metadata[parquetSchemaKey]; ok {
			t.Errorf("%s: metadata holds %s", tc.base, parquetSchemaKey)
		}
		if fi.Provenance == nil {
			t.Fatalf("%s: no provenance", tc.base)
		}
		if got, _ := fi.Provenance.JSON(); got != wantProv {
			t.Errorf("%s: provenance\n%s\nwant\n%s", tc.base, got, wantProv)
		}
	}
}

// wtCheckInspectError fails unless err is an *Error for path that wraps
// one of the sentinels.
func wtCheckInspectError(t testing.TB, name, path string, err error, sentinels ...error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.File != path {
		t.Errorf("%s: error %v (%T) is not an *Error for %s", name, err, err, path)
		return
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return
		}
	}
	t.Errorf("%s: error %v wraps none of %v", name, err, sentinels)
}

func TestInspectEmpty(t *testing.T) {
	dir := t.TempDir()
	for _, base := range []string{"e.parquet", "e.arrow", "e.csv", "e.dat"} {
		path := filepath.Join(dir, base)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := Inspect(context.Background(), path)
		if fi != nil {
			t.Errorf("%s: got %+v", base, fi)
		}
		wtCheckInspectError(t, base, path, err, ErrEmpty)
	}
	// Blank lines only: no header.
	path := filepath.Join(dir, "blank.csv")
	if err := os.WriteFile(path, []byte("\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Inspect(context.Background(), path)
	wtCheckInspectError(t, "blank.csv", path, err, ErrEmpty)
}

// wtValidFiles writes a small Parquet, Arrow file and Arrow stream file and
// returns their bytes by extension.
func wtValidFiles(t testing.TB, n int) map[string][]byte {
	t.Helper()
	d := wtMake(n, 9)
	dir := t.TempDir()
	out := map[string][]byte{}
	for _, ext := range []string{".parquet", ".arrow", ".arrows"} {
		path := filepath.Join(dir, "v"+ext)
		wtWriteFile(t, path, d, wtProvenance(), WithRowGroupRows(max(1, int64(n/3))))
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out[ext] = b
	}
	return out
}

func TestInspectTruncated(t *testing.T) {
	files := wtValidFiles(t, 350)
	dir := t.TempDir()
	for ext, b := range files {
		n := len(b)
		for _, cut := range []int{1, 4, 7, 8, 12, n / 3, n / 2, n - 100, n - 12, n - 9, n - 8, n - 5, n - 4, n - 1} {
			name := fmt.Sprintf("%s cut at %d of %d", ext, cut, n)
			path := filepath.Join(dir, "t"+ext)
			if err := os.WriteFile(path, b[:cut], 0o644); err != nil {
				t.Fatal(err)
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			fi, err := Inspect(context.Background(), path, WithReadAllocator(mem))
			mem.AssertSize(t, 0)
			if err == nil {
				t.Errorf("%s: no error, %d rows", name, fi.Rows)
				continue
			}
			wtCheckInspectError(t, name, path, err, ErrCorrupt)
		}
	}
}

// inspectNoPanic runs Inspect on data stored as dir/name, failing on a
// panic or a leak, and returns its error.
func inspectNoPanic(t testing.TB, dir, name string, data []byte) (fi *FileInfo, err error) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s: Inspect panicked: %v", name, r)
		}
	}()
	fi, err = Inspect(context.Background(), path, WithReadAllocator(mem))
	if err != nil {
		wtCheckInspectError(t, name, path, err, ErrCorrupt, ErrEmpty, ErrFormat)
	}
	return fi, err
}

// Random damage: Inspect never panics and reports damage as ErrCorrupt.
// Damage anywhere cannot always be seen without reading the Parquet data,
// but damage to the footer's length or magic must always be.
func TestInspectDamaged(t *testing.T) {
	const n = 350
	files := wtValidFiles(t, n)
	dir := t.TempDir()
	rnd := rand.New(rand.NewPCG(11, 12))
	for ext, b := range files {
		errs := 0
		for v := range 100 {
			bad := bytes.Clone(b)
			for range 1 + rnd.IntN(8) {
				bad[rnd.IntN(len(bad))] = byte(rnd.Uint32())
			}
			fi, err := inspectNoPanic(t, dir, "d"+ext, bad)
			if err != nil {
				errs++
			} else if ext == ".parquet" && fi.Rows != n {
				// Row counts are cross-checked between footer and row groups.
				t.Errorf("%s variant %d: no error, %d rows", ext, v, fi.Rows)
			}
		}
		t.Logf("%s: %d of 100 randomly damaged files reported", ext, errs)
		if ext == ".arrows" {
			continue // a stream has no footer
		}
		for v := range 100 {
			bad := bytes.Clone(b)
			pos := len(bad) - 8 + rnd.IntN(8) // footer length or trailing magic
			bad[pos] ^= byte(1 + rnd.IntN(255))
			if _, err := inspectNoPanic(t, dir, "f"+ext, bad); err == nil {
				t.Errorf("%s variant %d: damage at byte %d of %d not reported", ext, v, pos, len(bad))
			}
		}
	}
}

func TestInspectBadProvenance(t *testing.T) {
	d := wtMake(50, 10)
	for _, base := range []string{"p.parquet", "p.arrow"} {
		path := filepath.Join(t.TempDir(), base)
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		w, err := Create(context.Background(), path, wtSchema(), WithWriteAllocator(mem))
		if err != nil {
			t.Fatal(err)
		}
		w.SetMetadata(MetadataKey, `{"stage": "bvp", "seed": "not a number"`)
		if err := wtWrite(t, mem, w, d); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		mem.AssertSize(t, 0)
		fi, err := Inspect(context.Background(), path)
		wtCheckInspectError(t, base, path, err, ErrCorrupt)
		if err == nil || !strings.Contains(err.Error(), MetadataKey) {
			t.Errorf("%s: error %v does not name the key", base, err)
		}
		if fi == nil || fi.Rows != 50 || fi.Provenance != nil {
			t.Errorf("%s: file info %+v, want 50 rows and no provenance", base, fi)
		}
	}
}

func TestInspectCSV(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text string
		rows       int64
		fields     string // "name:type:nullable ..." when no error
		err        error  // the sentinel, or nil
		errRow     int64  // Error.Row when err != nil
	}{
		{name: "header only", text: "a,b\n", rows: 0, fields: "a:utf8:true b:utf8:true"},
		{name: "types", text: "\ufeffi,f,s,e\n1,1.5,x,\n-2,NaN,3,\n3,4,y,\n", rows: 3, fields: "i:int64:false f:float64:false s:utf8:false e:utf8:true"},
		{name: "nulls", text: "i,f\n1,\n,2e3\n", rows: 2, fields: "i:int64:true f:float64:true"},
		{name: "quoted newline", text: "s\n\"a\nb\"\n\"\"\n", rows: 2, fields: "s:utf8:true"},
		{name: "ragged", text: "a,b\n1,2\n3\n", err: ErrCorrupt, errRow: 1},
		{name: "bare quote", text: "a\nx\"y\n", err: ErrCorrupt, errRow: 0},
	} {
		path := filepath.Join(dir, "c.csv")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := Inspect(context.Background(), path)
		if tc.err != nil {
			wtCheckInspectError(t, tc.name, path, err, tc.err)
			var e *Error
			if errors.As(err, &e) && e.Row != tc.errRow {
				t.Errorf("%s: error row %d, want %d", tc.name, e.Row, tc.errRow)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var fields []string
		for _, f := range fi.Schema.Fields() {
			fields = append(fields, fmt.Sprintf("%s:%s:%v", f.Name, f.Type, f.Nullable))
		}
		if got := strings.Join(fields, " "); got != tc.fields || fi.Rows != tc.rows || fi.Format != FormatCSV {
			t.Errorf("%s: %v %d rows %q, want %d rows %q", tc.name, fi.Format, fi.Rows, got, tc.rows, tc.fields)
		}
	}
}

func TestInspectNotATable(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(txt, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	fakePq := filepath.Join(dir, "fake.parquet")
	if err := os.WriteFile(fakePq, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		is   error
	}{
		{txt, ErrFormat},
		{fakePq, ErrCorrupt},
		{dir, ErrCorrupt}, // a dataset of one damaged part (notes.txt is no part)
		{filepath.Join(dir, "*.txt"), ErrFormat},
		{filepath.Join(dir, "*.csv"), ErrNoFiles},
		{"-", ErrFormat},
		{filepath.Join(dir, "missing.parquet"), fs.ErrNotExist},
	} {
		_, err := Inspect(context.Background(), tc.path)
		if !errors.Is(err, tc.is) {
			t.Errorf("%s: error %v, want %v", tc.path, err, tc.is)
		}
	}
}

func TestInspectCancelled(t *testing.T) {
	files := wtValidFiles(t, 90)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, ext := range []string{".arrow", ".arrows"} {
		path := filepath.Join(dir, "c"+ext)
		if err := os.WriteFile(path, files[ext], 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Inspect(ctx, path); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", ext, err)
		}
	}
}

func TestFileInfoWriteText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.parquet")
	wtWriteFile(t, path, wtMake(350, 13), wtProvenance(), WithRowGroupRows(100))
	fi, err := Inspect(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := fi.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{
		"format:  parquet\n",
		"rows:    350\n",
		fmt.Sprintf("bytes:   %d (", fi.Bytes),
		"columns: 6\n",
		"  i64  int64 ",
		"  cat  dictionary<values=utf8, indices=int32, ordered=false>  nullable\n",
		"  fsl  fixed_size_list<element: float64, nullable>[3]",
		"row groups: 4\n",
		"  3  50 rows ",
		"ZSTD\n",
		"metadata:\n  origin  test\n",
		"provenance:\n  {\n    \"tool\": \"ordinate\",",
		"\"stage\": \"bvp\"",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
}

// FuzzInspect: on any bytes, under any of the names, Inspect returns a
// FileInfo or an *Error, never panics and leaks nothing.
func FuzzInspect(f *testing.F) {
	exts := []string{".parquet", ".arrow", ".arrows", ".csv"}
	for ext, b := range wtValidFiles(f, 40) {
		for i, e := range exts {
			if e == ext {
				f.Add(b, uint8(i))
			}
		}
	}
	f.Add([]byte("a,b\n1,2\n"), uint8(3))
	dir := f.TempDir() // each worker runs one input at a time
	f.Fuzz(func(t *testing.T, data []byte, ext uint8) {
		fi, err := inspectNoPanic(t, dir, "f"+exts[int(ext)%len(exts)], data)
		if err == nil && (fi.Rows < 0 || fi.Schema == nil) {
			t.Errorf("no error but rows %d, schema %v", fi.Rows, fi.Schema)
		}
	})
}
