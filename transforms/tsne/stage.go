package tsne

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/placement"
	"github.com/ordinate/ordinate/transforms/table"
)

// Stage is the tsne stage: t-SNE of a feature table (role "in") or of a
// long distance table (role "distances"), written as an embedding ("out").
type Stage struct{}

// NewOptions returns DefaultOptions.
func (Stage) NewOptions() transforms.Options {
	o := DefaultOptions()
	return &o
}

// Info describes the stage.
func (Stage) Info() transforms.Info {
	return transforms.Info{
		Name:     "tsne",
		Category: transforms.CategoryMethods,
		Summary:  "t-SNE of feature rows or of a distance table (e.g. Fisher distances)",
		Usage: `ordinate tsne --in T [--features SPEC] [--id COL] [--label y] --out E
ordinate tsne --distances D [--labels L --id COL --label y] --out E
ordinate tsne --distances D --fisher-model F --out E --model-out M`,
		Doc: `--distances takes a long table i, j, distance of PLAIN (not squared) distances:
all pairs (or i < j only) for exact t-SNE, or each row's K nearest neighbours
(as fisher --neighbors writes) for Barnes-Hut. Affinities use exp(−β·d²), so
squared distances would be squared twice. --labels adds the label column (and
the row order) from a table with --id and --label.

--model-out saves the map for ordinate apply, which places new rows into it: the
reference rows' features (as fitted) and positions, a neighbour graph, and the
placement settings (perplexity 5, median start, a fixed number of steps against
the fixed map; see apply). A map fitted on --distances places new objects from
their distances to the reference objects; with --fisher-model F (the model fisher
--in … --neighbors K --model-out F wrote with those distances) it places new rows
by their features instead, through their Fisher distances to the fitted rows
(Fisher t-SNE of new rows; see fisher --help).

--standardize is off by default, unlike pca, lda, bvp, ckpca and lsp: t-SNE
is usually run on features that are already comparable (openTSNE and
scikit-learn do not scale either). A constant feature column is dropped with
a warning.`,
		Examples: []string{
			"ordinate tsne --in testdata/ordinal/newthyroid.csv --label label --out tsne.parquet",
			"ordinate fisher --similarity testdata/similarity/aural_sonar.parquet --id id --label label --out f.parquet",
			"ordinate tsne --distances f.parquet --labels testdata/similarity/aural_sonar.parquet --id id --label label --out ftsne.parquet",
			"ordinate tsne --in testdata/ordinal/newthyroid.csv --label label --out tsne.parquet --model-out tsne.model.parquet",
		},
		Inputs: []transforms.Role{
			{Name: "in", Help: "feature table (Euclidean distances)"},
			{Name: "distances", Help: "instead of --in: a long distance table i, j, distance (plain distances)"},
			{Name: "labels", Help: "with --distances: table with the --id and --label columns, for row order and pass-through"},
			{Name: "fisher-model", Help: "with --distances and --model-out: the model fisher --model-out wrote with those distances; the saved map then places new rows by their features, through their Fisher distances", Models: []string{"fisher"}},
		},
		Outputs: []transforms.Role{
			{Name: "out", Help: "the embedding: id, kept columns, emb_0 … emb_{d-1}", Kind: table.Embedding, Required: true},
			{Name: "model-out", Help: "also save the map as a model (Parquet) for ordinate apply, which places new rows into it", Kind: table.Model, Models: []string{placement.Kind}},
		},
	}
}

// Run fits t-SNE and writes the embedding.
func (Stage) Run(ctx context.Context, env *transforms.Env, opts transforms.Options) error {
	o := opts.(*Options)
	hasIn, hasDist := env.Has("in"), env.Has("distances")
	switch {
	case hasIn == hasDist:
		return transforms.Optionf("in", "%w: give in (features) or distances, one of them", transforms.ErrNoTable)
	case env.Has("labels") && !hasDist:
		return transforms.Optionf("labels", "goes with distances; a feature table carries its own labels")
	case env.Has("fisher-model") && !(hasDist && env.Has("model-out")):
		return transforms.Optionf("fisher-model", "goes with distances and model-out: it makes the saved map place new rows by their Fisher distances")
	}
	var fisherModel mapBinder
	if env.Has("fisher-model") {
		// Read first: a wrong model fails before the fit, not after it.
		m, _, err := env.ReadModel(ctx, "fisher-model")
		if err != nil {
			return err
		}
		var ok bool
		if fisherModel, ok = m.(mapBinder); !ok {
			return transforms.Optionf("fisher-model", "%w: a %s model of %s, not the model of fisher --model-out", transforms.ErrModel, m.Header().Kind, m.Header().Stage)
		}
		if r, ok := m.(interface{ Release() }); ok {
			defer r.Release()
		}
	}
	to := *o
	to.Threads, to.Reporter = env.Threads, env.Progress
	to.Progress = func(iter int, kl float64) { env.Log.Debug("tsne", "iteration", iter, "kl", kl) }
	to.RecallProgress = func(r float64, c int) {
		env.Log.Info("neighbour recall", "estimate", r, "target", o.KNNRecall, "candidates", c, "sample", kernels.DefaultRecallSample)
	}
	var (
		rows  *arrowio.Frame
		res   *Result
		model *placement.Model
	)
	if hasIn {
		ft, err := env.ReadFeatures(ctx, "in", o.Columns.Selection(), o.Standardize)
		if err != nil {
			return err
		}
		defer ft.Release()
		rows = ft.Frame
		res, err = FromFeatures(ctx, ft.Z, ft.N, ft.K(), to)
		if err != nil {
			return err
		}
		if env.Has("model-out") {
			if model, err = placement.NewFromFeatures(ctx, "tsne", newPlaceMethod(), ft, o.Standardize, res.Y, o.Dims, res.NeighborIdx, res.Neighbors, env.Threads); err != nil {
				return err
			}
		}
	} else {
		pairs, err := env.ReadFrame(ctx, "distances", table.PairsSelection(table.PairDistance))
		if err != nil {
			return err
		}
		defer pairs.Release()
		if env.Has("labels") {
			sel := arrowio.Selection{ID: o.ID, Label: o.Label, Keep: o.Keep, OnInvalid: o.OnInvalid, NoFeatures: true}
			if rows, err = env.ReadFrame(ctx, "labels", sel); err != nil {
				return err
			}
		} else if rows, err = table.DistinctIDs(env.Mem, pairs); err != nil {
			return err
		}
		defer rows.Release()
		if fisherModel != nil {
			// The same rows, checked before the fit rather than after it.
			if _, err := fisherModel.MatchRows(rows.ID); err != nil {
				return transforms.Optionf("fisher-model", "%w", err)
			}
		}
		if res, err = fromPairs(ctx, pairs, rows, to); err != nil {
			return err
		}
		if env.Has("model-out") {
			model = placement.NewFromDistances("tsne", newPlaceMethod(), rows.ID, res.Y, o.Dims)
			if fisherModel != nil {
				if model, err = fisherModel.BindMap(model); err != nil {
					return transforms.Optionf("fisher-model", "%w", err)
				}
				defer model.Release()
			}
		}
	}
	figures := map[string]any{"kl": res.KL, "iterations": res.Iterations, "method": res.Method,
		"learning_rate": res.LearningRate, "early_learning_rate": res.EarlyRate, "init": res.Init, "neighbors": res.Neighbors}
	if res.KNN != "" {
		figures["knn"] = res.KNN
	}
	if res.KNNCandidates > 0 {
		figures["knn_recall"], figures["knn_candidates"] = res.KNNRecall, res.KNNCandidates
		if res.KNNRecall < o.KNNRecall {
			env.Log.Warn(fmt.Sprintf("approximate neighbours: estimated recall %.5g (on %d rows) is below the target %.4g after widening the join to %d candidates; the map may lose local detail: use knn exact (slower), or lower knn-recall to accept it",
				res.KNNRecall, kernels.DefaultRecallSample, o.KNNRecall, res.KNNCandidates))
		}
	}
	env.Figures(figures)
	env.Log.Info("tsne", "rows", rows.N, "kl", res.KL, "method", res.Method, "knn", res.KNN)
	if err := env.WriteEmbedding(ctx, "out", rows, res.Y, o.Dims); err != nil {
		return err
	}
	if model == nil {
		return nil
	}
	return env.WriteModel(ctx, "model-out", model)
}

// mapBinder is a model that joins a map fitted on its distances (the
// fisher stage's).
type mapBinder interface {
	MatchRows(ids arrow.Array) ([]int, error)
	BindMap(*placement.Model) (*placement.Model, error)
}

// fromPairs runs t-SNE on a long distance table: sparse (Barnes-Hut or
// FFT) when every row has the same number k < n−1 of neighbours, dense
// when every pair is there. A table of k = (n−1)/2 neighbours a row has as
// many rows as the upper triangle of an odd n: the lists are tried first.
func fromPairs(ctx context.Context, pairs, rows *arrowio.Frame, o Options) (*Result, error) {
	n := rows.N
	if n > 0 && pairs.N%n == 0 && pairs.N/n < n-1 {
		idx, dist, k, err := table.NeighborLists(pairs, rows)
		if err == nil {
			return FromNeighbors(ctx, idx, dist, n, k, o)
		}
		if pairs.N < n*(n-1)/2 {
			return nil, err
		}
	}
	if pairs.N >= n*(n-1)/2 {
		// The matrix and its mask of given pairs, then FromDistances's
		// squared copy: 17 bytes a pair at the peak.
		if err := transforms.Reserve(ctx, 17*float64(n)*float64(n),
			fmt.Sprintf("the N×N distance matrix of %s objects, its squares and the mask of given pairs", transforms.Thousands(int64(n))),
			"give each row's nearest neighbours only (fisher --neighbors) for Barnes-Hut"); err != nil {
			return nil, err
		}
		dist, err := table.DistanceMatrix(pairs, rows)
		if err != nil {
			return nil, err
		}
		return FromDistances(ctx, dist, n, o)
	}
	idx, dist, k, err := table.NeighborLists(pairs, rows)
	if err != nil {
		return nil, err
	}
	return FromNeighbors(ctx, idx, dist, n, k, o)
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(Stage{})
}
