package transforms

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// FileTables keeps a run's tables in files: Paths maps a role to a path as
// arrowio.Open and arrowio.Create take it ("-" is the process's stdin for
// an input and stdout for an output). Outputs are written atomically, and
// Run publishes them as a group. Before any work Run calls Check, which
// refuses outputs that would overwrite an input or each other.
type FileTables struct {
	Paths  map[string]string
	Stdin  io.Reader // for "-" inputs; nil: os.Stdin
	Stdout io.Writer // for "-" outputs; nil: os.Stdout
	// Threads decode the columns of Parquet inputs side by side
	// (arrowio.WithReadThreads); 0: all cores.
	Threads int
	// Shown are the outputs the host gave a place itself (Role.Show
	// outputs on its standard output), not the caller.
	Shown map[string]bool
}

func (t *FileTables) Has(role string) bool { return t.Paths[role] != "" }

// Asked reports whether the caller asked for the output of role, rather
// than the host showing it unasked (Shown).
func (t *FileTables) Asked(role string) bool { return t.Has(role) && !t.Shown[role] }

// WriteFile writes the file output of role atomically.
func (t *FileTables) WriteFile(role string, data []byte) error {
	p := t.Paths[role]
	if p == "-" {
		out := t.Stdout
		if out == nil {
			out = os.Stdout
		}
		_, err := out.Write(data)
		return err
	}
	return arrowio.WriteFileAtomic(p, data)
}

// Path returns the path given for role.
func (t *FileTables) Path(role string) string { return t.Paths[role] }

func (t *FileTables) Open(ctx context.Context, role string, mem memory.Allocator) (arrowio.Reader, error) {
	return t.OpenShard(ctx, role, mem, arrowio.Shard{})
}

// OpenShard opens shard s of the Parquet input of role (arrowio.Shard;
// the zero Shard is all of it).
func (t *FileTables) OpenShard(ctx context.Context, role string, mem memory.Allocator, s arrowio.Shard) (arrowio.Reader, error) {
	opts := []arrowio.ReadOption{arrowio.WithReadAllocator(mem), arrowio.WithShard(s), arrowio.WithReadThreads(t.Threads)}
	if t.Stdin != nil {
		opts = append(opts, arrowio.WithStdin(t.Stdin))
	}
	return arrowio.Open(ctx, t.Paths[role], opts...)
}

func (t *FileTables) Create(ctx context.Context, role string, schema *arrow.Schema, mem memory.Allocator) (arrowio.Writer, error) {
	opts := []arrowio.WriteOption{arrowio.WithWriteAllocator(mem)}
	if t.Stdout != nil {
		opts = append(opts, arrowio.WithStdout(t.Stdout))
	}
	return arrowio.Create(ctx, t.Paths[role], schema, opts...)
}

// CreateFile opens the file output of role (a figure, a report), for Run
// to publish with the run's other outputs.
func (t *FileTables) CreateFile(ctx context.Context, role string) (arrowio.FileWriter, error) {
	var opts []arrowio.WriteOption
	if t.Stdout != nil {
		opts = append(opts, arrowio.WithStdout(t.Stdout))
	}
	return arrowio.CreateFile(ctx, t.Paths[role], opts...)
}

// MemTables keeps a run's tables in memory, for Go programs: In holds the
// input tables by role, Want names the outputs to write (a stage writes an
// optional output, such as a model, only when it is wanted), and each
// output appears in Out when the stage has written it. Release frees the
// outputs.
type MemTables struct {
	In   map[string][]arrow.RecordBatch
	Want []string

	mu    sync.Mutex
	out   map[string]*MemTable
	files map[string][]byte
}

// WriteFile keeps the bytes of a file output.
func (t *MemTables) WriteFile(role string, data []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.files == nil {
		t.files = map[string][]byte{}
	}
	t.files[role] = slices.Clone(data)
	return nil
}

// File returns the bytes of a file output, or nil.
func (t *MemTables) File(role string) []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.files[role]
}

// CreateFile returns a writer of the bytes of a file output, kept when it
// is closed (or, after DeferCommit, committed).
func (t *MemTables) CreateFile(_ context.Context, role string) (arrowio.FileWriter, error) {
	return &memFile{tables: t, role: role}, nil
}

// memFile is a file output held in memory.
type memFile struct {
	tables   *MemTables
	role     string
	buf      bytes.Buffer
	deferred bool
	state    int // 0 open, 1 closed and waiting for Commit, 2 done
}

func (f *memFile) Write(p []byte) (int, error) {
	if f.state != 0 {
		return 0, fmt.Errorf("transforms: memory output %q: Write after Close", f.role)
	}
	return f.buf.Write(p)
}
func (f *memFile) Path() string           { return "memory:" + f.role }
func (f *memFile) StaleRemoved() []string { return nil }
func (f *memFile) DeferCommit()           { f.deferred = true }

func (f *memFile) Close() error {
	if f.state != 0 {
		return nil
	}
	f.state = 1
	if !f.deferred {
		return f.Commit()
	}
	return nil
}

func (f *memFile) Commit() error {
	if f.state == 1 {
		f.state = 2
		return f.tables.WriteFile(f.role, f.buf.Bytes())
	}
	return nil
}

func (f *memFile) Abort() error {
	if f.state == 0 {
		f.state = 2
	}
	return nil
}

func (f *memFile) Rollback() error {
	if f.state == 2 && f.deferred {
		f.tables.mu.Lock()
		delete(f.tables.files, f.role)
		f.tables.mu.Unlock()
	}
	f.state = 2
	return nil
}

// MemTable is an output table held in memory.
type MemTable struct {
	Schema  *arrow.Schema // with the provenance in its metadata
	Records []arrow.RecordBatch
}

// NumRows is the number of rows of the table.
func (m *MemTable) NumRows() int64 {
	var n int64
	for _, r := range m.Records {
		n += r.NumRows()
	}
	return n
}

// Provenance is the run's provenance that the table carries.
func (m *MemTable) Provenance() *arrowio.Provenance { return TableProvenance(m.Schema) }

// Release frees the records.
func (m *MemTable) Release() {
	for _, r := range m.Records {
		r.Release()
	}
	m.Records = nil
}

// NewMemTables returns tables that read one record per input role and
// write the wanted outputs.
func NewMemTables(in map[string]arrow.RecordBatch, want ...string) *MemTables {
	m := map[string][]arrow.RecordBatch{}
	for k, v := range in {
		m[k] = []arrow.RecordBatch{v}
	}
	return &MemTables{In: m, Want: want}
}

// Out returns the output table of role, or nil when none was written.
func (t *MemTables) Out(role string) *MemTable {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out[role]
}

// Outputs lists the roles written, sorted.
func (t *MemTables) Outputs() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Sorted(maps.Keys(t.out))
}

// Release frees every output.
func (t *MemTables) Release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range t.out {
		m.Release()
	}
	t.out = nil
}

// Has reports whether role is a given input or a wanted output.
func (t *MemTables) Has(role string) bool {
	_, ok := t.In[role]
	return ok || slices.Contains(t.Want, role)
}

func (t *MemTables) Open(_ context.Context, role string, _ memory.Allocator) (arrowio.Reader, error) {
	recs, ok := t.In[role]
	if !ok {
		return nil, &OptionError{Option: role, Err: ErrNoTable}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%w: input %q has no record batches", ErrInvalidData, role)
	}
	return arrowio.NewRecordsReader("memory:"+role, recs[0].Schema(), recs), nil
}

func (t *MemTables) Create(_ context.Context, role string, schema *arrow.Schema, _ memory.Allocator) (arrowio.Writer, error) {
	return &memWriter{tables: t, role: role, schema: schema, meta: map[string]string{}}, nil
}

// memWriter collects records; Close publishes them in the MemTables (after
// DeferCommit, Commit does).
type memWriter struct {
	tables   *MemTables
	role     string
	schema   *arrow.Schema
	meta     map[string]string
	recs     []arrow.RecordBatch
	rows     int64
	done     bool
	deferred bool
	staged   *MemTable // closed, waiting for Commit
	pub      *MemTable // committed
}

func (w *memWriter) Write(rec arrow.RecordBatch) error {
	if !w.schema.Equal(rec.Schema()) {
		return fmt.Errorf("transforms: memory output %q: record schema differs from the table's", w.role)
	}
	rec.Retain()
	w.recs = append(w.recs, rec)
	w.rows += rec.NumRows()
	return nil
}

func (w *memWriter) SetMetadata(key, value string) { w.meta[key] = value }
func (w *memWriter) Path() string                  { return "memory:" + w.role }
func (w *memWriter) Rows() int64                   { return w.rows }

func (w *memWriter) Close() error {
	if w.done {
		return nil
	}
	w.done = true
	keys := slices.Sorted(maps.Keys(w.meta))
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = w.meta[k]
	}
	schema := arrow.NewSchema(w.schema.Fields(), func() *arrow.Metadata { m := arrow.NewMetadata(keys, vals); return &m }())
	recs := make([]arrow.RecordBatch, len(w.recs))
	for i, r := range w.recs {
		recs[i] = withSchema(r, schema)
		r.Release()
	}
	w.recs = nil
	w.staged = &MemTable{Schema: schema, Records: recs}
	if !w.deferred {
		return w.Commit()
	}
	return nil
}

func (w *memWriter) DeferCommit() { w.deferred = true }

// Commit publishes the table closed after DeferCommit.
func (w *memWriter) Commit() error {
	if w.staged == nil {
		return nil
	}
	t := w.tables
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.out == nil {
		t.out = map[string]*MemTable{}
	}
	if old := t.out[w.role]; old != nil {
		old.Release()
	}
	t.out[w.role] = w.staged
	w.pub, w.staged = w.staged, nil
	return nil
}

// Rollback withdraws the table: before Commit it is dropped, after it
// removed from the outputs (the table it replaced, if any, is gone).
func (w *memWriter) Rollback() error {
	if w.staged != nil {
		w.staged.Release()
		w.staged = nil
	}
	if w.pub != nil {
		t := w.tables
		t.mu.Lock()
		if t.out[w.role] == w.pub {
			delete(t.out, w.role)
			w.pub.Release()
		}
		t.mu.Unlock()
		w.pub = nil
	}
	return nil
}

func (w *memWriter) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	for _, r := range w.recs {
		r.Release()
	}
	w.recs = nil
	return nil
}

// withSchema returns rec's columns under schema (same fields, new metadata).
func withSchema(rec arrow.RecordBatch, schema *arrow.Schema) arrow.RecordBatch {
	cols := make([]arrow.Array, rec.NumCols())
	copy(cols, rec.Columns())
	return array.NewRecordBatch(schema, cols, rec.NumRows())
}

// Check refuses, before any work, tables that would make the run destroy
// its own data: an output that is one of the inputs, lies inside an input
// folder or matches an input glob, and two outputs that are one file (or
// both standard output). Places are compared as resolved files, not as
// strings: an existing file by identity (os.SameFile, so a symbolic or hard
// link to an input counts), an output not yet there by its folder with
// symbolic links resolved and its name. Variadic inputs (role#0, role#1, …)
// are inputs like any other. The error is an *OptionError on the output
// naming the input or output it collides with.
func (t *FileTables) Check(info Info) error {
	isInput := map[string]bool{}
	for _, r := range info.Inputs {
		isInput[r.Name] = true
	}
	isOutput := map[string]bool{}
	for _, r := range info.Outputs {
		isOutput[r.Name] = true
	}
	var ins []inputPlace
	var outs []outputPlace
	for _, role := range slices.Sorted(maps.Keys(t.Paths)) {
		p := t.Paths[role]
		if p == "" || p == "-" && !isOutput[role] {
			continue
		}
		base, _, _ := strings.Cut(role, "#")
		switch {
		case isOutput[role]:
			outs = append(outs, placeOutput(role, p))
		case isInput[base]:
			if in, ok := placeInput(role, p); ok {
				ins = append(ins, in)
			}
		}
	}
	// Outputs in the order the stage declares them, so that the later one
	// is named.
	slices.SortStableFunc(outs, func(a, b outputPlace) int {
		return roleIndex(info.Outputs, a.role) - roleIndex(info.Outputs, b.role)
	})
	for i, o := range outs {
		for _, in := range ins {
			if why := in.holds(o); why != "" {
				return Optionf(o.role, "%q %s the input %q (%s); choose another path", o.path, why, in.role, in.path)
			}
		}
		for _, e := range outs[:i] {
			if o.same(e) {
				return Optionf(o.role, "%q is also the output %q (%s); choose another path", o.path, e.role, e.path)
			}
		}
	}
	return nil
}

func roleIndex(roles []Role, name string) int {
	for i, r := range roles {
		if r.Name == name {
			return i
		}
	}
	return len(roles)
}

// inputPlace is where an input is: files (with their identity), a folder
// read recursively, or a glob pattern in a resolved folder.
type inputPlace struct {
	role, path string
	files      []resolvedFile
	dir        string // resolved folder, for a folder input
	pattern    string // resolved glob, for a glob input
}

type resolvedFile struct {
	path string // resolved
	fi   os.FileInfo
}

// outputPlace is where an output goes: its resolved path (its folder
// resolved, for a file not yet there) and the existing file, if any.
type outputPlace struct {
	role, path string
	resolved   string
	fi         os.FileInfo
}

// resolve returns p absolute with its symbolic links resolved, or as far
// as it can be: the folder resolved and the name kept, when p does not
// exist.
func resolve(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(d, filepath.Base(abs))
	}
	return abs
}

func placeInput(role, p string) (inputPlace, bool) {
	in := inputPlace{role: role, path: p}
	if strings.ContainsAny(p, "*?[") {
		in.pattern = filepath.Join(resolve(filepath.Dir(p)), filepath.Base(p))
		matches, _ := filepath.Glob(p)
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() {
				in.files = append(in.files, resolvedFile{resolve(m), fi})
			}
		}
		return in, true
	}
	fi, err := os.Stat(p)
	if err != nil {
		return in, false // Open will say so
	}
	if fi.IsDir() {
		in.dir = resolve(p)
		return in, true
	}
	in.files = []resolvedFile{{resolve(p), fi}}
	return in, true
}

func placeOutput(role, p string) outputPlace {
	o := outputPlace{role: role, path: p}
	if p == "-" {
		return o
	}
	o.resolved = resolve(p)
	if fi, err := os.Stat(p); err == nil {
		o.fi = fi
	}
	return o
}

// holds says how the input would be overwritten by o ("is also", "is
// inside the folder of", "matches the glob of"), or "".
func (in inputPlace) holds(o outputPlace) string {
	if o.path == "-" {
		return ""
	}
	for _, f := range in.files {
		if f.path == o.resolved || o.fi != nil && os.SameFile(f.fi, o.fi) {
			return "is also"
		}
	}
	if in.dir != "" && (o.resolved == in.dir || strings.HasPrefix(o.resolved, in.dir+string(filepath.Separator))) {
		return "is inside the folder of"
	}
	if in.pattern != "" {
		if ok, _ := filepath.Match(in.pattern, o.resolved); ok {
			return "matches the glob of"
		}
	}
	return ""
}

// same reports whether two outputs are one place.
func (o outputPlace) same(e outputPlace) bool {
	if o.path == "-" || e.path == "-" {
		return o.path == e.path
	}
	return o.resolved == e.resolved || o.fi != nil && e.fi != nil && os.SameFile(o.fi, e.fi)
}
