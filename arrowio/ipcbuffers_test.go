package arrowio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// fileMessageAt returns the position of the metadata flatbuffer of block k
// of an IPC file (a dictionary block when dict) and its length.
func fileMessageAt(t *testing.T, b []byte, dict bool, k int) (int, int) {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(b[len(b)-10:]))
	fb := b[len(b)-10-n : len(b)-10]
	footer, err := metaRoot(fb)
	if err != nil {
		t.Fatal(err)
	}
	slot := slotFooterBatches
	if dict {
		slot = slotFooterDicts
	}
	start, count, err := footer.vector(slot, ipcBlockSize)
	if err != nil || k >= count {
		t.Fatalf("block %d of %d: %v", k, count, err)
	}
	blk := fb[start+ipcBlockSize*k:]
	off := int(binary.LittleEndian.Uint64(blk))
	metaLen := int(binary.LittleEndian.Uint32(blk[8:]))
	return off + 8, metaLen - 8
}

// patchBuffer sets the offset and length of buffer i of the record batch
// (or dictionary batch) message whose metadata is at b[p:p+n].
func patchBuffer(t *testing.T, b []byte, p, n, i int, off, length int64) {
	t.Helper()
	start, count, err := batchTable(t, b, p, n).vector(slotBatchBuffers, ipcBufferSize)
	if err != nil || i >= count {
		t.Fatalf("buffer %d of %d: %v", i, count, err)
	}
	e := p + start + ipcBufferSize*i
	binary.LittleEndian.PutUint64(b[e:], uint64(off))
	binary.LittleEndian.PutUint64(b[e+8:], uint64(length))
}

// batchTable returns the RecordBatch table of the record batch or
// dictionary batch message whose metadata is at b[p:p+n].
func batchTable(t *testing.T, b []byte, p, n int) metaTable {
	t.Helper()
	m, err := metaRoot(b[p : p+n])
	if err != nil {
		t.Fatal(err)
	}
	rb, _, err := m.table(slotMessageHeader)
	if err != nil {
		t.Fatal(err)
	}
	if kind, _ := m.byteField(slotMessageHeaderType); kind == metaHeaderDictionary {
		if rb, _, err = rb.table(slotDictBatchData); err != nil {
			t.Fatal(err)
		}
	}
	return rb
}

// bufferOffset returns the offset of buffer i of the message at b[p:p+n].
func bufferOffset(t *testing.T, b []byte, p, n, i int) int64 {
	t.Helper()
	start, _, _ := batchTable(t, b, p, n).vector(slotBatchBuffers, ipcBufferSize)
	return int64(binary.LittleEndian.Uint64(b[p+start+ipcBufferSize*i:]))
}

// TestIPCLyingBuffers reads IPC files and streams whose record batch or
// dictionary batch messages place a buffer outside the message body:
// arrow-go slices the body there without a check, which once ended in
// "runtime error: slice bounds out of range". Open and Inspect refuse them
// with ErrCorrupt naming the file and the buffer.
func TestIPCLyingBuffers(t *testing.T) {
	floats := floatRecord(100)
	full := makeTestRecord(memory.NewGoAllocator(), 20, 8)
	defer floats.Release()
	defer full.Release()
	zstdFile := func(t *testing.T) []byte {
		var buf bytes.Buffer
		w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(floats.Schema()), ipc.WithZstd())
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(floats); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	type locate func(t *testing.T, b []byte) (int, int)
	stream := func(k int) locate {
		return func(t *testing.T, b []byte) (int, int) { return streamMessageAt(t, b, k) }
	}
	file := func(dict bool) locate {
		return func(t *testing.T, b []byte) (int, int) { return fileMessageAt(t, b, dict, 0) }
	}
	cases := []struct {
		name    string
		file    string // "-": the stream on standard input
		rec     arrow.RecordBatch
		bytes   func(t *testing.T, rec arrow.RecordBatch) []byte
		at      locate
		buf     int
		off     int64 // -1: keep the offset
		length  int64
		inMsg   string
		inspect bool // Inspect reads these values too
	}{
		{"stream buffer length past the body", "-", floats, streamOf, stream(1), 1, -1, 1 << 40, "outside the message body", false},
		{"stream file buffer length past the body", "s.arrows", floats, streamOf, stream(1), 1, -1, 1 << 40, "outside the message body", true},
		{"stream buffer at a negative offset", "-", floats, streamOf, stream(1), 1, -64, 800, "outside the message body", false},
		{"stream buffer offset past the body", "s.arrows", floats, streamOf, stream(1), 1, 1 << 20, 8, "outside the message body", true},
		{"stream dictionary buffer past the body", "s.arrows", full, streamOf, stream(1), 2, -1, 1 << 33, "dictionary batch", true},
		{"file buffer length past the body", "f.arrow", floats, fileOf, file(false), 1, -1, 1 << 40, "record batch 0: buffer 1 of 1099511627776 bytes at offset 0 lies outside the message body of 800 bytes", true},
		{"file buffer offset past the body", "f.arrow", floats, fileOf, file(false), 1, 4096, 800, "outside the message body", true},
		{"file dictionary buffer past the body", "f.arrow", full, fileOf, file(true), 2, -1, 1 << 33, "dictionary batch", true},
		{"file compressed buffer shorter than its length", "f.arrow", floats, func(t *testing.T, _ arrow.RecordBatch) []byte { return zstdFile(t) },
			file(false), 1, -1, 4, "shorter than", true},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := c.bytes(t, c.rec)
			p, n := c.at(t, data)
			off := c.off
			if off == -1 {
				off = bufferOffset(t, data, p, n, c.buf)
			}
			patchBuffer(t, data, p, n, c.buf, off, c.length)
			path := c.file
			if path != "-" {
				path = filepath.Join(dir, c.file)
				writeFile(t, path, data)
			}
			mem := &maxAllocator{Allocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
			r, err := Open(t.Context(), path, WithReadAllocator(mem), WithStdin(bytes.NewReader(data)))
			if err == nil {
				for r.Next() {
				}
				err = r.Err()
				r.Release()
			}
			check := func(what string, err error) {
				var e *Error
				switch {
				case !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.inMsg):
					t.Errorf("%s: %s: got %v, want ErrCorrupt saying %q", c.name, what, err, c.inMsg)
				case !errors.As(err, &e) || e.File != path:
					t.Errorf("%s: %s: %v does not name %s", c.name, what, err, path)
				case strings.Contains(err.Error(), "runtime error"):
					t.Errorf("%s: %s: %v", c.name, what, err)
				}
			}
			check("Open", err)
			if mem.max > 8<<20 {
				t.Errorf("%s: allocated %d bytes at once", c.name, mem.max)
			}
			mem.Allocator.(*memory.CheckedAllocator).AssertSize(t, 0)
			if c.inspect {
				_, err := Inspect(t.Context(), path)
				check("Inspect", err)
			}
		})
	}
}

func streamOf(t *testing.T, rec arrow.RecordBatch) []byte { return ipcStreamBytes(t, rec) }
func fileOf(t *testing.T, rec arrow.RecordBatch) []byte   { return ipcFileBytes(t, rec) }
