package arrowio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// maxAllocator records the largest single allocation.
type maxAllocator struct {
	memory.Allocator
	mu  sync.Mutex
	max int
}

func (a *maxAllocator) note(n int) {
	a.mu.Lock()
	a.max = max(a.max, n)
	a.mu.Unlock()
}

func (a *maxAllocator) Allocate(n int) []byte {
	a.note(n)
	return a.Allocator.Allocate(n)
}

func (a *maxAllocator) Reallocate(n int, b []byte) []byte {
	a.note(n)
	return a.Allocator.Reallocate(n, b)
}

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

// streamMessageAt returns the position of the metadata of message k of an
// IPC stream (with continuation markers) and its length.
func streamMessageAt(t *testing.T, b []byte, k int) (int, int) {
	t.Helper()
	p := 0
	for i := 0; ; i++ {
		n := int(binary.LittleEndian.Uint32(b[p+4:]))
		m, err := metaRoot(b[p+8 : p+8+n])
		if err != nil {
			t.Fatal(err)
		}
		if i == k {
			return p + 8, n
		}
		body, err := bodyLenField(m)
		if err != nil {
			t.Fatal(err)
		}
		p += 8 + n + int(body)
	}
}

// fieldPos returns the position in b of the field in slot of table t,
// which must be present.
func fieldPos(t *testing.T, tab metaTable, slot int) int {
	t.Helper()
	p, err := tab.field(slot)
	if err != nil || p == 0 {
		t.Fatalf("slot %d: position %d, %v", slot, p, err)
	}
	return p
}

// footerField returns the footer flatbuffer of an IPC file (a slice of b)
// and the table of field i of its schema.
func footerField(t *testing.T, b []byte, i int) metaTable {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(b[len(b)-10:]))
	fb := b[len(b)-10-n : len(b)-10]
	footer, err := metaRoot(fb)
	if err != nil {
		t.Fatal(err)
	}
	schema, _, err := footer.table(1)
	if err != nil {
		t.Fatal(err)
	}
	var fields []metaTable
	if err := schema.tables(1, func(f metaTable) error { fields = append(fields, f); return nil }); err != nil {
		t.Fatal(err)
	}
	return fields[i]
}

// TestIPCHostileMetadata damages the metadata of IPC inputs where arrow-go
// would allocate without bound, recurse without bound, or panic on the
// values; each must end in ErrCorrupt, with no allocation beyond a few
// megabytes.
func TestIPCHostileMetadata(t *testing.T) {
	rec := floatRecord(100)
	defer rec.Release()
	full := makeTestRecord(memory.NewGoAllocator(), 20, 8)
	defer full.Release()

	cases := []struct {
		name   string
		file   string // "-" for a stream on stdin
		data   func(t *testing.T) []byte
		inMsg  string
		atOpen bool
	}{
		{"stream body length beyond the limit", "-", func(t *testing.T) []byte {
			b := ipcStreamBytes(t, rec)
			p, n := streamMessageAt(t, b, 1)
			m, _ := metaRoot(b[p : p+n])
			binary.LittleEndian.PutUint64(b[p+fieldPos(t, m, 3):], 1<<40)
			return b
		}, "message body length", false},
		{"stream body length beyond the data", "-", func(t *testing.T) []byte {
			b := ipcStreamBytes(t, rec)
			p, n := streamMessageAt(t, b, 1)
			m, _ := metaRoot(b[p : p+n])
			binary.LittleEndian.PutUint64(b[p+fieldPos(t, m, 3):], 1500<<20)
			return b
		}, "unexpected EOF", false},
		{"stream schema message length", "-", func(t *testing.T) []byte {
			b := ipcStreamBytes(t, rec)
			binary.LittleEndian.PutUint32(b[4:], 1<<30)
			return b
		}, "metadata length", true},
		{"file children vector length", "t.arrow", func(t *testing.T) []byte {
			b := ipcFileBytes(t, full)
			l := footerField(t, b, 5) // the list column
			v, err := l.ref(5)
			if err != nil || v == 0 {
				t.Fatalf("no children vector: %v", err)
			}
			binary.LittleEndian.PutUint32(b[len(b)-10-int(binary.LittleEndian.Uint32(b[len(b)-10:]))+v:], 0x7fffffff)
			return b
		}, "damaged IPC metadata", true},
		{"file decimal scale", "t.arrow", func(t *testing.T) []byte {
			b := ipcFileBytes(t, full)
			dec := footerField(t, b, 4)
			typ, _, err := dec.table(3)
			if err != nil {
				t.Fatal(err)
			}
			// Decimal { precision: int; scale: int; bitWidth: int }
			off := len(b) - 10 - int(binary.LittleEndian.Uint32(b[len(b)-10:]))
			binary.LittleEndian.PutUint32(b[off+fieldPos(t, typ, 1):], 200)
			return b
		}, "precision or scale out of range", true},
		{"no columns", "t.arrow", func(t *testing.T) []byte {
			empty := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1<<40)
			defer empty.Release()
			return ipcFileBytes(t, empty)
		}, "no columns", true},
		{"null column of 2^40 rows", "-", func(t *testing.T) []byte {
			nulls := array.NewNull(1 << 40)
			defer nulls.Release()
			s := arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.Null, Nullable: true}}, nil)
			r := array.NewRecordBatch(s, []arrow.Array{nulls}, 1<<40)
			defer r.Release()
			return ipcStreamBytes(t, r)
		}, "holds only 0 bytes", false},
		{"deep nesting", "-", func(t *testing.T) []byte {
			typ := arrow.DataType(arrow.PrimitiveTypes.Float64)
			for range metaMaxDepth + 2 {
				typ = arrow.ListOf(typ)
			}
			s := arrow.NewSchema([]arrow.Field{{Name: "deep", Type: typ, Nullable: true}}, nil)
			var buf bytes.Buffer
			w := ipc.NewWriter(&buf, ipc.WithSchema(s))
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		}, "nest deeper", true},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := &maxAllocator{Allocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
			data := c.data(t)
			path := c.file
			if path != "-" {
				path = filepath.Join(dir, c.file)
				writeFile(t, path, data)
			}
			r, err := Open(t.Context(), path, WithReadAllocator(mem), WithStdin(bytes.NewReader(data)))
			if c.atOpen && err == nil {
				r.Release()
				t.Fatalf("%s: Open succeeded", c.name)
			}
			if err == nil {
				for r.Next() {
				}
				err = r.Err()
				r.Release()
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.inMsg) {
				t.Errorf("%s: got %v, want ErrCorrupt saying %q", c.name, err, c.inMsg)
			}
			if mem.max > 8<<20 {
				t.Errorf("%s: allocated %d bytes at once", c.name, mem.max)
			}
			mem.Allocator.(*memory.CheckedAllocator).AssertSize(t, 0)
		})
	}
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
