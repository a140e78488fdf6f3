package arrowio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ipcFilePart reads the record batches of an Arrow IPC file one by one.
type ipcFilePart struct {
	f      *os.File
	r      *ipc.FileReader
	schema *arrow.Schema // projected
	idx    []int         // projection; nil for all columns
	i      int           // next record batch
}

func (p *ipcFilePart) next(context.Context) (arrow.RecordBatch, error) {
	if p.i >= p.r.NumRecords() {
		return nil, nil
	}
	rec, err := p.r.RecordBatchAt(p.i)
	p.i++
	if err != nil {
		return nil, err
	}
	return fixNulls(projectBatch(rec, p.schema, p.idx)), nil
}

func (p *ipcFilePart) close() error {
	if p.r != nil {
		p.r.Close()
	}
	return p.f.Close()
}

// ipcStreamPart reads an Arrow IPC stream: standard input, or a file that
// holds a stream.
type ipcStreamPart struct {
	c      io.Closer // the file, or nil for stdin
	r      *ipc.Reader
	schema *arrow.Schema // projected
	idx    []int
}

func (p *ipcStreamPart) next(context.Context) (arrow.RecordBatch, error) {
	if !p.r.Next() {
		return nil, p.r.Err()
	}
	rec := p.r.RecordBatch()
	rec.Retain()
	return fixNulls(projectBatch(rec, p.schema, p.idx)), nil
}

// fixNulls gives the arrays of type null that arrow-go's IPC readers make
// the one (nil) buffer that arrow-go's validation and the Arrow layout
// expect; it releases rec when it returns a new batch.
func fixNulls(rec arrow.RecordBatch) arrow.RecordBatch {
	if !hasNullType(rec.Schema()) {
		return rec
	}
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		d := fixNullData(c.Data())
		cols[i] = array.MakeFromData(d)
		d.Release()
		defer cols[i].Release()
	}
	out := array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
	rec.Release()
	return out
}

func hasNullType(s *arrow.Schema) bool {
	var has func(t arrow.DataType, depth int) bool
	has = func(t arrow.DataType, depth int) bool {
		if t.ID() == arrow.NULL {
			return true
		}
		if d, ok := t.(*arrow.DictionaryType); ok && depth < metaMaxDepth && has(d.ValueType, depth+1) {
			return true
		}
		if n, ok := t.(arrow.NestedType); ok && depth < metaMaxDepth {
			for _, f := range n.Fields() {
				if has(f.Type, depth+1) {
					return true
				}
			}
		}
		return false
	}
	for _, f := range s.Fields() {
		if has(f.Type, 0) {
			return true
		}
	}
	return false
}

// fixNullData returns a copy of the tree of d (sharing its buffers) in
// which every null array has one nil buffer.
func fixNullData(d arrow.ArrayData) *array.Data {
	bufs := d.Buffers()
	if d.DataType().ID() == arrow.NULL && len(bufs) == 0 {
		bufs = []*memory.Buffer{nil}
	}
	children := make([]arrow.ArrayData, len(d.Children()))
	for i, c := range d.Children() {
		children[i] = fixNullData(c)
		defer children[i].Release()
	}
	out := array.NewData(d.DataType(), d.Len(), bufs, children, d.NullN(), d.Offset())
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
		fd := fixNullData(dict)
		out.SetDictionary(fd)
		fd.Release()
	}
	return out
}

func (p *ipcStreamPart) close() error {
	p.r.Release()
	if p.c != nil {
		return p.c.Close()
	}
	return nil
}

// magicStream is how an IPC stream begins: the continuation marker of the
// schema message.
var magicStream = []byte{0xff, 0xff, 0xff, 0xff}

// openIPCFiles checks the schemas of all files and returns a reader over
// them. A file named as an IPC file that holds a stream (as some tools
// write under .arrow) is read as a stream.
func openIPCFiles(ctx context.Context, src Source, format Format, cfg *readConfig) (Reader, error) {
	open := func(_ context.Context, name string) (partReader, error) {
		p, _, err := openIPCPart(name, format, cfg)
		return p, err
	}
	return openChecked(ctx, src, cfg, func(name string) (partReader, *arrow.Schema, error) {
		return openIPCPart(name, format, cfg)
	}, open)
}

// openIPCPart opens name and reads its schema (and, for an IPC file, its
// footer).
func openIPCPart(name string, format Format, cfg *readConfig) (partReader, *arrow.Schema, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, fileError(name, err)
	}
	ok := false
	defer func() {
		if !ok { // also when arrow-go panics
			f.Close()
		}
	}()
	head := make([]byte, len(magicARROW1))
	n, err := io.ReadFull(f, head)
	switch {
	case n == 0 && (err == io.EOF || err == nil):
		return nil, nil, &Error{File: name, Row: -1, Err: fmt.Errorf("%w: empty file", ErrEmpty)}
	case err != nil && err != io.ErrUnexpectedEOF:
		return nil, nil, fileError(name, err)
	}
	if format == FormatIPCFile && !bytes.HasPrefix(head, magicARROW1) && bytes.HasPrefix(head, magicStream) {
		format = FormatIPCStream
	}
	if format == FormatIPCStream {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, nil, fileError(name, err)
		}
		p, s, err := newIPCStreamPart(name, bufio.NewReader(f), f, cfg)
		if err != nil {
			return nil, nil, err
		}
		ok = true
		return p, s, nil
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fileError(name, err)
	}
	if err := verifyIPCFooter(f, fi.Size()); err != nil {
		return nil, nil, err
	}
	// A block is checked against the file size, so the file size is limit
	// enough for a message body.
	r, err := ipc.NewFileReader(f, ipc.WithAllocator(cfg.mem), ipc.WithBodySizeLimit(max(fi.Size(), 1)))
	if err != nil {
		return nil, nil, err
	}
	idx, err := columnIndices(name, r.Schema(), cfg.columns)
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	p := &ipcFilePart{f: f, r: r, idx: idx, schema: projectSchema(r.Schema(), idx)}
	ok = true
	return p, p.schema, nil
}

// newIPCStreamPart reads the schema of the stream in br; c is closed with
// the part.
func newIPCStreamPart(name string, br *bufio.Reader, c io.Closer, cfg *readConfig) (*ipcStreamPart, *arrow.Schema, error) {
	if _, err := br.Peek(1); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, &Error{File: name, Row: -1, Err: fmt.Errorf("%w: empty stream", ErrEmpty)}
		}
		return nil, nil, fileError(name, err)
	}
	msgs := newStreamMessages(br, cfg.mem)
	r, err := ipc.NewReaderFromMessageReader(msgs, ipc.WithAllocator(cfg.mem)) // releases msgs on error
	if err != nil {
		return nil, nil, err
	}
	idx, err := columnIndices(name, r.Schema(), cfg.columns)
	if err != nil {
		r.Release()
		return nil, nil, err
	}
	p := &ipcStreamPart{c: c, r: r, idx: idx, schema: projectSchema(r.Schema(), idx)}
	return p, p.schema, nil
}

// openStdin reads an Arrow IPC stream from cfg.stdin. Its schema is read
// here, so that a bad stream fails in Open.
func openStdin(ctx context.Context, cfg *readConfig) (Reader, error) {
	const name = "-"
	var p *ipcStreamPart
	var s *arrow.Schema
	err := catchPanic(func() (err error) {
		if p, s, err = newIPCStreamPart(name, bufio.NewReader(cfg.stdin), nil, cfg); err == nil {
			if err = checkTypes(s); err != nil {
				p.close()
			}
		}
		return err
	})
	if err != nil {
		return nil, readError(name, -1, err)
	}
	src := Source{Path: name, Files: []string{name}}
	return newMultiReader(ctx, src, s, cfg, p, func(context.Context, string) (partReader, error) {
		return nil, errors.New("standard input cannot be read twice")
	}), nil
}

// Arrow IPC metadata is a flatbuffer that arrow-go trusts: it allocates
// slices as long as the vector lengths it finds there and recurses as deep
// as fields nest, so that a few damaged bytes can make it ask for hundreds of
// gigabytes or overflow the stack, which no recover can catch. The checks
// below verify the parts of the metadata that arrow-go sizes allocations or
// recursion by (the schema with its fields, names and metadata, and the
// footer's vectors) before arrow-go reads it. Slot numbers are those of
// Schema.fbs, File.fbs and Message.fbs of the Arrow format.

const (
	metaMaxDepth      = 64       // nesting of fields; real schemas are far shallower
	maxIPCMetadata    = 64 << 20 // largest message metadata, as arrow-go's default
	metaTypeTimestamp = 10       // members of the Type union that hold a vector
	metaTypeUnion     = 14
	metaHeaderSchema  = 1  // the Schema member of the MessageHeader union
	ipcFooterTrailer  = 10 // int32 footer length + "ARROW1"
	ipcMinFileSize    = 16 // two magics and a footer length
	ipcBlockSize      = 24 // struct Block
	metaMaxVector     = 1 << 31
)

var errIPCMeta = errors.New("damaged IPC metadata")

// metaTable is a table of the flatbuffer b at position p.
type metaTable struct {
	b      []byte
	p      int
	vt     int // its vtable
	vtLen  int
	objLen int
}

func metaU32(b []byte, p int) (int, error) {
	if p < 0 || p > len(b)-4 {
		return 0, errIPCMeta
	}
	return int(binary.LittleEndian.Uint32(b[p:])), nil
}

func metaU16(b []byte, p int) (int, error) {
	if p < 0 || p > len(b)-2 {
		return 0, errIPCMeta
	}
	return int(binary.LittleEndian.Uint16(b[p:])), nil
}

func metaTableAt(b []byte, p int) (metaTable, error) {
	soff, err := metaU32(b, p)
	if err != nil {
		return metaTable{}, err
	}
	t := metaTable{b: b, p: p, vt: p - int(int32(uint32(soff)))}
	if t.vtLen, err = metaU16(b, t.vt); err != nil {
		return t, err
	}
	if t.objLen, err = metaU16(b, t.vt+2); err != nil {
		return t, err
	}
	if t.vtLen < 4 || t.vtLen%2 != 0 || t.vt+t.vtLen > len(b) || t.objLen < 4 || t.p+t.objLen > len(b) {
		return t, errIPCMeta
	}
	return t, nil
}

// metaRoot is the root table of b.
func metaRoot(b []byte) (metaTable, error) {
	off, err := metaU32(b, 0)
	if err != nil {
		return metaTable{}, err
	}
	return metaTableAt(b, off)
}

// field gives the position of the field in slot, or 0 when it is absent.
func (t metaTable) field(slot int) (int, error) {
	if 4+2*slot >= t.vtLen {
		return 0, nil
	}
	off, err := metaU16(t.b, t.vt+4+2*slot)
	if err != nil || off == 0 {
		return 0, err
	}
	if off+1 > t.objLen {
		return 0, errIPCMeta
	}
	return t.p + off, nil
}

// ref follows the offset in slot; 0 when the field is absent.
func (t metaTable) ref(slot int) (int, error) {
	pos, err := t.field(slot)
	if pos == 0 || err != nil {
		return 0, err
	}
	off, err := metaU32(t.b, pos)
	if err != nil {
		return 0, err
	}
	if pos+off > len(t.b)-4 {
		return 0, errIPCMeta
	}
	return pos + off, nil
}

// byteField reads a ubyte field (0 when absent).
func (t metaTable) byteField(slot int) (int, error) {
	pos, err := t.field(slot)
	if pos == 0 || err != nil {
		return 0, err
	}
	if pos >= len(t.b) {
		return 0, errIPCMeta
	}
	return int(t.b[pos]), nil
}

// vector checks the vector (or string, elem 1) in slot and returns the
// position of its first element and its length.
func (t metaTable) vector(slot, elem int) (start, n int, err error) {
	v, err := t.ref(slot)
	if v == 0 || err != nil {
		return 0, 0, err
	}
	n, _ = metaU32(t.b, v)
	start = v + 4
	if n >= metaMaxVector || n > (len(t.b)-start)/elem {
		return 0, 0, errIPCMeta
	}
	return start, n, nil
}

// table follows the table in slot; ok is false when it is absent.
func (t metaTable) table(slot int) (sub metaTable, ok bool, err error) {
	p, err := t.ref(slot)
	if p == 0 || err != nil {
		return sub, false, err
	}
	sub, err = metaTableAt(t.b, p)
	return sub, err == nil, err
}

// tables calls f for every table of the vector of tables in slot.
func (t metaTable) tables(slot int, f func(metaTable) error) error {
	start, n, err := t.vector(slot, 4)
	if err != nil {
		return err
	}
	for i := range n {
		e := start + 4*i
		off, _ := metaU32(t.b, e)
		sub, err := metaTableAt(t.b, e+off)
		if err != nil {
			return err
		}
		if err := f(sub); err != nil {
			return err
		}
	}
	return nil
}

func checkMetaKeyValues(t metaTable, slot int) error {
	return t.tables(slot, func(kv metaTable) error {
		if _, _, err := kv.vector(0, 1); err != nil {
			return err
		}
		_, _, err := kv.vector(1, 1)
		return err
	})
}

// checkMetaSchema checks a Schema table and its fields.
func checkMetaSchema(s metaTable) error {
	c := metaChecker{limit: len(s.b) / 8}
	if err := s.tables(1, func(f metaTable) error { return c.field(f, 1) }); err != nil {
		return err
	}
	if err := checkMetaKeyValues(s, 2); err != nil {
		return err
	}
	_, _, err := s.vector(3, 8)
	return err
}

// metaChecker bounds the fields visited: a table takes more than 8 bytes,
// so more visits than that come from offsets shared between fields, which
// would make arrow-go's decoding exponential.
type metaChecker struct{ fields, limit int }

func (c *metaChecker) field(f metaTable, depth int) error {
	if c.fields++; c.fields > c.limit {
		return fmt.Errorf("%w: fields share their tables", errIPCMeta)
	}
	if depth > metaMaxDepth {
		return fmt.Errorf("%w: fields nest deeper than %d", errIPCMeta, metaMaxDepth)
	}
	if _, _, err := f.vector(0, 1); err != nil { // name
		return err
	}
	kind, err := f.byteField(2)
	if err != nil {
		return err
	}
	typ, ok, err := f.table(3)
	if err != nil {
		return err
	}
	if ok {
		switch kind {
		case metaTypeTimestamp: // timezone
			_, _, err = typ.vector(1, 1)
		case metaTypeUnion: // typeIds
			_, _, err = typ.vector(1, 4)
		}
		if err != nil {
			return err
		}
	}
	dict, ok, err := f.table(4)
	if err != nil {
		return err
	}
	if ok {
		if _, _, err := dict.table(1); err != nil { // indexType
			return err
		}
	}
	if err := f.tables(5, func(ch metaTable) error { return c.field(ch, depth+1) }); err != nil {
		return err
	}
	return checkMetaKeyValues(f, 6)
}

// verifyIPCFooter checks the footer of an Arrow IPC file of the given size.
func verifyIPCFooter(r io.ReaderAt, size int64) error {
	if size < ipcMinFileSize {
		return fmt.Errorf("%w: file too small", errIPCMeta)
	}
	trailer := make([]byte, ipcFooterTrailer)
	if _, err := r.ReadAt(trailer, size-ipcFooterTrailer); err != nil {
		return err
	}
	if !bytes.Equal(trailer[4:], magicARROW1) {
		return fmt.Errorf("%w: no ARROW1 at the end of the file", errIPCMeta)
	}
	n := int64(int32(binary.LittleEndian.Uint32(trailer)))
	if n <= 0 || n > size-ipcFooterTrailer || n > maxIPCMetadata {
		return fmt.Errorf("%w: footer length %d", errIPCMeta, n)
	}
	b := make([]byte, n)
	if _, err := r.ReadAt(b, size-ipcFooterTrailer-n); err != nil {
		return err
	}
	footer, err := metaRoot(b)
	if err != nil {
		return err
	}
	s, ok, err := footer.table(1)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: footer without schema", errIPCMeta)
	}
	if err := checkMetaSchema(s); err != nil {
		return err
	}
	if _, _, err := footer.vector(2, ipcBlockSize); err != nil {
		return err
	}
	if _, _, err := footer.vector(3, ipcBlockSize); err != nil {
		return err
	}
	return checkMetaKeyValues(footer, 4)
}

// streamMessages reads the messages of an IPC stream for ipc.Reader, in
// place of arrow-go's message reader: it checks the schema message before
// arrow-go decodes it, and it reads a message body in growing pieces, so
// that a damaged body length costs only the bytes that are really there
// (arrow-go allocates the whole length first).
type streamMessages struct {
	r      io.Reader
	mem    memory.Allocator
	schema bool         // the schema message has been read
	msg    *ipc.Message // the last message, released by the next call
	refs   atomic.Int64
}

func newStreamMessages(r io.Reader, mem memory.Allocator) *streamMessages {
	m := &streamMessages{r: r, mem: mem}
	m.refs.Add(1)
	return m
}

func (m *streamMessages) Retain() { m.refs.Add(1) }

func (m *streamMessages) Release() {
	if m.refs.Add(-1) == 0 && m.msg != nil {
		m.msg.Release()
		m.msg = nil
	}
}

// Message returns the next message, or io.EOF at the end of the stream.
func (m *streamMessages) Message() (*ipc.Message, error) {
	if m.msg != nil {
		m.msg.Release()
		m.msg = nil
	}
	meta, err := readIPCMeta(m.r)
	if err != nil {
		return nil, err
	}
	var bodyLen int64
	if !m.schema {
		bodyLen, err = checkMetaSchemaMessage(meta)
		m.schema = true
	} else {
		bodyLen, err = messageBodyLen(meta)
	}
	if err != nil {
		return nil, err
	}
	body, err := readIPCBody(m.r, bodyLen, m.mem)
	if err != nil {
		return nil, err
	}
	m.msg = ipc.NewMessage(memory.NewBufferBytes(meta), body)
	body.Release() // the message holds it
	return m.msg, nil
}

// readIPCMeta reads the length prefix and the metadata flatbuffer of the
// next message of a stream; it returns io.EOF at the end-of-stream marker
// or at the end of the input.
func readIPCMeta(r io.Reader) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("%w: message length: %w", errIPCMeta, err)
	}
	if bytes.Equal(head[:], magicStream) {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return nil, fmt.Errorf("%w: message length: %w", errIPCMeta, noEOF(err))
		}
	} // else the format before Arrow 0.15, without continuation marker
	n := int32(binary.LittleEndian.Uint32(head[:]))
	switch {
	case n == 0:
		return nil, io.EOF
	case n < 4 || n > maxIPCMetadata:
		return nil, fmt.Errorf("%w: message metadata length %d", errIPCMeta, n)
	}
	meta := make([]byte, n)
	if _, err := io.ReadFull(r, meta); err != nil {
		return nil, fmt.Errorf("%w: message metadata: %w", errIPCMeta, noEOF(err))
	}
	return meta, nil
}

// noEOF turns io.EOF within a message into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readIPCBody reads a message body of n bytes into a buffer that grows
// with the bytes read.
func readIPCBody(r io.Reader, n int64, mem memory.Allocator) (*memory.Buffer, error) {
	if n > maxAlloc {
		return nil, fmt.Errorf("%w: message body length %d", errIPCMeta, n)
	}
	buf := memory.NewResizableBuffer(mem)
	var got int64
	for got < n {
		step := min(n-got, max(got, 1<<20))
		buf.Resize(int(got + step))
		k, err := io.ReadFull(r, buf.Bytes()[got:got+step])
		got += int64(k)
		if err != nil {
			buf.Release()
			return nil, fmt.Errorf("message body: %d of %d bytes: %w", got, n, noEOF(err))
		}
	}
	return buf, nil
}

// messageBodyLen returns the body length of a Message flatbuffer.
func messageBodyLen(meta []byte) (int64, error) {
	m, err := metaRoot(meta)
	if err != nil {
		return 0, err
	}
	return bodyLenField(m)
}

func bodyLenField(m metaTable) (int64, error) {
	pos, err := m.field(3)
	if err != nil || pos == 0 {
		return 0, err
	}
	if pos > len(m.b)-8 {
		return 0, errIPCMeta
	}
	n := int64(binary.LittleEndian.Uint64(m.b[pos:]))
	if n < 0 {
		return 0, fmt.Errorf("%w: message body length %d", errIPCMeta, n)
	}
	return n, nil
}

// checkMetaSchemaMessage checks a Message flatbuffer that must hold a schema,
// and returns its body length.
func checkMetaSchemaMessage(meta []byte) (int64, error) {
	m, err := metaRoot(meta)
	if err != nil {
		return 0, err
	}
	if kind, err := m.byteField(1); err != nil || kind != metaHeaderSchema {
		return 0, fmt.Errorf("%w: the stream does not start with a schema", errIPCMeta)
	}
	s, ok, err := m.table(2)
	if err != nil || !ok {
		return 0, fmt.Errorf("%w: schema message without schema", errIPCMeta)
	}
	if err := checkMetaSchema(s); err != nil {
		return 0, err
	}
	if err := checkMetaKeyValues(m, 4); err != nil {
		return 0, err
	}
	return bodyLenField(m)
}

// verifyStoredSchema checks the Arrow schema that Parquet writers of arrow
// store, base64-encoded, under the footer key ARROW:schema: pqarrow reads
// it with arrow-go's IPC reader, without limits.
func verifyStoredSchema(encoded string) error {
	var b []byte
	var err error
	if len(encoded)%4 == 0 { // decoded as pqarrow does
		b, err = base64.StdEncoding.DecodeString(encoded)
	}
	if len(b) == 0 || err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(encoded); err != nil {
			return fmt.Errorf("%w: ARROW:schema: %w", errIPCMeta, err)
		}
	}
	r := bytes.NewReader(b)
	meta, err := readIPCMeta(r)
	if err != nil {
		return fmt.Errorf("ARROW:schema: %w", noEOF(err))
	}
	bodyLen, err := checkMetaSchemaMessage(meta)
	if err != nil {
		return fmt.Errorf("ARROW:schema: %w", err)
	}
	if bodyLen > int64(r.Len()) {
		return fmt.Errorf("%w: ARROW:schema: body length %d", errIPCMeta, bodyLen)
	}
	return nil
}
