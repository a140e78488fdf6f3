package transforms

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/internal/floats"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms/table"
)

// ApplyStage places new rows with a fitted model (written by the model-out
// output of bvp, pca, lda, ckpca, lsp, tsne or nerv): it reads the table of
// role "model" and streams the table of role "in" through it, batch by
// batch, into the embedding of role "out". Memory does not grow with the
// row count. A t-SNE model fitted on a distance table places new objects
// from the long table of role "distances" instead (their distances to the
// reference objects).
type ApplyStage struct{}

// ApplyOptions are the options of ApplyStage. The features are the model's
// own: it names them.
type ApplyOptions struct {
	ID         string            `opt:"id" help:"row identity column, passed through unchanged (default: a row column of 0-based input row numbers)"`
	Keep       []string          `opt:"keep" help:"columns to pass through to the output, comma list of names and globs (default: none)"`
	OnInvalid  arrowio.OnInvalid `opt:"on-invalid" help:"NaN, ±Inf or null in a used column: error (stop, naming file, column, row and id) or drop (drop the row and report how many)"`
	Label      string            `opt:"label" help:"nerv models fitted with classes: the new rows' class column (classes of the model); without it, or for a null soft-label row, Λ = γ"`
	SoftLabels []string          `opt:"soft-labels" help:"nerv models fitted with soft labels: the new rows' soft-label columns, the model's columns in its order"`
	Perplexity float64           `opt:"perplexity" help:"tsne and nerv models: perplexity of a placed row's affinities to its nearest reference rows (0: the model's, 5 for t-SNE as in openTSNE, the fit's finest for NeRV)"`
	Iterations int               `opt:"iterations" help:"tsne and nerv models: the most optimisation steps per placed row (0: the model's, 250 for t-SNE, 30 L-BFGS iterations for NeRV)"`
	Shard      arrowio.Shard     `opt:"shard" help:"read only shard i/N (0-based) of a Parquet input: its row groups u with u mod N = i, numbered over the files in path order; row numbers (and a synthesised row id) stay the whole input's, so N runs together place every row once (Kubernetes Indexed Jobs: --shard $JOB_COMPLETION_INDEX/N)"`
}

// Validate implements Options.
func (o *ApplyOptions) Validate() error {
	switch {
	case o.Label != "" && o.SoftLabels != nil:
		return Optionf("soft-labels", "give label (hard) or soft-labels, not both")
	case !(o.Perplexity >= 0) || math.IsInf(o.Perplexity, 0):
		return Optionf("perplexity", "%g: want a finite value ≥ 0 (0: the model's)", o.Perplexity)
	case o.Iterations < 0:
		return Optionf("iterations", "%d: want a value ≥ 0 (0: the model's)", o.Iterations)
	}
	return nil
}

// NewOptions implements Stage.
func (ApplyStage) NewOptions() Options { return &ApplyOptions{OnInvalid: arrowio.InvalidError} }

// Info implements Stage.
func (ApplyStage) Info() Info {
	return Info{
		Name:     "apply",
		Category: CategoryModels,
		Summary:  "place new rows with a saved model, streaming batch by batch",
		Usage: `ordinate apply --model M --in T --out E [--id COL] [--keep COLS] [--on-invalid error|drop]
ordinate apply --model M --distances D --out E   (a t-SNE model fitted on distances)`,
		Doc: `The model (written by --model-out of bvp, pca, lda, ckpca, lsp, tsne or nerv) names
its input features and their standardisation; apply reads those features from T, one
record batch at a time, so memory does not grow with the number of rows. The output
has the layout of the fitting stage's embedding.

Linear and kernel models map rows in closed form (the training rows get their fitted
values back). t-SNE and NeRV models place each new row by itself into the fixed
reference map: its nearest reference rows (a neighbour index built once per model),
affinities to them at --perplexity, a start at the median of their positions, and at
most --iterations optimisation steps against the fixed map (a row stops early once
settled). A row's position depends
only on the model and the row: the same bits in any batch size, order or thread count.
A NeRV model fitted with classes takes the new rows' --label or --soft-labels (Λ from
the class community with each reference row), else treats them as unlabelled (Λ = γ).
A t-SNE model fitted on --distances places new objects from a long table i, j,
distance (i the new id, j a reference id, plain distances), grouped by i; reference
objects missing for an i count as far (not neighbours).`,
		Examples: []string{
			"ordinate bvp --in testdata/ordinal/newthyroid.csv --label label --out /tmp/thyroid-bvp.parquet --model-out /tmp/thyroid-bvp.model.parquet",
			"ordinate apply --model /tmp/thyroid-bvp.model.parquet --in testdata/ordinal/newthyroid.csv --keep label --out /tmp/thyroid-applied.parquet",
			"ordinate apply --model /tmp/thyroid-bvp.model.parquet --in testdata/ordinal/newthyroid.csv --out /tmp/thyroid-applied.arrow",
			"ordinate tsne --in testdata/ordinal/newthyroid.csv --label label --out /tmp/thyroid-tsne.parquet --model-out /tmp/thyroid-tsne.model.parquet",
			"ordinate apply --model /tmp/thyroid-tsne.model.parquet --in testdata/ordinal/newthyroid.csv --keep label --out /tmp/thyroid-placed.parquet",
		},
		Inputs: []Role{
			{Name: "model", Help: "model table written with --model-out", Required: true},
			{Name: "in", Help: "input table: .parquet (file, glob or directory of parts), .arrow/.feather, .csv, or - for an Arrow IPC stream on stdin"},
			{Name: "distances", Help: "instead of --in, for a t-SNE model fitted on distances: long table i, j, distance of the new objects to the reference objects"},
		},
		Outputs: []Role{
			{Name: "out", Help: "output table: .parquet (zstd), .arrow, .csv, or - for an Arrow IPC stream on stdout", Kind: table.Embedding, Required: true},
		},
	}
}

// Run implements Stage.
func (ApplyStage) Run(ctx context.Context, env *Env, o Options) error {
	opts := o.(*ApplyOptions)
	m, prov, err := env.ReadModel(ctx, "model")
	if err != nil {
		return err
	}
	if r, ok := m.(interface{ Release() }); ok {
		defer r.Release()
	}
	h := m.Header()
	env.Figures(map[string]any{"model_stage": h.Stage, "dims": h.Dims})
	if prov != nil {
		env.Prov.Seed = prov.Seed
	}
	if err := configurePlacement(m, opts); err != nil {
		return err
	}
	role := "in"
	switch p, _ := m.(*Placement); {
	case p != nil && p.Source == FromDistances:
		if !env.Has("distances") || env.Has("in") {
			return Optionf("distances", "%w: the model was fitted on distances: give the new objects' distances to the reference objects with distances, not in", ErrNoTable)
		}
		role = "distances"
		if !opts.Shard.IsZero() {
			return Optionf("shard", "cannot split a distance table: an object's rows could fall in two shards")
		}
	case env.Has("distances"):
		return Optionf("distances", "is for t-SNE models fitted on distances; this %s model reads features: give in", h.Stage)
	case !env.Has("in"):
		return Optionf("in", "%w: give the new rows with in", ErrNoTable)
	}
	r, err := env.OpenShard(ctx, role, opts.Shard)
	if err != nil {
		return err
	}
	defer r.Release()
	var w arrowio.Writer
	defer func() {
		if w != nil {
			w.Abort()
		}
	}()
	create := func(s *arrow.Schema) (arrowio.Writer, error) {
		var err error
		w, err = env.Create(ctx, "out", s)
		return w, err
	}
	cfg := ApplyConfig{Progress: env.Progress, Mem: env.Mem, Threads: env.Threads, AllowEmpty: !opts.Shard.IsZero()}
	var st ApplyStats
	if role == "distances" {
		st, err = ApplyDistances(ctx, m.(*Placement), r, create, cfg)
	} else {
		sel := arrowio.Selection{ID: opts.ID, Keep: opts.Keep, OnInvalid: opts.OnInvalid, Label: opts.Label, SoftLabels: opts.SoftLabels}
		st, err = Apply(ctx, m, r, sel, create, cfg)
	}
	if err != nil {
		return err
	}
	src := r.Source()
	env.Input(role, src, st.Rows+st.Dropped, st.Dropped, TableProvenance(r.Schema()))
	if st.Dropped > 0 {
		env.Warn("%s: dropped %d of %d rows with NaN, ±Inf or null in a used column (on-invalid drop)", src.Path, st.Dropped, st.Rows+st.Dropped)
	}
	env.Figure("batches", st.Batches)
	if p, ok := m.(*Placement); ok {
		env.Figures(map[string]any{"placed": st.Rows, "reference_rows": p.N(), "placement": p.Header().Params[p.Stage]})
	}
	return env.Close("out", w)
}

// configurePlacement applies the placement options to a t-SNE or NeRV model
// and refuses them for a model that maps rows in closed form.
func configurePlacement(m Model, o *ApplyOptions) error {
	p, ok := m.(*Placement)
	if !ok {
		stage := m.Header().Stage
		for _, c := range []struct {
			name string
			set  bool
		}{{"label", o.Label != ""}, {"soft-labels", o.SoftLabels != nil}, {"perplexity", o.Perplexity != 0}, {"iterations", o.Iterations != 0}} {
			if c.set {
				return Optionf(c.name, "is for tsne and nerv models; the %s model maps rows in closed form", stage)
			}
		}
		return nil
	}
	if (o.Label != "" || o.SoftLabels != nil) && p.Stage != "nerv" {
		return Optionf(map[bool]string{true: "label", false: "soft-labels"}[o.Label != ""], "is for nerv models fitted with classes; a %s map places rows by their features alone (pass the column through with keep)", p.Stage)
	}
	if (o.Label != "" || o.SoftLabels != nil) && len(p.Classes) == 0 {
		return Optionf(map[bool]string{true: "label", false: "soft-labels"}[o.Label != ""], "the nerv model was fitted without classes (NeRV): new rows cannot bring labels")
	}
	switch {
	case p.TSNE != nil:
		if o.Perplexity > 0 {
			p.TSNE.Perplexity = o.Perplexity
		}
		if o.Iterations > 0 {
			p.TSNE.Iterations = o.Iterations
		}
	case p.NeRV != nil:
		if o.Perplexity > 0 {
			p.NeRV.Perplexity = o.Perplexity
		}
		if o.Iterations > 0 {
			p.NeRV.MaxIter = o.Iterations
		}
	}
	if o.Perplexity > 0 && !(o.Perplexity < float64(p.N())) {
		return Optionf("perplexity", "%g: want a value below the %d reference rows", o.Perplexity, p.N())
	}
	return nil
}

// ApplyConfig is how Apply runs: where progress goes (phase "placing", in
// rows), the allocator of the output batches (nil: memory.DefaultAllocator)
// and the threads of a placement (≤ 0: GOMAXPROCS).
type ApplyConfig struct {
	Progress Progress
	Mem      memory.Allocator
	Threads  int
	// AllowEmpty writes an empty output for an input without rows (a shard
	// may hold no row group) instead of failing with arrowio.ErrEmpty.
	AllowEmpty bool
}

// ApplyStats counts what Apply did.
type ApplyStats struct {
	Rows    int64 // rows written
	Dropped int64 // rows dropped by on-invalid drop
	Batches int
}

// Apply streams the rows of r through the model, batch by batch, and writes
// embedding batches to the writer that create returns (called once, with the
// output schema, before the first batch). Memory does not grow with the row
// count: one input batch and one output batch are alive at a time.
//
// sel gives the id, kept columns and invalid-value policy (and, for a NeRV
// placement, the label or soft-label columns); its features are replaced by
// the model's inputs. Apply does not close the writer.
func Apply(ctx context.Context, m Model, r arrowio.Reader, sel arrowio.Selection, create func(*arrow.Schema) (arrowio.Writer, error), cfg ApplyConfig) (ApplyStats, error) {
	p := progressOrNone(cfg.Progress)
	mem := cfg.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	var st ApplyStats
	h := m.Header()
	if h.FeatureList != "" {
		sel.Features = []string{h.FeatureList}
	} else {
		sel.Features = slices.Clone(m.InputFeatures())
	}
	sel.NoFeatures = false
	placement, _ := m.(*Placement)
	if placement != nil {
		if placement.Source != FromFeatures {
			return st, fmt.Errorf("%w: the %s model was fitted on distances; place new objects with ApplyDistances", ErrModel, h.Stage)
		}
		if err := placement.Prepare(ctx, cfg.Threads); err != nil {
			return st, err
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
	affine, _ := m.(*Affine)
	if affine != nil {
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
				if err := transformColumns(ctx, affine, emb, cols, f.N, cfg.Threads); err != nil {
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
				if placement != nil {
					if ws, err = labelWeights(ws, placement, f); err == nil {
						err = placement.PlaceRows(ctx, emb, in, ws, f.N, cfg.Threads)
					}
					if ie := (*ItemError)(nil); errors.As(err, &ie) {
						err = &arrowio.Error{File: f.Source.Path, Row: f.Rows[ie.Item], ID: f.ID.ValueStr(ie.Item),
							Err: fmt.Errorf("%w: the row cannot be placed: %w", arrowio.ErrInvalidValue, ie.Err)}
					}
				} else {
					err = transformRows(ctx, m, emb, in, f.N, h.Dims, cfg.Threads)
				}
				if err == nil {
					err = CheckEmbedding(f, emb, h.Dims)
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

// transformRows is m.Transform of the n rows of x into emb on threads
// goroutines, a block of rows each (Transform is safe for concurrent use
// and each row depends on its own features only, so emb is the same).
func transformRows(ctx context.Context, m Model, emb, x []float64, n, d, threads int) error {
	D := len(x) / max(n, 1)
	return kernels.ParallelFor(ctx, n, threads, transformGrain, func(lo, hi int) {
		m.Transform(emb[lo*d:hi*d], x[lo*D:hi*D], hi-lo)
	})
}

// transformGrain is the block of rows of transformRows: 2 MiB of 32
// float64 features.
const transformGrain = 8192

// transformColumns is m.TransformColumns of n rows into emb on threads
// goroutines, a block of rows each (the same bits for any count).
func transformColumns(ctx context.Context, m *Affine, emb []float64, cols [][]float64, n, threads int) error {
	d := len(emb) / max(n, 1)
	return kernels.ParallelFor(ctx, n, threads, transformGrain, func(lo, hi int) {
		block := make([][]float64, len(cols))
		for f, c := range cols {
			block[f] = c[lo:hi]
		}
		m.TransformColumns(emb[lo*d:hi*d], block, hi-lo)
	})
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

// labelWeights returns the batch's label weights for a NeRV placement in
// the model's class order (n×C, NaN rows unlabelled), or nil when the
// batch brings no labels.
func labelWeights(dst []float64, m *Placement, f *arrowio.Frame) ([]float64, error) {
	c := len(m.Classes)
	switch {
	case f.Soft != nil:
		if !slices.Equal(f.SoftNames, m.Classes) {
			return nil, &arrowio.Error{File: f.Source.Path, Row: -1,
				Err: fmt.Errorf("%w: the model was fitted with the soft-label columns %v, got %v", arrowio.ErrSelection, m.Classes, f.SoftNames)}
		}
		return f.Soft, nil
	case f.Label != nil:
		pos := make(map[string]int, c)
		for k, name := range m.Classes {
			pos[name] = k
		}
		dst = slices.Grow(dst[:0], f.N*c)[:f.N*c]
		clear(dst)
		for i, v := range labelText(f.Label) {
			k, ok := pos[v]
			if !ok {
				return nil, &arrowio.Error{File: f.Source.Path, Column: f.Label.Name, Row: f.Rows[i],
					Err: fmt.Errorf("%w: class %q is not one of the model's classes %v", arrowio.ErrInvalidValue, v, m.Classes)}
			}
			dst[i*c+k] = 1
		}
		return dst, nil
	}
	return nil, nil
}

// ApplyDistances places the new objects of a long distance table (columns
// i, j, distance: i a new object, j a reference object of the model, plain
// distances) into a t-SNE or NeRV model fitted on distances, streaming: the
// rows of one i must be contiguous (sorted or grouped by i), and an
// object's position depends only on its own rows. A j that is not a
// reference object is an error; reference objects without a row for an i
// count as far (not neighbours of it). The output has columns id (the i
// values) and emb_*.
func ApplyDistances(ctx context.Context, m *Placement, r arrowio.Reader, create func(*arrow.Schema) (arrowio.Writer, error), cfg ApplyConfig) (ApplyStats, error) {
	p := progressOrNone(cfg.Progress)
	mem := cfg.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	var st ApplyStats
	if m.Source != FromDistances {
		return st, fmt.Errorf("%w: the %s model reads features; place rows with Apply", ErrModel, m.Stage)
	}
	if err := m.Prepare(ctx, cfg.Threads); err != nil {
		return st, err
	}
	plan, err := table.PairsSelection(table.PairDistance).Compile(r.Schema(), r.Source())
	if err != nil {
		return st, err
	}
	g := &distanceGroups{m: m, mem: mem, path: r.Source().Path, seen: map[string]bool{}}
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
	m    *Placement
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
func (g *distanceGroups) flush(ctx context.Context, create func(*arrow.Schema) (arrowio.Writer, error), threads int, final bool, st *ApplyStats) error {
	n := len(g.ids)
	if !final {
		n--
	}
	if n <= 0 {
		return nil
	}
	d := g.m.Dims
	emb := make([]float64, n*d)
	for o := range n {
		if need := g.m.MinDistances(); len(g.refs[o]) < need {
			return &arrowio.Error{File: g.path, Column: table.PairJ, Row: -1, ID: g.ids[o],
				Err: fmt.Errorf("%w: object %q has distances to %d reference objects; placing it needs at least %d (more than the perplexity)", arrowio.ErrInvalidValue, g.ids[o], len(g.refs[o]), need)}
		}
	}
	if err := g.m.PlaceObjects(ctx, emb, g.refs[:n], g.dist[:n], threads); err != nil {
		if ie := (*ItemError)(nil); errors.As(err, &ie) {
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
func modelColumns(m Model, f *arrowio.Frame, path string) ([]int, error) {
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

// init registers apply, the contract's own stage.
func init() { Register(ApplyStage{}) }
