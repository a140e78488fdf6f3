package affine

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms"
)

// Write finishes a linear stage fitted on ft: it builds the affine model
// from the stage's origin and D×d axes (in ft's standardised space),
// places the training rows with it exactly as apply places new rows (the
// model reads the raw kept features), writes the embedding as role "out"
// and, when the host asks for it, the model as role "model-out". It
// returns the model.
func Write(ctx context.Context, env *transforms.Env, stage string, ft *transforms.FeatureTable, standardized bool, origin []float64, axes *mat.Dense, params map[string]any) (*Model, error) {
	m := New(stage, ft.Scaling, ft.FeatureList, standardized, origin, axes, params)
	// A model with a non-finite value is refused before the rows are
	// placed with it; WriteEmbedding and WriteModel check what they write.
	if err := m.Check(); err != nil {
		return nil, err
	}
	d := m.Dims()
	env.Progress.Start("placing", int64(ft.N))
	emb := make([]float64, ft.N*d)
	err := m.Transform(ctx, emb, ft.Scaling.Select(nil, ft.X, ft.N, ft.D), ft.N, env.Threads)
	env.Progress.Add(int64(ft.N))
	env.Progress.Finish()
	if err != nil {
		return nil, err
	}
	if err := env.WriteEmbedding(ctx, "out", ft.Frame, emb, d); err != nil {
		return nil, err
	}
	if env.Has("model-out") {
		if err := env.WriteModel(ctx, "model-out", m); err != nil {
			return nil, err
		}
	}
	env.Log.Info(stage, "rows", ft.N, "features", ft.K(), "dims", d)
	return m, nil
}
