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
	c      io.Closer // closed with the part; may be nil
	r      *ipc.FileReader
	f      io.ReaderAt // the file, to check each block before r reads it
	size   int64
	footer *ipcFooter
	i      int // next record batch
}

func (p *ipcFilePart) next(context.Context) (arrow.RecordBatch, error) {
	if p.i >= p.r.NumRecords() {
		return nil, nil
	}
	if p.i < len(p.footer.batches) {
		if err := checkFileBlock(p.f, p.size, p.footer.batches[p.i], "record batch", p.i); err != nil {
			p.i++
			return nil, err
		}
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
// holds a stream. A stream that ends without its end-of-stream marker, or
// inside a message, is an error, never a shorter table: arrow-go's reader
// takes the end of the input at a message boundary for the end of the
// stream, so the part asks its message reader how the stream ended.
type ipcStreamPart struct {
	projection
	name string
	c    io.Closer // closed with the part; nil for stdin
	r    *ipc.Reader
	msgs *streamMessages
	rows int64 // rows read so far
}

func (p *ipcStreamPart) next(context.Context) (arrow.RecordBatch, error) {
	if !p.r.Next() {
		if err := p.msgs.ending(p.name, p.rows); err != nil {
			return nil, err
		}
		return nil, p.r.Err()
	}
	rec := p.r.RecordBatch()
	rec.Retain()
	p.rows += rec.NumRows()
	return fixNulls(p.batch(rec)), nil
}

func (p *ipcStreamPart) close() error {
	p.r.Release()
	p.msgs.Release()
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
// write under .arrow) is read as a stream, and a file named as a stream
// that holds an IPC file as a file.
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
		if head = head[:n]; !bytes.HasPrefix(head, magicARROW1) && n > 0 &&
			(bytes.HasPrefix(head, magicStream) || bytes.HasPrefix(magicStream, head)) {
			format = FormatIPCStream
		}
	} else if format == FormatIPCStream {
		// and an IPC file named as a stream is read as a file.
		head := make([]byte, len(magicARROW1))
		if n, _ := f.ReadAt(head, 0); bytes.Equal(head[:n], magicARROW1) {
			format = FormatIPCFile
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
	footer, err := readIPCFooter(f, size)
	if err != nil {
		return nil, nil, err
	}
	// arrow-go reads the dictionaries with the footer.
	for i, blk := range footer.dicts {
		if err := checkFileBlock(f, size, blk, "dictionary batch", i); err != nil {
			return nil, nil, err
		}
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
	p := &ipcFilePart{projection: pr, c: c, r: r, f: f, size: size, footer: footer}
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
	if head, _ := br.Peek(len(magicARROW1)); bytes.Equal(head, magicARROW1) {
		what := "the file"
		if name == "-" {
			what = "standard input"
		}
		return nil, &Error{File: name, Row: -1, Err: fmt.Errorf("%w: %s holds an Arrow IPC file, not a stream; "+
			"pass it as a file path ending in .arrow, or convert it to a stream", ErrCorrupt, what)}
	}
	msgs := newStreamMessages(br, size, cfg.mem)
	msgs.Retain()                                                              // the part keeps it to ask how the stream ended
	r, err := ipc.NewReaderFromMessageReader(msgs, ipc.WithAllocator(cfg.mem)) // releases msgs on error
	if err != nil {
		defer msgs.Release()
		if cut := msgs.ending(name, 0); cut != nil {
			return nil, cut
		}
		return nil, err
	}
	pr, err := newProjection(name, r.Schema(), cfg.columns)
	if err != nil {
		r.Release()
		msgs.Release()
		return nil, err
	}
	return &ipcStreamPart{projection: pr, name: name, c: c, r: r, msgs: msgs}, nil
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
//
// It also tells how the stream ended (see ending): arrow-go takes an input
// that ends at a message boundary for a complete stream.
type streamMessages struct {
	r      *countingReader
	size   int64 // the size of the input, 0 when unknown
	limit  int64 // the size of the input, or maxAlloc when unknown
	mem    memory.Allocator
	schema bool         // the schema message has been read
	msg    *ipc.Message // the last message, released by the next call
	end    bool         // the end-of-stream marker has been read
	err    error        // the error that ended the messages, if any
	refs   atomic.Int64
}

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	k, err := c.r.Read(b)
	c.n += int64(k)
	return k, err
}

// newStreamMessages reads the stream r of size bytes (0 when unknown).
func newStreamMessages(r io.Reader, size int64, mem memory.Allocator) *streamMessages {
	m := &streamMessages{r: &countingReader{r: r}, size: size, limit: maxAlloc, mem: mem}
	if size > 0 {
		m.limit = min(size, maxAlloc)
	}
	m.refs.Add(1)
	return m
}

// ending returns the error of a stream that was cut, or that carries data
// after its end-of-stream marker, as an *Error naming file and the rows
// read before; otherwise the error that ended the messages, or nil when
// they have not ended or ended at the marker of a stream whose input ends
// there too.
func (m *streamMessages) ending(file string, rows int64) error {
	var err error
	switch {
	case m.err == nil && m.end && m.size > 0 && m.r.n < m.size:
		err = fmt.Errorf("%w: %d bytes follow the end-of-stream marker, after %d rows (streams written one after the other?)",
			ErrCorrupt, m.size-m.r.n, rows)
	case errors.Is(m.err, errNoEndMarker):
		err = fmt.Errorf("%w: truncated stream: it ends after %d rows without its end-of-stream marker", ErrCorrupt, rows)
	case errors.Is(m.err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("%w: truncated stream: it ends inside a message after %d rows (%w)", ErrCorrupt, rows, m.err)
	default:
		return m.err
	}
	return &Error{File: file, Row: -1, Err: err}
}

// left is the number of bytes left in the input, or maxAlloc when its size
// is unknown.
func (m *streamMessages) left() int64 {
	if m.size > 0 {
		return m.size - m.r.n
	}
	return m.limit
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
	if m.end || m.err != nil {
		return nil, io.EOF
	}
	msg, err := m.read()
	switch {
	case err == io.EOF:
		m.end = true
	case err != nil:
		m.err = err
	}
	return msg, err
}

// read reads the next message.
func (m *streamMessages) read() (*ipc.Message, error) {
	meta, err := readIPCMeta(m.r, m.left())
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
	switch {
	case m.size > 0 && bodyLen > m.left():
		return nil, fmt.Errorf("message body length %d, past the end of the input: %w", bodyLen, io.ErrUnexpectedEOF)
	case bodyLen > m.limit:
		return nil, fmt.Errorf("%w: message body length %d", errIPCMeta, bodyLen)
	}
	if err := checkBatchMessage(meta, bodyLen, -1); err != nil {
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
