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

// ApplyStats counts what Apply did.
type ApplyStats struct {
	Rows    int64 // rows written
	Dropped int64 // rows dropped by --on-invalid drop
	Batches int
}

// Apply streams the rows of r through the model, batch by batch, and writes
// embedding batches to the writer that create returns (called once, with the
// output schema, before the first batch). Memory does not grow with the row
// count: one input batch and one output batch are alive at a time.
//
// sel gives the id, kept columns and invalid-value policy; its features are
// replaced by the model's inputs. Apply does not close the writer.
func Apply(ctx context.Context, m Model, r arrowio.Reader, sel arrowio.Selection, create func(*arrow.Schema) (arrowio.Writer, error), p Progress) (ApplyStats, error) {
	p = progressOrNone(p)
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
		emb    []float64
	)
	p.Start("apply", 0)
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
		if err := checkFeatures(m, f, r.Source().Path); err != nil {
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
			if cap(emb) < f.N*h.Dims {
				emb = make([]float64, f.N*h.Dims)
			}
			emb = emb[:f.N*h.Dims]
			m.Transform(emb, f.X, f.N)
			rec := table.EmbeddingRecord(memory.DefaultAllocator, schema, f, emb)
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

func checkFeatures(m Model, f *arrowio.Frame, path string) error {
	want := m.InputFeatures()
	if f.D != len(want) {
		return &arrowio.Error{File: path, Column: m.Header().FeatureList, Row: -1,
			Err: fmt.Errorf("%w: the model expects %d features, the input has %d", arrowio.ErrSelection, len(want), f.D)}
	}
	if m.Header().FeatureList == "" && !slices.Equal(f.FeatureNames, want) {
		return &arrowio.Error{File: path, Row: -1,
			Err: fmt.Errorf("%w: the model expects features %v, got %v", arrowio.ErrSelection, want, f.FeatureNames)}
	}
	return nil
}
