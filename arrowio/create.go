package arrowio

import (
	"context"
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
// Rows go to a temporary file ".NAME.tmp-PID-HOST-RANDOM" in the folder of
// path, which must exist; a path that holds anything but a regular file
// (a named pipe, a device, a socket, a folder) is refused with an error
// wrapping ErrNotRegular, and left as it is; temporary files of dead runs found there are
// removed first (see RemoveStale; the writer lists them in StaleRemoved).
// Close flushes it, syncs it to disk and renames it over path; Abort, a
// failed Write or a failed Close remove it, so that path is either left as
// it was or holds the complete output. The renamed file gets mode 0644.
// After DeferCommit, Close only completes the temporary file, and Commit
// (or CommitAll, for a group of outputs) renames it (see Committer).
//
// Standard output cannot be undone: "-" writes through a buffer, and Abort
// (or a failed Write or Close) drops what is still buffered and does not end
// the stream, so a reader sees a truncated stream rather than a short
// complete one. After DeferCommit the end of the stream (the end-of-stream
// marker) is written only by Commit.
//
// Errors of the file system name the output and wrap the system's own
// error: a full disk is "arrowio: writing out.parquet: no space left on
// device", and errors.Is(err, syscall.ENOSPC) holds.
//
// Formats:
//   - Parquet: zstd, row groups of WithRowGroupRows rows (default: about
//     64 MiB of values, between 1024 and 1<<20 rows, estimated from the
//     schema), batches buffered so that small batches do not make small row
//     groups, no dictionary encoding for floating-point columns, the Arrow
//     schema stored for faithful reading back (ARROW:schema, written at
//     Close). The schema metadata and the SetMetadata pairs go to the footer
//     key/value metadata, each key once, and to the metadata of the stored
//     Arrow schema, where pyarrow and pandas find them.
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
	// (the sink discards at that point), once any work of its own
	// goroutines is done.
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
	stateOpen     writerState = iota
	stateFinished             // closed with DeferCommit: complete, waiting for Commit
	stateClosed               // published
	stateFailed               // Close or Commit failed; the output was removed
	stateAborted              // Abort, or Rollback
)

// writer is the Writer of every format: the format's encoder on top of an
// atomic output.
type writer struct {
	ctx      context.Context
	path     string
	schema   *arrow.Schema
	format   Format
	out      *output
	enc      encoder
	meta     *kvMeta
	rows     int64
	err      error // the first Write error; the output is then never published
	state    writerState
	cerr     error // what Close (or Commit) returned
	deferred bool
}

func (w *writer) Path() string           { return w.path }
func (w *writer) Rows() int64            { return w.rows }
func (w *writer) StaleRemoved() []string { return w.out.stale }

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
		w.err = w.out.writeError(err)
		return w.err
	}
	w.rows += rec.NumRows()
	return nil
}

func (w *writer) Close() error {
	switch w.state {
	case stateFinished, stateClosed, stateFailed:
		return w.cerr
	case stateAborted:
		return fmt.Errorf("arrowio: %s: Close after Abort", w.path)
	}
	err := w.err
	if err == nil {
		err = w.ctx.Err()
	}
	if err == nil && w.enc != nil { // a FileWriter has no encoder
		if w.deferred {
			w.out.holdTail()
		}
		if err = protect(w.enc.finish); err != nil {
			err = w.out.writeError(err)
		}
	}
	if err == nil {
		err = w.out.finish()
	}
	if err == nil && !w.deferred {
		err = w.out.publish(false)
	}
	if err != nil {
		w.drop()
		w.state, w.cerr = stateFailed, err
		return err
	}
	w.state = stateClosed
	if w.deferred {
		w.state = stateFinished
	}
	return nil
}

// Abort discards an output that is not closed. After a Close it does
// nothing: an output closed with DeferCommit is withdrawn by Rollback.
func (w *writer) Abort() error {
	if w.state != stateOpen {
		return nil
	}
	w.state = stateAborted
	return w.drop()
}

func (w *writer) DeferCommit() {
	if w.state == stateOpen {
		w.deferred = true
	}
}

func (w *writer) Commit() error { return w.commit(false) }

func (w *writer) commit(backup bool) error {
	switch w.state {
	case stateClosed:
		return nil
	case stateFinished:
	case stateFailed:
		return w.cerr
	default:
		return fmt.Errorf("arrowio: %s: Commit before Close or after Abort", w.path)
	}
	err := w.ctx.Err()
	if err == nil {
		err = w.out.publish(backup)
	}
	if err != nil {
		w.drop()
		w.state, w.cerr = stateFailed, err
		return err
	}
	w.state = stateClosed
	return nil
}

func (w *writer) Rollback() error {
	switch w.state {
	case stateFinished:
		w.state = stateAborted
		return w.drop()
	case stateClosed:
		if !w.deferred {
			return fmt.Errorf("arrowio: %s: Rollback of an output closed without DeferCommit", w.path)
		}
		w.state = stateAborted
		return w.out.rollback()
	}
	return nil
}

func (w *writer) irrevocable() bool { return w.out.tmp == nil }
func (w *writer) forget()           { w.out.forget() }

// drop releases the encoder and removes the temporary file.
func (w *writer) drop() error {
	w.out.sink.discard.Store(true)
	if w.enc != nil {
		_ = protect(func() error { w.enc.release(); return nil })
		w.enc = nil
	}
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

// WriteRecord writes one in-memory batch to path through Create: the whole
// table or nothing (an error leaves no output).
func WriteRecord(ctx context.Context, path string, rec arrow.RecordBatch, opts ...WriteOption) error {
	w, err := Create(ctx, path, rec.Schema(), opts...)
	if err != nil {
		return err
	}
	defer w.Abort()
	if err := w.Write(rec); err != nil {
		return err
	}
	return w.Close()
}
