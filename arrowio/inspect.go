package arrowio

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/metadata"
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
	// Metadata holds the Arrow schema metadata; for Parquet, the footer
	// key/value pairs (without the serialised Arrow schema "ARROW:schema")
	// and the metadata of that stored schema, the footer's value winning
	// when both have a key. For a repeated key the last value wins.
	Metadata map[string]string
	// Provenance is decoded from Metadata[MetadataKey]; nil when absent.
	Provenance *Provenance
	// Parts are the files of a dataset (a directory or a glob), in reading
	// order; nil for a single file. Then Rows and Bytes are their sums,
	// Schema their common schema (as Open reads it), Metadata and
	// Provenance those of the first part, and RowGroups nil.
	Parts []PartInfo
}

// PartInfo describes one file of a dataset.
type PartInfo struct {
	Path  string
	Rows  int64
	Bytes int64
	// RowGroups is the number of Parquet row groups; 0 for other formats.
	RowGroups int
}

// RowGroupInfo describes one Parquet row group.
type RowGroupInfo struct {
	Rows                               int64
	CompressedBytes, UncompressedBytes int64
	// Compression is the codec of its column chunks ("ZSTD"), or the
	// codecs joined by "+" when they differ.
	Compression string
}

// parquetSchemaKey is the footer key under which the Arrow schema is
// stored (by pqarrow, pyarrow, and Create: see storedSchema); it is left
// out of FileInfo.Metadata.
const parquetSchemaKey = "ARROW:schema"

// Inspect describes the table file at path, or the dataset of a directory
// or glob as Open reads it (see FileInfo.Parts), without reading more than it
// needs: for Parquet only the footer (schema, row groups, key/value
// metadata); for an Arrow IPC file or stream the schema and the record
// batches, to count rows; for CSV every line, to count rows and guess
// column types (int64 if every non-empty field is an integer, float64 if
// every one is a number, utf8 otherwise; nullable when a field is empty).
//
// The format is recognised from the first bytes (Parquet and Arrow IPC
// magic numbers), then from the extension (CSV). An empty file gives an
// *Error wrapping ErrEmpty, a damaged one (an IPC stream cut short or
// without its end-of-stream marker among them) an *Error wrapping
// ErrCorrupt, never a panic or a crash. Parquet data pages are not read, so damage
// confined to them goes unnoticed here.
//
// When the metadata under MetadataKey is not valid provenance JSON, Inspect
// returns the FileInfo (with a nil Provenance) together with an *Error
// wrapping ErrCorrupt. WithReadAllocator sets the allocator of the
// readers' buffers, all of which are freed before Inspect returns.
func Inspect(ctx context.Context, path string, opts ...ReadOption) (fi *FileInfo, err error) {
	cfg := newReadConfig(opts)
	cfg.columns = nil // every column is described
	if path == "-" {
		return nil, &Error{File: path, Row: -1, Err: fmt.Errorf("%w: inspect needs a file, not standard input", ErrFormat)}
	}
	if st, err := os.Stat(path); strings.ContainsAny(path, "*?[") || err == nil && st.IsDir() {
		return inspectDataset(ctx, path, opts)
	} else if err == nil && !st.Mode().IsRegular() {
		// Not opened: opening a named pipe waits for a writer.
		return nil, &Error{File: path, Row: -1, Err: fmt.Errorf("%w: not a regular file or directory", ErrFormat)}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fileError(path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{File: path, Row: -1, Err: fmt.Errorf("%w: not a regular file or directory", ErrFormat)}
	}
	if st.Size() == 0 {
		return nil, &Error{File: path, Row: -1, Err: fmt.Errorf("%w: the file is empty", ErrEmpty)}
	}
	fi = &FileInfo{Path: path, Bytes: st.Size(), Format: sniffFormat(f, path)}

	// Nothing that Inspect returns holds Arrow memory, so it can free what
	// arrow-go leaves allocated; and as it decodes whole IPC record
	// batches, the file's size bounds their buffers.
	mem := newSweepAllocator(newCappedAllocator(cfg.mem, fileAllocLimit(st.Size())))
	defer mem.sweep()
	cfg.mem = mem
	err = catchPanic(func() error {
		switch fi.Format {
		case FormatParquet:
			return inspectParquet(fi, f, &cfg)
		case FormatIPCFile, FormatIPCStream:
			return inspectIPC(ctx, fi, f, &cfg)
		case FormatCSV:
			return inspectCSV(ctx, fi, f)
		}
		return &Error{File: path, Row: -1, Err: fmt.Errorf("%w: neither Parquet, Arrow nor CSV", ErrFormat)}
	})
	if err != nil {
		return nil, readError(path, -1, err)
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

// inspectDataset describes the files of a directory or glob, found and
// checked as Open finds and checks them: one format, one schema.
func inspectDataset(ctx context.Context, path string, opts []ReadOption) (*FileInfo, error) {
	files, size, format, err := resolveInput(path)
	if err != nil {
		return nil, err
	}
	ds := &FileInfo{Path: path, Format: format, Bytes: size, Parts: make([]PartInfo, 0, len(files))}
	for i, name := range files {
		fi, err := Inspect(ctx, name, opts...)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			ds.Schema, ds.Metadata, ds.Provenance = fi.Schema, fi.Metadata, fi.Provenance
		} else if err := checkSchema(files[0], name, &ds.Schema, fi.Schema); err != nil {
			return nil, err
		}
		ds.Rows += fi.Rows
		ds.Parts = append(ds.Parts, PartInfo{Path: name, Rows: fi.Rows, Bytes: fi.Bytes, RowGroups: len(fi.RowGroups)})
	}
	return ds, nil
}

// sniffFormat tells the format from the magic numbers at the start of the
// file, then from the extension.
func sniffFormat(r io.ReaderAt, path string) Format {
	head := make([]byte, 8)
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, magicPAR1):
		return FormatParquet
	case bytes.HasPrefix(head, magicARROW1):
		return FormatIPCFile
	case bytes.HasPrefix(head, magicStream), n > 0 && n < 4 && bytes.HasPrefix(magicStream, head):
		return FormatIPCStream // the latter cut inside its first marker
	}
	return FormatOf(path)
}

// inspectParquet reads the footer as Open does, then checks it against
// itself and the size of the file, which catches most damage to it.
func inspectParquet(fi *FileInfo, f *os.File, cfg *readConfig) error {
	p, err := newParquetPart(fi.Path, f, nil, cfg)
	if err != nil {
		return err
	}
	defer p.close()
	md := p.pf.MetaData()
	fi.Schema = p.schema
	// The footer's pairs and those of the stored Arrow schema (footer
	// values first), as Open's schema has them: a file written back by
	// pyarrow or pandas may carry the provenance in either.
	fi.Metadata = schemaMetadata(p.schema)
	delete(fi.Metadata, parquetSchemaKey)
	fi.Rows = md.NumRows
	if fi.Rows < 0 {
		return fmt.Errorf("negative row count %d", fi.Rows)
	}
	var sum int64
	fi.RowGroups = make([]RowGroupInfo, md.NumRowGroups())
	for i := range fi.RowGroups {
		rgm := md.RowGroup(i)
		if rgm.NumColumns() != md.Schema.NumColumns() {
			return fmt.Errorf("row group %d has %d columns, the schema %d", i, rgm.NumColumns(), md.Schema.NumColumns())
		}
		rg, err := rowGroupInfo(rgm, fi.Bytes)
		if err != nil {
			return fmt.Errorf("row group %d: %w", i, err)
		}
		fi.RowGroups[i] = rg
		sum += rg.Rows
	}
	if sum != fi.Rows {
		return fmt.Errorf("row groups hold %d rows, the footer says %d", sum, fi.Rows)
	}
	return nil
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
		if start < int64(len(magicPAR1)) || n < 0 || u < 0 || start > size || n > size-start {
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

// inspectIPC reads the schema and the record batches of an IPC file or
// stream as Open does, counting rows.
func inspectIPC(ctx context.Context, fi *FileInfo, f *os.File, cfg *readConfig) error {
	p, s, err := newIPCPart(fi.Path, f, fi.Bytes, fi.Format, nil, cfg)
	if err != nil {
		return err
	}
	defer p.close()
	fi.Schema, fi.Metadata = s, schemaMetadata(s)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := p.next(ctx)
		if e := (*Error)(nil); errors.As(err, &e) {
			return err // a cut stream, which says where
		} else if err != nil {
			return fmt.Errorf("record batch after row %d: %w", fi.Rows, err)
		}
		if rec == nil {
			break
		}
		fi.Rows += rec.NumRows()
		rec.Release()
	}
	// The stream reader refuses a stream without its end-of-stream marker,
	// as Open does.
	return nil
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
		return fmt.Errorf("header: %w", err)
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
			return csvError(fi.Path, fi.Rows, err)
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
	if fi.Parts != nil {
		fmt.Fprintf(tw, "dataset:\t%s\n", fi.Path)
		fmt.Fprintf(tw, "files:\t%d\n", len(fi.Parts))
	} else {
		fmt.Fprintf(tw, "file:\t%s\n", fi.Path)
	}
	fmt.Fprintf(tw, "format:\t%s\n", fi.Format)
	fmt.Fprintf(tw, "rows:\t%d\n", fi.Rows)
	fmt.Fprintf(tw, "bytes:\t%d (%s)\n", fi.Bytes, byteSize(fi.Bytes))
	if err := tw.Flush(); err != nil {
		return err
	}
	if fi.Parts != nil {
		fmt.Fprintf(tw, "\nparts: %d\n", len(fi.Parts))
		for _, p := range fi.Parts {
			fmt.Fprintf(tw, "  %s\t%d rows\t%s", p.Path, p.Rows, byteSize(p.Bytes))
			if fi.Format == FormatParquet {
				fmt.Fprintf(tw, "\t%d row groups", p.RowGroups)
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
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
	if fi.Format == FormatParquet && fi.Parts == nil {
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
		of := ""
		if len(fi.Parts) > 1 {
			of = " (of the first part, " + fi.Parts[0].Path + ")"
		}
		if _, err := fmt.Fprintf(w, "\nprovenance%s:\n  %s\n", of, b); err != nil {
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

// Summary is the JSON form of a FileInfo that `ordinate inspect --json`
// prints: path, format, rows, the parts of a dataset, columns, metadata,
// provenance and, when asked for, column sums.
type Summary struct {
	Path       string             `json:"path"`
	Format     string             `json:"format"`
	Rows       int64              `json:"rows"`
	Parts      []SummaryPart      `json:"parts,omitempty"`
	Columns    []SummaryColumn    `json:"columns"`
	Metadata   map[string]string  `json:"metadata,omitempty"`
	Provenance *Provenance        `json:"provenance,omitempty"`
	Checksums  map[string]float64 `json:"checksums,omitempty"`
}

// SummaryColumn is one column of a Summary.
type SummaryColumn struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Nullable bool   `json:"nullable"`
}

// SummaryPart is one file of a dataset in a Summary.
type SummaryPart struct {
	Path  string `json:"path"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"`
}

// Summary returns the JSON form of fi.
func (fi *FileInfo) Summary() *Summary {
	out := &Summary{Path: fi.Path, Format: fi.Format.String(), Rows: fi.Rows, Metadata: fi.Metadata, Provenance: fi.Provenance}
	for _, p := range fi.Parts {
		out.Parts = append(out.Parts, SummaryPart{p.Path, p.Rows, p.Bytes})
	}
	for _, f := range fi.Schema.Fields() {
		out.Columns = append(out.Columns, SummaryColumn{f.Name, f.Type.String(), f.Nullable})
	}
	return out
}

// ColumnSums reads the table at path and returns the sum of the valid
// values of every float64 column whose name starts with prefix, in row
// order: a checksum that another engine can recompute to check that it read
// the same numbers.
func ColumnSums(ctx context.Context, path, prefix string, opts ...ReadOption) (map[string]float64, error) {
	r, err := Open(ctx, path, opts...)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	sums := map[string]float64{}
	for r.Next() {
		rec := r.RecordBatch()
		for c, f := range rec.Schema().Fields() {
			col, ok := rec.Column(c).(*array.Float64)
			if !ok || !strings.HasPrefix(f.Name, prefix) {
				continue
			}
			s := sums[f.Name]
			for i, v := range col.Float64Values() {
				if col.IsValid(i) {
					s += v
				}
			}
			sums[f.Name] = s
		}
	}
	return sums, r.Err()
}
