package arrowio

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// rowGroupReader reads the columns of one Parquet row group batch by batch,
// decoding the columns of a batch on up to threads goroutines.
//
// Decompressing and decoding a column chunk is most of the cost of reading
// Parquet, and each column chunk is independent, so the columns of a batch
// are decoded side by side; the batches and their rows come out in the same
// order as from pqarrow's serial record reader, whose per-column readers
// (pqarrow.ColumnReader) this uses. pqarrow's own parallel mode
// (ArrowReadProperties.Parallel) is not used because it starts one
// goroutine per column for every batch whatever the thread count, and a
// panic on one of its goroutines, which a damaged file can cause, would end
// the process: here every goroutine runs under recover and the panic
// becomes the reader's error.
//
// With two threads or more it also reads ahead: while the caller works on
// one batch, the next batch of the row group is decoded, so that reading
// and the caller's work overlap instead of taking turns (apply spends as
// much time on its batches as on decoding them).
type rowGroupReader struct {
	readers []*pqarrow.ColumnReader // one per top-level field of schema
	schema  *arrow.Schema
	batch   int64
	threads int
	mem     memory.Allocator
	ahead   chan decoded // the batch being read ahead; nil if none
}

// decoded is a batch read ahead, or the error met reading it.
type decoded struct {
	rec arrow.RecordBatch
	err error
}

func newRowGroupReader(ctx context.Context, fr *pqarrow.FileReader, leaves []int, rg int, batch int64, threads int, mem memory.Allocator) (*rowGroupReader, error) {
	if leaves == nil { // all of them, as GetRecordReader takes nil
		leaves = make([]int, fr.ParquetReader().MetaData().Schema.NumColumns())
		for i := range leaves {
			leaves[i] = i
		}
	}
	readers, schema, err := fr.GetFieldReaders(ctx, leaves, []int{rg})
	if err != nil {
		return nil, err
	}
	if len(readers) == 0 || len(readers) != schema.NumFields() {
		for _, r := range readers {
			r.Release()
		}
		return nil, fmt.Errorf("row group %d: %d column readers for %d fields", rg, len(readers), schema.NumFields())
	}
	return &rowGroupReader{readers: readers, schema: schema, batch: batch, threads: max(1, threads), mem: mem}, nil
}

// next returns the next batch of the row group, or nil at its end.
func (g *rowGroupReader) next() (arrow.RecordBatch, error) {
	if g.threads < 2 {
		return g.decode()
	}
	if g.ahead == nil {
		g.readAhead()
	}
	d := <-g.ahead
	g.ahead = nil
	if d.err == nil && d.rec != nil {
		g.readAhead()
	}
	return d.rec, d.err
}

// readAhead starts decoding the next batch.
func (g *rowGroupReader) readAhead() {
	ch := make(chan decoded, 1)
	g.ahead = ch
	go func() {
		var d decoded
		d.err = catchPanic(func() (err error) {
			d.rec, err = g.decode()
			return err
		})
		ch <- d
	}()
}

// decode decodes the next batch of the row group, or returns nil at its
// end.
func (g *rowGroupReader) decode() (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(g.readers))
	errs := make([]error, len(g.readers))
	read := func(i int) {
		errs[i] = catchPanic(func() (err error) {
			cols[i], err = g.readColumn(i)
			return err
		})
	}
	if n := min(g.threads, len(g.readers)); n <= 1 {
		for i := range g.readers {
			if read(i); errs[i] != nil {
				break
			}
		}
	} else {
		var (
			wg     sync.WaitGroup
			next   atomic.Int64
			failed atomic.Bool
		)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !failed.Load() {
					i := int(next.Add(1) - 1)
					if i >= len(g.readers) {
						return
					}
					if read(i); errs[i] != nil {
						failed.Store(true)
					}
				}
			}()
		}
		wg.Wait()
	}
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	for _, err := range errs {
		if err != nil {
			release()
			return nil, err
		}
	}
	rows := cols[0].Len()
	for i, c := range cols {
		if c.Len() != rows {
			release()
			return nil, fmt.Errorf("column %s gives %d rows where column %s gives %d", g.schema.Field(i).Name, c.Len(), g.schema.Field(0).Name, rows)
		}
	}
	if rows == 0 {
		release()
		return nil, nil
	}
	rec := array.NewRecordBatch(g.schema, cols, int64(rows))
	release()
	return rec, nil
}

// readColumn decodes the next batch of column i into one array.
func (g *rowGroupReader) readColumn(i int) (arrow.Array, error) {
	data, err := g.readers[i].NextBatch(g.batch)
	if err != nil {
		return nil, fmt.Errorf("column %s: %w", g.schema.Field(i).Name, err)
	}
	defer data.Release()
	switch chunks := data.Chunks(); len(chunks) {
	case 0:
		return array.MakeArrayOfNull(g.mem, g.schema.Field(i).Type, 0), nil
	case 1:
		chunks[0].Retain()
		return chunks[0], nil
	default:
		return array.Concatenate(chunks, g.mem)
	}
}

// release waits for the batch read ahead, if any, and frees it with the
// column readers.
func (g *rowGroupReader) release() {
	if g.ahead != nil {
		if d := <-g.ahead; d.rec != nil {
			d.rec.Release()
		}
		g.ahead = nil
	}
	for _, r := range g.readers {
		r.Release()
	}
	g.readers = nil
}
