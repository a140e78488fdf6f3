package tsne

import (
	"context"
	"errors"
	"fmt"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/place"
	"github.com/ordinate/ordinate/transforms/table"
)

// Stage is the tsne stage: t-SNE of a feature table (role "in") or of a
// long distance table (role "distances"), written as an embedding ("out").
type Stage struct{}

// StageOptions are the options of the tsne stage.
type StageOptions struct {
	transforms.Columns
	transforms.Standardization
	Dims              int               `opt:"dims" help:"output dimensions (at least 1; Barnes-Hut: at most 3)"`
	Perplexity        float64           `opt:"perplexity" help:"perplexity of the input affinities (> 0, below N − 1; 3·perplexity ≤ N − 1 for Barnes-Hut)"`
	Method            Method            `opt:"method" help:"exact (O(N²)), bh (Barnes-Hut), fft (FIt-SNE interpolation, 1 or 2 dims) or auto (exact up to 1000 rows, bh up to 20000, fft above)"`
	KNN               kernels.KNNMethod `opt:"knn" help:"input neighbours of bh and fft: exact (a k-d tree for up to 8 features), approx (NN-descent) or auto (exact up to 20000 rows or 8 features)"`
	Theta             float64           `opt:"theta" help:"Barnes-Hut accuracy (≥ 0; 0: exact repulsion)"`
	Iterations        int               `opt:"iterations" help:"gradient iterations (at least 1)"`
	LearningRate      float64           `opt:"learning-rate" help:"step size (≥ 0; 0: max(N/12, 50) during exaggeration, max(N, 50) after, as openTSNE)"`
	EarlyExaggeration float64           `opt:"early-exaggeration" help:"P is multiplied by this (> 0) for the first 250 iterations"`
	Init              Init              `opt:"init" help:"pca (classical MDS for distances), scaled to std 1e-4, or random"`
	Seed              uint64            `opt:"seed" help:"random seed (any whole number ≥ 0); the same input, seed and thread count give bit-identical output"`
}

// Validate checks the options that need no data.
func (o *StageOptions) Validate() error {
	switch {
	case o.Dims < 1:
		return transforms.Optionf("dims", "%d: want at least 1", o.Dims)
	case o.Iterations < 1:
		return transforms.Optionf("iterations", "%d: want at least 1", o.Iterations)
	case !(o.Perplexity > 0):
		return transforms.Optionf("perplexity", "%g: want a value > 0", o.Perplexity)
	case !(o.Theta >= 0):
		return transforms.Optionf("theta", "%g: want a value ≥ 0", o.Theta)
	case !(o.LearningRate >= 0):
		return transforms.Optionf("learning-rate", "%g: want a value ≥ 0 (0: the default)", o.LearningRate)
	case !(o.EarlyExaggeration > 0):
		return transforms.Optionf("early-exaggeration", "%g: want a value > 0", o.EarlyExaggeration)
	}
	return nil
}

// NewOptions returns the defaults.
func (Stage) NewOptions() transforms.Options {
	return &StageOptions{Columns: transforms.DefaultColumns(), KNN: kernels.KNNAuto, Dims: 2, Perplexity: 30, Method: Auto, Theta: 0.5, Iterations: 1000,
		EarlyExaggeration: 12, Init: InitPCA, Seed: 1}
}

// Info describes the stage.
func (Stage) Info() transforms.Info {
	return transforms.Info{
		Name:     "tsne",
		Category: transforms.CategoryMethods,
		Summary:  "t-SNE of feature rows or of a distance table (e.g. Fisher distances)",
		Usage: `ordinate tsne --in T [--features SPEC] [--id COL] [--label y] --out E
ordinate tsne --distances D [--labels L --id COL --label y] --out E`,
		Doc: `--distances takes a long table i, j, distance of PLAIN (not squared) distances:
all pairs (or i < j only) for exact t-SNE, or each row's K nearest neighbours
(as fisher --neighbors writes) for Barnes-Hut. Affinities use exp(−β·d²), so
squared distances would be squared twice. --labels adds the label column (and
the row order) from a table with --id and --label.

--model-out saves the map for ordinate apply, which places new rows into it: the
reference rows' features (as fitted) and positions, a neighbour graph, and the
placement settings (perplexity 5, median start, a fixed number of steps against
the fixed map; see apply). A map fitted on --distances places new objects from
their distances to the reference objects.

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
		},
		Outputs: []transforms.Role{
			{Name: "out", Help: "the embedding: id, kept columns, emb_0 … emb_{d-1}", Kind: table.Embedding, Required: true},
			{Name: "model-out", Help: "also save the map as a model (Parquet) for ordinate apply, which places new rows into it", Kind: table.Model},
		},
	}
}

// Run fits t-SNE and writes the embedding.
func (Stage) Run(ctx context.Context, env *transforms.Env, opts transforms.Options) error {
	o := opts.(*StageOptions)
	hasIn, hasDist := env.Has("in"), env.Has("distances")
	switch {
	case hasIn == hasDist:
		return transforms.Optionf("in", "%w: give in (features) or distances, one of them", transforms.ErrNoTable)
	case env.Has("labels") && !hasDist:
		return transforms.Optionf("labels", "goes with distances; a feature table carries its own labels")
	}
	to := Options{
		Dims: o.Dims, Perplexity: o.Perplexity, Method: o.Method, Neighbors: o.KNN, Theta: o.Theta,
		Iterations: o.Iterations, LearningRate: o.LearningRate, EarlyExaggeration: o.EarlyExaggeration,
		Init: o.Init, Seed: o.Seed, Threads: env.Threads, Reporter: env.Progress,
		Progress: func(iter int, kl float64) { env.Log.Debug("tsne", "iteration", iter, "kl", kl) },
	}
	var (
		rows  *arrowio.Frame
		res   *Result
		model *transforms.Placement
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
			return stageError(err)
		}
		if env.Has("model-out") {
			if model, err = transforms.NewFeaturePlacement(ctx, "tsne", ft, o.Standardize, res.Y, o.Dims, res.NeighborIdx, res.Neighbors, env.Threads); err != nil {
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
		if res, err = fromPairs(ctx, pairs, rows, to); err != nil {
			return stageError(err)
		}
		if env.Has("model-out") {
			model = transforms.NewDistancePlacement("tsne", rows.ID, res.Y, o.Dims)
		}
	}
	figures := map[string]any{"kl": res.KL, "iterations": res.Iterations, "method": res.Method,
		"learning_rate": res.LearningRate, "early_learning_rate": res.EarlyRate, "perplexity": res.Perplexity, "init": res.Init, "neighbors": res.Neighbors}
	if res.KNN != "" {
		figures["knn"] = res.KNN
	}
	env.Figures(figures)
	env.Log.Info("tsne", "rows", rows.N, "kl", res.KL, "method", res.Method, "knn", res.KNN)
	if err := env.WriteEmbedding(ctx, "out", rows, res.Y, o.Dims); err != nil {
		return err
	}
	if model == nil {
		return nil
	}
	po := place.DefaultTSNEOptions()
	model.TSNE = &po
	model.Params = map[string]any{"perplexity": res.Perplexity, "method": res.Method, "knn": res.KNN, "kl": res.KL, "iterations": res.Iterations, "standardize": o.Standardize}
	return env.WriteModel(ctx, "model-out", model)
}

// fromPairs runs t-SNE on a long distance table: dense when every pair is
// there, sparse (Barnes-Hut) when every row has the same number of
// neighbours.
func fromPairs(ctx context.Context, pairs, rows *arrowio.Frame, o Options) (*Result, error) {
	n := rows.N
	if pairs.N >= n*(n-1)/2 {
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

// stageError names the option an error of the core is about.
func stageError(err error) error {
	switch {
	case errors.Is(err, ErrPerplexity):
		return &transforms.OptionError{Option: "perplexity", Err: err}
	case errors.Is(err, ErrMethod):
		return &transforms.OptionError{Option: "method", Err: err}
	}
	return err
}

// Values lists the text forms of Method.
func (Method) Values() []string { return []string{"auto", "exact", "bh", "fft"} }

// MarshalText returns the method's name.
func (m Method) MarshalText() ([]byte, error) {
	if m < Auto || m > Interp {
		return nil, fmt.Errorf("tsne: unknown method %d", int(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText parses auto, exact, bh or fft.
func (m *Method) UnmarshalText(b []byte) error {
	for i, v := range m.Values() {
		if string(b) == v {
			*m = Method(i)
			return nil
		}
	}
	return fmt.Errorf("%q: want auto, exact, bh or fft", b)
}

// Values lists the text forms of Init.
func (Init) Values() []string { return []string{"pca", "random"} }

// MarshalText returns the initialisation's name.
func (i Init) MarshalText() ([]byte, error) {
	if i < InitPCA || i > InitRandom {
		return nil, fmt.Errorf("tsne: unknown init %d", int(i))
	}
	return []byte(i.String()), nil
}

// UnmarshalText parses pca or random.
func (i *Init) UnmarshalText(b []byte) error {
	for k, v := range i.Values() {
		if string(b) == v {
			*i = Init(k)
			return nil
		}
	}
	return fmt.Errorf("%q: want pca or random", b)
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(Stage{})
}
