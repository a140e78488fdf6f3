package arrowio

import (
	"io"
	"os"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Source describes what a Reader reads, for provenance and error messages.
type Source struct {
	Path  string   // the path as given (a file, glob, directory, or "-")
	Files []string // the files actually read, in reading order
	Bytes int64    // total size of Files on disk (0 for stdin)
}

// Reader streams record batches from one input (possibly many part files)
// with a single schema. Use it like array.RecordReader:
//
//	for r.Next() {
//		rec := r.RecordBatch() // valid until the next call to Next
//		file, first := r.Position()
//		...
//	}
//	if err := r.Err(); err != nil { ... }
//
// Release must always be called.
type Reader interface {
	Schema() *arrow.Schema
	Next() bool
	RecordBatch() arrow.RecordBatch
	// Position gives the file that holds the current batch and the 0-based
	// input row number of its first row.
	Position() (file string, firstRow int64)
	Err() error
	Source() Source
	Release()
}

// Format is a table file format.
type Format int

const (
	FormatUnknown Format = iota
	FormatParquet
	FormatIPCFile   // .arrow, .feather
	FormatIPCStream // "-" (stdin/stdout)
	FormatCSV
)

// readConfig collects ReadOptions.
type readConfig struct {
	mem       memory.Allocator
	batchSize int
	stdin     io.Reader // the stream read for "-" (WithStdin; default os.Stdin)
	columns   []string  // top-level columns to read (WithColumns); nil for all
	shard     Shard     // WithShard; zero for everything
	units     *shardState
	threads   int // WithReadThreads; ≤ 0: GOMAXPROCS
	// recycle, if not nil, serves the Parquet reader's own page buffers,
	// and the batches' buffers of files read only in fixed-width columns
	// (see recycleAllocator).
	recycle memory.Allocator
}

// ReadOption configures Open.
type ReadOption func(*readConfig)

// newReadConfig applies opts to the defaults.
func newReadConfig(opts []ReadOption) readConfig {
	cfg := readConfig{mem: memory.DefaultAllocator, batchSize: DefaultBatchSize, stdin: os.Stdin}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.threads <= 0 {
		cfg.threads = runtime.GOMAXPROCS(0)
	}
	return cfg
}

// WithReadAllocator sets the allocator for every Arrow buffer the reader makes.
func WithReadAllocator(mem memory.Allocator) ReadOption {
	return func(c *readConfig) { c.mem = mem }
}

// WithReadThreads sets how many goroutines decode the columns of a Parquet
// batch side by side (default, or n ≤ 0: GOMAXPROCS). Batches and rows
// come out in the same order whatever n is; 1 decodes one column after the
// other on the caller's goroutine.
func WithReadThreads(n int) ReadOption {
	return func(c *readConfig) { c.threads = n }
}

// WithBatchSize sets the number of rows per record batch (default 65536).
func WithBatchSize(n int) ReadOption {
	return func(c *readConfig) {
		if n > 0 {
			c.batchSize = n
		}
	}
}
