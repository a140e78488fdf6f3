// Package transforms is ordinate's stage contract, and what its stages
// share: how a stage declares its options, the table roles it reads and
// writes, how it runs on Arrow data with a context, reports progress and
// fails; the one path by which stages read features; class handling; the
// affine and kernel models and `apply`, which places new rows with them.
//
// The methods live in sub-packages (bvp, linear, ckpca, lsp, tsne, nerv,
// fisher, score, oe, triplets, quality; figure and report for pictures):
// each holds its pure matrix core, its own numerics and its Stage. This
// package imports none of them; the formats of the tables stages exchange
// are in package table.
//
// # Stages
//
// A Stage has an Info (name, documentation, examples, input and output
// roles), NewOptions (its options struct at its defaults) and Run. Hosts run
// a stage with the package function Run, which validates the options,
// checks that the required tables are given, and prepares the provenance.
// The CLI (cmd/ordinate) generates a command per stage; a Go program passes
// records in memory with MemTables; FileTables reads and writes files.
//
// Run also guards the outputs, for every host: before any work FileTables
// refuses an output that is an input (or inside an input folder, or
// matching an input glob) or another output, comparing resolved files; and
// the outputs a stage closes are published together when it returns nil
// (arrowio.CommitAll), withdrawn when it fails, so that a run leaves all
// its outputs or none. Every output carries the run's run_id, and every
// input recorded in the provenance its own.
//
// Options are declared once, as struct fields tagged `opt:"name"
// help:"…"`; the default is the value NewOptions sets. Declare lists them
// (names, help, defaults, enum values), SetOptions sets them from text, and
// Params records them in the provenance under snake_case keys. Enums are
// types with Values, MarshalText and UnmarshalText.
//
// # Errors
//
// Every error a stage returns for bad data wraps ErrInvalidData, and for a
// bad option ErrInvalidOption (OptionError names the option). A bad value
// is a DataError (arrowio.Error): file, column, row and id. Anything else is
// a runtime failure. Hosts decide from these kinds alone.
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
// row. WriteModel never writes a model with a non-finite value (CheckModel),
// and Apply and WriteLinear never write a non-finite coordinate
// (CheckEmbedding).
//
// Ordinal classes are ordered by ascending value for numeric labels, and by
// an explicit order (--order) for text labels: text is never sorted
// silently. Nominal classes are ordered by ascending value (numbers) or by
// byte order (text); the order only fixes signs and colours.
//
// An affine model maps a row x of its input features to
//
//	y = ((x − mean) ⊘ scale − origin) · Axes
//
// where mean and scale are the standardisation (0 and 1 when it is off),
// origin is the stage's own centre (for BVP the mean of the class centres)
// and Axes is D×d. Output tables hold the id column, the kept columns, then
// emb_0 … emb_{d−1} as float64.
//
// Model files are Parquet tables, one row per input feature (feature, mean,
// scale, origin, axis_0 …), with the JSON of ModelHeader under the footer key
// "ordinate.model" and the run's provenance under "ordinate". The header
// carries a format version; a file of an unknown version is refused.
package transforms
