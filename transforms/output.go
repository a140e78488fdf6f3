package transforms

import (
	"context"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/table"
)

// WriteEmbedding writes the output table of role as an embedding: the
// frame's ids and kept columns, then the f.N×d row-major emb as emb_0 …
// emb_{d−1}, with the run's provenance.
func (env *Env) WriteEmbedding(ctx context.Context, role string, f *arrowio.Frame, emb []float64, d int) error {
	schema, err := table.EmbeddingSchema(f, d)
	if err != nil {
		return err
	}
	rec := table.EmbeddingRecord(env.Mem, schema, f, emb)
	defer rec.Release()
	return env.WriteRecord(ctx, role, rec)
}
