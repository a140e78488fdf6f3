// Package arrowio moves tables in and out of ordinate: Parquet (a file, a
// glob, or a directory of part files, read row group by row group), Arrow IPC
// files and streams (stdin/stdout), and CSV with a header row.
//
// It knows nothing of the methods. It offers four things:
//
//   - Open: a Reader that streams record batches from any supported source,
//     together with the position (file, first input row) of each batch.
//   - Selection: the column contract of every stage (--id, --features,
//     --exclude, --label, --soft-labels, --keep, --on-invalid), compiled
//     against a schema into a Plan that turns record batches into a Frame
//     of plain Go slices (Plan.LeftOut says which columns are not features,
//     and why).
//   - Create: an atomic Writer (temporary file in the target folder, renamed
//     on Close or, for a group, by CommitAll, removed on Abort) for Parquet
//     (zstd level 1), Arrow IPC file, Arrow IPC stream and CSV; CreateFile for the
//     bytes of figures and reports.
//   - Provenance: the JSON stored under the key "ordinate" in the Arrow
//     schema metadata of every output (and in the Parquet footer), and
//     Inspect to read it back.
//
// # Conventions
//
// Row numbers are 0-based input row numbers counted across all files of the
// input in the order they are read (part files sorted by name); they are the
// values of the synthesised "row" id column. Errors about data carry the part
// file, the column, the row number and, when an id column is selected, the id
// value, as an *Error that wraps one of the sentinel errors of errors.go;
// its message clips the id and the column name, and the readers clip the
// text values they quote, to 100 characters (ClipValue), so that a value
// of a megabyte does not fill the error line. A path that cannot name a
// file (a loop of symbolic links, a file where a folder should be, a name
// too long) matches ErrInvalidOption besides the system's error, as the
// caller's fault.
//
// Invalid values are NaN, ±Inf and null in a used column. Feature matrices
// are float64, row-major, N×D. Labels keep their own type: integer labels
// are exact (Labels.Int, beyond 2^53 too) beside their float64 values, and
// an ordered dictionary's order is kept (Labels.Order).
//
// Every Arrow array, record batch and reader handed out must be released by
// the caller, as everywhere in arrow-go. All functions take an allocator
// option so that tests can check for leaks with memory.CheckedAllocator.
//
// # Reading
//
// Open reads one input as a single stream of batches of at most
// WithBatchSize rows (default 65536), with one schema: every part file must
// have the same column names and types (those read, with WithColumns). Parquet is read row group by row
// group (a batch never spans two), through a buffered stream per column
// chunk, so memory is bounded by a row group and does not grow with the
// file. Arrow IPC record batches larger than the batch size are sliced.
// WithColumns reads only some top-level columns (for Parquet, only their
// column chunks). The columns of a Parquet batch are decompressed and
// decoded side by side on WithReadThreads goroutines (default GOMAXPROCS),
// which is most of the cost of reading; batches, rows and errors are the
// same whatever the thread count. On Go's allocator (the default) a
// Parquet reader recycles its page buffers and, when every column read is
// of a fixed-width type, the large buffers of the batches released to it,
// zeroed as Go's would be (recycle.go says why not for strings: Go strings
// from String.Value alias a batch's bytes). Plan.ExtractTo
// fills a frame's features into the caller's storage, and WithFrameThreads
// fills them on several goroutines; Plan.ExtractColumns leaves float64
// features without nulls in the batch's columns (Frame.Columns, unchecked
// for NaN and ±Inf) for a caller that can use columns, as apply's affine
// maps do.
//
// CSV needs a header row; a value is null when, spaces trimmed, it is
// empty, NA, N/A, null or NULL (encoding/csv skips blank lines, so an
// empty value alone on a line must be quoted). Open reads all CSV files once
// to infer the column types: int64 when every non-null value is a base-10
// integer, float64 when every one parses with strconv.ParseFloat (NaN, Inf
// and out-of-range values included) or there is none, utf8 otherwise. A
// utf8 column more than half of whose values are numbers carries the row
// and text of its first other value in its field metadata
// (MetaFirstTextRow, MetaFirstTextValue), so that using it as a feature can
// fail with ErrNotNumeric pointing there. Ragged rows, bad quotes and
// duplicate or empty header names are ErrCorrupt with their row. The second
// pass builds each batch with room for the rows that the first pass
// counted, not for a full batch: memory follows the data, whatever the
// number of columns (a 4,000-column file of a few rows once took 650 KB a
// column).
//
// An Arrow IPC stream (standard input, a .arrows file, or a stream under
// .arrow) must end with its end-of-stream marker (0xFFFFFFFF 0x00000000, or
// the 4-byte 0 of the format before Arrow 0.15). A stream cut short, after a
// batch, before the marker or inside a message, is an *Error wrapping
// ErrCorrupt that names the source and the rows read before the cut, never
// a shorter table (arrow-go's reader takes the end of the input at a message
// boundary for the end of the stream); so are bytes after the marker of a
// file, and an Arrow IPC file on standard input. Inspect describes a
// directory or glob as Open reads it.
//
// A damaged file gives an *Error wrapping ErrCorrupt (ErrEmpty for a file of
// 0 bytes), never a panic: calls into arrow-go run under recover, batches are
// validated before they are handed out, and the metadata that arrow-go
// trusts (IPC schemas and footers, the Arrow schema stored in Parquet
// footers, declared buffer sizes) is checked first, because a damaged count
// there makes arrow-go ask for more memory than there is, which no recover
// catches. So are the buffers of every IPC record batch and dictionary
// batch message, which arrow-go cuts out of the message body without a
// check: a buffer outside the body is ErrCorrupt naming the batch and the
// buffer, not "slice bounds out of range". After a panic inside arrow-go the memory it had allocated is left
// to the garbage collector: a CheckedAllocator then reports it as a leak.
// Neither Parquet nor Arrow IPC has checksums on its data, so damage there
// may go unseen and read as other values.
//
// # Writing
//
// Create picks the format from the extension (FormatOf) and writes to a
// temporary file next to the target; Close renames it into place, so a
// reader never sees a partial output and a failed run leaves none. A target
// that exists and is not a regular file (a named pipe, a device such as
// os.DevNull, a socket, a folder) is refused, by Create and again when the
// output is published, with an error wrapping ErrNotRegular (an
// ErrInvalidOption), and left as it is: renaming over it would replace it,
// and writing into it would not be atomic. Only
// standard output ("-", an Arrow IPC stream) is written as it goes, and a
// stream that ends by an error has no end-of-stream marker. Outputs that
// belong together are published as a group: DeferCommit before Close, then
// CommitAll (all or none; see Committer). Temporary files carry the
// writer's process id, and those of dead processes are removed when a
// writer is created in their folder (RemoveStale). Errors of the file
// system name the output and wrap the system's error (syscall.ENOSPC).
// Parquet outputs are zstd at level 1 (parquetZstdLevel: against the
// default level 3, less writing for slightly larger files, and the same
// reading; BENCHMARKS.md, "Parquet I/O (arrowio)"), without dictionaries
// for float columns nor for integer and text columns whose first values are
// mostly distinct (row numbers, ids: chooseNoDictionary), and with
// BYTE_STREAM_SPLIT for the top-level float columns whose values compress
// better split, as full-precision values do (chooseSplit, decided on the
// first row group; smaller files for normal doubles, while values that
// repeat stay plain). DuckDB, pyarrow and Spark (3.2 and later) read
// BYTE_STREAM_SPLIT. A full row group is encoded and compressed on a
// goroutine of its own while the caller goes on (one at a time, so a writer
// holds up to two row groups); an error in it comes back from a later Write
// or from Close. Provenance goes in with SetMetadata: Parquet writes it at
// Close, so it can carry the row count (Writer.Rows) and the run time, both
// to the footer's key/value metadata and to the Arrow schema stored in the
// footer under ARROW:schema (written then, not when the file is opened as
// pqarrow does), which is where pyarrow and pandas read a file's schema
// metadata from and write it back to: the provenance survives a table read,
// filtered and written back by them. Arrow IPC writes it with the schema,
// before the first batch; CSV has no place for it. Readers find it in
// either place of a Parquet file (the footer's value wins): in the schema
// of Open's reader, and in Inspect, which reads it back with the schema,
// row count and row groups, from the footer alone for Parquet.
//
// arrow-go v18.8's readers trust the counts in a file's schema, so a
// damaged one can exhaust memory, which no recover catches; Inspect checks
// the schema before arrow-go decodes it and gives an error instead.
package arrowio
