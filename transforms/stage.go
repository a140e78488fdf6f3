package transforms

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// Stage is one pipeline stage: a method (or a tool such as evaluate) that
// reads tables by role and writes tables by role. Every method package
// exposes its stages through this contract; hosts (the CLI, a Go program,
// the Python front end) only drive it.
//
// A stage is a stateless value: all its state is in its options and its
// Env. NewOptions returns a pointer to the stage's options struct set to
// its defaults (see Options for how options are declared). Run reads its
// inputs and writes its outputs through env; use the package function Run,
// which validates the options and prepares the provenance, rather than
// calling the method directly.
type Stage interface {
	Info() Info
	NewOptions() Options
	Run(ctx context.Context, env *Env, opts Options) error
}

// Info describes a stage for hosts: its name, documentation, and the table
// roles it reads and writes.
type Info struct {
	Name     string // the command: "tsne"
	Category string // CategoryMethods, CategoryData, CategoryModels or CategoryResults
	Summary  string // one line
	Usage    string // synopsis, one or more lines, in CLI terms
	Doc      string // paragraphs of documentation
	// Examples are complete command lines on bundled data (paths relative
	// to the repository root); the CLI's tests run every one.
	Examples []string
	Inputs   []Role
	Outputs  []Role
}

// Role is a table a stage reads or writes. Its name is what hosts call it
// (the CLI's flag: --in, --similarity, --model-out).
type Role struct {
	Name     string
	Help     string
	Kind     string // outputs: the table's kind (package table), or File
	Required bool
	// Variadic inputs take any number of tables, given to the stage as the
	// roles Name#0, Name#1, … (the CLI takes them as arguments).
	Variadic bool
	// Show marks a text output meant for a person (a summary): a host with
	// a terminal writes it to its standard output when the caller names no
	// place for it, unless the run is quiet or another output goes there.
	// A stage with nothing to show in a run leaves such an output unwritten
	// when the caller did not ask for it (Env.Asked).
	Show bool
	// Models lists the model kinds an output of kind table.Model may hold
	// (ModelKind.Kind), for hosts and the self-description.
	Models []string
}

// File is the Kind of an output that is not an Arrow table (a figure, a
// report): the stage writes its bytes with Env.WriteFile.
const File = "file"

// Role returns the input or output role of that name.
func (i Info) Role(name string) (Role, bool) {
	for _, r := range append(slices.Clone(i.Inputs), i.Outputs...) {
		if r.Name == name {
			return r, true
		}
	}
	return Role{}, false
}

// Env is what a stage runs with: where its tables are, where it logs and
// reports progress, how many threads it may use, the allocator for Arrow
// memory, and the provenance of the run that its outputs will carry.
// Fields left zero get defaults in Run.
type Env struct {
	Tables   Tables
	Log      *slog.Logger
	Progress Progress
	Threads  int              // 0: all cores
	Mem      memory.Allocator // nil: memory.DefaultAllocator
	Version  string           // tool version for the provenance
	// MemoryLimit is the memory in bytes the run may use, against which
	// stages check their plans before allocating (Reserve): 0 takes what
	// the system allows (SystemMemory), a negative value sets no limit.
	MemoryLimit int64

	// Prov is the run's provenance, set by Run: parameters, inputs,
	// warnings and figures; each output gets a copy with its kind.
	Prov *arrowio.Provenance

	info    Info
	started time.Time
	mu      sync.Mutex
	outs    []*envOutput // every output the run created, in order
	running bool         // inside Run: outputs wait for the group commit
}

// envOutput is an output of the run: published with the others when the
// stage succeeds (see Run), withdrawn otherwise.
type envOutput struct {
	role   string
	w      interface{ Abort() error } // an arrowio.Writer or arrowio.FileWriter
	path   string
	closed bool
}

// Run validates opts, records them in the provenance and runs s. It is the
// one way every host runs a stage. Errors wrap ErrInvalidOption or
// ErrInvalidData when the options or the data are at fault.
//
// Before any work, Run has the tables check their places when they can
// (FileTables.Check: no output may be an input or another output). The
// stage's outputs are published as a group: every output the stage closes
// is held back (arrowio.Committer) until the stage returns, and then they
// are all committed (arrowio.CommitAll) if it returned nil, or all
// withdrawn if it failed, so that a run leaves all its outputs or none.
// Outputs of Tables whose writers are not Committers are published when
// the stage closes them. Every output carries the run's RunID in its
// provenance, which ties the outputs of one run together.
func Run(ctx context.Context, s Stage, opts Options, env *Env) (err error) {
	if env == nil || env.Tables == nil {
		panic("transforms: Run: env has no Tables")
	}
	env.info = s.Info()
	env.defaults()
	if env.Threads < 0 {
		return Optionf("threads", "%d: want 0 (all cores) or a positive count", env.Threads)
	}
	if err := Validate(opts); err != nil {
		return err
	}
	for _, r := range env.info.Inputs {
		if r.Required && !env.Tables.Has(r.Name) {
			return &OptionError{Option: r.Name, Err: fmt.Errorf("%w: %s", ErrNoTable, r.Help)}
		}
	}
	for _, r := range env.info.Outputs {
		if r.Required && !env.Tables.Has(r.Name) {
			return &OptionError{Option: r.Name, Err: fmt.Errorf("%w: %s", ErrNoTable, r.Help)}
		}
	}
	if c, ok := env.Tables.(interface{ Check(Info) error }); ok {
		if err := c.Check(env.info); err != nil {
			return err
		}
	}
	params := Params(opts)
	params["threads"] = env.Threads
	env.Prov = &arrowio.Provenance{
		Tool: "ordinate", Version: env.Version, Stage: env.info.Name, Params: params,
		Started: env.started.UTC().Format(time.RFC3339), RunID: newRunID(),
		Figures: map[string]any{},
	}
	if seed, ok := params["seed"].(uint64); ok {
		env.Prov.Seed = seed
	}
	env.mu.Lock()
	env.outs, env.running = nil, true
	env.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			env.settle(ctx, fmt.Errorf("transforms: stage %s panicked", env.info.Name))
			panic(r)
		}
	}()
	return env.settle(ctx, s.Run(context.WithValue(ctx, memoryKey{}, env.memoryBudget()), env, opts))
}

// settle ends the run's outputs: those the stage did not close are
// discarded; the closed ones are committed together when err is nil and
// ctx is not done, else withdrawn.
func (env *Env) settle(ctx context.Context, err error) error {
	if err == nil {
		err = ctx.Err()
	}
	env.mu.Lock()
	outs := env.outs
	env.outs, env.running = nil, false
	env.mu.Unlock()
	var group []arrowio.Committer
	for _, o := range outs {
		if !o.closed {
			_ = o.w.Abort()
			continue
		}
		if c, ok := o.w.(arrowio.Committer); ok {
			group = append(group, c)
		}
	}
	if err != nil {
		for _, c := range group {
			_ = c.Rollback()
		}
		return err
	}
	if err := arrowio.CommitAll(group...); err != nil {
		return err
	}
	for _, o := range outs {
		if o.closed {
			env.Log.Info("wrote", "role", o.role, "output", o.path)
		}
	}
	return nil
}

// track registers an output of the run, holds it back for the group commit
// when it can be, and warns about the stale temporary files its creation
// removed.
func (env *Env) track(role, path string, w interface{ Abort() error }) {
	env.mu.Lock()
	running := env.running
	env.mu.Unlock()
	if c, ok := w.(arrowio.Committer); ok && running {
		c.DeferCommit()
	}
	if s, ok := w.(interface{ StaleRemoved() []string }); ok {
		for _, p := range s.StaleRemoved() {
			env.Warn("removed %s, a temporary file left by a run that is no longer alive", p)
		}
	}
	env.mu.Lock()
	if env.running {
		env.outs = append(env.outs, &envOutput{role: role, w: w, path: path})
	}
	env.mu.Unlock()
}

// closed marks the output w as closed by the stage, and reports whether
// it waits for the group commit.
func (env *Env) closed(w any) bool {
	env.mu.Lock()
	defer env.mu.Unlock()
	held := false
	for _, o := range env.outs {
		if o.w == w {
			o.closed, held = true, true
		}
	}
	return held
}

func (env *Env) defaults() {
	if env.Log == nil {
		env.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	env.Progress = progressOrNone(env.Progress)
	if env.Threads == 0 {
		env.Threads = runtime.GOMAXPROCS(0)
	}
	if env.Mem == nil {
		env.Mem = memory.DefaultAllocator
	}
	if env.Version == "" {
		env.Version = "dev"
	}
	env.started = time.Now()
}

func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Warn logs a warning and records it in the provenance.
func (env *Env) Warn(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	env.Log.Warn(msg)
	env.mu.Lock()
	env.Prov.Warnings = append(env.Prov.Warnings, msg)
	env.mu.Unlock()
}

// Figure records one of the stage's own figures (objective, iterations,
// resolved γ, …) in the provenance, under a snake_case key.
func (env *Env) Figure(key string, value any) {
	env.mu.Lock()
	env.Prov.Figures[key] = value
	env.mu.Unlock()
}

// Figures records several figures.
func (env *Env) Figures(m map[string]any) {
	for k, v := range m {
		env.Figure(k, v)
	}
}

// SetKind sets the kind recorded in the provenance of role's output, for a
// stage whose options choose the table's format (fisher --format square
// writes a distance_square table instead of distance_pairs).
func (env *Env) SetKind(role, kind string) {
	env.mu.Lock()
	defer env.mu.Unlock()
	outs := slices.Clone(env.info.Outputs)
	for i := range outs {
		if outs[i].Name == role {
			outs[i].Kind = kind
		}
	}
	env.info.Outputs = outs
}

// Has reports whether the host gave a table for role.
func (env *Env) Has(role string) bool { return env.Tables.Has(role) }

// Asked reports whether the caller asked for the output of role: Has,
// except for a Role.Show output that the host added unasked (FileTables
// Shown), which a stage with nothing to show may leave unwritten.
func (env *Env) Asked(role string) bool {
	if a, ok := env.Tables.(interface{ Asked(string) bool }); ok {
		return a.Asked(role)
	}
	return env.Has(role)
}

// Open opens the input table of role. A stage that streams it records it
// with Input; most stages use ReadFrame or ReadFeatures instead.
func (env *Env) Open(ctx context.Context, role string) (arrowio.Reader, error) {
	if !env.Tables.Has(role) {
		return nil, &OptionError{Option: role, Err: ErrNoTable}
	}
	r, err := env.Tables.Open(ctx, role, env.Mem)
	return env.checked(role, r, err)
}

// checked returns r, just opened for role (err the opening's error), once
// checkDataTable accepts it; it releases a table it refuses.
func (env *Env) checked(role string, r arrowio.Reader, err error) (arrowio.Reader, error) {
	if err != nil {
		return nil, err
	}
	if err := env.checkDataTable(role, r.Source().Path, r.Schema()); err != nil {
		r.Release()
		return nil, err
	}
	return r, nil
}

// OpenShard opens shard s of the input of role (all of it for the zero
// Shard): the tables must be files that can be sharded (FileTables), and
// the input Parquet.
func (env *Env) OpenShard(ctx context.Context, role string, s arrowio.Shard) (arrowio.Reader, error) {
	if s.IsZero() {
		return env.Open(ctx, role)
	}
	if !env.Tables.Has(role) {
		return nil, &OptionError{Option: role, Err: ErrNoTable}
	}
	st, ok := env.Tables.(interface {
		OpenShard(ctx context.Context, role string, mem memory.Allocator, s arrowio.Shard) (arrowio.Reader, error)
	})
	if !ok {
		return nil, Optionf("shard", "%w: %T cannot read a shard; give the host's share of the rows as the input", arrowio.ErrShard, env.Tables)
	}
	env.Figure("shard", s.String())
	r, err := st.OpenShard(ctx, role, env.Mem, s)
	return env.checked(role, r, err)
}

// Input records an input of the run in the provenance: its role, source,
// rows read and rows dropped, and the kind and stage of the table when it
// carries provenance of its own.
func (env *Env) Input(role string, src arrowio.Source, rows, dropped int64, its *arrowio.Provenance) {
	in := arrowio.InputInfo{Role: role, Path: src.Path, Files: src.Files, Rows: rows, Bytes: src.Bytes, Dropped: dropped}
	if its != nil {
		in.Kind, in.Stage, in.RunID = its.Kind, its.Stage, its.RunID
	}
	env.mu.Lock()
	env.Prov.Inputs = append(env.Prov.Inputs, in)
	env.mu.Unlock()
}

// ReadFrame reads the whole table of role with a selection, records it in
// the provenance, reports progress ("reading <role>", in rows) and warns
// about dropped rows.
func (env *Env) ReadFrame(ctx context.Context, role string, sel arrowio.Selection) (*arrowio.Frame, error) {
	r, err := env.Open(ctx, role)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	return env.ReadFrom(ctx, role, r, sel)
}

// ReadFrameProvenance is ReadFrame that also returns the provenance the
// table carries (nil when it has none): the table is opened once, so a
// stream on stdin works too.
func (env *Env) ReadFrameProvenance(ctx context.Context, role string, sel arrowio.Selection) (*arrowio.Frame, *arrowio.Provenance, error) {
	r, err := env.Open(ctx, role)
	if err != nil {
		return nil, nil, err
	}
	defer r.Release()
	prov := TableProvenance(r.Schema())
	f, err := env.ReadFrom(ctx, role, r, sel)
	if err != nil {
		return nil, nil, err
	}
	return f, prov, nil
}

// ReadFrom reads a frame from r, an input of role that the stage opened
// itself (to look at its schema or provenance first), with the same
// progress, provenance and warnings as ReadFrame. It does not release r.
func (env *Env) ReadFrom(ctx context.Context, role string, r arrowio.Reader, sel arrowio.Selection) (*arrowio.Frame, error) {
	env.Progress.Start("reading "+role, 0)
	f, err := arrowio.ReadFrame(ctx, countingReader{r, env.Progress}, sel, arrowio.WithFrameAllocator(env.Mem))
	env.Progress.Finish()
	if err != nil {
		return nil, err
	}
	src := r.Source()
	env.Input(role, src, int64(f.N)+f.Dropped, f.Dropped, TableProvenance(r.Schema()))
	if f.Dropped > 0 {
		env.Warn("%s: dropped %d of %d rows with NaN, ±Inf or null in a used column (on-invalid drop)", src.Path, f.Dropped, int64(f.N)+f.Dropped)
	}
	env.Log.Info("read", "role", role, "input", src.Path, "rows", f.N, "features", f.D)
	return f, nil
}

// TableProvenance returns the provenance a table carries in its schema
// metadata, or nil.
func TableProvenance(schema *arrow.Schema) *arrowio.Provenance {
	if schema == nil {
		return nil
	}
	md := schema.Metadata()
	i := md.FindKey(arrowio.MetadataKey)
	if i < 0 {
		return nil
	}
	p, err := arrowio.ParseProvenance(md.Values()[i])
	if err != nil {
		return nil
	}
	return p
}

// countingReader reports the rows of every batch it hands out.
type countingReader struct {
	arrowio.Reader
	prog Progress
}

func (c countingReader) Next() bool {
	if !c.Reader.Next() {
		return false
	}
	c.prog.Add(c.Reader.RecordBatch().NumRows())
	return true
}

// Create opens the output table of role for writing. The provenance is set
// at once (IPC streams write it with the schema) and stamped again, with
// rows written, run time and figures, by Close. The table is published
// with the run's other outputs when the stage has returned (see Run).
func (env *Env) Create(ctx context.Context, role string, schema *arrow.Schema) (arrowio.Writer, error) {
	if !env.Tables.Has(role) {
		return nil, &OptionError{Option: role, Err: ErrNoTable}
	}
	w, err := env.Tables.Create(ctx, role, schema, env.Mem)
	if err != nil {
		return nil, err
	}
	env.track(role, w.Path(), w)
	if js, err := env.provenanceFor(role, w.Rows()); err == nil {
		w.SetMetadata(arrowio.MetadataKey, js)
	}
	return w, nil
}

func (env *Env) provenanceFor(role string, rows int64) (string, error) {
	env.mu.Lock()
	defer env.mu.Unlock()
	p := *env.Prov
	r, _ := env.info.Role(role)
	p.Kind = r.Kind
	p.RowsWritten = rows
	p.RunSeconds = time.Since(env.started).Seconds()
	p.Figures = make(map[string]any, len(env.Prov.Figures))
	for k, v := range env.Prov.Figures {
		p.Figures[k] = v
	}
	p.Warnings = slices.Clone(env.Prov.Warnings)
	p.Inputs = slices.Clone(env.Prov.Inputs)
	return p.JSON()
}

// Close stamps the final provenance of role's output on w and finishes it;
// Run publishes it with the run's other outputs when the stage succeeds.
func (env *Env) Close(role string, w arrowio.Writer) error {
	js, err := env.provenanceFor(role, w.Rows())
	if err != nil {
		return err
	}
	w.SetMetadata(arrowio.MetadataKey, js)
	if err := w.Close(); err != nil {
		return err
	}
	if !env.closed(w) {
		env.Log.Info("wrote", "role", role, "output", w.Path(), "rows", w.Rows())
	}
	return nil
}

// WriteRecord writes one record as the whole output table of role.
func (env *Env) WriteRecord(ctx context.Context, role string, rec arrow.RecordBatch) error {
	w, err := env.Create(ctx, role, rec.Schema())
	if err != nil {
		return err
	}
	defer w.Abort()
	env.Progress.Start("writing "+role, rec.NumRows())
	err = w.Write(rec)
	env.Progress.Add(rec.NumRows())
	env.Progress.Finish()
	if err != nil {
		return err
	}
	return env.Close(role, w)
}

// Many returns the roles given for the variadic input role, in order:
// role#0, role#1, …
func (env *Env) Many(role string) []string {
	var out []string
	for i := 0; env.Tables.Has(fmt.Sprintf("%s#%d", role, i)); i++ {
		out = append(out, fmt.Sprintf("%s#%d", role, i))
	}
	return out
}

// WriteFile writes data as the output of role (a figure, a report)
// atomically, when the host keeps files; MemTables keeps the bytes. When
// the tables can create file outputs (FileTables, MemTables) it is
// published with the run's other outputs.
func (env *Env) WriteFile(role string, data []byte) error {
	if fc, ok := env.Tables.(interface {
		CreateFile(ctx context.Context, role string) (arrowio.FileWriter, error)
	}); ok {
		w, err := fc.CreateFile(context.Background(), role)
		if err != nil {
			return err
		}
		env.track(role, w.Path(), w)
		defer w.Abort()
		if _, err := w.Write(data); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		env.closed(w)
		return nil
	}
	fw, ok := env.Tables.(interface {
		WriteFile(role string, data []byte) error
	})
	if !ok {
		return fmt.Errorf("transforms: the host's tables cannot hold the file output %q", role)
	}
	if err := fw.WriteFile(role, data); err != nil {
		return err
	}
	env.Log.Info("wrote", "role", role, "bytes", len(data))
	return nil
}

// Tables is where a host keeps a run's tables: files for the CLI
// (FileTables), records in memory for a Go program (MemTables).
type Tables interface {
	// Has reports whether a table is given for role.
	Has(role string) bool
	// Open opens the input table of role.
	Open(ctx context.Context, role string, mem memory.Allocator) (arrowio.Reader, error)
	// Create opens the output table of role. The table appears only when
	// the writer is closed; Abort discards it.
	Create(ctx context.Context, role string, schema *arrow.Schema, mem memory.Allocator) (arrowio.Writer, error)
}
