package arrowio

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ipcEncoder writes an Arrow IPC file or stream. The ipc writer is made on
// the first batch (or at finish), so that the schema it writes carries the
// SetMetadata pairs set until then.
type ipcEncoder struct {
	stream bool
	schema *arrow.Schema // the caller's schema
	sink   io.Writer
	meta   *kvMeta
	mem    memory.Allocator

	started bool
	out     *arrow.Schema // the schema written: metadata merged, dictionaries decoded (file)
	decode  []bool        // per column: write the dictionary decoded
	fw      *ipc.FileWriter
	sw      *ipc.Writer
}

func newIPCEncoder(schema *arrow.Schema, sink io.Writer, meta *kvMeta, cfg *writeConfig, stream bool) *ipcEncoder {
	return &ipcEncoder{stream: stream, schema: schema, sink: sink, meta: meta, mem: cfg.mem}
}

func (e *ipcEncoder) start() error {
	e.started = true
	keys, vals := e.meta.merged(e.schema.Metadata())
	md := arrow.NewMetadata(keys, vals)
	fields := e.schema.Fields()
	if !e.stream {
		e.decode = make([]bool, len(fields))
		for i, f := range fields {
			if dt, ok := f.Type.(*arrow.DictionaryType); ok {
				e.decode[i] = true
				fields[i].Type = dt.ValueType
			}
		}
	}
	e.out = arrow.NewSchema(fields, &md)
	opts := []ipc.Option{ipc.WithSchema(e.out), ipc.WithAllocator(e.mem)}
	if e.stream {
		e.sw = ipc.NewWriter(e.sink, opts...)
		return nil
	}
	var err error
	e.fw, err = ipc.NewFileWriter(e.sink, append(opts, ipc.WithZstd())...)
	return err
}

func (e *ipcEncoder) write(rec arrow.RecordBatch) error {
	if !e.started {
		if err := e.start(); err != nil {
			return err
		}
	}
	if e.stream {
		return e.sw.Write(rec)
	}
	out, err := e.decoded(rec)
	if err != nil {
		return err
	}
	defer out.Release()
	return e.fw.Write(out)
}

// decoded returns rec with its dictionary columns replaced by their values,
// in the output schema.
func (e *ipcEncoder) decoded(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	ctx := compute.WithAllocator(context.Background(), e.mem)
	for i, c := range rec.Columns() {
		if !e.decode[i] {
			c.Retain()
			cols[i] = c
			continue
		}
		d := c.(*array.Dictionary)
		v, err := compute.TakeArray(ctx, d.Dictionary(), d.Indices())
		if err != nil {
			return nil, fmt.Errorf("decoding dictionary column %q: %w", rec.ColumnName(i), err)
		}
		cols[i] = v
	}
	return array.NewRecordBatch(e.out, cols, rec.NumRows()), nil
}

func (e *ipcEncoder) finish() error {
	if !e.started {
		if err := e.start(); err != nil {
			return err
		}
	}
	if e.stream {
		return e.sw.Close()
	}
	return e.fw.Close()
}

func (e *ipcEncoder) release() {
	switch {
	case !e.started:
	case e.stream:
		e.sw.Close()
	default:
		e.fw.Close()
	}
}
