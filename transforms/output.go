package transforms

import (
	"context"
	"fmt"
	"math"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/table"
)

// WriteEmbedding writes the output table of role as an embedding: the
// frame's ids and kept columns, then the f.N×d row-major emb as emb_0 …
// emb_{d−1}, with the run's provenance.
//
// A non-finite coordinate is refused (CheckEmbedding): no stage writes an
// embedding that a BI tool would have to guess about.
func (env *Env) WriteEmbedding(ctx context.Context, role string, f *arrowio.Frame, emb []float64, d int) error {
	if err := CheckEmbedding(f, emb, d); err != nil {
		return err
	}
	schema, err := table.EmbeddingSchema(f, d)
	if err != nil {
		return err
	}
	rec := table.EmbeddingRecord(env.Mem, schema, f, emb)
	defer rec.Release()
	return env.WriteRecord(ctx, role, rec)
}

// CheckEmbedding refuses an f.N×d row-major embedding with a NaN or ±Inf,
// with a *DataError naming the file, the embedding column, the row and its
// id: an output never holds a non-finite coordinate.
func CheckEmbedding(f *arrowio.Frame, emb []float64, d int) error {
	for p, v := range emb {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			i := p / d
			return &DataError{File: f.Source.Path, Column: fmt.Sprintf("emb_%d", p%d), Row: frameRow(f, i), ID: frameID(f, i),
				Err: fmt.Errorf("%w: the row's coordinate is %g (overflow in placing it); no output was written", arrowio.ErrInvalidValue, v)}
		}
	}
	return nil
}
