// Package transforms is ordinate's stage contract, and what its stages
// share: how a stage declares its options, the table roles it reads and
// writes, how it runs on Arrow data with a context, reports progress and
// fails; the registry of stages and model kinds, and the self-description
// hosts build on; the one path by which stages read features; class
// handling; the Model interface and how model files are written and read.
//
// The methods live in sub-packages (bvp, linear, ckpca, lsp, tsne, nerv,
// fisher, score, oe, triplets, quality; figure and report for pictures):
// each holds its pure matrix core, its own numerics and its Stage, and
// registers them. The models shared by several methods are in affine
// (linear maps) and placement (fitted maps that place new rows); apply
// places new rows with any registered model. This package imports none of
// them; the formats of the tables stages exchange are in package table.
//
// # Stages and the registry
//
// A Stage has an Info (name, category, documentation, examples, input and
// output roles), NewOptions (a pointer to its options struct at its
// defaults) and Run. Method packages register their stages (Register) and
// model kinds (RegisterModel) when imported; package all imports every one.
// Stages lists them in the order hosts show them, LookupStage finds one by
// name, and Describe gives the whole registry as one JSON-ready value (the
// CLI's `ordinate describe --json`, which the Python package reads).
//
// Hosts run a stage with the package function Run, which validates the
// options, checks that the required tables are given, and prepares the
// provenance. The CLI (cmd/ordinate) generates a command per registered
// stage; a Go program passes records in memory with MemTables; FileTables
// reads and writes files.
//
// Run also guards the outputs, for every host: before any work FileTables
// refuses an output that is an input (or inside an input folder, or
// matching an input glob) or another output, comparing resolved files; and
// the outputs a stage closes are published together when it returns nil
// (arrowio.CommitAll), withdrawn when it fails, so that a run leaves all
// its outputs or none. Every output carries the run's run_id, and every
// input recorded in the provenance its own. Inputs are guarded too: a model
// file opened for a role that reads data (anything but a role that lists
// Models, such as apply's model, or a variadic one, such as report's
// tables) is refused (ErrModelAsData), and a read of standard input ("-"
// in FileTables) returns as soon as the run is cancelled, however silent
// the stream.
//
// # Options
//
// A method has one options struct per stage, used by hosts and by its
// numerics alike. Options are declared once, as struct fields tagged
// `opt:"name" range:"[1,)" help:"…"` (see Options); the default is the
// value the method's DefaultOptions sets. Declare lists them (names, help,
// defaults, ranges, enum values, earlier names), Validate checks them
// against their declaration and the struct's own cross-field rules,
// SetOptions sets them from text, and Params records them in the
// provenance under snake_case keys. Enums are string types with Values
// (Enum); the zero value "" of an enum is not a value, so DefaultOptions
// sets every one. Checks that need the data happen once, in the numerics.
//
// # Errors
//
// Every error a stage returns for bad data wraps ErrInvalidData, and for a
// bad option ErrInvalidOption (OptionError names the option; Optionf makes
// one). A bad value is a DataError (arrowio.Error): file, column, row and
// id; MatrixErrorf makes one for a matrix handed to a method's core, and
// Errorf wraps a sentinel with a detail. Anything else is a runtime
// failure. Hosts decide from these kinds alone.
//
// # Progress
//
// Stages report phases through Progress (Start, Add, Finish) with totals
// where known; Reporter shows them to people: a bar on a terminal,
// otherwise a log line at least every ReportInterval while a phase runs.
//
// # Conventions
//
// Features: Env.ReadFeatures is the one way a stage reads them. Without
// explicit features the default set leaves out identifiers, columns named
// as targets and earlier embeddings (DefaultExclusions), and the columns
// Columns.Exclude names (which also thins the globs of explicit features);
// one line names the features used and every column left out, with why (a
// warning when a name was guessed to be an identifier or target). Features
// of scales (standard deviations) more than 100 apart are a warning when
// they are not standardised. A constant column is dropped with a warning,
// standardised or not. Standardisation is the
// z-score with the training mean and the sample standard deviation
// (denominator N−1), as ORCA does; each stage declares whether it is on by
// default. ReadFeatures also closes overflow and identity as classes, for
// every stage at once: a column too large to standardise, or features whose
// squared distances would overflow (CheckRange), and duplicate ids when an
// id column is given (CheckUniqueIDs), are DataErrors naming the column and
// row. WriteModel never writes a model with a non-finite value
// (Model.Check), and WriteEmbedding never writes a non-finite coordinate
// (CheckEmbedding).
//
// Ordinal classes are ordered by an explicit order (--order), else by the
// order an ordered dictionary declares (a pandas ordered Categorical), else
// by ascending value for numeric labels; text labels need one of the first
// two: text is never sorted silently. Nominal classes are ordered the same
// way, text by byte order when nothing declares its order; the order only
// fixes signs and colours. Labels are compared exactly in their own type:
// integer labels as integers (2^53 and 2^53+1 are two classes), text as
// text.
//
// Output tables hold the id column, the kept columns, then emb_0 …
// emb_{d−1} as float64.
//
// Memory (memory.go): a stage estimates, before it allocates, every plan
// that grows faster than its rows or takes its size from an option or a
// file (N×N and D×D matrices, output dimensions, step counts, model
// headers), and checks it with Reserve against the memory the run may use
// (Env.MemoryLimit; by default the cgroup limit or the machine's memory):
// a plan that does not fit is a *MemoryError wrapping ErrMemory (bad data),
// or an OptionError naming the option that drives it, never Go's fatal
// out-of-memory. Model loaders check every count a header gives against
// the table's own columns before allocating by it (ModelFile.CheckColumns).
//
// # Models
//
// A Model places new rows: Transform maps raw features to coordinates,
// Record is its table, Check refuses a model with a non-finite value. Each
// kind lives with the methods that fit it and registers how it is read
// (ModelKind); the contract knows only the interface. Model files are
// Parquet tables, one row per feature or reference row as the kind lays
// them out, with the JSON of ModelHeader under the footer key
// "ordinate.model" and the run's provenance under "ordinate". The header
// carries a format version and the kind; a file of an unknown version or
// kind is refused.
package transforms
