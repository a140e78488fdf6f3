package arrowio

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Arrow IPC metadata is a flatbuffer that arrow-go trusts: it allocates
// slices as long as the vector lengths it finds there and recurses as deep
// as fields nest, so that a few damaged bytes can make it ask for hundreds
// of gigabytes or overflow the stack, which no recover can catch. The checks
// below verify the parts of the metadata that arrow-go sizes allocations or
// recursion by (the schema with its fields, names and metadata, the body
// length of the schema message, and the footer's vectors) before arrow-go
// reads it, and the buffers of record batch and dictionary batch messages,
// whose offsets and lengths arrow-go slices the message body at without a
// check (checkBatchMessage). They guard IPC files, IPC streams and the Arrow
// schema that pqarrow stores in Parquet footers, for Open and Inspect alike.

const (
	metaMaxDepth   = 64       // nesting of fields; real schemas are far shallower
	maxIPCMetadata = 64 << 20 // largest message metadata, as arrow-go's default
	metaMaxVector  = 1 << 31  // implied by maxIPCMetadata where int has 64 bits
	ipcBlockSize   = 24       // struct Block of File.fbs
	// An IPC file is "ARROW1", 2 bytes of padding, the stream, the footer,
	// its int32 length and "ARROW1".
	ipcFileHead      = 8
	ipcFooterTrailer = 10
)

// Slots of the tables of Schema.fbs, Message.fbs and File.fbs, and the
// members of the unions that matter here.
const (
	slotMessageHeaderType, slotMessageHeader = 1, 2
	slotMessageBodyLength, slotMessageMeta   = 3, 4
	slotFooterSchema, slotFooterDicts        = 1, 2
	slotFooterBatches, slotFooterMeta        = 3, 4
	slotSchemaFields, slotSchemaMeta         = 1, 2
	slotSchemaFeatures                       = 3
	slotFieldName, slotFieldTypeType         = 0, 2
	slotFieldType, slotFieldDict             = 3, 4
	slotFieldChildren, slotFieldMeta         = 5, 6
	slotDictIndexType                        = 1
	slotKeyValueKey, slotKeyValueValue       = 0, 1
	slotTimestampZone, slotUnionTypeIDs      = 1, 1

	metaHeaderSchema                 = 1      // in the MessageHeader union
	metaTypeTimestamp, metaTypeUnion = 10, 14 // in the Type union: those with a vector

	// The record batch and dictionary batch messages.
	metaHeaderDictionary, metaHeaderRecordBatch = 2, 3 // in the MessageHeader union
	slotDictBatchData                           = 1    // DictionaryBatch.data, a RecordBatch
	slotBatchNodes, slotBatchBuffers            = 1, 2
	slotBatchCompression                        = 3
	slotBatchVariadicCounts                     = 4
	ipcNodeSize, ipcBufferSize                  = 16, 16 // struct FieldNode, struct Buffer
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
	if off >= t.objLen {
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
	if n, err = metaU32(t.b, v); err != nil {
		return 0, 0, err
	}
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
		off, err := metaU32(t.b, e)
		if err != nil {
			return err
		}
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
		if _, _, err := kv.vector(slotKeyValueKey, 1); err != nil {
			return err
		}
		_, _, err := kv.vector(slotKeyValueValue, 1)
		return err
	})
}

// checkMetaSchema checks a Schema table and its fields.
func checkMetaSchema(s metaTable) error {
	c := metaChecker{limit: len(s.b) / 8}
	if err := s.tables(slotSchemaFields, func(f metaTable) error { return c.field(f, 1) }); err != nil {
		return err
	}
	if err := checkMetaKeyValues(s, slotSchemaMeta); err != nil {
		return err
	}
	_, _, err := s.vector(slotSchemaFeatures, 8)
	return err
}

// metaChecker bounds the fields visited: a field takes at least 8 bytes
// (its offset in a vector and its table), so more visits than that come
// from offsets shared between fields, which would make arrow-go's decoding
// exponential.
type metaChecker struct{ fields, limit int }

func (c *metaChecker) field(f metaTable, depth int) error {
	if c.fields++; c.fields > c.limit {
		return fmt.Errorf("%w: fields share their tables", errIPCMeta)
	}
	if depth > metaMaxDepth {
		return fmt.Errorf("%w: fields nest deeper than %d", errIPCMeta, metaMaxDepth)
	}
	if _, _, err := f.vector(slotFieldName, 1); err != nil {
		return err
	}
	kind, err := f.byteField(slotFieldTypeType)
	if err != nil {
		return err
	}
	typ, ok, err := f.table(slotFieldType)
	if err != nil {
		return err
	}
	if ok {
		switch kind {
		case metaTypeTimestamp:
			_, _, err = typ.vector(slotTimestampZone, 1)
		case metaTypeUnion:
			_, _, err = typ.vector(slotUnionTypeIDs, 4)
		}
		if err != nil {
			return err
		}
	}
	dict, ok, err := f.table(slotFieldDict)
	if err != nil {
		return err
	}
	if ok {
		if _, _, err := dict.table(slotDictIndexType); err != nil {
			return err
		}
	}
	if err := f.tables(slotFieldChildren, func(ch metaTable) error { return c.field(ch, depth+1) }); err != nil {
		return err
	}
	return checkMetaKeyValues(f, slotFieldMeta)
}

// verifyIPCFooter checks the footer of an Arrow IPC file of the given size.
func verifyIPCFooter(r io.ReaderAt, size int64) error {
	_, err := readIPCFooter(r, size)
	return err
}

// ipcBlock is a Block of an IPC file footer: where a message is.
type ipcBlock struct {
	offset int64
	meta   int32 // the metadata with its length prefix (and padding)
	body   int64
}

// ipcFooter is what an IPC file's footer says of its messages.
type ipcFooter struct {
	dicts, batches []ipcBlock
}

// readIPCFooter checks the footer of an Arrow IPC file of the given size
// and returns its blocks.
func readIPCFooter(r io.ReaderAt, size int64) (*ipcFooter, error) {
	if size < ipcFileHead+ipcFooterTrailer {
		return nil, fmt.Errorf("%w: file too small", errIPCMeta)
	}
	trailer := make([]byte, ipcFooterTrailer)
	if _, err := r.ReadAt(trailer, size-ipcFooterTrailer); err != nil {
		return nil, err
	}
	if !bytes.Equal(trailer[4:], magicARROW1) {
		return nil, fmt.Errorf("%w: no ARROW1 at the end of the file", errIPCMeta)
	}
	n := int64(int32(binary.LittleEndian.Uint32(trailer)))
	if n < 4 || n > size-ipcFileHead-ipcFooterTrailer || n > maxIPCMetadata {
		return nil, fmt.Errorf("%w: footer length %d", errIPCMeta, n)
	}
	b := make([]byte, n)
	if _, err := r.ReadAt(b, size-ipcFooterTrailer-n); err != nil {
		return nil, err
	}
	footer, err := metaRoot(b)
	if err != nil {
		return nil, err
	}
	s, ok, err := footer.table(slotFooterSchema)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: footer without schema", errIPCMeta)
	}
	if err := checkMetaSchema(s); err != nil {
		return nil, err
	}
	var f ipcFooter
	for _, slot := range []int{slotFooterDicts, slotFooterBatches} {
		start, n, err := footer.vector(slot, ipcBlockSize)
		if err != nil {
			return nil, err
		}
		blocks := make([]ipcBlock, n)
		for i := range blocks {
			e := b[start+ipcBlockSize*i:]
			blocks[i] = ipcBlock{offset: int64(binary.LittleEndian.Uint64(e)),
				meta: int32(binary.LittleEndian.Uint32(e[8:])), body: int64(binary.LittleEndian.Uint64(e[16:]))}
		}
		if slot == slotFooterDicts {
			f.dicts = blocks
		} else {
			f.batches = blocks
		}
	}
	if err := checkMetaKeyValues(footer, slotFooterMeta); err != nil {
		return nil, err
	}
	return &f, nil
}

// checkFileBlock checks the message of an IPC file of size bytes at blk,
// a record batch or a dictionary batch (what), before arrow-go reads it:
// the block lies in the file, and every buffer in the message body
// (checkBatchMessage). Metadata that arrow-go itself refuses with an error
// (a length prefix that disagrees with the block) is left to it.
func checkFileBlock(r io.ReaderAt, size int64, blk ipcBlock, what string, i int) error {
	if blk.offset < 0 || blk.meta < 8 || int64(blk.meta) > maxIPCMetadata || blk.body < 0 ||
		blk.offset > size || int64(blk.meta) > size-blk.offset || blk.body > size-blk.offset-int64(blk.meta) {
		return fmt.Errorf("%w: %s %d: block of %d+%d bytes at %d lies outside the file of %d bytes",
			errIPCMeta, what, i, blk.meta, blk.body, blk.offset, size)
	}
	meta := make([]byte, blk.meta)
	if _, err := r.ReadAt(meta, blk.offset); err != nil {
		return err
	}
	prefix := 4 // the format before Arrow 0.15
	if bytes.Equal(meta[:4], magicStream) {
		prefix = 8
	}
	return checkBatchMessage(meta[prefix:], blk.body, i)
}

// checkBatchMessage checks the Message flatbuffer meta of a record batch
// or dictionary batch whose body holds bodyLen bytes: arrow-go slices the
// body at every buffer's offset and length without a check (a lying
// length was "runtime error: slice bounds out of range"), and reads the
// 8-byte uncompressed length at the start of each compressed buffer.
// Other messages pass. The error names the batch by its index i in the
// file, or by its kind alone when i < 0.
func checkBatchMessage(meta []byte, bodyLen int64, i int) error {
	m, err := metaRoot(meta)
	if err != nil {
		return err
	}
	kind, err := m.byteField(slotMessageHeaderType)
	if err != nil {
		return err
	}
	what := "record batch"
	switch kind {
	case metaHeaderRecordBatch:
	case metaHeaderDictionary:
		what = "dictionary batch"
	default:
		return nil
	}
	if i >= 0 {
		what += " " + strconv.Itoa(i)
	}
	rb, ok, err := m.table(slotMessageHeader)
	if err == nil && ok && kind == metaHeaderDictionary {
		rb, ok, err = rb.table(slotDictBatchData)
	}
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: %s message without its batch", errIPCMeta, what)
	}
	if _, _, err := rb.vector(slotBatchNodes, ipcNodeSize); err != nil {
		return err
	}
	if _, _, err := rb.vector(slotBatchVariadicCounts, 8); err != nil {
		return err
	}
	_, compressed, err := rb.table(slotBatchCompression)
	if err != nil {
		return err
	}
	start, n, err := rb.vector(slotBatchBuffers, ipcBufferSize)
	if err != nil {
		return err
	}
	for k := range n {
		e := rb.b[start+ipcBufferSize*k:]
		off, length := int64(binary.LittleEndian.Uint64(e)), int64(binary.LittleEndian.Uint64(e[8:]))
		switch {
		case off < 0 || length < 0 || off > bodyLen || length > bodyLen-off:
			return fmt.Errorf("%w: %s: buffer %d of %d bytes at offset %d lies outside the message body of %d bytes",
				errIPCMeta, what, k, length, off, bodyLen)
		case compressed && length > 0 && length < 8:
			return fmt.Errorf("%w: %s: compressed buffer %d of %d bytes is shorter than its 8-byte length",
				errIPCMeta, what, k, length)
		}
	}
	return nil
}

// errNoEndMarker is the end of the input where the next message or the
// end-of-stream marker should start: a stream cut at a message boundary.
var errNoEndMarker = errors.New("no end-of-stream marker")

// readIPCMeta reads the length prefix and the metadata flatbuffer of the
// next message of a stream, refusing metadata longer than maxIPCMetadata,
// or than limit (the bytes left in the input, as a cut). It returns io.EOF at the end-of-stream marker (0xFFFFFFFF
// 0x00000000, or the 4-byte 0 of the format before Arrow 0.15),
// errNoEndMarker when the input ends before the next message, and an error
// wrapping io.ErrUnexpectedEOF when it ends inside a length prefix or the
// metadata, or before the metadata length it reads.
func readIPCMeta(r io.Reader, limit int64) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errNoEndMarker
		}
		return nil, fmt.Errorf("message length: %w", err)
	}
	if bytes.Equal(head[:], magicStream) {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return nil, fmt.Errorf("message length: %w", noEOF(err))
		}
	} // else the format before Arrow 0.15, without continuation marker
	n := int64(int32(binary.LittleEndian.Uint32(head[:])))
	switch {
	case n == 0:
		return nil, io.EOF
	case n < 4 || n > maxIPCMetadata:
		return nil, fmt.Errorf("%w: message metadata length %d", errIPCMeta, n)
	case n > limit:
		return nil, fmt.Errorf("message metadata length %d, past the end of the input: %w", n, io.ErrUnexpectedEOF)
	}
	meta := make([]byte, n)
	if _, err := io.ReadFull(r, meta); err != nil {
		return nil, fmt.Errorf("message metadata: %d bytes: %w", n, noEOF(err))
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

// messageBodyLen returns the body length of a Message flatbuffer.
func messageBodyLen(meta []byte) (int64, error) {
	m, err := metaRoot(meta)
	if err != nil {
		return 0, err
	}
	return bodyLenField(m)
}

func bodyLenField(m metaTable) (int64, error) {
	pos, err := m.field(slotMessageBodyLength)
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

// checkMetaSchemaMessage checks a Message flatbuffer that must hold a
// schema, and returns its body length.
func checkMetaSchemaMessage(meta []byte) (int64, error) {
	m, err := metaRoot(meta)
	if err != nil {
		return 0, err
	}
	if kind, err := m.byteField(slotMessageHeaderType); err != nil || kind != metaHeaderSchema {
		return 0, fmt.Errorf("%w: the stream does not start with a schema", errIPCMeta)
	}
	s, ok, err := m.table(slotMessageHeader)
	if err != nil || !ok {
		return 0, fmt.Errorf("%w: schema message without schema", errIPCMeta)
	}
	if err := checkMetaSchema(s); err != nil {
		return 0, err
	}
	if err := checkMetaKeyValues(m, slotMessageMeta); err != nil {
		return 0, err
	}
	return bodyLenField(m)
}

// checkSchemaMessage checks the schema message at the start of the IPC
// stream b: length prefix, metadata, and a body length that b can hold
// (arrow-go allocates it before reading).
func checkSchemaMessage(b []byte) error {
	r := bytes.NewReader(b)
	meta, err := readIPCMeta(r, int64(len(b)))
	switch {
	case err == io.EOF, errors.Is(err, errNoEndMarker):
		return fmt.Errorf("%w: no schema message", errIPCMeta)
	case err != nil:
		return err
	}
	bodyLen, err := checkMetaSchemaMessage(meta)
	if err != nil {
		return err
	}
	if bodyLen > int64(r.Len()) {
		return fmt.Errorf("%w: schema message body length %d", errIPCMeta, bodyLen)
	}
	return nil
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
			return fmt.Errorf("%w: %s: %w", errIPCMeta, parquetSchemaKey, err)
		}
	}
	if err := checkSchemaMessage(b); err != nil {
		return fmt.Errorf("%s: %w", parquetSchemaKey, err)
	}
	return nil
}
