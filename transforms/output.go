package transforms

import (
	"context"

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
