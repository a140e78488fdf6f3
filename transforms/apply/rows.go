package apply

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/internal/floats"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// Config is how Rows and Distances run: where progress goes (phase
// "placing", in rows), the allocator of the output batches (nil:
// memory.DefaultAllocator) and the threads of a placement (≤ 0:
// GOMAXPROCS).
type Config struct {
	Progress transforms.Progress
	Mem      memory.Allocator
	Threads  int
	// AllowEmpty writes an empty output for an input without rows (a shard
	// may hold no row group) instead of failing with arrowio.ErrEmpty.
	AllowEmpty bool
}

// Stats counts what Rows or Distances did.
type Stats struct {
	Rows    int64 // rows written
	Dropped int64 // rows dropped by on-invalid drop
	Batches int
}

// Rows streams the rows of r through the model, batch by batch, and writes
// embedding batches to the writer that create returns (called once, with the
// output schema, before the first batch). Memory does not grow with the row
// count: one input batch and one output batch are alive at a time.
//
// sel gives the id, kept columns and invalid-value policy (and, for a NeRV
// model that takes labels, the label or soft-label columns); its features
// are replaced by the model's inputs. Rows does not close the writer. A
// row the model cannot place is a *arrowio.Error naming its file, row and
// id.
func Rows(ctx context.Context, m transforms.Model, r arrowio.Reader, sel arrowio.Selection, create func(*arrow.Schema) (arrowio.Writer, error), cfg Config) (Stats, error) {
	p := progressOrNone(cfg.Progress)
	mem := cfg.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	var st Stats
	h := m.Header()
	if dm, ok := m.(DistanceModel); ok && dm.FromDistances() {
		return st, fmt.Errorf("%w: the %s model was fitted on distances; place new objects with Distances", transforms.ErrModel, h.Stage)
	}
	if h.FeatureList != "" {
		sel.Features = []string{h.FeatureList}
	} else {
		sel.Features = slices.Clone(m.InputFeatures())
	}
	sel.NoFeatures = false
	if pm, ok := m.(preparer); ok {
		if err := pm.Prepare(ctx, cfg.Threads); err != nil {
			return st, err
		}
	}
	labelled, _ := m.(LabelledModel)
	var classes []string
	if labelled != nil && (sel.Label != "" || sel.SoftLabels != nil) {
		var err error
		if classes, err = labelled.LabelClasses(); err != nil {
			return st, fmt.Errorf("%w: %v", arrowio.ErrSelection, err)
		}
	}
	plan, err := sel.Compile(r.Schema(), r.Source(), arrowio.WithFrameThreads(cfg.Threads))
	if err != nil {
		return st, err
	}
	var (
		w          arrowio.Writer
		schema     *arrow.Schema
		emb, x, ws []float64
		pick       []int // for a list column: the model's elements of the list
	)
	p.Start("placing", 0)
	defer p.Finish()
	// Each frame is done with before the next is extracted: its X is
	// reused (reuseX). An affine map takes float64 features as columns
	// (columnsX): it needs no row-major copy, and a NaN or ±Inf in them
	// makes a non-finite coordinate, which sends the batch back for X, so
	// that the usual checks report or drop the row.
	mode := reuseX
	colModel, _ := m.(ColumnModel)
	if colModel != nil {
		mode = columnsX
	}
	err = eachFrame(ctx, r, plan, mode, func(f *arrowio.Frame) error {
		st.Dropped += f.Dropped
		var err error
		if pick, err = modelColumns(m, f, r.Source().Path); err != nil {
			return err
		}
		if w == nil {
			if schema, err = table.EmbeddingSchema(f, h.Dims); err != nil {
				return err
			}
			if w, err = create(schema); err != nil {
				return err
			}
		}
		if f.N > 0 {
			emb = growEmb(emb, f.N*h.Dims)
			if f.Columns != nil {
				cols := f.Columns
				if pick != nil {
					cols = make([][]float64, len(pick))
					for t, j := range pick {
						cols[t] = f.Columns[j]
					}
				}
				if err := colModel.TransformColumns(ctx, emb, cols, f.N, cfg.Threads); err != nil {
					return err
				}
				if !floats.AllFinite(emb) {
					return errNeedX
				}
			} else {
				in := f.X
				if pick != nil {
					x = gather(x, f.X, f.N, f.D, pick)
					in = x
				}
				if classes != nil {
					if ws, err = labelWeights(ws, classes, f); err == nil {
						err = labelled.TransformLabelled(ctx, emb, in, ws, f.N, cfg.Threads)
					}
				} else {
					err = m.Transform(ctx, emb, in, f.N, cfg.Threads)
				}
				if ie := (*transforms.ItemError)(nil); errors.As(err, &ie) {
					err = &arrowio.Error{File: f.Source.Path, Row: f.Rows[ie.Item], ID: f.ID.ValueStr(ie.Item),
						Err: fmt.Errorf("%w: the row cannot be placed: %w", arrowio.ErrInvalidValue, ie.Err)}
				}
				if err == nil {
					err = transforms.CheckEmbedding(f, emb, h.Dims)
				}
				if err != nil {
					return err
				}
			}
			rec := table.EmbeddingRecord(mem, schema, f, emb)
			err = w.Write(rec)
			rec.Release()
			if err != nil {
				return err
			}
		}
		st.Rows += int64(f.N)
		st.Batches++
		p.Add(int64(f.N) + f.Dropped)
		return nil
	})
	if err != nil {
		return st, err
	}
	if st.Rows == 0 && !cfg.AllowEmpty {
		return st, noRows(r.Source().Path, st.Dropped)
	}
	if w == nil {
		// No batch at all: the output still gets its schema, from an empty
		// batch of the input's.
		cols := emptyColumns(mem, r.Schema())
		empty := array.NewRecordBatch(r.Schema(), cols, 0)
		for _, c := range cols {
			c.Release()
		}
		defer empty.Release()
		f, err := plan.Extract(empty, r.Source().Path, 0)
		if err != nil {
			return st, err
		}
		defer f.Release()
		if schema, err = table.EmbeddingSchema(f, h.Dims); err != nil {
			return st, err
		}
		if _, err := create(schema); err != nil {
			return st, err
		}
	}
	return st, nil
}

// growEmb returns emb with length n, reusing its storage when it fits.
func growEmb(emb []float64, n int) []float64 {
	if cap(emb) < n {
		return make([]float64, n)
	}
	return emb[:n]
}

// emptyColumns makes a zero-length array of every field of schema.
func emptyColumns(mem memory.Allocator, schema *arrow.Schema) []arrow.Array {
	cols := make([]arrow.Array, schema.NumFields())
	for i, f := range schema.Fields() {
		b := array.NewBuilder(mem, f.Type)
		cols[i] = b.NewArray()
		b.Release()
	}
	return cols
}

// frameMode says how eachFrame hands out the features.
type frameMode int

const (
	// keepX: a new X per frame (fn may keep it).
	keepX frameMode = iota
	// reuseX: each frame's X is the storage of the next one's (fn keeps
	// nothing of it).
	reuseX
	// columnsX: as reuseX, but a batch of float64 features without nulls
	// comes as Frame.Columns (Plan.ExtractColumns), unchecked; fn returns
	// errNeedX to get that batch again with X.
	columnsX
)

// errNeedX is fn's request to eachFrame (columnsX) for the current batch
// again, extracted with X.
var errNeedX = errors.New("transforms: the batch again, with X")

// eachFrame extracts the frame of every batch of r with plan and hands it
// to fn (the frame is released after fn returns), as mode says. It stops at
// the first error, and fails a run whose context was cancelled even when
// the reader simply ended: a reader may end early when its input is closed
// under it (stdin at an interrupt), and a cancelled run must never report
// success.
func eachFrame(ctx context.Context, r arrowio.Reader, plan *arrowio.Plan, mode frameMode, fn func(*arrowio.Frame) error) error {
	var x []float64
	for r.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		file, first := r.Position()
		rec := r.RecordBatch()
		var f *arrowio.Frame
		var err error
		if mode == columnsX {
			f, err = plan.ExtractColumns(x, rec, file, first)
		} else {
			f, err = plan.ExtractTo(x, rec, file, first)
		}
		if err != nil {
			return err
		}
		err = fn(f)
		if errors.Is(err, errNeedX) && f.Columns != nil {
			f.Release()
			if f, err = plan.ExtractTo(x, rec, file, first); err != nil {
				return err
			}
			err = fn(f)
		}
		if mode != keepX && cap(f.X) > cap(x) {
			x = f.X[:0]
		}
		f.Release()
		if err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	return ctx.Err()
}

func noRows(path string, dropped int64) error {
	msg := "the input has no rows"
	if dropped > 0 {
		msg = fmt.Sprintf("all %d rows were dropped as invalid", dropped)
	}
	return &arrowio.Error{File: path, Row: -1, Err: fmt.Errorf("%w: %s", arrowio.ErrEmpty, msg)}
}

// labelWeights returns the batch's label weights in the model's class
// order (n×C, NaN rows unlabelled), or nil when the batch brings no
// labels.
func labelWeights(dst []float64, classes []string, f *arrowio.Frame) ([]float64, error) {
	c := len(classes)
	switch {
	case f.Soft != nil:
		if !slices.Equal(f.SoftNames, classes) {
			return nil, &arrowio.Error{File: f.Source.Path, Row: -1,
				Err: fmt.Errorf("%w: the model was fitted with the soft-label columns %v, got %v", arrowio.ErrSelection, classes, f.SoftNames)}
		}
		return f.Soft, nil
	case f.Label != nil:
		pos := make(map[string]int, c)
		for k, name := range classes {
			pos[name] = k
		}
		dst = slices.Grow(dst[:0], f.N*c)[:f.N*c]
		clear(dst)
		for i, v := range transforms.LabelText(f.Label) {
			k, ok := pos[v]
			if !ok {
				return nil, &arrowio.Error{File: f.Source.Path, Column: f.Label.Name, Row: f.Rows[i],
					Err: fmt.Errorf("%w: class %q is not one of the model's classes %v", arrowio.ErrInvalidValue, v, classes)}
			}
			dst[i*c+k] = 1
		}
		return dst, nil
	}
	return nil, nil
}

// Distances places the new objects of a long distance table (columns i, j,
// distance: i a new object, j a reference object of the model, plain
// distances) into a model fitted on distances, streaming: the
// rows of one i must be contiguous (sorted or grouped by i), and an
// object's position depends only on its own rows. A j that is not a
// reference object is an error; reference objects without a row for an i
// count as far (not neighbours of it). The output has columns id (the i
// values) and emb_*.
func Distances(ctx context.Context, m transforms.Model, r arrowio.Reader, create func(*arrow.Schema) (arrowio.Writer, error), cfg Config) (Stats, error) {
	p := progressOrNone(cfg.Progress)
	mem := cfg.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	var st Stats
	dm, ok := m.(DistanceModel)
	if !ok || !dm.FromDistances() {
		return st, fmt.Errorf("%w: the %s model reads features; place rows with Rows", transforms.ErrModel, m.Header().Stage)
	}
	if pm, ok := m.(preparer); ok {
		if err := pm.Prepare(ctx, cfg.Threads); err != nil {
			return st, err
		}
	}
	plan, err := table.PairsSelection(table.PairDistance).Compile(r.Schema(), r.Source())
	if err != nil {
		return st, err
	}
	g := &distanceGroups{m: dm, dims: m.Header().Dims, mem: mem, path: r.Source().Path, seen: map[string]bool{}}
	defer g.release()
	p.Start("placing", 0)
	defer p.Finish()
	err = eachFrame(ctx, r, plan, keepX, func(f *arrowio.Frame) error {
		if err := g.add(f); err != nil {
			return err
		}
		p.Add(int64(f.N))
		return g.flush(ctx, create, cfg.Threads, false, &st)
	})
	if err != nil {
		return st, err
	}
	if err := g.flush(ctx, create, cfg.Threads, true, &st); err != nil {
		return st, err
	}
	if st.Rows == 0 {
		return st, noRows(r.Source().Path, 0)
	}
	return st, nil
}

// distanceGroups collects the rows of the new objects of a distance table
// until each object is complete (the next object starts).
type distanceGroups struct {
	m    DistanceModel
	dims int
	mem  memory.Allocator
	path string
	seen map[string]bool // objects already started

	ids  []string // complete or open objects, in order
	idB  array.Builder
	refs [][]int32 // per object: reference rows
	dist [][]float64
	w    arrowio.Writer
	sch  *arrow.Schema
}

func (g *distanceGroups) release() {
	if g.idB != nil {
		g.idB.Release()
	}
}

func (g *distanceGroups) add(f *arrowio.Frame) error {
	if g.idB == nil {
		g.idB = array.NewBuilder(g.mem, table.IDType(f.ID))
	}
	jcol := f.Keep[0]
	for r := range f.N {
		iv, jv := f.ID.ValueStr(r), jcol.ValueStr(r)
		if n := len(g.ids); n == 0 || g.ids[n-1] != iv {
			if g.seen[iv] {
				return &arrowio.Error{File: f.Source.Path, Column: f.IDName, Row: f.Rows[r], ID: iv,
					Err: fmt.Errorf("%w: the rows of object %q are not contiguous; group or sort the table by %s", arrowio.ErrInvalidValue, iv, f.IDName)}
			}
			g.seen[iv] = true
			g.ids = append(g.ids, iv)
			table.AppendID(g.idB, f.ID, r)
			g.refs, g.dist = append(g.refs, nil), append(g.dist, nil)
		}
		j, ok := g.m.ReferenceRow(jv)
		if !ok {
			return &arrowio.Error{File: f.Source.Path, Column: f.KeepFields[0].Name, Row: f.Rows[r], ID: jv,
				Err: fmt.Errorf("%w: %q is not a reference object of the model", arrowio.ErrInvalidValue, jv)}
		}
		v := f.X[r]
		if v < 0 {
			return &arrowio.Error{File: f.Source.Path, Column: f.FeatureNames[0], Row: f.Rows[r], ID: iv,
				Err: fmt.Errorf("%w: negative distance %g", arrowio.ErrInvalidValue, v)}
		}
		last := len(g.ids) - 1
		g.refs[last] = append(g.refs[last], j)
		g.dist[last] = append(g.dist[last], v)
	}
	return nil
}

// flush places and writes the complete objects: all but the last (which
// may continue in the next batch), or all at the end.
func (g *distanceGroups) flush(ctx context.Context, create func(*arrow.Schema) (arrowio.Writer, error), threads int, final bool, st *Stats) error {
	n := len(g.ids)
	if !final {
		n--
	}
	if n <= 0 {
		return nil
	}
	d := g.dims
	emb := make([]float64, n*d)
	for o := range n {
		if need := g.m.MinDistances(); len(g.refs[o]) < need {
			return &arrowio.Error{File: g.path, Column: table.PairJ, Row: -1, ID: g.ids[o],
				Err: fmt.Errorf("%w: object %q has distances to %d reference objects; placing it needs at least %d (more than the perplexity)", arrowio.ErrInvalidValue, g.ids[o], len(g.refs[o]), need)}
		}
	}
	if err := g.m.PlaceObjects(ctx, emb, g.refs[:n], g.dist[:n], threads); err != nil {
		if ie := (*transforms.ItemError)(nil); errors.As(err, &ie) {
			return &arrowio.Error{File: g.path, Row: -1, ID: g.ids[ie.Item],
				Err: fmt.Errorf("%w: object %q cannot be placed: %w", arrowio.ErrInvalidValue, g.ids[ie.Item], ie.Err)}
		}
		return err
	}
	all := g.idB.NewArray()
	ids := array.NewSlice(all, 0, int64(n))
	rest := array.NewSlice(all, int64(n), int64(all.Len()))
	all.Release()
	defer ids.Release()
	defer rest.Release()
	for i := range rest.Len() { // the open object's id stays for the next flush
		table.AppendID(g.idB, rest, i)
	}
	f := &arrowio.Frame{N: n, IDName: "id", ID: ids}
	if g.w == nil {
		var err error
		if g.sch, err = table.EmbeddingSchema(f, d); err != nil {
			return err
		}
		if g.w, err = create(g.sch); err != nil {
			return err
		}
	}
	rec := table.EmbeddingRecord(g.mem, g.sch, f, emb)
	defer rec.Release()
	if err := g.w.Write(rec); err != nil {
		return err
	}
	st.Rows += int64(n)
	st.Batches++
	g.ids, g.refs, g.dist = g.ids[n:], g.refs[n:], g.dist[n:]
	return nil
}

// modelColumns checks the frame's features against the model's inputs. For
// named columns they must be the same; for a list column the model reads
// the elements it names (a fit drops constant elements), and modelColumns
// returns their indices in the list, or nil when it reads them all.
func modelColumns(m transforms.Model, f *arrowio.Frame, path string) ([]int, error) {
	want := m.InputFeatures()
	list := m.Header().FeatureList
	if list == "" {
		if !slices.Equal(f.FeatureNames, want) {
			return nil, &arrowio.Error{File: path, Row: -1,
				Err: fmt.Errorf("%w: the model expects features %v, got %v", arrowio.ErrSelection, want, f.FeatureNames)}
		}
		return nil, nil
	}
	if slices.Equal(f.FeatureNames, want) {
		return nil, nil
	}
	pick := make([]int, len(want))
	for k, name := range want {
		i := slices.Index(f.FeatureNames, name)
		if i < 0 || (k > 0 && i <= pick[k-1]) {
			return nil, &arrowio.Error{File: path, Column: list, Row: -1,
				Err: fmt.Errorf("%w: the model expects the elements %v of list column %q, the input has %d", arrowio.ErrSelection, want, list, f.D)}
		}
		pick[k] = i
	}
	return pick, nil
}

// gather writes the columns pick of the n×d x into dst (n×len(pick)).
func gather(dst, x []float64, n, d int, pick []int) []float64 {
	k := len(pick)
	if cap(dst) < n*k {
		dst = make([]float64, n*k)
	}
	dst = dst[:n*k]
	for i := range n {
		row := x[i*d : (i+1)*d]
		out := dst[i*k : (i+1)*k]
		for j, c := range pick {
			out[j] = row[c]
		}
	}
	return dst
}

// progressOrNone is p, or a Progress that discards everything.
func progressOrNone(p transforms.Progress) transforms.Progress {
	if p == nil {
		return transforms.NoProgress{}
	}
	return p
}
