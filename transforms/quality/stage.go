package quality

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
	"github.com/ordinate/ordinate/transforms/triplets"
)

// Stage is the evaluate stage: the neighbourhood and class metrics of an
// embedding against the table it was made from (or of a distance table), and
// the triplet accuracy of maps against a triplet table. It writes the long
// metrics table (kind table.Metrics) and, when the host asks for the
// "summary" output, a readable text summary of it.
type Stage struct{}

// NewOptions returns the defaults (DefaultOptions).
func (Stage) NewOptions() transforms.Options {
	o := DefaultOptions()
	return &o
}

// Info describes the stage.
func (Stage) Info() transforms.Info {
	return transforms.Info{
		Name:     "evaluate",
		Category: transforms.CategoryResults,
		Summary:  "quality metrics of an embedding against its input table",
		Usage: `ordinate evaluate --embedding E --in T [--id COL] [--features SPEC] [--standardize auto|true|false] [--label y] [--order a,b,c | --ordinal] [--k 5,10,30] [--sample N|auto --seed S] --out M
   ordinate evaluate --embedding E --distances D [--in T --id COL --label y] [--k 5,10] --out M   (E fitted on D: t-SNE of a distance table)
   ordinate evaluate --distances D --in T --id COL --label y [--k 5,10] --out M
   ordinate evaluate --embedding MAPS --triplets TRIPLETS [--split S --attributes ATTRS] --out M
   ordinate evaluate (--embedding E | --distances D) --in T … --block i/B --out PART_i
   ordinate evaluate --partials 'PART_*' --out M`,
		Doc: `Metrics: trustworthiness and continuity (overall, and the class-aware inter/intra
parts), R_NX(k) and its AUC, and with labels k-NN accuracy, leave-one-out 1-NN error
and KNN gain; with --order or --ordinal the ordinal metrics (Spearman's rho of class
rank along the best axis, order of the class centres). The long table has columns
metric, k, subset, value.

E is scored only against the rows it was made from. Its rows are matched to the rows
of T by id (--id; by default the id column E's provenance records, else the row
numbers ordinate writes when no id was given): an id of either table missing from
the other is an error naming how many and the first few. And every fitting stage
(and apply) records a fingerprint of the rows it read (their ids or row numbers and
feature values): T must hold exactly those rows, or evaluate stops (exit 2) naming
both files. An embedding without a fingerprint (an older output, another tool's
table) is scored with a warning that the pairing cannot be checked.

The embedding is scored in the space it was made in: the feature columns and the
standardisation recorded in E's provenance (apply records its model's) are used (and
logged) unless --features or --standardize choose otherwise. An embedding without
provenance is scored against every numeric feature column of T, unstandardised, with
a warning. What was used is recorded in the metrics' provenance (figures features,
standardize, features_source, standardize_source).

The exact metrics rank every row from every row: O(N²) time. --sample N scores the
neighbourhoods of a seeded sample of N rows (--seed), each still ranked among all
rows, so that the metrics are exact for the sample; the ordinal metrics use every
row. The default, auto, scores every row up to 20000 rows and a sample of 5000
above, with a warning; --sample 0 scores every row. The sample is recorded in the
summary and the provenance (figures sample_points, sample_seed, sample).

With --distances D (a long table i, j, distance over the ids of T, as fisher
writes; a table of the pairs i < j only is mirrored) it reports the leave-one-out
1-NN error and k-NN accuracy of the distances (subset "distances"). With
--embedding E as well, E is scored against D, the table it was fitted on (t-SNE of
a distance table): the neighbourhood metrics with the input ranks from D, and with
--in T --label y the class metrics (subset input: the classification by D). E must
then be the t-SNE of D (their run ids are compared when both record them).

With --triplets T and a maps table (aspect, id, emb_*: score, tste, soe) it reports
triplet_accuracy, the share of triplets <i, j, k> with d(j, i) < d(j, k) in the
aspect's map (Le & Lauw, Eq. 10): subset all, train and hidden (when T has a split
column), and per aspect as subset/aspect; the means are over aspects. With
--split S (from triplets --split-out) and --attributes ATTRS it adds
hidden_knn_accuracy: each object hidden from an aspect is classified by majority
vote of its k nearest observed objects in that aspect's map (k = 10 unless --k
gives one value), against its attribute value. The attributes are matched by --id,
or else by the id column recorded in the triplets' provenance.

--block i/B splits the exact neighbourhood and class metrics over B tasks (Spark
tasks, the pods of an Indexed Job): each reads the same inputs, ranks the
neighbours of the points of its block (of the sample's points, with --sample) among
all points, and writes the block's integer sums (rank penalties, k-NN votes, the
co-ranking histogram). --partials adds up the B tables (files, a folder, or one
table of them concatenated) and writes the metrics that one run on all points
gives, bit for bit. It refuses blocks of different inputs or options (a
fingerprint of both), a point in no block, a block given twice, and sums no block
can add up to (each checked against the block's points, N and k, and the totals
for overflow) before it allocates anything from them.`,
		Examples: []string{
			"ordinate pca --in testdata/ordinal/newthyroid.csv --label label --out thyroid-pca.parquet",
			"ordinate evaluate --embedding thyroid-pca.parquet --in testdata/ordinal/newthyroid.csv --label label --ordinal --out thyroid-metrics.parquet",
			"ordinate evaluate --embedding thyroid-pca.parquet --in testdata/ordinal/newthyroid.csv --label label --ordinal --block 0/2 --out thyroid-part-0.parquet",
			"ordinate evaluate --embedding thyroid-pca.parquet --in testdata/ordinal/newthyroid.csv --label label --ordinal --block 1/2 --out thyroid-part-1.parquet",
			"ordinate evaluate --partials thyroid-part-*.parquet --out thyroid-metrics-merged.parquet",
			"ordinate evaluate --embedding thyroid-pca.parquet --in testdata/ordinal/newthyroid.csv --features 'x*' --standardize false --label label --k 10 --out thyroid-metrics-raw.csv",
			"ordinate evaluate --embedding thyroid-pca.parquet --in testdata/ordinal/newthyroid.csv --label label --sample 100 --seed 7 --out thyroid-metrics-sample.parquet",
			"ordinate triplets --in testdata/zoo/zoo.csv --exclude animal_name,type_name --per-aspect 500 --split-objects 0.5 --split-out zoo-split.parquet --out zoo-triplets.parquet",
			"ordinate soe --in zoo-triplets.parquet --per-aspect --out zoo-soe.parquet",
			"ordinate evaluate --embedding zoo-soe.parquet --triplets zoo-triplets.parquet --split zoo-split.parquet --attributes testdata/zoo/zoo.csv --out zoo-metrics.parquet",
		},
		Inputs: []transforms.Role{
			{Name: "embedding", Help: "embedding table written by a stage (emb_* columns), or with triplets a maps table (aspect, id, emb_*)"},
			{Name: "in", Help: "the input table the embedding or distances were made from (not needed with triplets; with embedding and distances, the table of the classes)"},
			{Name: "distances", Help: "a long distance table (i, j, distance): alone, over the ids of in, it gives nn_error and knn_accuracy; with embedding, the table the embedding was fitted on (t-SNE of distances), which its neighbourhoods are scored against"},
			{Name: "triplets", Help: "with a maps table as embedding: score the maps against this triplet table (triplet accuracy per aspect, and on train/hidden with a split column)"},
			{Name: "split", Help: "with triplets: the observed-objects table of triplets --split-out; adds the k-NN classification of hidden objects by attribute value"},
			{Name: "attributes", Help: "with split: the attribute table the triplets were made from"},
			{Name: "partials", Help: "instead of all the above: the partial sums of evaluate --block runs, merged into the metrics"},
		},
		Outputs: []transforms.Role{
			{Name: "out", Help: "metrics table (metric, k, subset, value)", Kind: table.Metrics, Required: true},
			{Name: "summary", Help: "the metrics as readable text (- for stdout; the CLI shows it there unless --quiet or --out -)", Kind: transforms.File, Show: true},
		},
	}
}

// Run runs the stage.
func (Stage) Run(ctx context.Context, env *transforms.Env, o transforms.Options) error {
	opts := o.(*Options)
	if env.Has("partials") {
		return runMerge(ctx, env, opts)
	}
	if env.Has("triplets") {
		if !opts.Block.IsZero() {
			return transforms.Optionf("block", "applies to the neighbourhood metrics, not to triplets")
		}
		if !env.Has("embedding") {
			return &transforms.OptionError{Option: "embedding", Err: fmt.Errorf("%w: triplets need a maps table (aspect, id, emb_*)", transforms.ErrNoTable)}
		}
		return runTriplets(ctx, env, opts)
	}
	for _, r := range []string{"split", "attributes"} {
		if env.Has(r) {
			return transforms.Optionf(r, "applies only with triplets")
		}
	}
	if !env.Has("in") && !(env.Has("embedding") && env.Has("distances")) {
		return &transforms.OptionError{Option: "in", Err: fmt.Errorf("%w: the table the embedding or distances were made from", transforms.ErrNoTable)}
	}
	switch emb, dist := env.Has("embedding"), env.Has("distances"); {
	case !emb && !dist:
		return &transforms.OptionError{Option: "embedding", Err: fmt.Errorf("%w: give an embedding table, or distances", transforms.ErrNoTable)}
	case emb && dist:
		return runAgainstDistances(ctx, env, opts)
	case dist:
		return runDistances(ctx, env, opts)
	}
	return runEmbedding(ctx, env, opts)
}

// fittedSpace is what an embedding's provenance says about the feature
// space it was fitted in.
type fittedSpace struct {
	features    []string // resolved columns or the spec given; nil: not recorded
	standardize *bool    // nil: not recorded
}

func spaceOf(p *arrowio.Provenance) fittedSpace {
	var s fittedSpace
	if p == nil {
		return s
	}
	s.features = stringList(p.Figures["features"])
	if s.features == nil {
		s.features = stringList(p.Params["features"])
	}
	if b, ok := p.Params["standardize"].(bool); ok {
		s.standardize = &b
	} else if b, ok := p.Figures["standardize"].(bool); ok && p.Stage != "evaluate" {
		s.standardize = &b // apply: the model's standardisation
	}
	return s
}

// stringList reads a list of names from a provenance value: a JSON array of
// strings or (older files) a comma list. Empty gives nil.
func stringList(v any) []string {
	var out []string
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
	case []string:
		out = x
	case string:
		out = transforms.SplitList(x)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Where the input space comes from (figures features_source and
// standardize_source).
const (
	sourceOption    = "option"    // given explicitly
	sourceEmbedding = "embedding" // from the embedding's provenance
	sourceDefault   = "default"   // nothing recorded: every numeric column, unstandardised
)

func runEmbedding(ctx context.Context, env *transforms.Env, opts *Options) error {
	r, err := env.Open(ctx, "embedding")
	if err != nil {
		return err
	}
	defer r.Release()
	prov := transforms.TableProvenance(r.Schema())
	embID, idSrc := embeddingID(r.Schema(), prov, opts.ID)
	if idSrc == sourceEmbedding {
		env.Log.Info("rows matched by the id column recorded in the embedding's provenance", "id", embID)
	}
	embFrame, err := env.ReadFrom(ctx, "embedding", r, arrowio.Selection{
		ID: embID, Features: opts.Emb, Keep: []string{}, OnInvalid: opts.OnInvalid})
	if err != nil {
		return err
	}
	defer embFrame.Release()
	src := embFrame.Source.Path
	fromDist := distancesInput(prov)
	if fromDist != nil && len(opts.Features) == 0 {
		return transforms.Optionf("distances", "%w: %s was fitted on the distance table %s (stage %s), not on features: score it against that table with distances (and in with label for the classes), or name features to score it against feature columns of in",
			transforms.ErrNoTable, src, fromDist.Path, prov.Stage)
	}

	// The space to score in: explicit options first, then the embedding's
	// provenance (the columns the fit read, as its fingerprint records
	// them, or else its features), then every numeric column
	// unstandardised.
	fitted := spaceOf(prov)
	rec := fittedInput(prov)
	if files := embFrame.Source.Files; rec != nil && len(files) > 1 {
		var why string
		if rec, why = partsInput(ctx, files); rec == nil {
			env.Warn("%s: %s, so the fingerprints of its parts cannot be added up", src, why)
		}
	}
	sel := opts.Columns.Selection()
	sel.ID, sel.Keep = "", []string{}
	if embID != "row" || opts.ID != "" {
		sel.ID = embID
	}
	featSrc, stdSrc := sourceOption, sourceOption
	if len(opts.Features) == 0 {
		sel.Features = nil
		featSrc = sourceDefault
		switch {
		case rec != nil && len(opts.Exclude) == 0:
			// Constant columns among them are dropped again, as by the fit.
			sel.Features, featSrc = rec.Fingerprint.Columns, sourceEmbedding
		case fitted.features != nil:
			sel.Features, featSrc = fitted.features, sourceEmbedding
		}
	}
	var std bool
	switch opts.Standardize {
	case StandardizeOn:
		std = true
	case StandardizeOff:
	default:
		switch {
		case fitted.standardize != nil:
			std, stdSrc = *fitted.standardize, sourceEmbedding
		case prov != nil && fitted.features != nil:
			// A stage that read features and has no standardize option
			// fitted on them as they are.
			std, stdSrc = false, sourceEmbedding
		default:
			std, stdSrc = false, sourceDefault
		}
	}
	switch {
	case prov == nil && (featSrc == sourceDefault || stdSrc == sourceDefault):
		env.Warn("%s carries no ordinate provenance: scoring against %s, %s; give the features and standardize options to choose the space it was fitted in",
			src, featuresText(featSrc, sel.Features), standardizedText(std))
	case featSrc == sourceDefault || stdSrc == sourceDefault:
		env.Warn("the provenance of %s (stage %s) records no %s: scoring against %s, %s",
			src, prov.Stage, missingText(featSrc, stdSrc), featuresText(featSrc, sel.Features), standardizedText(std))
	}
	env.Log.Info("input space", "features", featuresText(featSrc, sel.Features), "features_source", featSrc,
		"standardize", std, "standardize_source", stdSrc)
	env.Figures(map[string]any{"standardize": std, "features_source": featSrc, "standardize_source": stdSrc})

	ft, err := env.ReadFeatures(ctx, "in", sel, std)
	if err != nil {
		if featSrc == sourceEmbedding && errors.Is(err, arrowio.ErrMissingColumn) {
			return fmt.Errorf("%w (the features recorded in the provenance of %s; give the features option to choose others)", err, src)
		}
		return err
	}
	defer ft.Release()
	// The pairing: the table must hold the rows the embedding was made
	// from (its fingerprint), and the two tables the same ids.
	if fromDist != nil {
		env.Log.Info("scoring an embedding of a distance table against the features named", "embedding", src,
			"distances", fromDist.Path, "in", ft.Source.Path, "matched_by", ft.IDName)
	} else if err := checkFingerprint(ctx, env, src, rec, ft.Frame, sel.ID, opts.OnInvalid); err != nil {
		return err
	}
	idx, err := matchRows(embFrame, ft.Frame)
	if err != nil {
		return err
	}
	n, D, d := embFrame.N, ft.K(), embFrame.D
	x := make([]float64, n*D)
	for i, j := range idx {
		copy(x[i*D:(i+1)*D], ft.Z[j*D:(j+1)*D])
	}
	var classes []int
	qo := sampled(env, opts, n)
	var cls *transforms.Classes
	if ft.Label != nil {
		qo.Ordinal = opts.Ordinal || len(opts.Order) > 0
		if qo.Ordinal {
			cls, err = transforms.OrdinalClasses(ft.Frame, opts.Order)
		} else {
			cls, err = transforms.NominalClasses(ft.Frame, opts.Order)
		}
		if err != nil {
			return err
		}
		classes = make([]int, n)
		for i, j := range idx {
			classes[i] = cls.Index[j]
		}
	}
	if !opts.Block.IsZero() {
		return writePartial(ctx, env, qo, n, func() (*Partial, error) {
			p, err := EvaluatePartial(ctx, x, D, embFrame.X, d, classes, qo)
			if err == nil && cls != nil {
				p.ClassNames = cls.Names
			}
			return p, err
		})
	}
	env.Progress.Start("neighbour ranks", int64(qo.Sample.Points(n)))
	rep, err := Evaluate(ctx, x, D, embFrame.X, d, classes, qo)
	env.Progress.Finish()
	if err != nil {
		return err
	}
	return reportMetrics(ctx, env, rep, cls, src)
}

// sampled returns the options of the metrics for n points: the host's
// threads and progress, and the sample, resolved, with a notice when the
// automatic sample scores part of the points.
func sampled(env *transforms.Env, opts *Options, n int) Options {
	qo := *opts
	qo.Threads, qo.Progress = env.Threads, env.Progress.Add
	m := opts.Sample.Points(n)
	qo.Sample = SampleSize(m)
	if m < n {
		if opts.Sample == SampleAuto {
			env.Warn("%d rows: scoring the neighbourhoods of a sample of %d of them (seed %d), each ranked among all %d rows; give sample 0 to score every row (exact, O(N²) time), or another sample size",
				n, m, opts.Seed, n)
		} else {
			env.Log.Info("sample", "points", m, "rows", n, "seed", opts.Seed)
		}
	} else {
		qo.Sample = SampleAll
	}
	return qo
}

func featuresText(src string, features []string) string {
	if src == sourceDefault {
		return "every numeric feature column"
	}
	return "features " + strings.Join(features, ",")
}

func standardizedText(std bool) string {
	if std {
		return "standardised"
	}
	return "unstandardised"
}

func missingText(featSrc, stdSrc string) string {
	switch {
	case featSrc == sourceDefault && stdSrc == sourceDefault:
		return "features and no standardisation"
	case featSrc == sourceDefault:
		return "features"
	}
	return "standardisation"
}

func runDistances(ctx context.Context, env *transforms.Env, opts *Options) error {
	if opts.Label == "" {
		return &transforms.OptionError{Option: "label", Err: fmt.Errorf("%w: distances are scored by the classes of in", transforms.ErrNoLabel)}
	}
	sel := opts.Columns.Selection()
	sel.NoFeatures, sel.Features, sel.Keep = true, nil, []string{}
	inFrame, err := env.ReadFrame(ctx, "in", sel)
	if err != nil {
		return err
	}
	defer inFrame.Release()
	dFrame, err := env.ReadFrame(ctx, "distances", arrowio.Selection{
		ID: "i", Features: []string{"distance"}, Keep: []string{"j"}, OnInvalid: arrowio.InvalidError})
	if err != nil {
		return err
	}
	defer dFrame.Release()
	if err := env.ReserveMatrix(inFrame.N, 1.2, "the distance matrix and its mask of given pairs", "score a sample of the rows"); err != nil {
		return err
	}
	dist, err := table.DistanceMatrix(dFrame, inFrame)
	if err != nil {
		return err
	}
	cls, err := transforms.NominalClasses(inFrame, opts.Order)
	if err != nil {
		return err
	}
	qo := sampled(env, opts, inFrame.N)
	if !opts.Block.IsZero() {
		return writePartial(ctx, env, qo, inFrame.N, func() (*Partial, error) {
			return EvaluateDistancesPartial(ctx, dist, inFrame.N, cls.Index, qo)
		})
	}
	env.Progress.Start("neighbour ranks", int64(qo.Sample.Points(inFrame.N)))
	rep, err := EvaluateDistances(ctx, dist, inFrame.N, cls.Index, qo)
	env.Progress.Finish()
	if err != nil {
		return err
	}
	return writeReport(ctx, env, rep, func(b *strings.Builder) {
		writeSummary(b, dFrame.Source.Path, rep, nil)
	})
}

// runAgainstDistances scores an embedding against the distance table it
// was fitted on (t-SNE of a distance table): the neighbourhood metrics with
// the input ranks taken from the distances, and with the classes of in
// (label) the class metrics. The distance table must hold every pair of
// the embedding's ids.
func runAgainstDistances(ctx context.Context, env *transforms.Env, opts *Options) error {
	r, err := env.Open(ctx, "embedding")
	if err != nil {
		return err
	}
	defer r.Release()
	prov := transforms.TableProvenance(r.Schema())
	embID, _ := embeddingID(r.Schema(), prov, opts.ID)
	embFrame, err := env.ReadFrom(ctx, "embedding", r, arrowio.Selection{
		ID: embID, Features: opts.Emb, Keep: []string{}, OnInvalid: opts.OnInvalid})
	if err != nil {
		return err
	}
	defer embFrame.Release()
	if len(opts.Features) > 0 || opts.Standardize != StandardizeAuto {
		name := "features"
		if len(opts.Features) == 0 {
			name = "standardize"
		}
		return transforms.Optionf(name, "scores features; with distances the input space is the distance table")
	}
	dr, err := env.Open(ctx, "distances")
	if err != nil {
		return err
	}
	defer dr.Release()
	dprov := transforms.TableProvenance(dr.Schema())
	dFrame, err := env.ReadFrom(ctx, "distances", dr, table.PairsSelection(table.PairDistance))
	if err != nil {
		return err
	}
	defer dFrame.Release()
	src, dsrc := embFrame.Source.Path, dFrame.Source.Path
	// The pairing: the distance table must be the one the embedding was
	// fitted on, when both record the run that made the table.
	fitD := distancesInput(prov)
	switch {
	case fitD != nil && fitD.RunID != "" && dprov != nil && dprov.RunID != "":
		if fitD.RunID != dprov.RunID {
			return &arrowio.Error{File: dsrc, Row: -1, Err: fmt.Errorf("%w: %s was fitted on the distance table %s of run %s, and %s was written by run %s; give the table the embedding was made from",
				ErrNotFittedOn, src, fitD.Path, fitD.RunID, dsrc, dprov.RunID)}
		}
		env.Log.Info("distance table checked", "embedding", src, "distances", dsrc, "run_id", dprov.RunID)
	default:
		env.Warn("%s: whether %s is the distance table it was fitted on cannot be checked (no run id recorded on both sides); its rows are matched by %s",
			src, dsrc, embFrame.IDName)
	}
	if err := env.ReserveMatrix(embFrame.N, 1.2, "the distance matrix and its mask of given pairs", "score a sample of the rows"); err != nil {
		return err
	}
	dist, err := table.DistanceMatrix(dFrame, embFrame)
	if err != nil {
		return err
	}
	n := embFrame.N
	var classes []int
	var cls *transforms.Classes
	qo := sampled(env, opts, n)
	if env.Has("in") {
		if opts.Label == "" {
			return transforms.Optionf("in", "with distances and an embedding, in gives the classes: give label too")
		}
		sel := opts.Columns.Selection()
		sel.ID, sel.NoFeatures, sel.Features, sel.Keep = embFrame.IDName, true, nil, []string{}
		lf, err := env.ReadFrame(ctx, "in", sel)
		if err != nil {
			return err
		}
		defer lf.Release()
		idx, err := matchRows(embFrame, lf)
		if err != nil {
			return err
		}
		qo.Ordinal = opts.Ordinal || len(opts.Order) > 0
		if qo.Ordinal {
			cls, err = transforms.OrdinalClasses(lf, opts.Order)
		} else {
			cls, err = transforms.NominalClasses(lf, opts.Order)
		}
		if err != nil {
			return err
		}
		classes = make([]int, n)
		for i, j := range idx {
			classes[i] = cls.Index[j]
		}
	} else if opts.Label != "" {
		return transforms.Optionf("label", "%w: the classes are read from in", transforms.ErrNoTable)
	}
	env.Figures(map[string]any{"features_source": "distances"})
	if !opts.Block.IsZero() {
		return writePartial(ctx, env, qo, n, func() (*Partial, error) {
			p, err := EvaluateAgainstDistancesPartial(ctx, dist, embFrame.X, embFrame.D, classes, qo)
			if err == nil && cls != nil {
				p.ClassNames = cls.Names
			}
			return p, err
		})
	}
	env.Progress.Start("neighbour ranks", int64(qo.Sample.Points(n)))
	rep, err := EvaluateAgainstDistances(ctx, dist, embFrame.X, embFrame.D, classes, qo)
	env.Progress.Finish()
	if err != nil {
		return err
	}
	return reportMetrics(ctx, env, rep, cls, src+" against "+dsrc)
}

// reportMetrics records the class centres' order (named by cls, when the
// metrics have one) and writes the report and its summary, titled src.
func reportMetrics(ctx context.Context, env *transforms.Env, rep *Report, cls *transforms.Classes, src string) error {
	var centres []string
	if rep.CenterOrder != nil && cls != nil {
		for _, k := range rep.CenterOrder {
			centres = append(centres, cls.Names[k])
		}
		env.Figure("center_order", centres)
	}
	return writeReport(ctx, env, rep, func(b *strings.Builder) {
		writeSummary(b, src, rep, centres)
	})
}

// writePartial computes the partial sums of block o.Block of the query
// points (all n, or the sample's) by eval and writes them as the out table
// (kind metrics_partial).
func writePartial(ctx context.Context, env *transforms.Env, o Options, n int, eval func() (*Partial, error)) error {
	if env.Asked("summary") {
		return transforms.Optionf("block", "a block has partial sums, not metrics: write the summary when merging with --partials")
	}
	lo, hi := o.Block.Range(o.Sample.Points(n))
	env.Progress.Start("neighbour ranks", int64(hi-lo))
	p, err := eval()
	env.Progress.Finish()
	if err != nil {
		return err
	}
	env.SetKind("out", table.MetricsPartial)
	env.Figures(map[string]any{"n": n, "block_points": []int{lo, hi}, "fingerprint": fmt.Sprintf("%016x", p.Fingerprint)})
	rec := PartialRecord(env.Mem, p)
	defer rec.Release()
	return env.WriteRecord(ctx, "out", rec)
}

// runMerge adds up the partial sums of evaluate --block runs and writes the
// metrics of all points.
func runMerge(ctx context.Context, env *transforms.Env, opts *Options) error {
	for _, r := range []string{"embedding", "in", "distances", "triplets", "split", "attributes"} {
		if env.Has(r) {
			return transforms.Optionf(r, "partials are merged alone: the blocks already hold everything")
		}
	}
	if !opts.Block.IsZero() {
		return transforms.Optionf("block", "applies when computing a block, not when merging")
	}
	if opts.Sample != SampleAuto {
		return transforms.Optionf("sample", "applies when computing the blocks; the partials carry their sample")
	}
	r, err := env.Open(ctx, "partials")
	if err != nil {
		return err
	}
	defer r.Release()
	parts, err := ReadPartials(ctx, r)
	if err != nil {
		return err
	}
	env.Input("partials", r.Source(), 0, 0, transforms.TableProvenance(r.Schema()))
	rep, err := mergeContext(ctx, parts)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		return &arrowio.Error{File: r.Source().Path, Row: -1, Err: err}
	}
	env.Figure("blocks", len(parts))
	var centres []string
	for _, c := range rep.CenterOrder {
		name := fmt.Sprint(c)
		if c < len(parts[0].ClassNames) {
			name = parts[0].ClassNames[c]
		}
		centres = append(centres, name)
	}
	if centres != nil {
		env.Figure("center_order", centres)
	}
	return writeReport(ctx, env, rep, func(b *strings.Builder) {
		writeSummary(b, r.Source().Path, rep, centres)
	})
}

// writeReport writes the metrics table, records the metrics as figures, and
// writes the summary when it is wanted.
func writeReport(ctx context.Context, env *transforms.Env, rep *Report, summary func(*strings.Builder)) error {
	rows := make([]table.MetricRow, len(rep.Rows))
	for i, r := range rep.Rows {
		rows[i] = table.MetricRow(r)
	}
	env.Figure("n", rep.N)
	if rep.Sampled() {
		env.Figures(map[string]any{"sample_points": rep.Points, "sample_seed": rep.Seed, "sample": sampleText(rep)})
	}
	for _, r := range rows {
		env.Figure(figureKey(r), r.Value)
	}
	rec := table.MetricsRecord(env.Mem, rows)
	defer rec.Release()
	if err := env.WriteRecord(ctx, "out", rec); err != nil {
		return err
	}
	if env.Has("summary") {
		var b strings.Builder
		summary(&b)
		return env.WriteFile("summary", []byte(b.String()))
	}
	return nil
}

// figureKey is the snake_case provenance key of a metric: the metric, then
// _k<k> when k > 0, then _<subset> unless it is "all", with every character
// other than a-z, 0-9 and _ as _: trustworthiness_k10,
// knn_accuracy_k5_input, triplet_accuracy_hidden_legs.
func figureKey(r table.MetricRow) string {
	key := r.Metric
	if r.K > 0 {
		key += fmt.Sprintf("_k%d", r.K)
	}
	if r.Subset != "" && r.Subset != SubsetAll {
		key += "_" + r.Subset
	}
	return strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_':
			return c
		case c >= 'A' && c <= 'Z':
			return c + ('a' - 'A')
		}
		return '_'
	}, key)
}

// mapsTable holds per-aspect maps read from a maps table (aspect, id, emb_*).
type mapsTable struct {
	objects *table.Indexer
	aspects *table.Indexer
	maps    [][]float64 // maps[a] is objects×dims
	dims    int
}

func readMaps(ctx context.Context, env *transforms.Env, opts *Options) (*mapsTable, error) {
	f, err := env.ReadFrame(ctx, "embedding", arrowio.Selection{ID: "id", Features: opts.Emb, Keep: []string{"aspect"}})
	if err != nil {
		return nil, err
	}
	defer f.Release()
	path := f.Source.Path
	m := &mapsTable{objects: table.NewIndexer(), aspects: table.NewIndexer(), dims: f.D}
	obj, asp := make([]int32, f.N), make([]int32, f.N)
	for r := range f.N {
		obj[r], asp[r] = m.objects.Index(f.ID, r), m.aspects.Index(f.Keep[0], r)
		if asp[r] < 0 {
			return nil, &arrowio.Error{File: path, Column: "aspect", Row: f.Rows[r], Err: fmt.Errorf("%w: null aspect", arrowio.ErrInvalidValue)}
		}
	}
	n, d := m.objects.Len(), m.dims
	m.maps = make([][]float64, m.aspects.Len())
	seen := make([][]bool, len(m.maps))
	for a := range m.maps {
		m.maps[a], seen[a] = make([]float64, n*d), make([]bool, n)
	}
	for r := range f.N {
		a, i := asp[r], obj[r]
		if seen[a][i] {
			return nil, &arrowio.Error{File: path, Row: f.Rows[r], ID: m.objects.Names[i],
				Err: fmt.Errorf("%w: object appears twice in map %q", arrowio.ErrInvalidValue, m.aspects.Names[a])}
		}
		seen[a][i] = true
		copy(m.maps[a][int(i)*d:(int(i)+1)*d], f.X[r*d:(r+1)*d])
	}
	for a := range seen {
		for i, ok := range seen[a] {
			if !ok {
				return nil, &arrowio.Error{File: path, Row: -1, Err: fmt.Errorf("%w: map %q has no row for object %q",
					arrowio.ErrInvalidValue, m.aspects.Names[a], m.objects.Names[i])}
			}
		}
	}
	m.objects.Fixed = true
	return m, nil
}

// runTriplets scores maps against a triplet table: triplet accuracy (Eq. 10
// of Le & Lauw) per aspect and averaged, on all triplets and, with a split
// column, on the train and hidden ones.
func runTriplets(ctx context.Context, env *transforms.Env, opts *Options) error {
	m, err := readMaps(ctx, env, opts)
	if err != nil {
		return err
	}
	r, err := env.Open(ctx, "triplets")
	if err != nil {
		return err
	}
	defer r.Release()
	tprov := transforms.TableProvenance(r.Schema())
	env.Progress.Start("reading triplets", 0)
	in, err := table.ReadTriplets(ctx, r, m.objects, arrowio.InvalidError, opts.TripletColumns)
	env.Progress.Finish()
	if err != nil {
		return err
	}
	env.Input("triplets", r.Source(), int64(in.Table.Len())+in.Dropped, in.Dropped, tprov)
	// Map each triplet aspect to its map: the map of the same name, or the
	// single map "all".
	maps := make([][]float64, in.Aspects.Len())
	for a, name := range in.Aspects.Names {
		k := -1
		for b, mn := range m.aspects.Names {
			if mn == name || (len(m.aspects.Names) == 1 && mn == "all") {
				k = b
			}
		}
		if k < 0 {
			return fmt.Errorf("%w: no map for aspect %q (maps: %v)", arrowio.ErrInvalidValue, name, m.aspects.Names)
		}
		maps[a] = m.maps[k]
	}
	rep := &Report{N: m.objects.Len()}
	add := func(subset string, t *table.TripletTable) {
		if t.Len() == 0 {
			return
		}
		per, mean := TripletAccuracy(t, maps, m.dims)
		rep.add("triplet_accuracy", 0, subset, mean)
		for a, v := range per {
			if !math.IsNaN(v) {
				rep.add("triplet_accuracy", 0, subset+"/"+in.Aspects.Names[a], v)
			}
		}
	}
	add(SubsetAll, in.Table)
	if in.Train != nil {
		add("train", table.Subset(in.Table, in.Train, true))
		add("hidden", table.Subset(in.Table, in.Train, false))
	}
	if env.Has("split") {
		if err := hiddenKNNRows(ctx, env, opts, m, maps, in.Aspects.Names, tprov, rep); err != nil {
			return err
		}
	} else if env.Has("attributes") {
		return transforms.Optionf("attributes", "applies only with split")
	}
	return writeReport(ctx, env, rep, func(b *strings.Builder) {
		for _, row := range rep.Rows {
			if row.Subset == SubsetAll || row.Subset == "train" || row.Subset == "hidden" {
				name := "triplet accuracy"
				if row.Metric != "triplet_accuracy" {
					name = fmt.Sprintf("%d-NN accuracy of hidden objects by attribute value", row.K)
				}
				fmt.Fprintf(b, "%s (%s): %.4f\n", name, row.Subset, row.Value)
			}
		}
	})
}

// hiddenKNNRows adds the paper's k-NN classification of hidden objects: for
// each aspect, every object the split hid is classified by majority vote of
// its k nearest observed objects in that aspect's map, against its
// attribute value.
func hiddenKNNRows(ctx context.Context, env *transforms.Env, opts *Options, m *mapsTable, maps [][]float64,
	aspects []string, tprov *arrowio.Provenance, rep *Report) error {
	if !env.Has("attributes") {
		return &transforms.OptionError{Option: "attributes", Err: fmt.Errorf("%w: split needs the table the triplets were made from", transforms.ErrNoTable)}
	}
	k := 10
	if len(opts.Ks) == 1 {
		k = opts.Ks[0]
	}
	id := opts.ID
	if id == "" && tprov != nil {
		if s, ok := tprov.Params["id"].(string); ok && s != "" {
			id = s
			env.Log.Info("attributes matched by the id column recorded in the triplets' provenance", "id", id)
		}
	}
	f, err := env.ReadFrame(ctx, "attributes", arrowio.Selection{ID: id, NoFeatures: true, Keep: aspects})
	if err != nil {
		return err
	}
	defer f.Release()
	n := m.objects.Len()
	obj := make([]int32, f.N) // attribute row -> map object, −1 if not in the maps
	matched := 0
	for r := range f.N {
		obj[r] = m.objects.Index(f.ID, r)
		if obj[r] >= 0 {
			matched++
		}
	}
	if matched == 0 {
		env.Warn("%s: no row's %s matches an object of the maps; give the id option (the id column the triplets were made with)", f.Source.Path, f.IDName)
	}
	values := make([][]string, len(aspects))
	for t := range aspects {
		values[t] = make([]string, n)
		for r := range f.N {
			if obj[r] >= 0 && !f.Keep[t].IsNull(r) {
				values[t][obj[r]] = f.Keep[t].ValueStr(r)
			}
		}
	}
	codes := triplets.Encode(values)
	sf, err := env.ReadFrame(ctx, "split", arrowio.Selection{ID: "id", NoFeatures: true, Keep: []string{"aspect", "observed"}})
	if err != nil {
		return err
	}
	defer sf.Release()
	aspectIdx := table.NewIndexer()
	for _, a := range aspects {
		aspectIdx.Add(a)
	}
	aspectIdx.Fixed = true
	obs, ok := sf.Keep[1].(*array.Boolean)
	if !ok {
		return &arrowio.Error{File: sf.Source.Path, Column: "observed", Row: -1, Err: fmt.Errorf("%w: want a boolean column", arrowio.ErrColumnType)}
	}
	hidden := make([][]bool, len(aspects))
	for t := range hidden {
		hidden[t] = make([]bool, n)
	}
	for r := range sf.N {
		t, i := aspectIdx.Index(sf.Keep[0], r), m.objects.Index(sf.ID, r)
		if t >= 0 && i >= 0 && !obs.IsNull(r) {
			hidden[t][i] = !obs.Value(r)
		}
	}
	per, mean := HiddenKNNAccuracy(maps, m.dims, codes, hidden, k)
	rep.add("hidden_knn_accuracy", k, "hidden", mean)
	for t, v := range per {
		if !math.IsNaN(v) {
			rep.add("hidden_knn_accuracy", k, "hidden/"+aspects[t], v)
		}
	}
	return nil
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(Stage{})
}
