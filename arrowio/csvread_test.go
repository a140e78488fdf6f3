package arrowio

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestCSVInference(t *testing.T) {
	const null = "(null)"
	cases := []struct {
		name  string
		text  string
		types []string   // "name type" per column
		rows  [][]string // ValueStr of every value
		meta  map[string][2]string
	}{
		{
			name:  "int",
			text:  "a,b\n1,-2\n30,+4\n",
			types: []string{"a int64", "b int64"},
			rows:  [][]string{{"1", "-2"}, {"30", "4"}},
		},
		{
			// encoding/csv skips blank lines: an empty value alone on a
			// line must be quoted.
			name:  "null tokens",
			text:  "a\n1\nNA\n\"\"\n\nnull\nN/A\nNULL\n 7 \n",
			types: []string{"a int64"},
			rows:  [][]string{{"1"}, {null}, {null}, {null}, {null}, {null}, {"7"}},
		},
		{
			name:  "float with NaN and Inf",
			text:  "x\n1.5\nNaN\nInf\n-Inf\ninf\n1e3\n2\n1e400\n",
			types: []string{"x float64"},
			rows:  [][]string{{"1.5"}, {"NaN"}, {"+Inf"}, {"-Inf"}, {"+Inf"}, {"1000"}, {"2"}, {"+Inf"}},
		},
		{
			// Integers above 2⁶³−1 are uint64, exactly: as float64 the
			// labels 2⁶⁴−1 and 2⁶⁴−2 would be one class.
			name:  "int64 overflow is uint64",
			text:  "x\n9223372036854775807\n9223372036854775808\n18446744073709551615\n18446744073709551614\n",
			types: []string{"x uint64"},
			rows:  [][]string{{"9223372036854775807"}, {"9223372036854775808"}, {"18446744073709551615"}, {"18446744073709551614"}},
		},
		{
			name:  "uint64 overflow and negatives with it are float",
			text:  "x,y\n18446744073709551616,-1\n1,18446744073709551615\n",
			types: []string{"x float64", "y float64"},
			rows:  [][]string{{"1.8446744073709552e+19", "-1"}, {"1", "1.8446744073709552e+19"}},
		},
		{
			name:  "text",
			text:  "name,n\nalice,1\nbob,2\n",
			types: []string{"name utf8", "n int64"},
			rows:  [][]string{{"alice", "1"}, {"bob", "2"}},
		},
		{
			name:  "mostly numeric with text",
			text:  "v,w\n1,1\n2.5,x\nabc,2\n3,y\nNA,z\nxyz,3\n",
			types: []string{"v utf8", "w utf8"},
			rows:  [][]string{{"1", "1"}, {"2.5", "x"}, {"abc", "2"}, {"3", "y"}, {null, "z"}, {"xyz", "3"}},
			// v: 3 numbers of 5 values; w: 3 of 6 is not more than half.
			meta: map[string][2]string{"v": {"2", "abc"}},
		},
		{
			name:  "all null column is float64",
			text:  "a,b\n,1\nNA,2\n",
			types: []string{"a float64", "b int64"},
			rows:  [][]string{{null, "1"}, {null, "2"}},
		},
		{
			name:  "header only",
			text:  "a,b\n",
			types: []string{"a float64", "b float64"},
		},
		{
			name:  "quoted fields with commas, quotes and newlines",
			text:  "id,text\n1,\"hello, world\"\n2,\"line1\nline2\"\n3,\"say \"\"hi\"\"\"\n",
			types: []string{"id int64", "text utf8"},
			rows:  [][]string{{"1", "hello, world"}, {"2", "line1\nline2"}, {"3", `say "hi"`}},
		},
		{
			name:  "text kept as written",
			text:  "s\n a \nb\n",
			types: []string{"s utf8"},
			rows:  [][]string{{" a "}, {"b"}},
		},
		{
			name:  "CRLF and byte order mark",
			text:  "\ufeffa,b\r\n1,x\r\n2,y\r\n",
			types: []string{"a int64", "b utf8"},
			rows:  [][]string{{"1", "x"}, {"2", "y"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			path := filepath.Join(t.TempDir(), "t.csv")
			writeFile(t, path, []byte(c.text))
			var names []string
			for _, ty := range c.types {
				names = append(names, strings.Fields(ty)[0])
			}
			res, err := readAll(t, path, names, WithReadAllocator(mem), WithBatchSize(4))
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			var types []string
			for _, f := range res.schema.Fields() {
				types = append(types, f.Name+" "+f.Type.String())
				want, ok := c.meta[f.Name]
				row, hasRow := f.Metadata.GetValue(MetaFirstTextRow)
				val, _ := f.Metadata.GetValue(MetaFirstTextValue)
				switch {
				case ok && (row != want[0] || val != want[1]):
					t.Errorf("%s: column %s: first text at row %q value %q, want %q %q", c.name, f.Name, row, val, want[0], want[1])
				case !ok && hasRow:
					t.Errorf("%s: column %s: unexpected first text metadata %q %q", c.name, f.Name, row, val)
				}
			}
			if !slices.Equal(types, c.types) {
				t.Errorf("%s: types %q, want %q", c.name, types, c.types)
			}
			compareRows(t, c.name, res.rows, c.rows)
		})
	}
}

func TestCSVErrors(t *testing.T) {
	cases := []struct {
		name string
		text string
		want error
		row  int64
		col  string
		msg  string
	}{
		{"ragged row", "a,b\n1,2\n3,4\n5\n6,7\n", ErrCorrupt, 2, "", "wrong number of fields"},
		{"ragged long row", "a,b\n1,2,3\n", ErrCorrupt, 0, "", "wrong number of fields"},
		{"bad quote", "a,b\n1,2\n\"x,3\n", ErrCorrupt, 1, "", "quote"},
		{"bare quote", "a\nx\"y\n", ErrCorrupt, 0, "", "bare"},
		{"duplicate header", "a,b,a\n1,2,3\n", ErrCorrupt, -1, "a", "twice"},
		{"empty header name", "a,,c\n1,2,3\n", ErrCorrupt, -1, "", "column 1 has no name"},
		{"bad quote in header", "\"a,b\n1,2\n", ErrCorrupt, -1, "", "quote"},
		{"no header", "\n\n", ErrEmpty, -1, "", "no header"},
		{"empty", "", ErrEmpty, -1, "", "empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			path := filepath.Join(t.TempDir(), "t.csv")
			writeFile(t, path, []byte(c.text))
			_, err := readAll(t, path, nil, WithReadAllocator(mem))
			if !errors.Is(err, c.want) {
				t.Fatalf("%s: got %v, want %v", c.name, err, c.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%s: %v is not an *Error", c.name, err)
			}
			if e.File != path || e.Row != c.row || e.Column != c.col {
				t.Errorf("%s: error at file %q row %d column %q, want %q %d %q", c.name, e.File, e.Row, e.Column, path, c.row, c.col)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("%s: error %q does not say %q", c.name, err, c.msg)
			}
		})
	}
}

// TestCSVParts reads a directory of CSV files: types are inferred over all
// of them, row numbers run on across them, and a selection of columns may
// find them in another order in a later file.
func TestCSVParts(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.csv"), []byte("x,y,s\n1,0.5,p\n2,1,q\n3,2,r\n"))
	writeFile(t, filepath.Join(dir, "b.csv"), []byte("x,y,s\n4,7,s\n5,oops,t\n"))
	writeFile(t, filepath.Join(dir, "c.csv"), []byte("s,x,y\nu,6.5,8\n"))

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// Without a selection the headers must agree.
	if _, err := readAll(t, dir, nil, WithReadAllocator(mem)); !errors.Is(err, ErrSchema) {
		t.Fatalf("different headers: got %v, want ErrSchema", err)
	}
	res, err := readAll(t, dir, []string{"x", "y"}, WithReadAllocator(mem), WithColumns([]string{"y", "x"}), WithBatchSize(2))
	if err != nil {
		t.Fatal(err)
	}
	types := []string{}
	for _, f := range res.schema.Fields() {
		types = append(types, f.Name+" "+f.Type.String())
	}
	if want := []string{"x float64", "y utf8"}; !slices.Equal(types, want) {
		t.Errorf("types %q, want %q", types, want)
	}
	y := res.schema.Field(1)
	if row, _ := y.Metadata.GetValue(MetaFirstTextRow); row != "4" {
		t.Errorf("first text row of y = %q, want 4 (the second row of b.csv)", row)
	}
	want := [][]string{{"1", "0.5"}, {"2", "1"}, {"3", "2"}, {"4", "7"}, {"5", "oops"}, {"6.5", "8"}}
	compareRows(t, "parts", res.rows, want)
	// Batches do not cross files: a.csv gives 2+1 rows, b.csv 2, c.csv 1.
	if want := []int64{0, 2, 3, 5}; !slices.Equal(res.firsts, want) {
		t.Errorf("first rows of batches %v, want %v", res.firsts, want)
	}
	if want := []int64{2, 1, 2, 1}; !slices.Equal(res.batchRows, want) {
		t.Errorf("batch sizes %v, want %v", res.batchRows, want)
	}
}

// TestCSVLarge checks values and batching on a file of many rows against
// the numbers it was written from.
func TestCSVLarge(t *testing.T) {
	const n = 10000
	var b strings.Builder
	b.WriteString("i,f,s\n")
	for r := range n {
		f := math.Sqrt(float64(r)) * 1e-3
		if r%97 == 0 {
			fmt.Fprintf(&b, "%d,,row%d\n", r, r)
			continue
		}
		fmt.Fprintf(&b, "%d,%s,row%d\n", r, strconv.FormatFloat(f, 'g', -1, 64), r)
	}
	path := filepath.Join(t.TempDir(), "big.csv")
	writeFile(t, path, []byte(b.String()))

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r, err := Open(context.Background(), path, WithReadAllocator(mem), WithBatchSize(1000))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var rows int64
	for r.Next() {
		rec := r.RecordBatch()
		_, first := r.Position()
		if first != rows || rec.NumRows() != 1000 {
			t.Fatalf("batch at %d with %d rows, want %d with 1000", first, rec.NumRows(), rows)
		}
		ic := rec.Column(0).(*array.Int64)
		fc := rec.Column(1).(*array.Float64)
		sc := rec.Column(2).(*array.String)
		for k := range int(rec.NumRows()) {
			row := first + int64(k)
			if ic.Value(k) != row || sc.Value(k) != "row"+strconv.FormatInt(row, 10) {
				t.Fatalf("row %d: i=%d s=%q", row, ic.Value(k), sc.Value(k))
			}
			if row%97 == 0 {
				if fc.IsValid(k) {
					t.Fatalf("row %d: f=%v, want null", row, fc.Value(k))
				}
			} else if want := math.Sqrt(float64(row)) * 1e-3; fc.Value(k) != want {
				t.Fatalf("row %d: f=%v, want %v", row, fc.Value(k), want)
			}
		}
		rows += rec.NumRows()
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if rows != n {
		t.Errorf("%d rows, want %d", rows, n)
	}
	if got := r.Schema().Field(1).Type; !arrow.TypeEqual(got, arrow.PrimitiveTypes.Float64) {
		t.Errorf("f is %s, want float64", got)
	}
}

// TestCSVWideMemory reads CSV files of 4,000 columns and a few rows: the
// memory allocated must follow the data, not the columns times the batch
// size (the builders once reserved a full batch per column, 650 KB each,
// so that 4,000 columns of 4 rows took 2.5 GB).
func TestCSVWideMemory(t *testing.T) {
	const cols, rows = 4000, 4
	const limit = 32 << 20
	cases := []struct {
		name  string
		value func(r, c int) string
		check func(a arrow.Array, r, c int) bool
	}{
		{"int", func(r, c int) string { return strconv.Itoa(r*cols + c) },
			func(a arrow.Array, r, c int) bool { return a.(*array.Int64).Value(r) == int64(r*cols+c) }},
		{"float", func(r, c int) string { return strconv.FormatFloat(float64(r*cols+c)+0.25, 'g', -1, 64) },
			func(a arrow.Array, r, c int) bool { return a.(*array.Float64).Value(r) == float64(r*cols+c)+0.25 }},
		{"text", func(r, c int) string { return "v" + strconv.Itoa(r*cols+c) },
			func(a arrow.Array, r, c int) bool { return a.(*array.String).Value(r) == "v"+strconv.Itoa(r*cols+c) }},
	}
	for _, tc := range cases {
		var b strings.Builder
		for c := range cols {
			if c > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "c%d", c)
		}
		b.WriteByte('\n')
		for r := range rows {
			for c := range cols {
				if c > 0 {
					b.WriteByte(',')
				}
				b.WriteString(tc.value(r, c))
			}
			b.WriteByte('\n')
		}
		path := filepath.Join(t.TempDir(), "wide.csv")
		writeFile(t, path, []byte(b.String()))

		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got int64
		for r.Next() {
			rec := r.RecordBatch()
			if rec.NumCols() != cols {
				t.Fatalf("%s: %d columns, want %d", tc.name, rec.NumCols(), cols)
			}
			for _, c := range []int{0, 1, cols / 2, cols - 1} {
				for k := range int(rec.NumRows()) {
					if !tc.check(rec.Column(c), int(got)+k, c) {
						t.Fatalf("%s: row %d, column %d: wrong value %s", tc.name, int(got)+k, c, rec.Column(c).ValueStr(k))
					}
				}
			}
			got += rec.NumRows()
		}
		if err := r.Err(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r.Release()
		runtime.ReadMemStats(&after)
		if got != rows {
			t.Errorf("%s: %d rows, want %d", tc.name, got, rows)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > limit {
			t.Errorf("%s: reading %d columns of %d rows (%d bytes of CSV) allocated %d MiB, want under %d MiB",
				tc.name, cols, rows, b.Len(), alloc>>20, limit>>20)
		}
	}
}
