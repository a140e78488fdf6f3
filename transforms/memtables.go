package transforms

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

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
