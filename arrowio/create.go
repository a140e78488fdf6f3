package arrowio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// String returns the short name of the format: "parquet", "arrow",
// "arrow-stream", "csv" or "unknown".
func (f Format) String() string {
	switch f {
	case FormatParquet:
		return "parquet"
	case FormatIPCFile:
		return "arrow"
	case FormatIPCStream:
		return "arrow-stream"
	case FormatCSV:
		return "csv"
	}
	return "unknown"
}

// FormatOf returns the format that Create uses for path, judged from the
// extension alone (case-insensitive): .parquet, .parq, .pq → Parquet;
// .arrow, .feather, .ipc → Arrow IPC file; .arrows and "-" → Arrow IPC
// stream; .csv → CSV; anything else → FormatUnknown.
func FormatOf(path string) Format {
	if path == "-" {
		return FormatIPCStream
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".parq", ".pq":
		return FormatParquet
	case ".arrow", ".feather", ".ipc":
		return FormatIPCFile
	case ".arrows":
		return FormatIPCStream
	case ".csv":
		return FormatCSV
	}
	return FormatUnknown
}

// WithStdout sets where the path "-" writes (default os.Stdout).
func WithStdout(w io.Writer) WriteOption {
	return func(c *writeConfig) { c.stdout = w }
}

// Create returns a Writer for path, with the format from the extension (see
// FormatOf) unless WithFormat says otherwise; "-" writes an Arrow IPC stream
// to standard output.
//
// Rows go to a temporary file ".NAME.tmp-*" in the folder of path, which
// must exist. Close flushes it, syncs it to disk and renames it over path;
// Abort, a failed Write or a failed Close remove it, so that path is either
// left as it was or holds the complete output. The renamed file gets mode
// 0644. Standard output cannot be undone: "-" writes through a buffer that
// Close flushes, and Abort drops what is still buffered and does not end the
// stream, so a reader sees a truncated stream rather than a short complete
// one.
//
// Formats:
//   - Parquet: zstd, row groups of WithRowGroupRows rows (default: about
//     64 MiB of values, between 1024 and 1<<20 rows, estimated from the
//     schema), batches buffered so that small batches do not make small row
//     groups, no dictionary encoding for floating-point columns, the Arrow
//     schema stored for faithful reading back. The schema metadata and the
//     SetMetadata pairs go to the footer key/value metadata, each key once.
//   - Arrow IPC file: zstd-compressed buffers. Dictionary columns are written
//     decoded (as their value type), because the IPC file format allows one
//     dictionary per column for the whole file while batches read from
//     Parquet carry one per row group.
//   - Arrow IPC stream: uncompressed, dictionary columns kept.
//   - CSV: a header row, then one line per row: integers and floats in the
//     shortest form that reads back exactly (NaN, +Inf, -Inf), null as an
//     empty field (so null and "" look alike), dictionary columns decoded,
//     list columns as "[1,2,3]" (strings in them JSON-quoted, null elements
//     as null). CSV has no metadata: SetMetadata is ignored, so provenance
//     needs a Parquet or Arrow output.
//
// Every Write checks ctx; once ctx is done, Write and Close return its error
// and the output is not published. A Writer is not safe for concurrent use.
func Create(ctx context.Context, path string, schema *arrow.Schema, opts ...WriteOption) (Writer, error) {
	cfg := writeConfig{mem: memory.DefaultAllocator, stdout: os.Stdout}
	for _, o := range opts {
		o(&cfg)
	}
	if schema == nil {
		return nil, fmt.Errorf("arrowio: Create %s: nil schema", path)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	format := cfg.format
	if format == FormatUnknown {
		format = FormatOf(path)
	}
	if format < FormatParquet || format > FormatCSV {
		return nil, &Error{File: path, Row: -1, Err: fmt.Errorf("%w: cannot tell the output format from the name (want .parquet, .arrow, .arrows, .csv or -)", ErrFormat)}
	}
	out, err := openOutput(path, cfg.stdout)
	if err != nil {
		return nil, err
	}
	w := &writer{ctx: ctx, path: path, schema: schema, format: format, out: out, meta: newKVMeta()}
	err = protect(func() error {
		var err error
		w.enc, err = newEncoder(format, schema, out.sink, w.meta, &cfg)
		return err
	})
	if err != nil {
		out.discard()
		return nil, fmt.Errorf("arrowio: creating %s: %w", path, err)
	}
	return w, nil
}

// encoder is one output format on top of the sink.
type encoder interface {
	write(rec arrow.RecordBatch) error
	// finish completes the format (footer, end-of-stream marker) and hands
	// every byte to the sink.
	finish() error
	// release frees what the encoder holds without caring about the output
	// (the sink discards at that point).
	release()
}

func newEncoder(f Format, schema *arrow.Schema, sink io.Writer, meta *kvMeta, cfg *writeConfig) (encoder, error) {
	switch f {
	case FormatParquet:
		return newParquetEncoder(schema, sink, meta, cfg)
	case FormatIPCFile:
		return newIPCEncoder(schema, sink, meta, cfg, false), nil
	case FormatIPCStream:
		return newIPCEncoder(schema, sink, meta, cfg, true), nil
	case FormatCSV:
		return newCSVEncoder(schema, sink)
	}
	return nil, ErrFormat
}

type writerState int

const (
	stateOpen writerState = iota
	stateClosed
	stateFailed // Close failed; the output was removed
	stateAborted
)

// writer is the Writer of every format: the format's encoder on top of an
// atomic output.
type writer struct {
	ctx    context.Context
	path   string
	schema *arrow.Schema
	format Format
	out    *output
	enc    encoder
	meta   *kvMeta
	rows   int64
	err    error // the first Write error; the output is then never published
	state  writerState
	cerr   error // what Close returned
}

func (w *writer) Path() string { return w.path }
func (w *writer) Rows() int64  { return w.rows }

func (w *writer) SetMetadata(key, value string) { w.meta.set(key, value) }

func (w *writer) Write(rec arrow.RecordBatch) error {
	switch {
	case w.state != stateOpen:
		return fmt.Errorf("arrowio: %s: Write after Close or Abort", w.path)
	case w.err != nil:
		return w.err
	}
	if err := w.ctx.Err(); err != nil {
		w.err = err
		return err
	}
	if !rec.Schema().Equal(w.schema) {
		w.err = fmt.Errorf("arrowio: %s: record batch schema differs from the output schema\nbatch:  %s\noutput: %s", w.path, rec.Schema(), w.schema)
		return w.err
	}
	if err := protect(func() error { return w.enc.write(rec) }); err != nil {
		w.err = fmt.Errorf("arrowio: writing %s: %w", w.path, err)
		return w.err
	}
	w.rows += rec.NumRows()
	return nil
}

func (w *writer) Close() error {
	switch w.state {
	case stateClosed, stateFailed:
		return w.cerr
	case stateAborted:
		return fmt.Errorf("arrowio: %s: Close after Abort", w.path)
	}
	err := w.err
	if err == nil {
		err = w.ctx.Err()
	}
	if err == nil {
		if err = protect(w.enc.finish); err != nil {
			err = fmt.Errorf("arrowio: writing %s: %w", w.path, err)
		}
	}
	if err == nil {
		err = w.out.commit()
	}
	if err != nil {
		w.drop()
		w.state, w.cerr = stateFailed, err
		return err
	}
	w.state = stateClosed
	return nil
}

func (w *writer) Abort() error {
	if w.state != stateOpen {
		return nil
	}
	w.state = stateAborted
	return w.drop()
}

// drop releases the encoder and removes the temporary file.
func (w *writer) drop() error {
	w.out.sink.discard = true
	_ = protect(func() error { w.enc.release(); return nil })
	return w.out.discard()
}

// protect runs f, turning a panic inside arrow-go into an error.
func protect(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("arrowio: internal error in arrow: %v", r)
		}
	}()
	return f()
}

// output is where the bytes go: a temporary file renamed at commit, or
// standard output.
type output struct {
	final string
	tmp   *os.File // nil for standard output
	buf   *bufio.Writer
	sink  *sink
	done  bool
}

// sink is what the encoders write to. Once discard is set it swallows
// everything, so that encoders can be finished only to free their memory.
type sink struct {
	w       io.Writer
	discard bool
}

func (s *sink) Write(p []byte) (int, error) {
	if s.discard {
		return len(p), nil
	}
	return s.w.Write(p)
}

const outputBufferSize = 1 << 20

func openOutput(path string, stdout io.Writer) (*output, error) {
	if path == "-" {
		buf := bufio.NewWriterSize(stdout, outputBufferSize)
		return &output{final: path, buf: buf, sink: &sink{w: buf}}, nil
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return nil, fmt.Errorf("arrowio: cannot create %q: not a file name", path)
	}
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return nil, fmt.Errorf("arrowio: cannot create %s: output folder %s: %w", path, dir, err)
	case !fi.IsDir():
		return nil, fmt.Errorf("arrowio: cannot create %s: %s is not a folder", path, dir)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("arrowio: cannot create %s: it is a folder", path)
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("arrowio: cannot create %s: %w", path, err)
	}
	buf := bufio.NewWriterSize(tmp, outputBufferSize)
	return &output{final: path, tmp: tmp, buf: buf, sink: &sink{w: buf}}, nil
}

// commit publishes the output: flush, fsync, close, rename, and fsync the
// folder so that the rename survives a crash.
func (o *output) commit() error {
	if err := o.buf.Flush(); err != nil {
		return fmt.Errorf("arrowio: writing %s: %w", o.final, err)
	}
	if o.tmp == nil {
		o.done = true
		return nil
	}
	if err := o.tmp.Sync(); err != nil {
		return fmt.Errorf("arrowio: writing %s: %w", o.final, err)
	}
	if err := o.tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("arrowio: writing %s: %w", o.final, err)
	}
	if err := o.tmp.Close(); err != nil {
		return fmt.Errorf("arrowio: writing %s: %w", o.final, err)
	}
	if err := os.Rename(o.tmp.Name(), o.final); err != nil {
		return fmt.Errorf("arrowio: writing %s: %w", o.final, err)
	}
	o.done = true
	if d, err := os.Open(filepath.Dir(o.final)); err == nil {
		_ = d.Sync() // best effort: not every system can sync a folder
		_ = d.Close()
	}
	return nil
}

// discard removes the temporary file (if any); buffered bytes meant for
// standard output are dropped.
func (o *output) discard() error {
	o.sink.discard = true
	if o.done || o.tmp == nil {
		return nil
	}
	o.done = true
	_ = o.tmp.Close() // may already be closed by a failed commit
	if err := os.Remove(o.tmp.Name()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("arrowio: removing temporary file of %s: %w", o.final, err)
	}
	return nil
}

// kvMeta holds the SetMetadata pairs in the order the keys were first set;
// the last value of a key wins.
type kvMeta struct {
	keys []string
	vals map[string]string
}

func newKVMeta() *kvMeta { return &kvMeta{vals: map[string]string{}} }

func (m *kvMeta) set(key, value string) {
	if _, ok := m.vals[key]; !ok {
		m.keys = append(m.keys, key)
	}
	m.vals[key] = value
}

// merged returns base overridden and extended by m: base keys first, in
// their order, then the keys only m has.
func (m *kvMeta) merged(base arrow.Metadata) (keys, vals []string) {
	seen := make(map[string]bool, base.Len()+len(m.keys))
	for i, k := range base.Keys() {
		if seen[k] {
			continue
		}
		seen[k] = true
		v := base.Values()[i]
		if mv, ok := m.vals[k]; ok {
			v = mv
		}
		keys, vals = append(keys, k), append(vals, v)
	}
	for _, k := range m.keys {
		if !seen[k] {
			seen[k] = true
			keys, vals = append(keys, k), append(vals, m.vals[k])
		}
	}
	return keys, vals
}

// WriteFileAtomic writes data to path the way table outputs are written: to
// a temporary file in the same folder, synced, then renamed, so that a
// failed or interrupted write leaves neither a partial file nor the
// temporary one. It is for the byte outputs of the tool (figures, reports).
func WriteFileAtomic(path string, data []byte) error {
	o, err := openOutput(path, nil)
	if err != nil {
		return err
	}
	if _, err := o.sink.Write(data); err != nil {
		_ = o.discard()
		return fmt.Errorf("arrowio: writing %s: %w", path, err)
	}
	if err := o.commit(); err != nil {
		_ = o.discard()
		return err
	}
	return nil
}
