package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// version is the tool version recorded in every output.
const version = "0.1.0"

func toolVersion() string {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += "+" + s.Value[:12]
			}
		}
	}
	return v
}

// runtimeError marks failures that are not the input's fault: exit code 1.
type runtimeError struct{ err error }

func (e runtimeError) Error() string { return e.err.Error() }
func (e runtimeError) Unwrap() error { return e.err }

// action wraps a command's action so that every error it returns is
// classified: input errors keep code 2, everything else becomes code 1.
func action(fn func(c *cli.Context) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		err := fn(c)
		if err == nil {
			return nil
		}
		var ie inputError
		if errors.As(err, &ie) {
			return err
		}
		return runtimeError{err}
	}
}

// Flags shared by the commands.
var (
	flagIn        = &cli.StringFlag{Name: "in", Usage: "input table: .parquet (file, glob or directory of parts), .arrow/.feather, .csv, or - for an Arrow IPC stream on stdin", Required: true}
	flagOut       = &cli.StringFlag{Name: "out", Usage: "output table: .parquet (zstd), .arrow, .csv, or - for an Arrow IPC stream on stdout", Required: true}
	flagID        = &cli.StringFlag{Name: "id", Usage: "row identity column, passed through unchanged (default: a `row` column of 0-based input row numbers)"}
	flagFeatures  = &cli.StringFlag{Name: "features", Usage: "feature columns: comma list of names and globs (x*,age), or one list column (default: every numeric column not used otherwise)"}
	flagLabel     = &cli.StringFlag{Name: "label", Usage: "class label column (integers or text)"}
	flagOrder     = &cli.StringFlag{Name: "order", Usage: "class order as a comma list, e.g. low,mid,high (required for text labels of ordinal stages)"}
	flagKeep      = &cli.StringFlag{Name: "keep", Usage: "columns to pass through to the output, comma list of names and globs (default: the label column)"}
	flagOnInvalid = &cli.StringFlag{Name: "on-invalid", Value: "error", Usage: "NaN, ±Inf or null in a used column: error (stop, naming file, column, row and id) or drop (drop the row and report how many)"}
	flagDims      = &cli.IntFlag{Name: "dims", Value: 2, Usage: "output dimensions"}
	flagSeed      = &cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed; the same input, seed and thread count give bit-identical output"}
	flagThreads   = &cli.IntFlag{Name: "threads", Value: 0, Usage: "worker threads (0: all cores)"}
	flagQuiet     = &cli.BoolFlag{Name: "quiet", Usage: "only warnings and errors on stderr, no progress"}
	flagLogFormat = &cli.StringFlag{Name: "log-format", Value: "text", Usage: "log format on stderr: text or json"}
	flagModelOut  = &cli.StringFlag{Name: "model-out", Usage: "also save the fitted model (Parquet) for `ordinate apply`"}
	flagStd       = &cli.BoolFlag{Name: "standardize", Value: true, Usage: "z-score the features with the training mean and sample std (constant columns are dropped); --standardize=false to use raw values"}
)

func commonFlags() []cli.Flag { return []cli.Flag{flagSeed, flagThreads, flagQuiet, flagLogFormat} }

// env is what an action needs around its stage: logging, progress,
// provenance, and the process's streams.
type env struct {
	c       *cli.Context
	ctx     context.Context
	stage   string
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	log     *slog.Logger
	prog    transforms.Progress
	started time.Time
	prov    *arrowio.Provenance
	mem     memory.Allocator
}

func newEnv(c *cli.Context, stage string) (*env, error) {
	app := c.App
	e := &env{c: c, ctx: c.Context, stage: stage, stdin: app.Reader, stdout: app.Writer, stderr: app.ErrWriter,
		started: time.Now(), mem: memory.DefaultAllocator}
	level := slog.LevelInfo
	if c.Bool("quiet") {
		level = slog.LevelWarn
	}
	opts := &slog.HandlerOptions{Level: level}
	switch f := c.String("log-format"); f {
	case "", "text":
		e.log = slog.New(slog.NewTextHandler(e.stderr, opts))
	case "json":
		e.log = slog.New(slog.NewJSONHandler(e.stderr, opts))
	default:
		return nil, usagef("--log-format %q: want text or json", f)
	}
	if c.Bool("quiet") {
		e.prog = transforms.NoProgress{}
	} else {
		e.prog = newProgress(e.stderr, e.log)
	}
	if t := c.Int("threads"); t < 0 {
		return nil, usagef("--threads %d: want 0 (all cores) or a positive count", t)
	}
	e.prov = &arrowio.Provenance{
		Tool: "ordinate", Version: toolVersion(), Stage: stage, Params: flagValues(c),
		Seed: c.Uint64("seed"), Started: e.started.UTC().Format(time.RFC3339),
	}
	return e, nil
}

// threads resolves --threads.
func (e *env) threads() int {
	if t := e.c.Int("threads"); t > 0 {
		return t
	}
	return runtime.GOMAXPROCS(0)
}

// flagValues records every flag of the command with its resolved value.
func flagValues(c *cli.Context) map[string]any {
	out := map[string]any{}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		switch name {
		case "quiet", "log-format", "help":
			continue
		}
		out[name] = c.Value(name)
	}
	if _, ok := out["threads"]; ok {
		out["threads"] = resolvedThreads(c)
	}
	return out
}

func resolvedThreads(c *cli.Context) int {
	if t := c.Int("threads"); t > 0 {
		return t
	}
	return runtime.GOMAXPROCS(0)
}

// splitList splits a comma list, trimming blanks and dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// selection builds the column selection from the common input flags.
func selection(c *cli.Context) (arrowio.Selection, error) {
	sel := arrowio.Selection{
		ID:       c.String("id"),
		Features: splitList(c.String("features")),
		Label:    c.String("label"),
	}
	if c.IsSet("keep") {
		sel.Keep = splitList(c.String("keep"))
		if sel.Keep == nil {
			sel.Keep = []string{}
		}
	}
	if c.Command.HasName("nerv") || hasFlag(c, "soft-labels") {
		sel.SoftLabels = splitList(c.String("soft-labels"))
	}
	switch v := c.String("on-invalid"); v {
	case "", "error":
		sel.OnInvalid = arrowio.InvalidError
	case "drop":
		sel.OnInvalid = arrowio.InvalidDrop
	default:
		return sel, usagef("--on-invalid %q: want error or drop", v)
	}
	return sel, nil
}

func hasFlag(c *cli.Context, name string) bool {
	for _, f := range c.Command.Flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

// open opens an input table ("-" reads the process's stdin).
func (e *env) open(path string) (arrowio.Reader, error) {
	r, err := arrowio.Open(e.ctx, path, arrowio.WithStdin(e.stdin), arrowio.WithReadAllocator(e.mem))
	return r, badInput(err)
}

// readFrame reads a whole input table with a selection, records it in the
// provenance under role, and reports dropped rows.
func (e *env) readFrame(role, path string, sel arrowio.Selection) (*arrowio.Frame, error) {
	r, err := e.open(path)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	e.prog.Start("reading "+filepath.Base(path), 0)
	f, err := arrowio.ReadFrame(e.ctx, countingReader{r, e.prog}, sel)
	e.prog.Finish()
	if err != nil {
		if e.ctx.Err() != nil {
			return nil, err
		}
		return nil, badInput(err)
	}
	src := r.Source()
	e.prov.Inputs = append(e.prov.Inputs, arrowio.InputInfo{Role: role, Path: path, Files: src.Files,
		Rows: int64(f.N) + f.Dropped, Bytes: src.Bytes, Dropped: f.Dropped})
	if f.Dropped > 0 {
		e.warn(fmt.Sprintf("%s: dropped %d of %d rows with NaN, ±Inf or null in a used column (--on-invalid drop)", path, f.Dropped, int64(f.N)+f.Dropped))
	}
	e.log.Info("read", "input", path, "rows", f.N, "features", f.D)
	return f, nil
}

// warn logs a warning and records it in the provenance.
func (e *env) warn(msg string) {
	e.log.Warn(msg)
	e.prov.Warnings = append(e.prov.Warnings, msg)
}

// createSchema opens an output for writing; "-" writes an Arrow IPC stream
// to stdout. The provenance known so far is set at once so that IPC outputs,
// whose metadata is written with the schema, carry it too.
func (e *env) createSchema(path string, schema *arrow.Schema) (arrowio.Writer, error) {
	w, err := arrowio.Create(e.ctx, path, schema, arrowio.WithStdout(e.stdout), arrowio.WithWriteAllocator(e.mem))
	if err != nil {
		return nil, err
	}
	if js, err := e.prov.JSON(); err == nil {
		w.SetMetadata(arrowio.MetadataKey, js)
	}
	return w, nil
}

// finish stamps the provenance (rows written, run time, figures) on w and
// closes it.
func (e *env) finish(w arrowio.Writer, figures map[string]any) error {
	e.prov.RowsWritten = w.Rows()
	e.prov.RunSeconds = time.Since(e.started).Seconds()
	if figures != nil {
		e.prov.Figures = figures
	}
	js, err := e.prov.JSON()
	if err != nil {
		return err
	}
	w.SetMetadata(arrowio.MetadataKey, js)
	if err := w.Close(); err != nil {
		return err
	}
	if w.Path() != "-" {
		e.log.Info("wrote", "output", w.Path(), "rows", e.prov.RowsWritten)
	}
	return nil
}

// writeEmbedding writes the frame's ids and kept columns with the f.N×d
// embedding, in batches, atomically.
func (e *env) writeEmbedding(path string, f *arrowio.Frame, emb []float64, d int, figures map[string]any) error {
	schema, err := table.EmbeddingSchema(f, d)
	if err != nil {
		return badInput(err)
	}
	w, err := e.createSchema(path, schema)
	if err != nil {
		return err
	}
	defer w.Abort()
	rec := table.EmbeddingRecord(e.mem, schema, f, emb)
	err = w.Write(rec)
	rec.Release()
	if err != nil {
		return err
	}
	return e.finish(w, figures)
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkOutPath refuses to overwrite the input and checks the folder early,
// before any work is done.
func checkOutPath(in, out string) error {
	if out == "-" {
		return nil
	}
	if arrowio.FormatOf(out) == arrowio.FormatUnknown {
		return usagef("--out %q: unknown extension; use .parquet, .arrow, .feather, .csv or -", out)
	}
	return checkOutFile(in, out)
}

// checkOutPaths is checkOutPath for each output that is set.
func checkOutPaths(in string, outs ...string) error {
	for _, p := range outs {
		if p != "" {
			if err := checkOutPath(in, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkOutFile checks that out is not the input and that its folder exists.
func checkOutFile(in, out string) error {
	if a, err := filepath.Abs(in); err == nil {
		if b, err := filepath.Abs(out); err == nil && a == b {
			return usagef("--out %q is the input file; choose another path", out)
		}
	}
	dir := filepath.Dir(out)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usagef("--out %q: folder %q does not exist", out, dir)
	}
	return nil
}

func itoa(n int64) string { return fmt.Sprintf("%d", n) }

// isDataError reports whether err is about the input data (exit code 2)
// rather than the machine (exit code 1).
func isDataError(err error) bool {
	var ae *arrowio.Error
	if errors.As(err, &ae) {
		return true
	}
	for _, s := range []error{arrowio.ErrMissingColumn, arrowio.ErrColumnType, arrowio.ErrInvalidValue,
		arrowio.ErrNotNumeric, arrowio.ErrEmpty, arrowio.ErrCorrupt, arrowio.ErrFormat, arrowio.ErrNoFiles,
		arrowio.ErrSchema, arrowio.ErrSelection} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// countingReader reports the rows of every batch it hands out to a Progress.
type countingReader struct {
	arrowio.Reader
	prog transforms.Progress
}

func (c countingReader) Next() bool {
	if !c.Reader.Next() {
		return false
	}
	c.prog.Add(c.Reader.RecordBatch().NumRows())
	return true
}

// writeTable writes one batch, built by fill, to out: atomically, with the
// provenance and the given figures.
func (e *env) writeTable(out string, schema *arrow.Schema, fill func(b *array.RecordBuilder), figures map[string]any) error {
	b := array.NewRecordBuilder(e.mem, schema)
	defer b.Release()
	fill(b)
	rec := b.NewRecordBatch()
	defer rec.Release()
	w, err := e.createSchema(out, schema)
	if err != nil {
		return err
	}
	defer w.Abort()
	if err := w.Write(rec); err != nil {
		return err
	}
	return e.finish(w, figures)
}

// float64Fields returns non-null float64 fields prefix0 … prefix{n−1}.
func float64Fields(prefix string, n int) []arrow.Field {
	fields := make([]arrow.Field, n)
	for j := range fields {
		fields[j] = arrow.Field{Name: fmt.Sprintf("%s%d", prefix, j), Type: arrow.PrimitiveTypes.Float64}
	}
	return fields
}
