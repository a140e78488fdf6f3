package arrowio

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// parquetBufferSize is the read buffer of each column chunk. Chunks are
// streamed through it rather than read whole, so that memory stays bounded
// by a page per column, not by a row group.
const parquetBufferSize = 1 << 20

// parquetPart reads one Parquet file row group by row group.
type parquetPart struct {
	name      string
	c         io.Closer // closed with the part; may be nil
	pf        *file.Reader
	fr        *pqarrow.FileReader
	schema    *arrow.Schema // the projected schema
	leaves    []int         // leaf columns to read; nil for all
	rg        int           // next row group
	rr        *rowGroupReader
	want      int64 // rows the footer gives for the row group being read
	batchSize int
	threads   int // goroutines decoding the columns of a batch
	mem       memory.Allocator
	got       int64 // rows read from it

	units   *shardState // numbers the row groups across the files; nil: all
	skipped int64       // rows of row groups of other shards not yet counted
}

// takeSkipped returns and resets the rows of the row groups passed over.
func (p *parquetPart) takeSkipped() int64 {
	n := p.skipped
	p.skipped = 0
	return n
}

// openParquet checks the schemas of all files and returns a reader over
// them. The first file stays open for reading.
func openParquet(ctx context.Context, src Source, cfg *readConfig) (Reader, error) {
	open := func(_ context.Context, name string) (partReader, error) {
		return openParquetPart(name, cfg)
	}
	return openChecked(ctx, src, cfg, func(name string) (partReader, *arrow.Schema, error) {
		p, err := openParquetPart(name, cfg)
		if err != nil {
			return nil, nil, err
		}
		return p, p.schema, nil
	}, open)
}

// openChecked opens every file of src with openOne to compare its schema
// with that of the first file, keeps the first one open and returns the
// reader.
func openChecked(ctx context.Context, src Source, cfg *readConfig,
	openOne func(name string) (partReader, *arrow.Schema, error),
	open func(context.Context, string) (partReader, error)) (Reader, error) {
	var first partReader
	var schema *arrow.Schema
	for i, name := range src.Files {
		if err := ctx.Err(); err != nil {
			closeParts(first)
			return nil, err
		}
		var p partReader
		var s *arrow.Schema
		err := catchPanic(func() (err error) {
			if p, s, err = openOne(name); err == nil {
				err = checkTypes(s)
			}
			return err
		})
		if p != nil && err != nil {
			closeParts(p)
		}
		if err != nil {
			closeParts(first)
			return nil, readError(name, -1, err)
		}
		if i == 0 {
			first, schema = p, s
			continue
		}
		_ = catchPanic(p.close)
		if err := checkSchema(src.Files[0], name, &schema, s); err != nil {
			closeParts(first)
			return nil, err
		}
	}
	return newMultiReader(ctx, src, schema, cfg, first, open), nil
}

func closeParts(p partReader) {
	if p != nil {
		_ = catchPanic(p.close)
	}
}

// openParquetPart opens name and reads its footer.
func openParquetPart(name string, cfg *readConfig) (*parquetPart, error) {
	f, _, err := openFile(name)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok { // also when arrow-go panics
			f.Close()
		}
	}()
	p, err := newParquetPart(name, f, f, cfg)
	if err != nil {
		return nil, err
	}
	ok = true
	return p, nil
}

// newParquetPart reads the footer of the Parquet file f, checking the
// Arrow schema stored there before pqarrow decodes it. Once the part is
// made, c is closed with it.
func newParquetPart(name string, f parquet.ReaderAtSeeker, c io.Closer, cfg *readConfig) (*parquetPart, error) {
	// The page buffers never leave arrow-go's decoders: recycled when we can.
	pageMem := cfg.mem
	if cfg.recycle != nil {
		pageMem = cfg.recycle
	}
	props := parquet.NewReaderProperties(pageMem)
	props.BufferedStreamEnabled = true
	props.BufferSize = parquetBufferSize
	pf, err := file.NewParquetReader(f, file.WithReadProps(props))
	if err != nil {
		return nil, err
	}
	if v := pf.MetaData().KeyValueMetadata().FindValue(parquetSchemaKey); v != nil {
		if err := verifyStoredSchema(*v); err != nil {
			return nil, err
		}
	}
	// The schema first (FileReader.Schema does the same), so that the
	// projection can choose the batches' allocator before the FileReader.
	arrowProps := pqarrow.ArrowReadProperties{BatchSize: int64(cfg.batchSize)}
	full, err := pqarrow.FromParquet(pf.MetaData().Schema, &arrowProps, pf.MetaData().KeyValueMetadata())
	if err != nil {
		return nil, err
	}
	full = withFooterMetadata(full, pf.MetaData().KeyValueMetadata())
	pr, err := newProjection(name, full, cfg.columns)
	if err != nil {
		return nil, err
	}
	mem := cfg.mem
	if cfg.recycle != nil && fixedWidthOnly(pr.schema) {
		// No Go string or []byte can alias these batches' buffers, so
		// recycling them is safe for callers that keep values after
		// Release (String.Value aliases its buffer; code that keeps such
		// strings works with Go's allocator, whose memory the collector
		// keeps alive, and would read other rows' bytes from a recycled one).
		mem = cfg.recycle
	}
	fr, err := pqarrow.NewFileReader(pf, arrowProps, mem)
	if err != nil {
		return nil, err
	}
	p := &parquetPart{name: name, c: c, pf: pf, fr: fr, schema: pr.schema,
		batchSize: cfg.batchSize, threads: cfg.threads, mem: mem}
	if !cfg.shard.IsZero() {
		p.units = cfg.units
	}
	// Map the top-level fields to their leaf columns through the schema
	// manifest, so that nested (list) columns are read whole.
	for _, i := range pr.idx {
		p.leaves = appendLeaves(p.leaves, &fr.Manifest.Fields[i])
	}
	return p, nil
}

// appendLeaves appends the leaf column indices under f.
func appendLeaves(dst []int, f *pqarrow.SchemaField) []int {
	if f.IsLeaf() {
		return append(dst, f.ColIndex)
	}
	for i := range f.Children {
		dst = appendLeaves(dst, &f.Children[i])
	}
	return dst
}

func (p *parquetPart) next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if p.rr == nil {
			if p.rg >= p.pf.NumRowGroups() {
				return nil, nil
			}
			rg := p.rg
			p.rg++
			p.want, p.got = p.pf.MetaData().RowGroup(rg).NumRows(), 0
			if p.want < 0 {
				return nil, fmt.Errorf("row group %d has %d rows", rg, p.want)
			}
			if p.units != nil && !p.units.take() {
				p.skipped += p.want
				continue
			}
			if p.want == 0 {
				continue
			}
			if err := p.checkRowGroup(rg); err != nil {
				return nil, err
			}
			// Batches no longer than the row group, as pqarrow's record
			// reader has them, so that a small row group does not reserve
			// room for a whole batch.
			batch := min(int64(p.batchSize), int64(bitutil.NextPowerOf2(int(min(p.want, 1<<40)))))
			rr, err := newRowGroupReader(ctx, p.fr, p.leaves, rg, batch, p.threads, p.mem)
			if err != nil {
				return nil, err
			}
			p.rr = rr
		}
		rec, err := p.rr.next()
		if err != nil {
			return nil, err
		}
		if rec != nil {
			p.got += rec.NumRows()
			if p.got > p.want {
				rec.Release()
				return nil, fmt.Errorf("row group %d has more rows than the %d of the footer", p.rg-1, p.want)
			}
			return rec, nil
		}
		p.rr.release()
		p.rr = nil
		if p.got != p.want {
			return nil, fmt.Errorf("row group %d ends after %d of the %d rows of the footer", p.rg-1, p.got, p.want)
		}
	}
}

// checkRowGroup checks the column chunks that will be read from row group
// rg for what makes pqarrow fail after it has allocated buffers, which it
// would then not free: an unknown compression codec.
func (p *parquetPart) checkRowGroup(rg int) error {
	md := p.pf.MetaData().RowGroup(rg)
	check := func(i int) error {
		col, err := md.ColumnChunk(i)
		if err != nil {
			return err
		}
		if _, err := compress.GetCodec(col.Compression()); err != nil {
			return fmt.Errorf("row group %d, column %s: %w", rg, col.PathInSchema(), err)
		}
		return nil
	}
	if p.leaves == nil {
		for i := range md.NumColumns() {
			if err := check(i); err != nil {
				return err
			}
		}
		return nil
	}
	for _, i := range p.leaves {
		if err := check(i); err != nil {
			return err
		}
	}
	return nil
}

func (p *parquetPart) close() error {
	if p.rr != nil {
		p.rr.release()
		p.rr = nil
	}
	return closeIf(p.c)
}

// withFooterMetadata returns s with the key/value metadata of the Parquet
// footer in its metadata. pqarrow takes the schema's metadata from the Arrow
// schema stored under ARROW:schema, which pqarrow's writer encodes when the
// file is opened: keys set later are only in the footer (so was the
// provenance in the files of earlier versions of ordinate, whose writer now
// stores the schema at Close), and other writers store no schema at all.
// Footer values win; ARROW:schema itself is left out.
func withFooterMetadata(s *arrow.Schema, kv metadata.KeyValueMetadata) *arrow.Schema {
	if len(kv) == 0 {
		return s
	}
	md := s.Metadata()
	keys, vals := slices.Clone(md.Keys()), slices.Clone(md.Values())
	changed := false
	for _, e := range kv {
		if e.Key == parquetSchemaKey || e.Value == nil {
			continue
		}
		if i := slices.Index(keys, e.Key); i >= 0 {
			if vals[i] != *e.Value {
				vals[i], changed = *e.Value, true
			}
			continue
		}
		keys, vals, changed = append(keys, e.Key), append(vals, *e.Value), true
	}
	if !changed {
		return s
	}
	m := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(s.Fields(), &m)
}
