package arrowio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

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

// hostileIPC is an IPC input damaged where arrow-go would allocate
// without bound, recurse without bound, or panic on the values.
type hostileIPC struct {
	name   string
	file   string // "-" for a stream on stdin
	data   func(t *testing.T) []byte
	inMsg  string // in the error of Open; "" when Open need not refuse it
	atOpen bool   // Open fails, not the reading
	// inspect is in the error of Inspect (which reads a stream of stdin
	// from a .arrows file); "" when the damage is to what Inspect does
	// not check, the values.
	inspect string
}

func hostileIPCCases(t *testing.T) []hostileIPC {
	rec := floatRecord(100)
	full := makeTestRecord(memory.NewGoAllocator(), 20, 8)
	t.Cleanup(func() {
		rec.Release()
		full.Release()
	})
	bodyLen := func(n uint64) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			b := ipcStreamBytes(t, rec)
			p, k := streamMessageAt(t, b, 1)
			m, _ := metaRoot(b[p : p+k])
			binary.LittleEndian.PutUint64(b[p+fieldPos(t, m, slotMessageBodyLength):], n)
			return b
		}
	}
	// The data buffer of rec compressed, its uncompressed length claimed
	// to be n bytes, which arrow-go allocates before decompressing.
	compressed := func(n uint64) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			var buf bytes.Buffer
			w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(rec.Schema()), ipc.WithZstd())
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			b := buf.Bytes()
			prefix := append(binary.LittleEndian.AppendUint64(nil, 8*100), 0x28, 0xb5, 0x2f, 0xfd) // length, zstd magic
			if bytes.Count(b, prefix) != 1 {
				t.Fatal("no single compressed data buffer")
			}
			binary.LittleEndian.PutUint64(b[bytes.Index(b, prefix):], n)
			return b
		}
	}
	return []hostileIPC{
		{"file compressed buffer of 2^40 bytes", "t.arrow", compressed(1 << 40), "was asked for", false, "was asked for"},
		// Inspect decodes whole batches, bounded by the file; Open's
		// batches are bounded by the batch size, not the file.
		{"file compressed buffer of 1 GiB", "t.arrow", compressed(1 << 30), "", false, "was asked for"},
		{"stream body length beyond the limit", "-", bodyLen(1 << 40), "message body length", false, "message body length"},
		{"stream body length beyond the data", "-", bodyLen(1500 << 20), "unexpected EOF", false, "message body length"},
		{"stream file body length beyond the file", "t.arrows", bodyLen(1500 << 20), "message body length", false, "message body length"},
		{"stream schema message length", "-", func(t *testing.T) []byte {
			b := ipcStreamBytes(t, rec)
			binary.LittleEndian.PutUint32(b[4:], 1<<30)
			return b
		}, "metadata length", true, "metadata length"},
		{"file children vector length", "t.arrow", func(t *testing.T) []byte {
			b := ipcFileBytes(t, full)
			l := footerField(t, b, 5) // the list column
			v, err := l.ref(slotFieldChildren)
			if err != nil || v == 0 {
				t.Fatalf("no children vector: %v", err)
			}
			binary.LittleEndian.PutUint32(b[len(b)-10-int(binary.LittleEndian.Uint32(b[len(b)-10:]))+v:], 0x7fffffff)
			return b
		}, "damaged IPC metadata", true, "damaged IPC metadata"},
		{"file decimal scale", "t.arrow", func(t *testing.T) []byte {
			b := ipcFileBytes(t, full)
			dec := footerField(t, b, 4)
			typ, _, err := dec.table(slotFieldType)
			if err != nil {
				t.Fatal(err)
			}
			// Decimal { precision: int; scale: int; bitWidth: int }
			off := len(b) - 10 - int(binary.LittleEndian.Uint32(b[len(b)-10:]))
			binary.LittleEndian.PutUint32(b[off+fieldPos(t, typ, 1):], 200)
			return b
		}, "precision or scale out of range", true, ""},
		{"no columns", "t.arrow", func(t *testing.T) []byte {
			empty := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1<<40)
			defer empty.Release()
			return ipcFileBytes(t, empty)
		}, "no columns", true, ""},
		{"null column of 2^40 rows", "-", func(t *testing.T) []byte {
			nulls := array.NewNull(1 << 40)
			defer nulls.Release()
			s := arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.Null, Nullable: true}}, nil)
			r := array.NewRecordBatch(s, []arrow.Array{nulls}, 1<<40)
			defer r.Release()
			return ipcStreamBytes(t, r)
		}, "holds only 0 bytes", false, ""},
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
		}, "nest deeper", true, "nest deeper"},
	}
}

// TestIPCHostileMetadata reads the hostile inputs with Open: each must end
// in ErrCorrupt, with no allocation beyond a few megabytes.
func TestIPCHostileMetadata(t *testing.T) {
	dir := t.TempDir()
	for _, c := range hostileIPCCases(t) {
		if c.inMsg == "" {
			continue
		}
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

// TestInspectHostileMetadata: Inspect refuses the hostile metadata as
// Open does, through the same checks.
func TestInspectHostileMetadata(t *testing.T) {
	dir := t.TempDir()
	for _, c := range hostileIPCCases(t) {
		if c.inspect == "" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			mem := &maxAllocator{Allocator: memory.NewCheckedAllocator(memory.NewGoAllocator())}
			name := c.file
			if name == "-" {
				name = "t.arrows"
			}
			path := filepath.Join(dir, name)
			writeFile(t, path, c.data(t))
			_, err := Inspect(t.Context(), path, WithReadAllocator(mem))
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.inspect) {
				t.Errorf("%s: got %v, want ErrCorrupt saying %q", c.name, err, c.inspect)
			}
			if mem.max > 8<<20 {
				t.Errorf("%s: allocated %d bytes at once", c.name, mem.max)
			}
			mem.Allocator.(*memory.CheckedAllocator).AssertSize(t, 0)
		})
	}
}

// wtSchemaMessage is the IPC stream that serialises wtSchema: schema
// message and end-of-stream marker, as pqarrow stores it.
func wtSchemaMessage(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(wtSchema()))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Every byte of a schema message damaged in turn: checkSchemaMessage never
// panics, and what it lets through arrow-go decodes without crashing the
// process (which is what the check is for: the crashes it prevents cannot
// be recovered).
func TestCheckSchemaMessage(t *testing.T) {
	good := wtSchemaMessage(t)
	if err := checkSchemaMessage(good); err != nil {
		t.Fatalf("valid schema message refused: %v", err)
	}
	refused := 0
	for p := range good {
		for _, v := range []byte{0x00, 0x7f, 0xff} {
			b := bytes.Clone(good)
			b[p] = v
			if err := checkSchemaMessage(b); err != nil {
				refused++
				continue
			}
			func() {
				defer func() { _ = recover() }() // arrow-go may panic; that is recoverable
				if r, err := ipc.NewReader(bytes.NewReader(b)); err == nil {
					r.Release()
				}
			}()
		}
	}
	if refused == 0 {
		t.Errorf("no damaged message refused")
	}
	for _, b := range [][]byte{nil, {1, 2}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, good[:20]} {
		if err := checkSchemaMessage(b); err == nil {
			t.Errorf("%x: accepted", b)
		}
	}
}

// schemaMessageWithBody returns the stream of the schema message of s
// (without end-of-stream marker) whose Message table claims a body of
// bodyLen bytes. Writers leave out a body length of 0, so the table is
// made anew in front of the old one and points to its schema.
func schemaMessageWithBody(t *testing.T, s *arrow.Schema, bodyLen int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(s))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	old := b[8 : 8+int(binary.LittleEndian.Uint32(b[4:]))]
	m, err := metaRoot(old)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := m.ref(slotMessageHeader)
	if err != nil || schema == 0 {
		t.Fatalf("no schema: %v", err)
	}
	version, err := m.field(0)
	if err != nil || version == 0 {
		t.Fatalf("no version: %v", err)
	}
	// Root offset, vtable at 4 (12 bytes: slots 0-3), table at 16 (20
	// bytes: soffset, bodyLength, header, version, header type), then the
	// old buffer but its root offset, shifted by 32.
	const vt, tab, shift = 4, 16, 32
	meta := make([]byte, tab+20, tab+20+len(old))
	le := binary.LittleEndian
	le.PutUint32(meta[0:], tab)
	for i, v := range []uint16{12, 20, 16, 18, 12, 4} { // lengths, then slots 0-3
		le.PutUint16(meta[vt+2*i:], v)
	}
	le.PutUint32(meta[tab:], tab-vt)
	le.PutUint64(meta[tab+4:], uint64(bodyLen))
	le.PutUint32(meta[tab+12:], uint32(schema+shift-(tab+12)))
	copy(meta[tab+16:], old[version:version+2])
	meta[tab+18] = metaHeaderSchema
	meta = append(meta, old[4:]...)
	out := binary.LittleEndian.AppendUint32([]byte{0xff, 0xff, 0xff, 0xff}, uint32(len(meta)))
	return append(out, meta...)
}

// TestCheckSchemaMessageBodyLength: a schema message may claim a body only
// as long as the bytes that follow it (arrow-go allocates it at once).
func TestCheckSchemaMessageBodyLength(t *testing.T) {
	for _, c := range []struct {
		bodyLen, follow int64
		ok              bool
	}{
		{0, 0, true},
		{8, 8, true},
		{9, 8, false},
		{1 << 40, 8, false},
		{-1, 8, false},
	} {
		b := schemaMessageWithBody(t, testSchema, c.bodyLen)
		// The rewritten message must still be one arrow-go reads.
		if c.bodyLen == 0 {
			r, err := ipc.NewReader(bytes.NewReader(append(bytes.Clone(b), 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0)))
			if err != nil {
				t.Fatalf("rewritten message: %v", err)
			}
			if d := schemaDiff(testSchema, r.Schema()); d != "" {
				t.Errorf("rewritten message: %s", d)
			}
			r.Release()
		}
		b = append(b, make([]byte, c.follow)...)
		err := checkSchemaMessage(b)
		if (err == nil) != c.ok {
			t.Errorf("body %d, %d bytes after: error %v, want ok %v", c.bodyLen, c.follow, err, c.ok)
		}
	}
}

// sparseFile is a file of size bytes that are 0 but for tail at the end.
type sparseFile struct {
	size int64
	tail []byte
}

func (f sparseFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > f.size {
		return 0, io.EOF
	}
	clear(p)
	start := f.size - int64(len(f.tail))
	for i := range p {
		if k := off + int64(i) - start; k >= 0 {
			p[i] = f.tail[k]
		}
	}
	return len(p), nil
}

// TestVerifyIPCFooter damages the trailer of an IPC file: the footer
// length must lie between 4 bytes and the file less its magic numbers,
// and below the 64 MiB arrow-go allows.
func TestVerifyIPCFooter(t *testing.T) {
	rec := floatRecord(10)
	defer rec.Release()
	good := ipcFileBytes(t, rec)
	size := int64(len(good))
	withLen := func(n int64) io.ReaderAt {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint32(b[len(b)-10:], uint32(n))
		return bytes.NewReader(b)
	}
	trailer := func(n int64) []byte {
		return append(binary.LittleEndian.AppendUint32(nil, uint32(n)), magicARROW1...)
	}
	bad := bytes.Clone(good)
	bad[len(bad)-1] = 'X'
	for _, c := range []struct {
		name string
		r    io.ReaderAt
		size int64
		want string // in the error; "" for none
	}{
		{"valid", bytes.NewReader(good), size, ""},
		{"17 bytes", bytes.NewReader(append([]byte("ARROW1\x00"), trailer(4)...)), 17, "too small"},
		{"no magic at the end", bytes.NewReader(bad), size, "no ARROW1"},
		{"length 0", withLen(0), size, "footer length"},
		{"length 3", withLen(3), size, "footer length"},
		{"length -1", withLen(-1), size, "footer length"},
		{"footer in the leading magic", withLen(size - 17), size, "footer length"},
		{"beyond 64 MiB", sparseFile{1 << 30, trailer(maxIPCMetadata + 1)}, 1 << 30, "footer length"},
	} {
		err := verifyIPCFooter(c.r, c.size)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (!errors.Is(err, errIPCMeta) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want an error saying %q", c.name, err, c.want)
		}
	}
	// Up to the leading magic the length is not refused as such.
	if err := verifyIPCFooter(withLen(size-18), size); err != nil && strings.Contains(err.Error(), "footer length") {
		t.Errorf("footer after the leading magic: %v", err)
	}
}

// TestMetaTable damages a small flatbuffer made by hand: a root table
// whose slot 0 holds a vector of two 4-byte elements.
func TestMetaTable(t *testing.T) {
	le := binary.LittleEndian
	good := make([]byte, 36)
	le.PutUint32(good[0:], 12) // root table
	le.PutUint16(good[4:], 8)  // vtable: its length,
	le.PutUint16(good[6:], 8)  // the table's length,
	le.PutUint16(good[8:], 4)  // slot 0 at 4,
	le.PutUint16(good[10:], 0) // slot 1 absent
	le.PutUint32(good[12:], 8) // table: soffset to the vtable,
	le.PutUint32(good[16:], 8) // slot 0: offset to the vector
	le.PutUint32(good[24:], 2) // vector: length 2
	read := func(b []byte) (start, n int, err error) {
		root, err := metaRoot(b)
		if err != nil {
			return 0, 0, err
		}
		if p, err := root.field(1); err != nil || p != 0 {
			return 0, 0, errors.New("slot 1 present")
		}
		return root.vector(0, 4)
	}
	if start, n, err := read(good); start != 28 || n != 2 || err != nil {
		t.Fatalf("valid: vector at %d of length %d, %v; want 28, 2", start, n, err)
	}
	for _, c := range []struct {
		name   string
		at     int
		v      uint32
		width  int
		wantOK bool
	}{
		{"valid", 24, 2, 4, true},
		{"empty vector", 24, 0, 4, true},
		{"vtable length odd", 4, 7, 2, false},
		{"vtable length 2", 4, 2, 2, false},
		{"vtable beyond the buffer", 4, 40, 2, false},
		{"table length 2", 6, 2, 2, false},
		{"table beyond the buffer", 6, 30, 2, false},
		{"field beyond the table", 8, 8, 2, false},
		{"root beyond the buffer", 0, 34, 4, false},
		{"vtable before the buffer", 12, 20, 4, false},
		{"offset to the last 3 bytes", 16, 17, 4, false},
		{"vector too long", 24, 3, 4, false},
		{"vector of 2^31", 24, 1 << 31, 4, false},
	} {
		b := bytes.Clone(good)
		if c.width == 2 {
			le.PutUint16(b[c.at:], uint16(c.v))
		} else {
			le.PutUint32(b[c.at:], c.v)
		}
		_, _, err := read(b)
		if (err == nil) != c.wantOK {
			t.Errorf("%s: error %v, want ok %v", c.name, err, c.wantOK)
		}
	}
	// What ref finds is read as 4 bytes at least (a length or an
	// soffset): it refuses a target nearer the end.
	for target, wantOK := range map[int]bool{32: true, 33: false} {
		b := bytes.Clone(good)
		le.PutUint32(b[16:], uint32(target-16))
		root, err := metaRoot(b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := root.ref(0); (err == nil) != wantOK {
			t.Errorf("ref to %d of %d bytes: error %v, want ok %v", target, len(b), err, wantOK)
		}
	}
}

// sharedFieldsSchema makes a Schema flatbuffer by hand whose fields vector
// holds n offsets to one and the same (empty) Field table.
func sharedFieldsSchema(n int) []byte {
	le := binary.LittleEndian
	vec := 20               // the fields vector
	fv := vec + 4 + 4*n     // the Field vtable
	b := make([]byte, fv+8) // then the Field table
	le.PutUint32(b[0:], 12) // root: the Schema table
	le.PutUint16(b[4:], 8)  // its vtable: length,
	le.PutUint16(b[6:], 8)  // table length,
	le.PutUint16(b[10:], 4) // slot 1 (fields) at 4
	le.PutUint32(b[12:], 8) // the table: soffset to its vtable,
	le.PutUint32(b[16:], uint32(vec-16))
	le.PutUint32(b[vec:], uint32(n))
	for i := range n {
		p := vec + 4 + 4*i
		le.PutUint32(b[p:], uint32(fv+4-p))
	}
	le.PutUint16(b[fv:], 4)   // Field vtable: no slots,
	le.PutUint16(b[fv+2:], 4) // table of 4 bytes
	le.PutUint32(b[fv+4:], 4) // the Field table
	return b
}

// TestCheckMetaSchemaSharedFields: the fields visited are bounded by an
// eighth of the buffer (each takes a 4-byte offset and a 4-byte table at
// least), so that fields sharing tables cannot multiply arrow-go's work.
func TestCheckMetaSchemaSharedFields(t *testing.T) {
	for _, c := range []struct {
		n      int
		shared bool
	}{
		{1, false},
		{4, false},  // 48 bytes: 6 fields allowed
		{8, false},  // 64 bytes: 8 allowed
		{9, true},   // 68 bytes: 8 allowed
		{100, true}, // 432 bytes: 54 allowed
	} {
		b := sharedFieldsSchema(c.n)
		s, err := metaRoot(b)
		if err != nil {
			t.Fatalf("%d fields: %v", c.n, err)
		}
		err = checkMetaSchema(s)
		if got := err != nil && strings.Contains(err.Error(), "share"); got != c.shared || (err != nil && !got) {
			t.Errorf("%d fields in %d bytes: %v, want refused as shared %v", c.n, len(b), err, c.shared)
		}
	}
}
