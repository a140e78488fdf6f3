package transforms

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/table"
)

// ApplyStage places new rows with a fitted model (written by the model-out
// output of bvp, pca, lda, ckpca or lsp): it reads the table of role
// "model" and streams the table of role "in" through it, batch by batch,
// into the embedding of role "out". Memory does not grow with the row
// count.
type ApplyStage struct{}

// ApplyOptions are the options of ApplyStage. The features are the model's
// own: it names them.
type ApplyOptions struct {
	ID        string            `opt:"id" help:"row identity column, passed through unchanged (default: a row column of 0-based input row numbers)"`
	Keep      []string          `opt:"keep" help:"columns to pass through to the output, comma list of names and globs (default: none)"`
	OnInvalid arrowio.OnInvalid `opt:"on-invalid" help:"NaN, ±Inf or null in a used column: error (stop, naming file, column, row and id) or drop (drop the row and report how many)"`
}

// Validate implements Options.
func (o *ApplyOptions) Validate() error { return nil }

// NewOptions implements Stage.
func (ApplyStage) NewOptions() Options { return &ApplyOptions{} }

// Info implements Stage.
func (ApplyStage) Info() Info {
	return Info{
		Name:    "apply",
		Summary: "place new rows with a saved model, streaming batch by batch",
		Usage:   "ordinate apply --model M --in T --out E [--id COL] [--keep COLS] [--on-invalid error|drop]",
		Doc: `The model (written by --model-out of bvp, pca, lda, ckpca or lsp) names its input
features and their standardisation; apply reads those features from T, one record batch
at a time, so memory does not grow with the number of rows. The output has the layout
of the fitting stage's embedding, and for the training rows the same values.`,
		Examples: []string{
			"ordinate bvp --in testdata/ordinal/newthyroid.csv --label label --out /tmp/thyroid-bvp.parquet --model-out /tmp/thyroid-bvp.model.parquet",
			"ordinate apply --model /tmp/thyroid-bvp.model.parquet --in testdata/ordinal/newthyroid.csv --keep label --out /tmp/thyroid-applied.parquet",
			"ordinate apply --model /tmp/thyroid-bvp.model.parquet --in testdata/ordinal/newthyroid.csv --out /tmp/thyroid-applied.arrow",
		},
		Inputs: []Role{
			{Name: "model", Help: "model table written with --model-out", Required: true},
			{Name: "in", Help: "input table: .parquet (file, glob or directory of parts), .arrow/.feather, .csv, or - for an Arrow IPC stream on stdin", Required: true},
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
	h := m.Header()
	env.Figures(map[string]any{"model_stage": h.Stage, "dims": h.Dims})
	if prov != nil {
		env.Prov.Seed = prov.Seed
	}
	r, err := env.Open(ctx, "in")
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
	sel := arrowio.Selection{ID: opts.ID, Keep: opts.Keep, OnInvalid: opts.OnInvalid}
	create := func(s *arrow.Schema) (arrowio.Writer, error) {
		var err error
		w, err = env.Create(ctx, "out", s)
		return w, err
	}
	st, err := Apply(ctx, m, r, sel, create, env.Progress, env.Mem)
	if err != nil {
		return err
	}
	src := r.Source()
	env.Input("in", src, st.Rows+st.Dropped, st.Dropped, TableProvenance(r.Schema()))
	if st.Dropped > 0 {
		env.Warn("%s: dropped %d of %d rows with NaN, ±Inf or null in a used column (on-invalid drop)", src.Path, st.Dropped, st.Rows+st.Dropped)
	}
	env.Figure("batches", st.Batches)
	return env.Close("out", w)
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
// count: one input batch and one output batch are alive at a time. Output
// batches are allocated from mem (nil: memory.DefaultAllocator); progress
// is reported as the phase "placing", in rows.
//
// sel gives the id, kept columns and invalid-value policy; its features are
// replaced by the model's inputs. Apply does not close the writer.
func Apply(ctx context.Context, m Model, r arrowio.Reader, sel arrowio.Selection, create func(*arrow.Schema) (arrowio.Writer, error), p Progress, mem memory.Allocator) (ApplyStats, error) {
	p = progressOrNone(p)
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
	plan, err := sel.Compile(r.Schema(), r.Source())
	if err != nil {
		return st, err
	}
	var (
		w      arrowio.Writer
		schema *arrow.Schema
		emb, x []float64
		pick   []int // for a list column: the model's elements of the list
	)
	p.Start("placing", 0)
	defer p.Finish()
	for r.Next() {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		file, first := r.Position()
		f, err := plan.Extract(r.RecordBatch(), file, first)
		if err != nil {
			return st, err
		}
		st.Dropped += f.Dropped
		if pick, err = modelColumns(m, f, r.Source().Path); err != nil {
			f.Release()
			return st, err
		}
		if w == nil {
			if schema, err = table.EmbeddingSchema(f, h.Dims); err != nil {
				f.Release()
				return st, err
			}
			if w, err = create(schema); err != nil {
				f.Release()
				return st, err
			}
		}
		if f.N > 0 {
			in := f.X
			if pick != nil {
				x = gather(x, f.X, f.N, f.D, pick)
				in = x
			}
			if cap(emb) < f.N*h.Dims {
				emb = make([]float64, f.N*h.Dims)
			}
			emb = emb[:f.N*h.Dims]
			m.Transform(emb, in, f.N)
			if err := CheckEmbedding(f, emb, h.Dims); err != nil {
				f.Release()
				return st, err
			}
			rec := table.EmbeddingRecord(mem, schema, f, emb)
			err = w.Write(rec)
			rec.Release()
		}
		st.Rows += int64(f.N)
		st.Batches++
		p.Add(int64(f.N) + f.Dropped)
		f.Release()
		if err != nil {
			return st, err
		}
	}
	if err := r.Err(); err != nil {
		return st, err
	}
	// A reader may end early when its input is closed under it (stdin at an
	// interrupt): never report success for a cancelled run.
	if err := ctx.Err(); err != nil {
		return st, err
	}
	if st.Rows == 0 {
		msg := "the input has no rows"
		if st.Dropped > 0 {
			msg = fmt.Sprintf("all %d rows were dropped as invalid", st.Dropped)
		}
		return st, &arrowio.Error{File: r.Source().Path, Row: -1, Err: fmt.Errorf("%w: %s", arrowio.ErrEmpty, msg)}
	}
	return st, nil
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
