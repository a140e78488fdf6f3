package arrowio

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The fuzz tests check the promise of Open on any bytes: no panic, no
// leak (unless arrow-go panicked inside, see afterPanic), every error an
// *Error wrapping a sentinel, row numbers that count the rows, and every
// batch handed out safe to read value by value. Seeds are small valid
// files; testdata/fuzz holds inputs that exhausted memory before the
// metadata checks of ipcverify.go.

// fuzzRecords are the seed tables: the full test schema, a record with a
// single float column and one with no rows.
func fuzzRecords(tb testing.TB) []arrow.RecordBatch {
	mem := memory.NewGoAllocator()
	full := makeTestRecord(mem, 12, 9)
	fb := array.NewFloat64Builder(mem)
	fb.AppendValues([]float64{1, 2.5, -3}, []bool{true, false, true})
	col := fb.NewArray()
	fb.Release()
	floats := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil),
		[]arrow.Array{col}, 3)
	col.Release()
	empty := full.NewSlice(0, 0)
	tb.Cleanup(func() {
		full.Release()
		floats.Release()
		empty.Release()
	})
	return []arrow.RecordBatch{full, floats, empty}
}

func FuzzOpenParquet(f *testing.F) {
	for _, rec := range fuzzRecords(f) {
		data := parquetBytes(f, 5, rec)
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "f.parquet", data, ErrCorrupt, ErrEmpty)
	})
}

func FuzzOpenIPCFile(f *testing.F) {
	for _, rec := range fuzzRecords(f) {
		data := ipcFileBytes(f, rec)
		f.Add(data)
		f.Add(data[:len(data)-20])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "f.arrow", data, ErrCorrupt, ErrEmpty)
	})
}

func FuzzOpenIPCStream(f *testing.F) {
	for _, rec := range fuzzRecords(f) {
		data := ipcStreamBytes(f, rec, rec)
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, "-", data, ErrCorrupt, ErrEmpty)
	})
}

func FuzzOpenCSV(f *testing.F) {
	for _, s := range []string{
		"a,b,c\n1,2.5,x\n-3,NaN,\"y, z\"\n,NA,\n",
		"v\n1\n2\nabc\n3\n",
		"id,text\n1,\"line1\nline2\"\n2,\"say \"\"hi\"\"\"\n",
		"\ufeffa;b\r\n1;2\r\n",
		"a,b\n1,2\n3\n",
		"x\n1e400\n-Inf\n0x1p-2\n9223372036854775808\n",
		"a,b\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res := fuzzRead(t, "f.csv", data, ErrCorrupt, ErrEmpty)
		if res < 0 {
			return
		}
		// An independent count: encoding/csv's records less the header.
		recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil || int64(len(recs)-1) != res {
			t.Errorf("read %d rows; encoding/csv reads %d records (%v)", res, len(recs), err)
		}
	})
}

// fuzzRead opens data as a file called name ("-": standard input) and reads
// it whole. It returns the number of rows, or -1 after an error.
func fuzzRead(t *testing.T, name string, data []byte, sentinels ...error) int64 {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	path := name
	if name != "-" {
		path = filepath.Join(t.TempDir(), name)
		writeFile(t, path, data)
	}
	var rows int64
	r, err := Open(context.Background(), path, WithReadAllocator(mem), WithStdin(bytes.NewReader(data)), WithBatchSize(7))
	if err == nil {
		for r.Next() {
			rec := r.RecordBatch()
			if _, first := r.Position(); first != rows {
				t.Errorf("batch starts at row %d, want %d", first, rows)
			}
			rows += rec.NumRows()
			touchAll(rec)
		}
		err = r.Err()
		r.Release()
	}
	if !afterPanic(err) {
		mem.AssertSize(t, 0)
	}
	if err == nil {
		return rows
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return -1
		}
	}
	t.Fatalf("error %v wraps none of %v", err, sentinels)
	return -1
}
