package apply

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// Stage places new rows with a fitted model (written by the model-out
// output of a fitting stage): it reads the table of role "model" and
// streams the table of role "in" through it, batch by batch, into the
// embedding of role "out". Memory does not grow with the row count. A
// model fitted on a distance table places new objects from the long table
// of role "distances" instead (their distances to the reference objects).
type Stage struct{}

// Options are the options of the apply stage. The features are the
// model's own: it names them.
type Options struct {
	ID         string            `opt:"id" help:"row identity column, passed through unchanged (default: a row column of 0-based input row numbers)"`
	Keep       []string          `opt:"keep" help:"columns to pass through to the output, comma list of names and globs (default: none)"`
	OnInvalid  arrowio.OnInvalid `opt:"on-invalid" help:"NaN, ±Inf or null in a used column: error (stop, naming file, column, row and id) or drop (drop the row and report how many)"`
	Label      string            `opt:"label" help:"models fitted with classes (nerv): the new rows' class column (classes of the model); without it, or for a null soft-label row, Λ = γ"`
	SoftLabels []string          `opt:"soft-labels" help:"models fitted with soft labels (nerv): the new rows' soft-label columns, the model's columns in its order"`
	Perplexity float64           `opt:"perplexity" range:"[0,)" help:"models that place rows by optimisation (tsne, nerv): perplexity of a placed row's affinities to its nearest reference rows, below the reference row count (0: the model's, 5 for t-SNE as in openTSNE, the fit's finest for NeRV)"`
	MaxIter    int               `opt:"max-iter" alias:"iterations" range:"[0,)" help:"models that place rows by optimisation (tsne, nerv): the most optimisation steps per placed row (0: the model's, 250 for t-SNE, 30 L-BFGS iterations for NeRV)"`
	Shard      arrowio.Shard     `opt:"shard" help:"read only shard i/N (0-based) of a Parquet input: its row groups u with u mod N = i, numbered over the files in path order; row numbers (and a synthesised row id) stay the whole input's, so N runs together place every row once (Kubernetes Indexed Jobs: --shard $JOB_COMPLETION_INDEX/N)"`
}

// DefaultOptions returns the defaults: the model's own placement settings,
// invalid values an error.
func DefaultOptions() Options { return Options{OnInvalid: arrowio.InvalidError} }

// Validate implements transforms.Validator.
func (o *Options) Validate() error {
	if o.Label != "" && o.SoftLabels != nil {
		return transforms.Optionf("soft-labels", "give label (hard) or soft-labels, not both")
	}
	return nil
}

func init() { transforms.Register(Stage{}) }

// NewOptions implements transforms.Stage.
func (Stage) NewOptions() transforms.Options {
	o := DefaultOptions()
	return &o
}

// Info implements transforms.Stage.
func (Stage) Info() transforms.Info {
	return transforms.Info{
		Name:     "apply",
		Category: transforms.CategoryModels,
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
most --max-iter optimisation steps against the fixed map (a row stops early once
settled). A row's position depends
only on the model and the row: the same bits in any batch size, order or thread count.
A NeRV model fitted with classes takes the new rows' --label or --soft-labels (Λ from
the class community with each reference row), else treats them as unlabelled (Λ = γ).
A Fisher t-SNE map (tsne --distances D --fisher-model F --model-out M) places rows
by their features: their Fisher distances to their nearest fitted rows, then the
same placement. A t-SNE model fitted on --distances alone places new objects from a long table i, j,
distance (i the new id, j a reference id, plain distances), grouped by i; reference
objects missing for an i count as far (not neighbours).`,
		Examples: []string{
			"ordinate bvp --in testdata/ordinal/newthyroid.csv --label label --out /tmp/thyroid-bvp.parquet --model-out /tmp/thyroid-bvp.model.parquet",
			"ordinate apply --model /tmp/thyroid-bvp.model.parquet --in testdata/ordinal/newthyroid.csv --keep label --out /tmp/thyroid-applied.parquet",
			"ordinate apply --model /tmp/thyroid-bvp.model.parquet --in testdata/ordinal/newthyroid.csv --out /tmp/thyroid-applied.arrow",
			"ordinate tsne --in testdata/ordinal/newthyroid.csv --label label --out /tmp/thyroid-tsne.parquet --model-out /tmp/thyroid-tsne.model.parquet",
			"ordinate apply --model /tmp/thyroid-tsne.model.parquet --in testdata/ordinal/newthyroid.csv --keep label --out /tmp/thyroid-placed.parquet",
		},
		Inputs: []transforms.Role{
			{Name: "model", Help: "model table written with --model-out", Required: true, Models: modelKinds()},
			{Name: "in", Help: "input table: .parquet (file, glob or directory of parts), .arrow/.feather, .csv, or - for an Arrow IPC stream on stdin"},
			{Name: "distances", Help: "instead of --in, for a model fitted on distances: long table i, j, distance of the new objects to the reference objects"},
		},
		Outputs: []transforms.Role{
			{Name: "out", Help: "output table: .parquet (zstd), .arrow, .csv, or - for an Arrow IPC stream on stdout", Kind: table.Embedding, Required: true},
		},
	}
}

// modelKinds are the model kinds apply reads: every registered one.
func modelKinds() []string {
	var out []string
	for _, k := range transforms.ModelKinds() {
		if !slices.Contains(out, k.Kind) {
			out = append(out, k.Kind)
		}
	}
	return out
}

// Run implements transforms.Stage.
func (Stage) Run(ctx context.Context, env *transforms.Env, o transforms.Options) error {
	opts := o.(*Options)
	m, prov, err := env.ReadModel(ctx, "model")
	if err != nil {
		return err
	}
	if r, ok := m.(releaser); ok {
		defer r.Release()
	}
	if a, ok := m.(AuxiliaryModel); ok {
		return transforms.Optionf("model", "%w", a.NotApplicable())
	}
	h := m.Header()
	env.Figures(map[string]any{"model_stage": h.Stage, "dims": h.Dims})
	if prov != nil {
		env.Prov.Seed = prov.Seed
	}
	if err := configure(m, opts); err != nil {
		return err
	}
	role := "in"
	switch dm, _ := m.(DistanceModel); {
	case dm != nil && dm.FromDistances():
		if !env.Has("distances") || env.Has("in") {
			return transforms.Optionf("distances", "%w: the model was fitted on distances: give the new objects' distances to the reference objects with distances, not in", transforms.ErrNoTable)
		}
		role = "distances"
		if !opts.Shard.IsZero() {
			return transforms.Optionf("shard", "cannot split a distance table: an object's rows could fall in two shards")
		}
	case env.Has("distances"):
		return transforms.Optionf("distances", "is for models fitted on distances; this %s model reads features: give in", h.Stage)
	case !env.Has("in"):
		return transforms.Optionf("in", "%w: give the new rows with in", transforms.ErrNoTable)
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
	cfg := Config{Progress: env.Progress, Mem: env.Mem, Threads: env.Threads, AllowEmpty: !opts.Shard.IsZero()}
	var st Stats
	var fr *fingerprintReader
	if role == "distances" {
		st, err = Distances(ctx, m, r, create, cfg)
	} else {
		sel := arrowio.Selection{ID: opts.ID, Keep: opts.Keep, OnInvalid: opts.OnInvalid, Label: opts.Label, SoftLabels: opts.SoftLabels}
		fr = newFingerprintReader(r, m, sel)
		st, err = Rows(ctx, m, fr, sel, create, cfg)
	}
	if err != nil {
		return err
	}
	src := r.Source()
	env.Input(role, src, st.Rows+st.Dropped, st.Dropped, transforms.TableProvenance(r.Schema()))
	if fr != nil {
		// The space the output was placed from, for evaluate: the
		// model's features and standardisation, and the rows of in.
		env.Figures(map[string]any{"features": modelFeatures(m), "standardize": h.Standardized})
		if fp := fr.fingerprint(); fp != nil {
			env.SetInputFingerprint(role, fp)
		}
	}
	if st.Dropped > 0 {
		env.Warn("%s: dropped %d of %d rows with NaN, ±Inf or null in a used column (on-invalid drop)", src.Path, st.Dropped, st.Rows+st.Dropped)
	}
	env.Figure("batches", st.Batches)
	if tm, ok := m.(TunableModel); ok {
		env.Figures(map[string]any{"placed": st.Rows, "reference_rows": tm.ReferenceRows(), "placement": tm.Settings()})
	}
	return env.Close("out", w)
}

// modelFeatures are the feature columns a model reads: its list column, or
// its input features.
func modelFeatures(m transforms.Model) []string {
	if l := m.Header().FeatureList; l != "" {
		return []string{l}
	}
	return slices.Clone(m.InputFeatures())
}

// fingerprintReader passes the batches of an input through to Rows and
// fingerprints the rows of each (transforms.Fingerprinter), extracted as
// Rows extracts them (the same selection: the model's features, the id
// column or row numbers, the same rows dropped), so that the output
// records the rows it was placed from as a fitting stage's does. A batch
// it cannot extract is left to Rows to report; the fingerprint is then
// not recorded.
type fingerprintReader struct {
	arrowio.Reader
	plan   *arrowio.Plan
	fp     *transforms.Fingerprinter
	x      []float64
	failed bool
}

func newFingerprintReader(r arrowio.Reader, m transforms.Model, sel arrowio.Selection) *fingerprintReader {
	fr := &fingerprintReader{Reader: r}
	sel.Features, sel.NoFeatures = modelFeatures(m), false
	plan, err := sel.Compile(r.Schema(), r.Source())
	if err != nil {
		fr.failed = true // Rows compiles the same selection and reports it
		return fr
	}
	fr.plan, fr.fp = plan, transforms.NewFingerprinter(sel.ID, sel.Features)
	return fr
}

// Next moves to the next batch and fingerprints its rows.
func (fr *fingerprintReader) Next() bool {
	if !fr.Reader.Next() {
		return false
	}
	if fr.failed {
		return true
	}
	file, first := fr.Reader.Position()
	f, err := fr.plan.ExtractTo(fr.x, fr.Reader.RecordBatch(), file, first)
	if err != nil {
		fr.failed = true
		return true
	}
	fr.fp.Add(f)
	fr.x = f.X[:0]
	f.Release()
	return true
}

// fingerprint returns the fingerprint of every row read, or nil.
func (fr *fingerprintReader) fingerprint() *arrowio.Fingerprint {
	if fr.failed || fr.fp == nil {
		return nil
	}
	return fr.fp.Fingerprint()
}

// configure applies the placement options to a model that places rows by
// optimisation, and refuses them for one that maps rows in closed form;
// it refuses labels for a model that takes none.
func configure(m transforms.Model, o *Options) error {
	stage := m.Header().Stage
	labelOpt := map[bool]string{true: "label", false: "soft-labels"}[o.Label != ""]
	if o.Label != "" || o.SoftLabels != nil {
		lm, ok := m.(LabelledModel)
		if !ok {
			return transforms.Optionf(labelOpt, "is for models fitted with classes; the %s model maps rows by their features alone (pass the column through with keep)", stage)
		}
		if _, err := lm.LabelClasses(); err != nil {
			return transforms.Optionf(labelOpt, "%v", err)
		}
	}
	tm, ok := m.(TunableModel)
	if !ok {
		for _, c := range []struct {
			name string
			set  bool
		}{{"perplexity", o.Perplexity != 0}, {"max-iter", o.MaxIter != 0}} {
			if c.set {
				return transforms.Optionf(c.name, "is for models that place rows by optimisation (tsne, nerv); the %s model maps rows in closed form", stage)
			}
		}
		return nil
	}
	return tm.Tune(o.Perplexity, o.MaxIter)
}
