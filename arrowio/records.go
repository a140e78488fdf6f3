package arrowio

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// recordsReader is a Reader over record batches held in memory.
type recordsReader struct {
	name   string
	schema *arrow.Schema
	recs   []arrow.RecordBatch
	i      int
	row    int64
	cur    arrow.RecordBatch
}

// NewRecordsReader returns a Reader over recs, which must all have schema
// (nil: the first record's). name stands for the table in error messages
// and provenance (as a file path would). The reader retains the records
// until Release.
func NewRecordsReader(name string, schema *arrow.Schema, recs []arrow.RecordBatch) Reader {
	if schema == nil && len(recs) > 0 {
		schema = recs[0].Schema()
	}
	for _, r := range recs {
		r.Retain()
	}
	return &recordsReader{name: name, schema: schema, recs: recs, i: -1}
}

func (r *recordsReader) Schema() *arrow.Schema { return r.schema }

func (r *recordsReader) Next() bool {
	if r.cur != nil {
		r.row += r.cur.NumRows()
	}
	r.i++
	if r.i >= len(r.recs) {
		r.cur = nil
		return false
	}
	r.cur = r.recs[r.i]
	return true
}

func (r *recordsReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *recordsReader) Position() (string, int64)      { return r.name, r.row }
func (r *recordsReader) Err() error                     { return nil }
func (r *recordsReader) Source() Source                 { return Source{Path: r.name, Files: []string{r.name}} }

func (r *recordsReader) Release() {
	for _, rec := range r.recs {
		rec.Release()
	}
	r.recs = nil
	r.cur = nil
}
