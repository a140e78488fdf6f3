package arrowio

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// FileInfo is what Inspect finds out about a table file.
type FileInfo struct {
	Path   string
	Format Format
	Schema *arrow.Schema
	Rows   int64
	Bytes  int64 // size on disk
	// RowGroups are the Parquet row groups; nil for other formats.
	RowGroups []RowGroupInfo
	// Metadata holds the Parquet footer key/value pairs (without the
	// serialised Arrow schema "ARROW:schema") or the Arrow schema metadata.
	// For a repeated key the last value wins.
	Metadata map[string]string
	// Provenance is decoded from Metadata[MetadataKey]; nil when absent.
	Provenance *Provenance
}

// RowGroupInfo describes one Parquet row group.
type RowGroupInfo struct {
	Rows                               int64
	CompressedBytes, UncompressedBytes int64
	// Compression is the codec of its column chunks ("ZSTD"), or the
	// codecs joined by "+" when they differ.
	Compression string
}

// parquetSchemaKey is the footer key under which pqarrow stores the Arrow
// schema; it is left out of FileInfo.Metadata.
const parquetSchemaKey = "ARROW:schema"

// Inspect describes the table file at path without reading more than it
// needs: for Parquet only the footer (schema, row groups, key/value
// metadata); for an Arrow IPC file or stream the schema and the record
// batches, to count rows; for CSV every line, to count rows and guess
// column types (int64 if every non-empty field is an integer, float64 if
// every one is a number, utf8 otherwise; nullable when a field is empty).
//
// The format is recognised from the first bytes (Parquet and Arrow IPC
// magic numbers), then from the extension (CSV). An empty file gives an
// *Error wrapping ErrEmpty, a damaged one an *Error wrapping ErrCorrupt,
// never a panic or a crash. Parquet data pages are not read, so damage
// confined to them goes unnoticed here.
//
// When the metadata under MetadataKey is not valid provenance JSON, Inspect
// returns the FileInfo (with a nil Provenance) together with an *Error
// wrapping ErrCorrupt. WithReadAllocator sets the allocator of the
// readers' buffers, all of which are freed before Inspect returns.
func Inspect(ctx context.Context, path string, opts ...ReadOption) (fi *FileInfo, err error) {
	cfg := readConfig{mem: memory.DefaultAllocator}
	for _, o := range opts {
		o(&cfg)
	}
	if path == "-" {
		return nil, &Error{File: path, Row: -1, Err: fmt.Errorf("%w: inspect needs a file, not standard input", ErrFormat)}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("arrowio: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("arrowio: %w", err)
	}
	if st.IsDir() {
		return nil, &Error{File: path, Row: -1, Err: fmt.Errorf("%w: a folder; inspect one of its files", ErrFormat)}
	}
	if st.Size() == 0 {
		return nil, &Error{File: path, Row: -1, Err: fmt.Errorf("%w: the file is empty", ErrEmpty)}
	}
	fi = &FileInfo{Path: path, Bytes: st.Size(), Format: sniffFormat(f, path)}

	mem := newInspectAllocator(cfg.mem, st.Size())
	defer mem.sweep()
	cfg.mem = mem
	defer func() {
		if r := recover(); r != nil {
			fi, err = nil, corrupt(path, fmt.Errorf("reading failed: %v", r))
		}
	}()
	switch fi.Format {
	case FormatParquet:
		err = inspectParquet(fi, f, &cfg)
	case FormatIPCFile:
		err = inspectIPCFile(ctx, fi, f, &cfg)
	case FormatIPCStream:
		err = inspectIPCStream(ctx, fi, f, &cfg)
	case FormatCSV:
		err = inspectCSV(ctx, fi, f)
	default:
		err = &Error{File: path, Row: -1, Err: fmt.Errorf("%w: neither Parquet, Arrow nor CSV", ErrFormat)}
	}
	if err != nil {
		return nil, err
	}
	if v, ok := fi.Metadata[MetadataKey]; ok {
		p, perr := ParseProvenance(v)
		if perr != nil {
			return fi, &Error{File: path, Row: -1, Err: fmt.Errorf("%w: metadata %q: %w", ErrCorrupt, MetadataKey, perr)}
		}
		fi.Provenance = p
	}
	return fi, nil
}

var (
	parquetMagic = []byte("PAR1")
	arrowMagic   = []byte("ARROW1")
	// An IPC stream begins with the continuation marker of its first message.
	streamMagic = []byte{0xff, 0xff, 0xff, 0xff}
)

// sniffFormat tells the format from the magic numbers at the start of the
// file, then from the extension.
func sniffFormat(r io.ReaderAt, path string) Format {
	head := make([]byte, 8)
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, parquetMagic):
		return FormatParquet
	case bytes.HasPrefix(head, arrowMagic):
		return FormatIPCFile
	case bytes.HasPrefix(head, streamMagic):
		return FormatIPCStream
	}
	return FormatOf(path)
}

func corrupt(path string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{File: path, Row: -1, Err: fmt.Errorf("%w: %w", ErrCorrupt, err)}
}

func inspectParquet(fi *FileInfo, f *os.File, cfg *readConfig) error {
	pf, err := file.NewParquetReader(f, file.WithReadProps(parquet.NewReaderProperties(cfg.mem)))
	if err != nil {
		return corrupt(fi.Path, err)
	}
	md := pf.MetaData()
	kv := md.KeyValueMetadata()
	if err := checkStoredSchema(kv.FindValue(parquetSchemaKey)); err != nil {
		return corrupt(fi.Path, fmt.Errorf("%s: %w", parquetSchemaKey, err))
	}
	fi.Schema, err = pqarrow.FromParquet(md.Schema, &pqarrow.ArrowReadProperties{}, kv)
	if err != nil {
		return corrupt(fi.Path, err)
	}
	fi.Metadata = make(map[string]string, len(kv))
	for _, e := range kv {
		if e.Key != parquetSchemaKey && e.Value != nil {
			fi.Metadata[e.Key] = *e.Value
		}
	}
	// The footer decoded; check that it is consistent with itself and
	// with the size of the file, which catches most damage to it.
	fi.Rows = md.NumRows
	if fi.Rows < 0 {
		return corrupt(fi.Path, fmt.Errorf("negative row count %d", fi.Rows))
	}
	var sum int64
	fi.RowGroups = make([]RowGroupInfo, md.NumRowGroups())
	for i := range fi.RowGroups {
		rgm := md.RowGroup(i)
		if rgm.NumColumns() != md.Schema.NumColumns() {
			return corrupt(fi.Path, fmt.Errorf("row group %d has %d columns, the schema %d", i, rgm.NumColumns(), md.Schema.NumColumns()))
		}
		rg, err := rowGroupInfo(rgm, fi.Bytes)
		if err != nil {
			return corrupt(fi.Path, fmt.Errorf("row group %d: %w", i, err))
		}
		fi.RowGroups[i] = rg
		sum += rg.Rows
	}
	if sum != fi.Rows {
		return corrupt(fi.Path, fmt.Errorf("row groups hold %d rows, the footer says %d", sum, fi.Rows))
	}
	return nil
}

// checkStoredSchema checks the Arrow schema pqarrow stores in the footer,
// decoding it as pqarrow does; a value that is not base64 is left to
// pqarrow to refuse.
func checkStoredSchema(v *string) error {
	if v == nil {
		return nil
	}
	var (
		b   []byte
		err error
	)
	if len(*v)%4 == 0 {
		b, err = base64.StdEncoding.DecodeString(*v)
	}
	if len(b) == 0 || err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(*v); err != nil {
			return nil
		}
	}
	return checkSchemaMessage(b)
}

// rowGroupInfo sums the column chunks of rg, checking that each lies
// within the data part of a file of size bytes.
func rowGroupInfo(rg *metadata.RowGroupMetaData, size int64) (RowGroupInfo, error) {
	info := RowGroupInfo{Rows: rg.NumRows()}
	if info.Rows < 0 {
		return info, fmt.Errorf("negative row count %d", info.Rows)
	}
	var codecs []string
	for j := 0; j < rg.NumColumns(); j++ {
		cc, err := rg.ColumnChunk(j)
		if err != nil {
			return info, err
		}
		start := cc.DataPageOffset()
		if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 {
			start = min(start, cc.DictionaryPageOffset())
		}
		n, u := cc.TotalCompressedSize(), cc.TotalUncompressedSize()
		if start < int64(len(parquetMagic)) || n < 0 || u < 0 || start > size || n > size-start {
			return info, fmt.Errorf("column chunk %d at [%d, %d+%d) lies outside the file of %d bytes", j, start, start, n, size)
		}
		info.CompressedBytes += n
		info.UncompressedBytes += u
		if c := cc.Compression().String(); !slices.Contains(codecs, c) {
			codecs = append(codecs, c)
		}
	}
	for k, c := range codecs {
		if k > 0 {
			info.Compression += "+"
		}
		info.Compression += c
	}
	return info, nil
}

func inspectIPCFile(ctx context.Context, fi *FileInfo, f *os.File, cfg *readConfig) error {
	if err := checkIPCFooter(f, fi.Bytes); err != nil {
		return corrupt(fi.Path, fmt.Errorf("footer: %w", err))
	}
	r, err := ipc.NewFileReader(f, ipc.WithAllocator(cfg.mem))
	if err != nil {
		return corrupt(fi.Path, err)
	}
	defer r.Close()
	fi.Schema = r.Schema()
	fi.Metadata = schemaMetadata(fi.Schema)
	for i := 0; i < r.NumRecords(); i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := r.RecordBatchAt(i)
		if err != nil {
			return corrupt(fi.Path, fmt.Errorf("record batch %d: %w", i, err))
		}
		fi.Rows += rec.NumRows()
		rec.Release()
	}
	return nil
}

// endOfStream is the end-of-stream marker of the Arrow IPC stream format.
var endOfStream = []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}

func inspectIPCStream(ctx context.Context, fi *FileInfo, f *os.File, cfg *readConfig) error {
	if err := checkFirstMessage(f, fi.Bytes); err != nil {
		return corrupt(fi.Path, fmt.Errorf("schema: %w", err))
	}
	// ipc.NewReader does not apply the message size limits; a message
	// reader does. No message can be larger than the file.
	mr := ipc.NewMessageReader(f, ipc.WithAllocator(cfg.mem), ipc.WithBodySizeLimit(fi.Bytes), ipc.WithMetadataSizeLimit(fi.Bytes))
	r, err := ipc.NewReaderFromMessageReader(mr, ipc.WithAllocator(cfg.mem))
	if err != nil {
		mr.Release()
		return corrupt(fi.Path, err)
	}
	defer r.Release()
	fi.Schema = r.Schema()
	fi.Metadata = schemaMetadata(fi.Schema)
	for r.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		fi.Rows += r.RecordBatch().NumRows()
	}
	if err := r.Err(); err != nil {
		return corrupt(fi.Path, err)
	}
	// A stream cut at a message boundary reads as a complete one; every
	// writer closes its stream with the marker, so demand it.
	tail := make([]byte, len(endOfStream))
	if _, err := f.ReadAt(tail, fi.Bytes-int64(len(tail))); err != nil || !bytes.Equal(tail, endOfStream) {
		return corrupt(fi.Path, errors.New("the stream ends without its end-of-stream marker (truncated?)"))
	}
	return nil
}

// inspectAllocator is the allocator Inspect gives arrow-go's readers. It
// guards against two weaknesses of those readers on damaged files:
//
//   - they trust buffer lengths read from the file (the uncompressed length
//     of a compressed IPC buffer, thrift list sizes in a Parquet footer),
//     so a damaged length would exhaust memory; a single allocation larger
//     than the file could need panics instead, and Inspect recovers;
//   - the IPC batch loader does not release the buffers it has loaded when
//     a later one fails; since nothing Inspect returns holds Arrow memory,
//     sweep frees whatever is still allocated when Inspect is done.
//
// Compressed buffers may legitimately grow a lot (zstd packs zeros more
// than 1000-fold), hence the generous bound.
type inspectAllocator struct {
	mem   memory.Allocator
	limit int64
	mu    sync.Mutex
	live  map[*byte][]byte
}

func newInspectAllocator(mem memory.Allocator, size int64) *inspectAllocator {
	limit := int64(1 << 28)
	if size < math.MaxInt64/1024 {
		limit = max(limit, 1024*size)
	}
	return &inspectAllocator{mem: mem, limit: limit, live: map[*byte][]byte{}}
}

func (a *inspectAllocator) check(n int) {
	if n < 0 || int64(n) > a.limit {
		panic(fmt.Sprintf("a buffer of %d bytes is more than the file can hold", n))
	}
}

func (a *inspectAllocator) Allocate(n int) []byte {
	a.check(n)
	b := a.mem.Allocate(n)
	a.track(nil, b)
	return b
}

func (a *inspectAllocator) Reallocate(n int, old []byte) []byte {
	a.check(n)
	b := a.mem.Reallocate(n, old)
	a.track(old, b)
	return b
}

func (a *inspectAllocator) Free(b []byte) {
	a.track(b, nil)
	a.mem.Free(b)
}

// track forgets old and remembers b (either may be empty).
func (a *inspectAllocator) track(old, b []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if cap(old) > 0 {
		delete(a.live, unsafe.SliceData(old))
	}
	if cap(b) > 0 {
		a.live[unsafe.SliceData(b)] = b
	}
}

// sweep frees what the readers left allocated.
func (a *inspectAllocator) sweep() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for p, b := range a.live {
		a.mem.Free(b)
		delete(a.live, p)
	}
}

func schemaMetadata(s *arrow.Schema) map[string]string {
	md := s.Metadata()
	m := make(map[string]string, md.Len())
	for i, k := range md.Keys() {
		m[k] = md.Values()[i]
	}
	return m
}

// csvColumn gathers what the values of one CSV column look like.
type csvColumn struct {
	notInt, notFloat, seen, empty bool
}

func (c *csvColumn) add(s string) {
	if s == "" {
		c.empty = true
		return
	}
	c.seen = true
	if !c.notInt {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return
		}
		c.notInt = true
	}
	if !c.notFloat {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			c.notFloat = true
		}
	}
}

func (c *csvColumn) field(name string) arrow.Field {
	t := arrow.DataType(arrow.BinaryTypes.String)
	switch {
	case !c.seen:
	case !c.notInt:
		t = arrow.PrimitiveTypes.Int64
	case !c.notFloat:
		t = arrow.PrimitiveTypes.Float64
	}
	return arrow.Field{Name: name, Type: t, Nullable: c.empty || !c.seen}
}

func inspectCSV(ctx context.Context, fi *FileInfo, f *os.File) error {
	cr := csv.NewReader(f)
	cr.ReuseRecord = true
	header, err := cr.Read()
	switch {
	case err == io.EOF:
		return &Error{File: fi.Path, Row: -1, Err: fmt.Errorf("%w: no header row", ErrEmpty)}
	case err != nil:
		return corrupt(fi.Path, fmt.Errorf("header: %w", err))
	}
	names := slices.Clone(header)
	if len(names) > 0 {
		names[0] = strings.TrimPrefix(names[0], "\ufeff") // a byte order mark
	}
	cols := make([]csvColumn, len(names))
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return &Error{File: fi.Path, Row: fi.Rows, Err: fmt.Errorf("%w: %w", ErrCorrupt, err)}
		}
		if fi.Rows%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		for j, s := range rec {
			cols[j].add(s)
		}
		fi.Rows++
	}
	fields := make([]arrow.Field, len(names))
	for j, name := range names {
		fields[j] = cols[j].field(name)
	}
	fi.Schema = arrow.NewSchema(fields, nil)
	return nil
}

// WriteText prints a summary for people: format, rows, size, one line per
// column (name, type, nullable), the Parquet row groups (rows, compressed
// size, codec), other metadata keys, and the provenance as indented JSON.
// It is what "ordinate inspect FILE" shows.
func (fi *FileInfo) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "file:\t%s\n", fi.Path)
	fmt.Fprintf(tw, "format:\t%s\n", fi.Format)
	fmt.Fprintf(tw, "rows:\t%d\n", fi.Rows)
	fmt.Fprintf(tw, "bytes:\t%d (%s)\n", fi.Bytes, byteSize(fi.Bytes))
	if err := tw.Flush(); err != nil {
		return err
	}
	if fi.Schema != nil {
		fmt.Fprintf(tw, "\ncolumns: %d\n", fi.Schema.NumFields())
		for _, f := range fi.Schema.Fields() {
			null := "not null"
			if f.Nullable {
				null = "nullable"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Name, f.Type, null)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if fi.Format == FormatParquet {
		fmt.Fprintf(tw, "\nrow groups: %d\n", len(fi.RowGroups))
		for i, rg := range fi.RowGroups {
			fmt.Fprintf(tw, "  %d\t%d rows\t%s\t(%s uncompressed)\t%s\n", i, rg.Rows, byteSize(rg.CompressedBytes), byteSize(rg.UncompressedBytes), rg.Compression)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	var keys []string
	for k := range fi.Metadata {
		if k != MetadataKey {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		slices.Sort(keys)
		fmt.Fprintf(tw, "\nmetadata:\n")
		for _, k := range keys {
			fmt.Fprintf(tw, "  %s\t%s\n", k, abbreviate(fi.Metadata[k], 120))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if fi.Provenance != nil {
		b, err := json.MarshalIndent(fi.Provenance, "  ", "  ")
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "\nprovenance:\n  %s\n", b); err != nil {
			return err
		}
	}
	return nil
}

// byteSize formats n bytes with a binary unit: "512 B", "1.5 KiB".
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, k := float64(n)/unit, 0
	for v >= unit && k < 4 {
		v /= unit
		k++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[k])
}

// abbreviate shortens s to at most n runes, marking the cut.
func abbreviate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Checking Arrow schema flatbuffers.
//
// arrow-go decodes the schema of an IPC file or stream (and the Arrow schema
// that pqarrow stores in a Parquet footer) trusting the counts and offsets
// it reads: a damaged count makes it allocate terabytes (a fatal
// out-of-memory, which recover cannot catch) and a cycle of offsets makes
// it recurse until the stack overflows (equally fatal). checkSchemaFB walks
// the same structure first, checking every offset and count against the
// buffer, the nesting depth, and the number of fields, so that arrow-go
// only ever sees schemas it can decode in memory proportional to their
// size.

// flatbuf reads little-endian words from a flatbuffer, reporting any read
// outside it.
type flatbuf []byte

var errFlatbuf = errors.New("the Arrow schema is damaged")

func (b flatbuf) u32(p int) (int, error) {
	if p < 0 || p > len(b)-4 {
		return 0, errFlatbuf
	}
	return int(binary.LittleEndian.Uint32(b[p:])), nil
}

func (b flatbuf) u16(p int) (int, error) {
	if p < 0 || p > len(b)-2 {
		return 0, errFlatbuf
	}
	return int(binary.LittleEndian.Uint16(b[p:])), nil
}

// fbTable is a flatbuffer table: its position and its vtable.
type fbTable struct {
	b         flatbuf
	pos, vt   int
	vtLen     int
	tableSize int
}

func (b flatbuf) table(pos int) (fbTable, error) {
	so, err := b.u32(pos)
	if err != nil {
		return fbTable{}, err
	}
	vt := pos - int(int32(uint32(so)))
	vtLen, err := b.u16(vt)
	if err != nil {
		return fbTable{}, err
	}
	size, err := b.u16(vt + 2)
	if err != nil || vtLen < 4 || vt+vtLen > len(b) || pos+size > len(b) {
		return fbTable{}, errFlatbuf
	}
	return fbTable{b: b, pos: pos, vt: vt, vtLen: vtLen, tableSize: size}, nil
}

// field returns the position of field slot, or -1 when it is absent.
func (t fbTable) field(slot int) (int, error) {
	o := 4 + 2*slot
	if o+2 > t.vtLen {
		return -1, nil
	}
	off, err := t.b.u16(t.vt + o)
	switch {
	case err != nil:
		return 0, err
	case off == 0:
		return -1, nil
	case off >= t.tableSize:
		return 0, errFlatbuf
	}
	return t.pos + off, nil
}

// byteField returns the one-byte field slot (0 when absent).
func (t fbTable) byteField(slot int) (byte, error) {
	p, err := t.field(slot)
	if err != nil || p < 0 {
		return 0, err
	}
	return t.b[p], nil
}

// ref follows the offset stored in field slot; -1 when absent.
func (t fbTable) ref(slot int) (int, error) {
	p, err := t.field(slot)
	if err != nil || p < 0 {
		return p, err
	}
	off, err := t.b.u32(p)
	if err != nil || p+off >= len(t.b) {
		return 0, errFlatbuf
	}
	return p + off, nil
}

// sub returns the table that field slot refers to; ok is false when the
// field is absent.
func (t fbTable) sub(slot int) (sub fbTable, ok bool, err error) {
	p, err := t.ref(slot)
	if err != nil || p < 0 {
		return fbTable{}, false, err
	}
	sub, err = t.b.table(p)
	return sub, err == nil, err
}

// vector returns the start and length of the vector (or string) in field
// slot, checking that n elements of elem bytes fit in the buffer.
func (t fbTable) vector(slot, elem int) (start, n int, err error) {
	p, err := t.ref(slot)
	if err != nil || p < 0 {
		return 0, 0, err
	}
	if n, err = t.b.u32(p); err != nil {
		return 0, 0, err
	}
	start = p + 4
	if n > (len(t.b)-start)/elem {
		return 0, 0, errFlatbuf
	}
	return start, n, nil
}

// tables calls f on each table of the vector of tables in field slot.
func (t fbTable) tables(slot int, f func(fbTable) error) error {
	start, n, err := t.vector(slot, 4)
	if err != nil {
		return err
	}
	for i := range n {
		p := start + 4*i
		off, err := t.b.u32(p)
		if err != nil {
			return err
		}
		sub, err := t.b.table(p + off)
		if err != nil {
			return err
		}
		if err := f(sub); err != nil {
			return err
		}
	}
	return nil
}

// Slots of the Arrow flatbuffer tables (format/Schema.fbs, Message.fbs,
// File.fbs) and the type codes that carry vectors.
const (
	fbMessageHeaderType, fbMessageHeader, fbMessageMeta = 1, 2, 4
	fbFooterSchema, fbFooterDicts, fbFooterBatches      = 1, 2, 3
	fbFooterMeta                                        = 4
	fbSchemaFields, fbSchemaMeta, fbSchemaFeatures      = 1, 2, 3
	fbFieldName, fbFieldTypeType, fbFieldType           = 0, 2, 3
	fbFieldDict, fbFieldChildren, fbFieldMeta           = 4, 5, 6
	fbDictIndexType                                     = 1
	fbKeyValueKey, fbKeyValueValue                      = 0, 1
	fbUnionTypeIDs, fbTimestampZone                     = 1, 1
	fbTypeTimestamp, fbTypeUnion                        = 10, 14
	fbHeaderSchema                                      = 1
	fbBlockSize                                         = 24
	fbMaxDepth                                          = 64
)

// schemaChecker bounds the work of one schema check.
type schemaChecker struct {
	b      flatbuf
	fields int // fields visited so far
}

func (c *schemaChecker) keyValues(t fbTable, slot int) error {
	return t.tables(slot, func(kv fbTable) error {
		if _, _, err := kv.vector(fbKeyValueKey, 1); err != nil {
			return err
		}
		_, _, err := kv.vector(fbKeyValueValue, 1)
		return err
	})
}

func (c *schemaChecker) schema(s fbTable) error {
	if err := c.keyValues(s, fbSchemaMeta); err != nil {
		return err
	}
	if _, _, err := s.vector(fbSchemaFeatures, 8); err != nil {
		return err
	}
	return s.tables(fbSchemaFields, func(f fbTable) error { return c.field(f, 1) })
}

func (c *schemaChecker) field(f fbTable, depth int) error {
	// A field takes well over 4 bytes, so more fields than that were
	// reached through shared offsets, which would multiply the decoding.
	if c.fields++; depth > fbMaxDepth || c.fields > len(c.b)/4 {
		return errFlatbuf
	}
	if _, _, err := f.vector(fbFieldName, 1); err != nil {
		return err
	}
	if err := c.keyValues(f, fbFieldMeta); err != nil {
		return err
	}
	typ, err := f.byteField(fbFieldTypeType)
	if err != nil {
		return err
	}
	if t, ok, err := f.sub(fbFieldType); err != nil {
		return err
	} else if ok {
		switch typ {
		case fbTypeUnion:
			_, _, err = t.vector(fbUnionTypeIDs, 4)
		case fbTypeTimestamp:
			_, _, err = t.vector(fbTimestampZone, 1)
		}
		if err != nil {
			return err
		}
	}
	if d, ok, err := f.sub(fbFieldDict); err != nil {
		return err
	} else if ok {
		if _, _, err := d.sub(fbDictIndexType); err != nil {
			return err
		}
	}
	return f.tables(fbFieldChildren, func(ch fbTable) error { return c.field(ch, depth+1) })
}

// root returns the root table of a flatbuffer.
func (b flatbuf) root() (fbTable, error) {
	off, err := b.u32(0)
	if err != nil {
		return fbTable{}, err
	}
	return b.table(off)
}

// checkSchemaMessage checks an IPC schema message as it starts a stream:
// continuation marker (absent before Arrow 0.15), metadata length, Message
// flatbuffer.
func checkSchemaMessage(b []byte) error {
	n, err := flatbuf(b).u32(0)
	if err != nil {
		return err
	}
	start := 4
	if uint32(n) == 0xffffffff {
		if n, err = flatbuf(b).u32(4); err != nil {
			return err
		}
		start = 8
	}
	if n < 4 || n > len(b)-start {
		return errFlatbuf
	}
	fb := flatbuf(b[start : start+n])
	m, err := fb.root()
	if err != nil {
		return err
	}
	c := schemaChecker{b: fb}
	if err := c.keyValues(m, fbMessageMeta); err != nil {
		return err
	}
	if typ, err := m.byteField(fbMessageHeaderType); err != nil || typ != fbHeaderSchema {
		return errFlatbuf
	}
	s, ok, err := m.sub(fbMessageHeader)
	if err != nil || !ok {
		return errFlatbuf
	}
	return c.schema(s)
}

// checkFirstMessage checks the schema message that starts the IPC stream
// in r, of size bytes.
func checkFirstMessage(r io.ReaderAt, size int64) error {
	var head [8]byte
	if _, err := r.ReadAt(head[:min(size, 8)], 0); err != nil && err != io.EOF {
		return err
	}
	n, start := int64(binary.LittleEndian.Uint32(head[:4])), int64(4)
	if n == 0xffffffff {
		n, start = int64(binary.LittleEndian.Uint32(head[4:])), 8
	}
	if n > size-start {
		return errFlatbuf
	}
	b := make([]byte, start+n)
	if _, err := r.ReadAt(b, 0); err != nil {
		return err
	}
	return checkSchemaMessage(b)
}

// checkIPCFooter checks the footer of an IPC file of the given size, read
// through r.
func checkIPCFooter(r io.ReaderAt, size int64) error {
	const tail = 4 + 6 // footer length, "ARROW1"
	if size < int64(len(arrowMagic))+2+tail {
		return errFlatbuf
	}
	var t [tail]byte
	if _, err := r.ReadAt(t[:], size-tail); err != nil {
		return err
	}
	n := int64(binary.LittleEndian.Uint32(t[:4]))
	if !bytes.Equal(t[4:], arrowMagic) || n < 4 || n > size-tail-8 {
		return errFlatbuf
	}
	b := make([]byte, n)
	if _, err := r.ReadAt(b, size-tail-n); err != nil {
		return err
	}
	fb := flatbuf(b)
	f, err := fb.root()
	if err != nil {
		return err
	}
	c := schemaChecker{b: fb}
	for _, slot := range []int{fbFooterDicts, fbFooterBatches} {
		if _, _, err := f.vector(slot, fbBlockSize); err != nil {
			return err
		}
	}
	if err := c.keyValues(f, fbFooterMeta); err != nil {
		return err
	}
	s, ok, err := f.sub(fbFooterSchema)
	if err != nil || !ok {
		return errFlatbuf
	}
	return c.schema(s)
}
