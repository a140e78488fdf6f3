package arrowio

import (
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// MetadataKey is the key under which ordinate stores its provenance JSON:
// in the Arrow schema metadata of every output (for Parquet, of the Arrow
// schema stored in the footer) and in the Parquet footer's key/value
// metadata.
const MetadataKey = "ordinate"

// Writer writes record batches to one output atomically: rows go to a
// temporary file in the target folder, and Close renames it into place.
// Abort (or a failed Close) removes the temporary file, so that a failed or
// interrupted run leaves nothing behind. Abort after a successful Close is a
// no-op, so `defer w.Abort()` is the idiom. The writers of Create also
// implement Committer, to publish several outputs together, and
// StaleRemoved() []string (see RemoveStale).
type Writer interface {
	// Write adds the rows of rec. Parquet row groups are encoded on a
	// goroutine of their own once full, so an error in one (arrow-go
	// refusing a value) may come back from a later Write or from Close;
	// either way the output is never published.
	Write(rec arrow.RecordBatch) error
	// SetMetadata sets a key/value pair of file metadata. For Parquet it is
	// written at Close, to the footer's key/value metadata and to the
	// metadata of the Arrow schema stored there, so it may be called at any
	// time. For
	// Arrow IPC it goes into the schema metadata, which is written with the
	// first batch (or at Close when there is none): later calls are ignored.
	// CSV has no metadata and ignores it.
	SetMetadata(key, value string)
	Close() error
	Abort() error
	// Path is the final path ("-" for stdout).
	Path() string
	// Rows is the number of rows written so far by successful Writes, so
	// that the provenance stored before Close can record it.
	Rows() int64
}

type writeConfig struct {
	mem          memory.Allocator
	rowGroupRows int64
	format       Format
	stdout       io.Writer // where "-" writes; os.Stdout unless WithStdout
}

// WriteOption configures Create.
type WriteOption func(*writeConfig)

// WithWriteAllocator sets the allocator the writer uses.
func WithWriteAllocator(mem memory.Allocator) WriteOption {
	return func(c *writeConfig) { c.mem = mem }
}

// WithRowGroupRows sets the Parquet row group size in rows (default 1<<20).
func WithRowGroupRows(n int64) WriteOption {
	return func(c *writeConfig) {
		if n > 0 {
			c.rowGroupRows = n
		}
	}
}

// WithFormat forces the output format instead of taking it from the extension.
func WithFormat(f Format) WriteOption {
	return func(c *writeConfig) { c.format = f }
}
