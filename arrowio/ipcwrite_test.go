package arrowio

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// wtReadIPC reads an IPC output back: a file, a stream file, or stdout.
func wtReadIPC(t *testing.T, path string, stdout *bytes.Buffer) (*arrow.Schema, [][]any) {
	t.Helper()
	switch {
	case path == "-":
		return wtReadIPCStream(t, stdout)
	case FormatOf(path) == FormatIPCFile:
		return wtReadIPCFile(t, path)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return wtReadIPCStream(t, f)
}

func TestIPCMetadata(t *testing.T) {
	d := wtMake(120, 6)
	for _, base := range []string{"m.arrow", "m.arrows", "-"} {
		for _, batches := range []bool{true, false} {
			name := base
			if !batches {
				name += " without batches"
			}
			t.Run(name, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				path, stdout := base, &bytes.Buffer{}
				if base != "-" {
					path = filepath.Join(t.TempDir(), base)
				}
				w, err := Create(context.Background(), path, wtSchema(), WithWriteAllocator(mem), WithStdout(stdout))
				if err != nil {
					t.Fatal(err)
				}
				defer w.Abort()
				w.SetMetadata(MetadataKey, "first")
				w.SetMetadata(MetadataKey, "before")
				w.SetMetadata("origin", "overridden")
				want := map[string]string{MetadataKey: "before", "origin": "overridden"}
				if batches {
					if err := wtWrite(t, mem, w, d); err != nil {
						t.Fatal(err)
					}
					// Too late: the schema is out.
					w.SetMetadata(MetadataKey, "after")
					w.SetMetadata("late", "x")
				} else {
					// No batch yet: the schema goes out at Close.
					w.SetMetadata("late", "x")
					want["late"] = "x"
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				schema, rows := wtReadIPC(t, path, stdout)
				md := schema.Metadata()
				if md.Len() != len(want) {
					t.Errorf("%s: metadata %v, want %v", name, md, want)
				}
				for k, v := range want {
					if got := md.FindKey(k); got < 0 || md.Values()[got] != v {
						t.Errorf("%s: metadata %s: got %v, want %q", name, k, md, v)
					}
				}
				if batches {
					wtCheckRows(t, name, d, rows)
				} else if len(rows) != 0 {
					t.Errorf("%s: %d rows, want none", name, len(rows))
				}
			})
		}
	}
}

// The IPC file stores dictionary columns decoded (one dictionary per file
// is all the format allows); the stream keeps them.
func TestIPCDictionaryColumns(t *testing.T) {
	d := wtMake(200, 7)
	for _, tc := range []struct {
		base string
		want arrow.DataType
	}{
		{"d.arrow", arrow.BinaryTypes.String},
		{"d.arrows", wtSchema().Field(3).Type},
	} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		path := filepath.Join(t.TempDir(), tc.base)
		w, err := Create(context.Background(), path, wtSchema(), WithWriteAllocator(mem))
		if err != nil {
			t.Fatal(err)
		}
		if err := wtWrite(t, mem, w, d); err != nil { // each batch its own dictionary
			t.Fatalf("%s: %v", tc.base, err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("%s: %v", tc.base, err)
		}
		schema, rows := wtReadIPC(t, path, nil)
		if got := schema.Field(3).Type; !arrow.TypeEqual(got, tc.want) {
			t.Errorf("%s: cat is %s, want %s", tc.base, got, tc.want)
		}
		for i, f := range schema.Fields() {
			if i != 3 && !arrow.TypeEqual(f.Type, wtSchema().Field(i).Type) {
				t.Errorf("%s: %s is %s, want %s", tc.base, f.Name, f.Type, wtSchema().Field(i).Type)
			}
		}
		wtCheckRows(t, tc.base, d, rows)
		mem.AssertSize(t, 0)
	}
}

// The IPC file is zstd-compressed, the stream is not: 10,000 zeros take
// 80,000 bytes raw.
func TestIPCCompression(t *testing.T) {
	const n = 10_000
	schema := arrow.NewSchema([]arrow.Field{{Name: "z", Type: arrow.PrimitiveTypes.Float64}}, nil)
	for _, tc := range []struct {
		base     string
		min, max int64
	}{
		{"z.arrow", 0, n * 8 / 10},
		{"z.arrows", n * 8, 2 * n * 8},
	} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		path := filepath.Join(t.TempDir(), tc.base)
		w, err := Create(context.Background(), path, schema, WithWriteAllocator(mem))
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewFloat64Builder(mem)
		b.AppendValues(make([]float64, n), nil)
		col := b.NewArray()
		b.Release()
		rec := array.NewRecordBatch(schema, []arrow.Array{col}, n)
		col.Release()
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() < tc.min || st.Size() > tc.max {
			t.Errorf("%s: %d bytes, want %d…%d", tc.base, st.Size(), tc.min, tc.max)
		}
		mem.AssertSize(t, 0)
	}
}
