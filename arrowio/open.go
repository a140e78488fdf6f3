package arrowio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DefaultBatchSize is the number of rows per record batch unless
// WithBatchSize says otherwise.
const DefaultBatchSize = 65536

// WithStdin sets the stream that Open reads for the path "-" (default
// os.Stdin).
func WithStdin(r io.Reader) ReadOption {
	return func(c *readConfig) { c.stdin = r }
}

// WithColumns makes the reader read only the named top-level columns. The
// batches hold them in schema order, whatever the order of names; a name that
// is not in the schema gives ErrMissingColumn. Nil or empty reads every column.
// For Parquet only the column chunks of these columns are read from disk.
func WithColumns(names []string) ReadOption {
	names = slices.Clone(names)
	return func(c *readConfig) { c.columns = names }
}

// Open opens a table for reading as a stream of record batches.
//
// The path is one of:
//   - "-": an Arrow IPC stream on standard input (see WithStdin);
//   - a file: the format comes from the extension (.parquet, .parq, .pq:
//     Parquet; .arrow, .feather, .ipc: Arrow IPC file; .arrows: Arrow IPC
//     stream; .csv: CSV with a header row, see Reading in the package
//     documentation) or, for any other extension, from the magic bytes;
//   - a glob such as "data/*.parquet" (path.Match syntax);
//   - a directory, walked recursively for files with one of the extensions
//     above.
//
// Globs and directories skip names that start with "." or "_" (such as
// _SUCCESS and _temporary) and read the files sorted by path. All files must
// hold the same format and the same column names and types (metadata and
// nullability aside), else Open returns ErrFormat or ErrSchema naming the file
// that differs. No file at all gives ErrNoFiles, a path that does not exist an
// *Error that wraps fs.ErrNotExist.
//
// Open reads only footers and schemas, except for CSV, whose column types are
// inferred from a first pass over all of its files (so that CSV format errors
// are reported by Open). The reader checks ctx between batches.
func Open(ctx context.Context, path string, opts ...ReadOption) (Reader, error) {
	cfg := newReadConfig(opts)
	if _, ok := cfg.mem.(*memory.GoAllocator); ok {
		cfg.recycle = newCappedAllocator(newRecycleAllocator(), maxAlloc)
	}
	cfg.mem = newCappedAllocator(cfg.mem, maxAlloc)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if path == "-" {
		if !cfg.shard.IsZero() {
			return nil, &Error{File: path, Row: -1, Err: fmt.Errorf("%w: shard %s needs a Parquet input, not a stream", ErrShard, cfg.shard)}
		}
		return openStdin(ctx, &cfg)
	}
	files, size, format, err := resolveInput(path)
	if err != nil {
		return nil, err
	}
	src := Source{Path: path, Files: files, Bytes: size}
	if !cfg.shard.IsZero() && format != FormatParquet {
		return nil, &Error{File: path, Row: -1, Err: fmt.Errorf("%w: shard %s needs a Parquet input (it splits row groups)", ErrShard, cfg.shard)}
	}
	cfg.units = &shardState{Shard: cfg.shard}
	switch format {
	case FormatParquet:
		return openParquet(ctx, src, &cfg)
	case FormatIPCFile, FormatIPCStream:
		return openIPCFiles(ctx, src, format, &cfg)
	case FormatCSV:
		return openCSV(ctx, src, &cfg)
	}
	panic("arrowio: unreachable format")
}

// Magic bytes: Parquet starts and ends with PAR1, an Arrow IPC file starts
// with ARROW1 and an IPC stream with the continuation marker of its schema
// message.
var (
	magicPAR1   = []byte("PAR1")
	magicARROW1 = []byte("ARROW1")
	magicStream = []byte{0xff, 0xff, 0xff, 0xff}
)

// sniffTable tells the format of a file by its magic bytes: Parquet starts and
// ends with PAR1, an Arrow IPC file starts with ARROW1.
func sniffTable(name string, size int64) (Format, error) {
	f, err := os.Open(name)
	if err != nil {
		return FormatUnknown, fileError(name, err)
	}
	defer f.Close()
	head := make([]byte, 6)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if strings.HasPrefix(string(head), string(magicARROW1)) {
		return FormatIPCFile, nil
	}
	if size >= 8 && strings.HasPrefix(string(head), string(magicPAR1)) {
		tail := make([]byte, 4)
		if _, err := f.ReadAt(tail, size-4); err == nil && string(tail) == string(magicPAR1) {
			return FormatParquet, nil
		}
	}
	return FormatUnknown, &Error{File: name, Row: -1, Err: fmt.Errorf("%w: not Parquet, Arrow IPC or CSV (by extension or magic bytes)", ErrFormat)}
}

// fileError turns an error of the file system into an *Error naming the
// file; the *fs.PathError is unwrapped so that the name appears once. A
// path that cannot name a file (badPath) also matches ErrInvalidOption.
func fileError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if badPath(err) {
		err = &pathError{err}
	}
	return &Error{File: name, Row: -1, Err: err}
}

// badPath reports whether err says that a path cannot name a file: a loop
// of symbolic links, a file where a folder should be, a name too long.
// Like a missing file, that is the fault of the path given, not of the
// system.
func badPath(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ENAMETOOLONG)
}

// pathError is an error of the file system that the path given is to blame
// for (badPath): its message is the system's, and it matches both the
// system's error and ErrInvalidOption.
type pathError struct{ err error }

func (e *pathError) Error() string   { return e.err.Error() }
func (e *pathError) Unwrap() []error { return []error{e.err, ErrInvalidOption} }

// openFile opens name for reading and returns its size; a file of 0
// bytes gives ErrEmpty.
func openFile(name string) (*os.File, int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, fileError(name, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fileError(name, err)
	}
	if fi.Size() == 0 {
		f.Close()
		return nil, 0, &Error{File: name, Row: -1, Err: fmt.Errorf("%w: empty file", ErrEmpty)}
	}
	return f, fi.Size(), nil
}

// skipName reports whether a name found by a glob or directory walk is not
// data: hidden files and the markers and folders of Spark and Hadoop.
func skipName(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// resolveInput expands path into the files to read, sorted, with their total
// size and their common format.
func resolveInput(path string) (files []string, size int64, format Format, err error) {
	type entry struct {
		name string
		size int64
	}
	var found []entry
	if strings.ContainsAny(path, "*?[") {
		matches, err := filepath.Glob(path)
		if err != nil {
			return nil, 0, 0, &Error{File: path, Row: -1, Err: fmt.Errorf("%w: bad glob: %v", ErrNoFiles, err)}
		}
		for _, m := range matches {
			if skipName(filepath.Base(m)) {
				continue
			}
			fi, err := os.Stat(m)
			if err != nil {
				return nil, 0, 0, fileError(m, err)
			}
			if fi.Mode().IsRegular() {
				found = append(found, entry{m, fi.Size()})
			}
		}
	} else {
		fi, err := os.Stat(path)
		if err != nil {
			return nil, 0, 0, fileError(path, err)
		}
		switch {
		case fi.IsDir():
			err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if p != path && skipName(d.Name()) {
					if d.IsDir() {
						return filepath.SkipDir
					}
					return nil
				}
				if d.IsDir() || FormatOf(p) == FormatUnknown {
					return nil
				}
				fi, err := os.Stat(p) // follows symbolic links
				if err != nil {
					return err
				}
				if fi.Mode().IsRegular() {
					found = append(found, entry{p, fi.Size()})
				}
				return nil
			})
			if err != nil {
				var pe *fs.PathError
				if errors.As(err, &pe) {
					return nil, 0, 0, fileError(pe.Path, err)
				}
				return nil, 0, 0, &Error{File: path, Row: -1, Err: err}
			}
		case fi.Mode().IsRegular():
			found = append(found, entry{path, fi.Size()})
		default:
			return nil, 0, 0, &Error{File: path, Row: -1, Err: fmt.Errorf("%w: not a regular file or directory", ErrFormat)}
		}
	}
	if len(found) == 0 {
		return nil, 0, 0, &Error{File: path, Row: -1, Err: ErrNoFiles}
	}
	slices.SortFunc(found, func(a, b entry) int { return strings.Compare(a.name, b.name) })

	var first string
	for _, e := range found {
		f := FormatOf(e.name)
		if f == FormatUnknown {
			if e.size == 0 {
				return nil, 0, 0, &Error{File: e.name, Row: -1, Err: fmt.Errorf("%w: empty file", ErrEmpty)}
			}
			if f, err = sniffTable(e.name, e.size); err != nil {
				return nil, 0, 0, err
			}
		}
		if format == FormatUnknown {
			format, first = f, e.name
		} else if f != format {
			return nil, 0, 0, &Error{File: e.name, Row: -1, Err: fmt.Errorf("%w: mixed formats: %s is %s, %s is %s",
				ErrFormat, e.name, f, first, format)}
		}
		files = append(files, e.name)
		size += e.size
	}
	return files, size, format, nil
}

// partReader reads the batches of one file.
type partReader interface {
	// next returns the next batch, which the caller must release, or nil
	// at the end of the file.
	next(ctx context.Context) (arrow.RecordBatch, error)
	close() error
}

// panicError is a panic on a damaged file (in arrow-go, as a rule), caught
// and turned into an error. Memory that the panicking code had allocated is lost to
// the allocator's accounting (the garbage collector still frees it).
type panicError struct{ v any }

func (e *panicError) Error() string { return fmt.Sprintf("panic while decoding: %v", e.v) }

// catchPanic calls f and turns a panic into a *panicError. arrow-go panics
// on some damaged files; every call into it that reads file contents goes
// through catchPanic, in the caller's goroutine.
func catchPanic(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &panicError{v}
		}
	}()
	return f()
}

// readError turns an error met while reading file into an *Error: errors of
// the file system and of the context pass as they are, anything else is
// ErrCorrupt.
func readError(file string, row int64, err error) error {
	var e *Error
	var pe *fs.PathError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &e), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &pe) && errors.As(pe.Err, new(syscall.Errno)):
		// A failure of the system, not of the file's contents (os.File
		// also reports a negative offset, read from a damaged file, as a
		// *PathError).
		return fileError(file, err)
	case errors.Is(err, ErrCorrupt), errors.Is(err, ErrEmpty), errors.Is(err, ErrMissingColumn):
		return &Error{File: file, Row: row, Err: err}
	}
	return &Error{File: file, Row: row, Err: fmt.Errorf("%w: %w", ErrCorrupt, err)}
}

// columnIndices gives the indices of the top-level fields of s named in
// names, in schema order, or nil when names is empty (every field). An
// unknown name is ErrMissingColumn.
func columnIndices(file string, s *arrow.Schema, names []string) ([]int, error) {
	if len(names) == 0 {
		return nil, nil
	}
	want := make(map[string]bool, len(names))
	for _, n := range names {
		want[n] = true
	}
	var idx []int
	for i, f := range s.Fields() {
		if want[f.Name] {
			idx = append(idx, i)
			delete(want, f.Name)
		}
	}
	for _, n := range names {
		if want[n] {
			return nil, &Error{File: file, Column: n, Row: -1, Err: ErrMissingColumn}
		}
	}
	return idx, nil
}

// projection is the columns of a part that its reader hands out.
type projection struct {
	schema *arrow.Schema // their schema
	idx    []int         // their indices; nil for all columns
}

// newProjection selects the named columns of s (all for none).
func newProjection(file string, s *arrow.Schema, names []string) (projection, error) {
	idx, err := columnIndices(file, s, names)
	if err != nil {
		return projection{}, err
	}
	return projection{schema: projectSchema(s, idx), idx: idx}, nil
}

// projectSchema returns the schema of the fields idx of s (s itself for nil).
func projectSchema(s *arrow.Schema, idx []int) *arrow.Schema {
	if idx == nil {
		return s
	}
	fields := make([]arrow.Field, len(idx))
	for i, j := range idx {
		fields[i] = s.Field(j)
	}
	md := s.Metadata()
	return arrow.NewSchema(fields, &md)
}

// batch returns the projected columns of rec as a new batch and releases
// rec; it returns rec itself when every column is read.
func (pr projection) batch(rec arrow.RecordBatch) arrow.RecordBatch {
	if pr.idx == nil {
		return rec
	}
	cols := make([]arrow.Array, len(pr.idx))
	for i, j := range pr.idx {
		cols[i] = rec.Column(j)
	}
	out := array.NewRecordBatch(pr.schema, cols, rec.NumRows())
	rec.Release()
	return out
}

// checkTypes refuses column types whose parameters are out of range, as a
// damaged file can declare them: arrow-go would panic on the values.
func checkTypes(s *arrow.Schema) error {
	if s.NumFields() == 0 {
		// Rows without columns are rows without data: nothing bounds
		// their number.
		return fmt.Errorf("%w: the table has no columns", ErrCorrupt)
	}
	for _, f := range s.Fields() {
		if err := checkType(f.Type, 0); err != nil {
			return fmt.Errorf("%w: column %q: %w", ErrCorrupt, f.Name, err)
		}
	}
	return nil
}

func checkType(t arrow.DataType, depth int) error {
	if depth > metaMaxDepth {
		return fmt.Errorf("types nest deeper than %d", metaMaxDepth)
	}
	switch t := t.(type) {
	case arrow.DecimalType:
		maxP := map[arrow.Type]int32{arrow.DECIMAL32: 9, arrow.DECIMAL64: 18, arrow.DECIMAL128: 38, arrow.DECIMAL256: 76}[t.ID()]
		if p, sc := t.GetPrecision(), t.GetScale(); p < 1 || p > maxP || sc < -maxP || sc > maxP {
			return fmt.Errorf("%s: precision or scale out of range", t)
		}
	case *arrow.FixedSizeListType:
		if t.Len() < 0 {
			return fmt.Errorf("%s: negative size", t)
		}
	case *arrow.FixedSizeBinaryType:
		if t.ByteWidth < 0 {
			return fmt.Errorf("%s: negative width", t)
		}
	case *arrow.DictionaryType:
		if err := checkType(t.ValueType, depth+1); err != nil {
			return err
		}
	}
	if n, ok := t.(arrow.NestedType); ok {
		for _, f := range n.Fields() {
			if err := checkType(f.Type, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// schemaDiff says how got differs from want in column names or types, or
// returns "" when they agree. Metadata and nullability are ignored.
func schemaDiff(want, got *arrow.Schema) string {
	wf, gf := want.Fields(), got.Fields()
	for i := 0; i < min(len(wf), len(gf)); i++ {
		switch {
		case wf[i].Name != gf[i].Name:
			return fmt.Sprintf("column %d is %q, want %q", i, gf[i].Name, wf[i].Name)
		case !arrow.TypeEqual(wf[i].Type, gf[i].Type):
			return fmt.Sprintf("column %q is %s, want %s", gf[i].Name, gf[i].Type, wf[i].Type)
		}
	}
	switch {
	case len(gf) > len(wf):
		return fmt.Sprintf("extra column %q", gf[len(wf)].Name)
	case len(gf) < len(wf):
		return fmt.Sprintf("no column %q", wf[len(gf)].Name)
	}
	return ""
}

// checkSchema compares the schema of file with the reader's schema (taken
// from the first file) and makes a field of the reader's schema nullable
// when it is nullable in file.
func checkSchema(first, file string, want **arrow.Schema, got *arrow.Schema) error {
	if d := schemaDiff(*want, got); d != "" {
		return &Error{File: file, Row: -1, Err: fmt.Errorf("%w: %s (as in %s)", ErrSchema, d, first)}
	}
	fields := (*want).Fields()
	changed := false
	for i, f := range got.Fields() {
		if f.Nullable && !fields[i].Nullable {
			fields[i].Nullable, changed = true, true
		}
	}
	if changed {
		md := (*want).Metadata()
		*want = arrow.NewSchema(fields, &md)
	}
	return nil
}

// skippedRows returns (and resets) the rows a part passed over because they
// belong to another shard, which still count in the row numbers.
func skippedRows(p partReader) int64 {
	if s, ok := p.(interface{ takeSkipped() int64 }); ok {
		return s.takeSkipped()
	}
	return 0
}

// multiReader is the Reader of every format: it reads the parts one after
// the other, numbers the rows, cuts batches larger than the batch size and
// gives every batch the reader's schema.
type multiReader struct {
	ctx    context.Context
	src    Source
	schema *arrow.Schema
	batch  int64
	open   func(ctx context.Context, file string) (partReader, error)

	i    int        // index in src.Files of the part being read
	part partReader // nil between parts
	big  arrow.RecordBatch
	off  int64 // rows of big handed out

	cur   arrow.RecordBatch
	file  string // file of cur
	first int64  // input row number of cur's first row
	next  int64  // input row number of the next row to hand out
	err   error
	done  bool
}

// newMultiReader makes a reader over src. If p is not nil, it is the reader
// of src.Files[0], already open.
func newMultiReader(ctx context.Context, src Source, schema *arrow.Schema, cfg *readConfig, p partReader,
	open func(context.Context, string) (partReader, error)) *multiReader {
	return &multiReader{ctx: ctx, src: src, schema: schema, batch: int64(cfg.batchSize), open: open, part: p}
}

func (m *multiReader) Schema() *arrow.Schema          { return m.schema }
func (m *multiReader) RecordBatch() arrow.RecordBatch { return m.cur }
func (m *multiReader) Position() (string, int64)      { return m.file, m.first }
func (m *multiReader) Err() error                     { return m.err }

func (m *multiReader) Source() Source {
	s := m.src
	s.Files = slices.Clone(s.Files)
	return s
}

func (m *multiReader) Next() bool {
	if m.cur != nil {
		m.cur.Release()
		m.cur = nil
	}
	if m.err != nil || m.done {
		return false
	}
	for {
		if err := m.ctx.Err(); err != nil {
			m.fail(err)
			return false
		}
		if m.big != nil {
			m.emitSlice()
			return true
		}
		if m.i >= len(m.src.Files) {
			m.done = true
			return false
		}
		file := m.src.Files[m.i]
		if m.part == nil {
			var p partReader
			err := catchPanic(func() (err error) { p, err = m.open(m.ctx, file); return err })
			if err != nil {
				m.fail(readError(file, -1, err))
				return false
			}
			m.part = p
		}
		var rec arrow.RecordBatch
		err := catchPanic(func() (err error) {
			if rec, err = m.part.next(m.ctx); err != nil || rec == nil {
				return err
			}
			if rec.NumRows() == 0 {
				return nil
			}
			if err = array.ValidateRecordFull(rec); err != nil {
				return err
			}
			if err = checkBacked(rec); err != nil {
				return err
			}
			if rec.Schema() != m.schema {
				out := array.NewRecordBatch(m.schema, rec.Columns(), rec.NumRows())
				rec.Release()
				rec = out
			}
			return nil
		})
		if err != nil {
			if rec != nil {
				rec.Release()
			}
			m.fail(readError(file, m.next, err))
			return false
		}
		m.next += skippedRows(m.part)
		if rec == nil {
			m.closePart()
			m.i++
			continue
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		m.file = file
		if rec.NumRows() > m.batch {
			m.big, m.off = rec, 0
			continue
		}
		m.cur, m.first = rec, m.next
		m.next += rec.NumRows()
		return true
	}
}

// maxUnbackedRows is the number of rows a batch may hold beyond 8 per byte
// of its buffers. Only columns of type null take no space per row; a
// damaged file could otherwise claim billions of rows for free.
const maxUnbackedRows = 1 << 16

// checkBacked refuses a batch with more rows than its buffers can hold.
func checkBacked(rec arrow.RecordBatch) error {
	var size int64
	for _, c := range rec.Columns() {
		size += dataBytes(c.Data(), 0)
	}
	if rows := rec.NumRows(); rows > 8*size+maxUnbackedRows {
		return fmt.Errorf("a batch of %d rows holds only %d bytes", rows, size)
	}
	return nil
}

func dataBytes(d arrow.ArrayData, depth int) int64 {
	if d == nil || depth > metaMaxDepth {
		return 0
	}
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c, depth+1)
	}
	// Dictionary returns a typed nil when there is none.
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
		n += dataBytes(dict, depth+1)
	}
	return n
}

// emitSlice hands out the next batch-size slice of big.
func (m *multiReader) emitSlice() {
	n := min(m.batch, m.big.NumRows()-m.off)
	m.cur = m.big.NewSlice(m.off, m.off+n)
	m.first = m.next
	m.next += n
	m.off += n
	if m.off == m.big.NumRows() {
		m.big.Release()
		m.big = nil
	}
}

func (m *multiReader) fail(err error) {
	m.err = err
	m.closePart()
}

func (m *multiReader) closePart() {
	if m.big != nil {
		m.big.Release()
		m.big = nil
	}
	if m.part != nil {
		p := m.part
		m.part = nil
		_ = catchPanic(p.close)
	}
}

func (m *multiReader) Release() {
	if m.cur != nil {
		m.cur.Release()
		m.cur = nil
	}
	m.closePart()
	m.done = true
}
