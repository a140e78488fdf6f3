package arrowio

import (
	"bufio"
	"bytes"
	"context"
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
	projection
	c io.Closer // closed with the part; may be nil
	r *ipc.FileReader
	i int // next record batch
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
	return fixNulls(p.batch(rec)), nil
}

func (p *ipcFilePart) close() error {
	p.r.Close()
	return closeIf(p.c)
}

// ipcStreamPart reads an Arrow IPC stream: standard input, or a file that
// holds a stream.
type ipcStreamPart struct {
	projection
	c io.Closer // closed with the part; nil for stdin
	r *ipc.Reader
}

func (p *ipcStreamPart) next(context.Context) (arrow.RecordBatch, error) {
	if !p.r.Next() {
		return nil, p.r.Err()
	}
	rec := p.r.RecordBatch()
	rec.Retain()
	return fixNulls(p.batch(rec)), nil
}

func (p *ipcStreamPart) close() error {
	p.r.Release()
	return closeIf(p.c)
}

// closeIf closes c unless it is nil.
func closeIf(c io.Closer) error {
	if c == nil {
		return nil
	}
	return c.Close()
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
	f, size, err := openFile(name)
	if err != nil {
		return nil, nil, err
	}
	ok := false
	defer func() {
		if !ok { // also when arrow-go panics
			f.Close()
		}
	}()
	if format == FormatIPCFile {
		head := make([]byte, len(magicARROW1))
		n, err := f.ReadAt(head, 0)
		if err != nil && err != io.EOF {
			return nil, nil, fileError(name, err)
		}
		if head = head[:n]; !bytes.HasPrefix(head, magicARROW1) && bytes.HasPrefix(head, magicStream) {
			format = FormatIPCStream
		}
	}
	p, s, err := newIPCPart(name, f, size, format, f, cfg)
	if err != nil {
		return nil, nil, err
	}
	ok = true
	return p, s, nil
}

// newIPCPart reads the schema of the IPC file (with its footer) or stream
// f, of size bytes. Once the part is made, c is closed with it.
func newIPCPart(name string, f *os.File, size int64, format Format, c io.Closer, cfg *readConfig) (partReader, *arrow.Schema, error) {
	if format == FormatIPCStream {
		p, err := newIPCStreamPart(name, bufio.NewReader(io.NewSectionReader(f, 0, size)), size, c, cfg)
		if err != nil {
			return nil, nil, err
		}
		return p, p.schema, nil
	}
	if err := verifyIPCFooter(f, size); err != nil {
		return nil, nil, err
	}
	// A block is checked against the file size, so the file size is limit
	// enough for a message body.
	r, err := ipc.NewFileReader(f, ipc.WithAllocator(cfg.mem), ipc.WithBodySizeLimit(max(size, 1)))
	if err != nil {
		return nil, nil, err
	}
	pr, err := newProjection(name, r.Schema(), cfg.columns)
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	p := &ipcFilePart{projection: pr, c: c, r: r}
	return p, p.schema, nil
}

// newIPCStreamPart reads the schema of the stream in br, of size bytes (0
// when unknown); c is closed with the part.
func newIPCStreamPart(name string, br *bufio.Reader, size int64, c io.Closer, cfg *readConfig) (*ipcStreamPart, error) {
	if _, err := br.Peek(1); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: name, Row: -1, Err: fmt.Errorf("%w: empty stream", ErrEmpty)}
		}
		return nil, fileError(name, err)
	}
	msgs := newStreamMessages(br, size, cfg.mem)
	r, err := ipc.NewReaderFromMessageReader(msgs, ipc.WithAllocator(cfg.mem)) // releases msgs on error
	if err != nil {
		return nil, err
	}
	pr, err := newProjection(name, r.Schema(), cfg.columns)
	if err != nil {
		r.Release()
		return nil, err
	}
	return &ipcStreamPart{projection: pr, c: c, r: r}, nil
}

// openStdin reads an Arrow IPC stream from cfg.stdin. Its schema is read
// here, so that a bad stream fails in Open.
func openStdin(ctx context.Context, cfg *readConfig) (Reader, error) {
	const name = "-"
	var p *ipcStreamPart
	err := catchPanic(func() (err error) {
		if p, err = newIPCStreamPart(name, bufio.NewReader(cfg.stdin), 0, nil, cfg); err == nil {
			if err = checkTypes(p.schema); err != nil {
				p.close()
			}
		}
		return err
	})
	if err != nil {
		return nil, readError(name, -1, err)
	}
	src := Source{Path: name, Files: []string{name}}
	return newMultiReader(ctx, src, p.schema, cfg, p, func(context.Context, string) (partReader, error) {
		return nil, errors.New("standard input cannot be read twice")
	}), nil
}

// streamMessages reads the messages of an IPC stream for ipc.Reader, in
// place of arrow-go's message reader (ipc.NewReader applies no size limit
// to messages): it checks the schema message before arrow-go decodes it,
// refuses a message longer than the input, and reads a message body in
// growing pieces, so that a damaged body length costs only the bytes that
// are really there (arrow-go allocates the whole length first).
type streamMessages struct {
	r      io.Reader
	limit  int64 // the size of the input, or maxAlloc when unknown
	mem    memory.Allocator
	schema bool         // the schema message has been read
	msg    *ipc.Message // the last message, released by the next call
	refs   atomic.Int64
}

// newStreamMessages reads the stream r of size bytes (0 when unknown).
func newStreamMessages(r io.Reader, size int64, mem memory.Allocator) *streamMessages {
	m := &streamMessages{r: r, limit: maxAlloc, mem: mem}
	if size > 0 {
		m.limit = min(size, maxAlloc)
	}
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
	meta, err := readIPCMeta(m.r, m.limit)
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
	if bodyLen > m.limit {
		return nil, fmt.Errorf("%w: message body length %d", errIPCMeta, bodyLen)
	}
	body, err := readIPCBody(m.r, bodyLen, m.mem)
	if err != nil {
		return nil, err
	}
	m.msg = ipc.NewMessage(memory.NewBufferBytes(meta), body)
	body.Release() // the message holds it
	return m.msg, nil
}

// readIPCBody reads a message body of n bytes into a buffer that grows
// with the bytes read.
func readIPCBody(r io.Reader, n int64, mem memory.Allocator) (*memory.Buffer, error) {
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
