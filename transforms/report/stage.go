package report

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/ordinate/ordinate/transforms"
)

// Stage is the report stage: one self-contained HTML page about any number
// of stage outputs, each read by the kind its provenance records.
type Stage struct{}

// Options are the report stage's options. Start from DefaultOptions.
type Options struct {
	Title string `opt:"title" help:"page title"`
}

// DefaultOptions returns the defaults: the title "ordinate report".
func DefaultOptions() Options { return Options{Title: "ordinate report"} }

// Validate refuses an empty title (a tag cannot say "not empty").
func (o *Options) Validate() error {
	if o.Title == "" {
		return transforms.Optionf("title", "give a page title")
	}
	return nil
}

// NewOptions returns the defaults (DefaultOptions).
func (Stage) NewOptions() transforms.Options {
	o := DefaultOptions()
	return &o
}

func (Stage) Info() transforms.Info {
	return transforms.Info{
		Name:     "report",
		Category: transforms.CategoryResults,
		Summary:  "one self-contained HTML page with the plots, parameters and quality of output tables",
		Usage:    "ordinate report --out report.html [--title TEXT] TABLES…",
		Doc: `Options go before the tables. Each table is shown by the kind its provenance records.
The page opens on a table of contents and a summary that compares every embedding side
by side, per data set: method, key parameters as resolved, N, run time, trustworthiness,
continuity and k-NN accuracy at one k (10 when computed), ordinal rho, hidden-triplet
accuracy, the best value of each column marked, and which embedding kept the
neighbourhoods and which the classes best. Sections follow the pipeline: inputs, fits,
placements, metrics. An embedding: its plot (coloured by the stage's soft labels or label
column), the stage's parameters and figures, and every metrics table among TABLES that
evaluate computed for it (its --embedding), pivoted to a row per metric and subset and a
column per k, shown there only. Rows that apply placed with a model written by the same
run as an embedding among TABLES (tsne --out E --model-out M, then apply --model M --out
P) are drawn on that embedding's plot as rings and listed under it ("placed: P, N rows",
with apply's parameters and P's metrics); P then gets no section of its own, unless its
map is not among TABLES. A long distance table (fisher): a heat map ordered by class,
with the metrics of evaluate --distances. SCORE maps: one panel per aspect, with delta
from the aspects table written in the same run. Model files: listed, not drawn. Metrics
and aspects tables shown on their own: their rows. Any other kind: the stage's
parameters. A table that records no kind (another tool's, or an older ordinate's): its
schema and provenance only, with a note. Figures are inline SVG, or an embedded PNG above
20,000 points; the page loads nothing from elsewhere.`,
		Examples: []string{
			"ordinate pca --in testdata/ordinal/newthyroid.csv --label label --out thyroid-pca.parquet",
			"ordinate evaluate --embedding thyroid-pca.parquet --in testdata/ordinal/newthyroid.csv --label label --out thyroid-metrics.parquet",
			"ordinate report --out report.html --title 'newthyroid: PCA' thyroid-pca.parquet thyroid-metrics.parquet",
			"ordinate tsne --in testdata/ordinal/newthyroid.csv --label label --out thyroid-tsne.parquet --model-out thyroid-tsne.model.parquet",
			"ordinate apply --model thyroid-tsne.model.parquet --in testdata/ordinal/newthyroid.csv --keep label --out thyroid-placed.parquet",
			"ordinate report --out placed.html thyroid-tsne.parquet thyroid-placed.parquet",
		},
		Inputs: []transforms.Role{
			{Name: "in", Help: "tables to show (the CLI takes them as arguments)", Variadic: true},
		},
		Outputs: []transforms.Role{
			{Name: "out", Help: "output HTML page", Kind: transforms.File, Required: true},
		},
	}
}

func (Stage) Run(ctx context.Context, env *transforms.Env, o transforms.Options) error {
	opts := o.(*Options)
	roles := env.Many("in")
	if len(roles) == 0 {
		return fmt.Errorf("report: %w", ErrNoFiles)
	}
	var all []*file
	defer func() {
		for _, f := range all {
			f.release()
		}
	}()
	for _, role := range roles {
		f, err := readAll(ctx, env, role)
		if err != nil {
			return err
		}
		all = append(all, f)
	}
	created := env.Prov.Started
	if t, err := time.Parse(time.RFC3339, created); err == nil {
		created = t.UTC().Format("2006-01-02 15:04 UTC")
	}
	env.Progress.Start("drawing", 0)
	pg, skipped := build(ctx, env, all, opts.Title, created)
	env.Progress.Finish()
	for _, s := range skipped {
		env.Warn("not drawn: %s", s)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, pg); err != nil {
		return err
	}
	env.Figures(map[string]any{"sections": len(pg.Sections), "figures": pg.Figures})
	env.Log.Info("report", "tables", len(all), "sections", len(pg.Sections), "figures", pg.Figures)
	return env.WriteFile("out", buf.Bytes())
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(Stage{})
}
