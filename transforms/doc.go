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
// input recorded in the provenance its own.
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
// explicit features the default set leaves out identifiers, targets and
// earlier embeddings (DefaultExclusions), with a warning. A constant column
// is dropped with a warning, standardised or not. Standardisation is the
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
// Ordinal classes are ordered by ascending value for numeric labels, and by
// an explicit order (--order) for text labels: text is never sorted
// silently. Nominal classes are ordered by ascending value (numbers) or by
// byte order (text); the order only fixes signs and colours.
//
// Output tables hold the id column, the kept columns, then emb_0 …
// emb_{d−1} as float64.
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
