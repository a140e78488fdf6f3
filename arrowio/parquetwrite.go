package arrowio

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Row group sizing when WithRowGroupRows is not given: aim at this many
// bytes of values per row group, within [minRowGroupRows, maxRowGroupRows]
// rows. Buffered row groups are held in memory until full, so the byte
// target bounds the writer's memory.
const (
	rowGroupTargetBytes = 64 << 20
	minRowGroupRows     = 1024
	maxRowGroupRows     = 1 << 20
)

// parquetZstdLevel is the zstd level of Parquet outputs. Measured on 512 Ki
// rows × 32 float64 columns of four-decimal values, higher levels give
// somewhat smaller files for much more writing time, and reading costs the
// same at every level; on full-precision values, written BYTE_STREAM_SPLIT,
// the levels hardly differ. Level 1 saves the most writing for files a
// little larger (BENCHMARKS.md, "Parquet I/O (arrowio)", the writer
// settings).
const parquetZstdLevel = 1

// parquetWriteBatch is the number of values pqarrow encodes at a time
// (parquet.WithBatchSize; its default is 1024). On the same 512 Ki × 32
// four-decimal table at level 1, larger batches wrote a little faster at
// equal sizes, in steps near the noise of the shared machine they were
// measured on, and 8192 keeps pages close to their target size. Data pages
// stay at arrow-go's 1 MiB: 256 KiB made the file larger and 4 MiB was no
// faster (BENCHMARKS.md, "Parquet I/O (arrowio)", the writer settings). Row
// groups keep the rule below: 64 MiB of values (262,144 rows of 32
// doubles) gives DuckDB and Spark enough row groups to split a file between
// threads while each column chunk stays large enough to read in one
// stretch.
const parquetWriteBatch = 8192

// parquetEncoder writes Parquet through pqarrow. It gathers batches until
// a row group is full and then writes that row group column by column, so
// that small batches do not make small row groups.
//
// It does this itself rather than through pqarrow's WriteBuffered because
// pqarrow v18.8 writes fixed-size-list columns wrongly when they are sliced
// (it ignores the slice offset, and WriteBuffered slices at row group
// boundaries) and refuses them when they hold nulls. Top-level fixed-size
// lists are therefore handed to pqarrow as the equivalent variable-size
// lists, with an empty list under each null; the Parquet column is the same
// LIST either way, and the stored Arrow schema still says fixed-size list,
// so readers get the type back.
type parquetEncoder struct {
	fw        *pqarrow.FileWriter // nil until the first row group is written
	bare      *arrow.Schema       // the schema without its metadata, stored in the file
	sink      io.Writer
	opts      []parquet.WriterProperty
	arrProps  pqarrow.ArrowWriterProperties
	mem       memory.Allocator
	wschema   *arrow.Schema // what pqarrow is given: fixed-size lists as lists
	asList    []bool        // per column: a fixed-size list written as a list
	groupRows int64
	pending   []arrow.RecordBatch // in wschema, not yet written
	rows      int64               // rows in pending
	base      arrow.Metadata      // the schema metadata, written to the footer at finish
	meta      *kvMeta
	// inflight, if not nil, delivers the result of the row group being
	// written by its own goroutine (see write).
	inflight chan error
}

func newParquetEncoder(schema *arrow.Schema, sink io.Writer, meta *kvMeta, cfg *writeConfig) (*parquetEncoder, error) {
	rows := cfg.rowGroupRows
	if rows <= 0 {
		rows = defaultRowGroupRows(schema)
	}
	// The Arrow schema is stored by finish (storedSchema), with the
	// metadata, not by pqarrow when the file is opened.
	arrProps := pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(cfg.mem))
	opts := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionLevel(parquetZstdLevel),
		parquet.WithBatchSize(parquetWriteBatch),
		parquet.WithAllocator(cfg.mem),
		parquet.WithCreatedBy("ordinate"),
		parquet.WithMaxRowGroupLength(rows),
	}
	// Dictionaries rarely pay for floats (few repeats) and cost a fallback
	// to plain encoding per column chunk; turn them off leaf by leaf.
	pq, err := pqarrow.ToParquet(schema, parquet.NewWriterProperties(opts...), arrProps)
	if err != nil {
		return nil, err
	}
	for i := 0; i < pq.NumColumns(); i++ {
		col := pq.Column(i)
		if t := col.PhysicalType(); t == parquet.Types.Float || t == parquet.Types.Double {
			opts = append(opts, parquet.WithDictionaryPath(col.ColumnPath(), false))
		}
	}
	e := &parquetEncoder{bare: arrow.NewSchema(schema.Fields(), nil), sink: sink, opts: opts, arrProps: arrProps, mem: cfg.mem, groupRows: rows, base: schema.Metadata(), meta: meta}
	fields := schema.Fields()
	e.asList = make([]bool, len(fields))
	for i, f := range fields {
		if dt, ok := f.Type.(*arrow.FixedSizeListType); ok {
			e.asList[i] = true
			fields[i].Type = arrow.ListOfField(dt.ElemField())
		}
	}
	e.wschema = arrow.NewSchema(fields, nil)
	return e, nil
}

// open creates the file writer, once the first row group is gathered, so
// that the encoding of each float column can be chosen from its values
// (chooseSplit), and whether an integer or text column gets a dictionary
// (chooseNoDictionary). The schema metadata is left out of the file writer's
// schema and written with the SetMetadata pairs at finish, so that every
// key is in the footer once with its last value.
func (e *parquetEncoder) open() error {
	opts := e.opts
	for c, f := range e.wschema.Fields() {
		if chooseSplit(f.Type, e.pending, c) {
			opts = append(opts, parquet.WithEncodingPath(parquet.ColumnPath{f.Name}, parquet.Encodings.ByteStreamSplit))
		}
		if chooseNoDictionary(f.Type, e.pending, c) {
			opts = append(opts, parquet.WithDictionaryPath(parquet.ColumnPath{f.Name}, false))
		}
	}
	fw, err := pqarrow.NewFileWriter(e.bare, e.sink, parquet.NewWriterProperties(opts...), e.arrProps)
	if err != nil {
		return err
	}
	e.fw = fw
	return nil
}

func (e *parquetEncoder) write(rec arrow.RecordBatch) error {
	if rec.NumRows() == 0 {
		return nil
	}
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, c := range rec.Columns() {
		if !e.asList[i] {
			c.Retain()
			cols[i] = c
			continue
		}
		l, err := fixedSizeAsList(c.(*array.FixedSizeList), e.wschema.Field(i).Type.(*arrow.ListType), e.mem)
		if err != nil {
			return fmt.Errorf("column %q: %w", rec.ColumnName(i), err)
		}
		cols[i] = l
	}
	e.pending = append(e.pending, array.NewRecordBatch(e.wschema, cols, rec.NumRows()))
	e.rows += rec.NumRows()
	for e.rows >= e.groupRows {
		if err := e.flushAsync(e.groupRows); err != nil {
			return err
		}
	}
	return nil
}

// flushAsync writes the first n pending rows as one row group on a goroutine
// of its own, once the row group before it is written: encoding and zstd
// then run while the caller reads and transforms the next rows (apply spent
// a quarter of its time writing, with the reader idle). The file's bytes
// are the same. At most one row group is in flight, so a writer holds up to
// two row groups of batches; a failed row group's error comes back from the
// next write or from finish.
func (e *parquetEncoder) flushAsync(n int64) error {
	if err := e.wait(); err != nil {
		return err
	}
	if e.fw == nil {
		if err := e.open(); err != nil {
			return err
		}
	}
	group := e.take(n)
	done := make(chan error, 1)
	e.inflight = done
	go func() {
		done <- protect(func() error { return e.writeGroup(group, n) })
	}()
	return nil
}

// wait returns the result of the row group in flight, if any.
func (e *parquetEncoder) wait() error {
	if e.inflight == nil {
		return nil
	}
	err := <-e.inflight
	e.inflight = nil
	return err
}

// take removes the first n pending rows and returns their batches; a batch
// cut by the boundary leaves its tail pending.
func (e *parquetEncoder) take(n int64) []arrow.RecordBatch {
	var group []arrow.RecordBatch
	left := n
	for len(e.pending) > 0 && left > 0 {
		rec := e.pending[0]
		if k := rec.NumRows(); k > left {
			group = append(group, rec.NewSlice(0, left))
			e.pending[0] = rec.NewSlice(left, k)
			rec.Release()
			break
		}
		left -= rec.NumRows()
		group = append(group, rec)
		e.pending = e.pending[1:]
	}
	e.rows -= n
	return group
}

// writeGroup writes the n rows of group as one row group and releases the
// batches.
func (e *parquetEncoder) writeGroup(group []arrow.RecordBatch, n int64) error {
	defer func() {
		for _, rec := range group {
			rec.Release()
		}
	}()
	if err := e.fw.NewRowGroupChecked(); err != nil {
		return err
	}
	chunks := make([]arrow.Array, len(group))
	for c := range e.wschema.NumFields() {
		for k, rec := range group {
			chunks[k] = rec.Column(c)
		}
		col := arrow.NewChunked(e.wschema.Field(c).Type, chunks)
		err := e.fw.WriteColumnChunked(col, 0, n)
		col.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *parquetEncoder) finish() error {
	if err := e.wait(); err != nil {
		return err
	}
	// Opened from the pending rows' values, or with none for an empty file.
	if e.fw == nil {
		if err := e.open(); err != nil {
			return err
		}
	}
	if e.rows > 0 {
		n := e.rows
		if err := e.writeGroup(e.take(n), n); err != nil {
			return err
		}
	}
	keys, vals := e.meta.merged(e.base)
	for i, k := range keys {
		if err := e.fw.AppendKeyValueMetadata(k, vals[i]); err != nil {
			return err
		}
	}
	stored, err := storedSchema(e.bare, arrow.NewMetadata(keys, vals), e.mem)
	if err != nil {
		return err
	}
	if err := e.fw.AppendKeyValueMetadata(parquetSchemaKey, stored); err != nil {
		return err
	}
	return e.fw.Close()
}

func (e *parquetEncoder) release() {
	_ = e.wait()
	for _, rec := range e.pending {
		rec.Release()
	}
	e.pending, e.rows = nil, 0
	if e.fw != nil {
		e.fw.Close()
	}
}

// storedSchema is the footer value ARROW:schema for schema with metadata
// md: the schema serialised as an Arrow IPC stream, base64-encoded, as
// pqarrow's WithStoreSchema writes it (list elements named "element", as
// the Parquet columns are), but written at finish, so that its metadata
// holds the keys set until Close (the provenance with its row count, a
// model's header). pyarrow (and so pandas) takes a file's schema metadata
// from there and not from the footer, and writes it back there: this is
// how the provenance survives a round trip through them.
func storedSchema(schema *arrow.Schema, md arrow.Metadata, mem memory.Allocator) (string, error) {
	fields := make([]arrow.Field, schema.NumFields())
	for i, f := range schema.Fields() {
		fields[i] = elementNames(f)
	}
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(arrow.NewSchema(fields, &md)), ipc.WithAllocator(mem))
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("storing the Arrow schema: %w", err)
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// elementNames returns f with the element fields of its lists (at any
// depth) named "element", as pqarrow names the Parquet groups.
func elementNames(f arrow.Field) arrow.Field {
	switch t := f.Type.(type) {
	case *arrow.ListType:
		e := elementNames(t.ElemField())
		e.Name = "element"
		f.Type = arrow.ListOfField(e)
	case *arrow.LargeListType:
		e := elementNames(t.ElemField())
		e.Name = "element"
		f.Type = arrow.LargeListOfField(e)
	case *arrow.FixedSizeListType:
		e := elementNames(t.ElemField())
		e.Name = "element"
		f.Type = arrow.FixedSizeListOfField(t.Len(), e)
	case *arrow.StructType:
		children := make([]arrow.Field, t.NumFields())
		for i := range children {
			children[i] = elementNames(t.Field(i))
		}
		f.Type = arrow.StructOf(children...)
	case *arrow.MapType:
		f.Type = arrow.MapOfFields(elementNames(t.KeyField()), elementNames(t.ItemField()))
	}
	return f
}

// fixedSizeAsList returns a as a list array of type lt with the same
// values, offset 0, and an empty list under each null.
func fixedSizeAsList(a *array.FixedSizeList, lt *arrow.ListType, mem memory.Allocator) (arrow.Array, error) {
	n, size := a.Len(), int(a.DataType().(*arrow.FixedSizeListType).Len())
	if int64(n)*int64(size) > math.MaxInt32 {
		return nil, fmt.Errorf("%d values in one batch are more than a Parquet list column can take at once", int64(n)*int64(size))
	}
	first := a.Data().Offset() * size // the child is not sliced with a
	child := a.ListValues()

	offsets := memory.NewResizableBuffer(mem)
	defer offsets.Release()
	offsets.Resize(arrow.Int32Traits.BytesRequired(n + 1))
	offs := arrow.Int32Traits.CastFromBytes(offsets.Bytes())

	var (
		values arrow.Array
		bitmap *memory.Buffer
	)
	if a.NullN() == 0 {
		for i := range offs {
			offs[i] = int32(i * size)
		}
		values = array.NewSlice(child, int64(first), int64(first+n*size))
	} else {
		bitmap = memory.NewResizableBuffer(mem)
		defer bitmap.Release()
		bitmap.Resize(int(bitutil.BytesForBits(int64(n))))
		bits := bitmap.Bytes()
		clear(bits)
		// Gather the values of runs of valid lists.
		var runs []arrow.Array
		defer func() {
			for _, r := range runs {
				r.Release()
			}
		}()
		cur, runStart := int32(0), -1
		endRun := func(i int) {
			if runStart >= 0 {
				runs = append(runs, array.NewSlice(child, int64(first+runStart*size), int64(first+i*size)))
				runStart = -1
			}
		}
		for i := range n {
			offs[i] = cur
			if a.IsNull(i) {
				endRun(i)
				continue
			}
			bitutil.SetBit(bits, i)
			cur += int32(size)
			if runStart < 0 {
				runStart = i
			}
		}
		endRun(n)
		offs[n] = cur
		if len(runs) == 0 {
			values = array.NewSlice(child, 0, 0)
		} else {
			var err error
			if values, err = array.Concatenate(runs, mem); err != nil {
				return nil, err
			}
		}
	}
	defer values.Release()
	if a.NullN() == 0 {
		offs[n] = int32(n * size)
	}
	data := array.NewData(lt, n, []*memory.Buffer{bitmap, offsets}, []arrow.ArrayData{values.Data()}, a.NullN(), 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// defaultRowGroupRows is min(1<<20, max(1024, 64 MiB / row width)).
func defaultRowGroupRows(schema *arrow.Schema) int64 {
	width := 0
	for _, f := range schema.Fields() {
		width += valueWidth(f.Type)
	}
	if width == 0 {
		return maxRowGroupRows
	}
	return min(maxRowGroupRows, max(minRowGroupRows, int64(rowGroupTargetBytes/width)))
}

// valueWidth estimates the bytes one value of t takes: the bit width for
// fixed-width types (at least one byte), n times the element for
// fixed-size lists, 16 for everything else (strings, lists, dictionaries).
func valueWidth(t arrow.DataType) int {
	switch t := t.(type) {
	case *arrow.FixedSizeListType:
		return max(1, int(t.Len())*valueWidth(t.Elem()))
	case *arrow.DictionaryType:
		return 16
	case arrow.FixedWidthDataType:
		return max(1, t.BitWidth()/8)
	}
	return 16
}
