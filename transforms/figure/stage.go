package figure

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// Stage is the plot stage: a scatter plot of an embedding or SCORE maps, or
// a heat map of a distance table, as SVG or PNG. It reads its table by the
// kind its provenance records.
type Stage struct{}

// Format is a figure's file format.
type Format string

// The figure formats. Auto takes the output's extension (SVG when the
// output has no path, as on stdout or in memory).
const (
	FormatAuto Format = "auto"
	FormatSVG  Format = "svg"
	FormatPNG  Format = "png"
)

// Values lists the figure formats.
func (Format) Values() []string { return []string{"auto", "svg", "png"} }

// Options are the plot stage's options: the columns drawn (Spec), how
// categories are coloured, the join, the texts and size (Style) and the
// format. Start from DefaultOptions.
type Options struct {
	Spec
	Palette Palette `opt:"palette" help:"colours of categories (auto: ordinal when their order is given or recorded, else categorical)"`
	On      string  `opt:"on" help:"with join: the id column of both tables, or IN=JOIN (JOIN row: its row numbers)"`
	Style
	Format Format `opt:"format" help:"figure format (auto: by the output's extension)"`
}

// DefaultOptions returns the plot stage's defaults: emb_1 against emb_0,
// colour scale and palette auto, 16 cm wide, height by the panels, the
// format by the output's extension, an invalid value an error.
func DefaultOptions() Options {
	return Options{
		Spec:    Spec{X: "emb_0", Y: "emb_1", ColorScale: ScaleAuto, OnInvalid: arrowio.InvalidError},
		Palette: PaletteAuto,
		Style:   Style{Width: 16},
		Format:  FormatAuto,
	}
}

// Validate checks the rule that ties options together: one colouring.
func (o *Options) Validate() error {
	if o.Color != "" && len(o.SoftLabels) > 0 {
		return transforms.Optionf("color", "give color or soft-labels, not both")
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
		Name:     "plot",
		Category: transforms.CategoryResults,
		Summary:  "scatter plot of an embedding or SCORE maps, or heat map of a distance table, as SVG or PNG",
		Usage:    "ordinate plot --in E [--placed P] [--color COL [--join T --on ID] | --soft-labels 'p_*'] [--facet COL] [--triplets T] --out fig.svg|fig.png",
		Doc: `The table is drawn by the kind its provenance records. An embedding: --y against --x
(default emb_1 against emb_0). SCORE or OE maps: the same, one panel per aspect unless
--facet says otherwise. A long distance table (fisher): a heat map, its objects ordered
by the class the stage read, when that table can still be read. A table without a
recorded kind (another tool's, a CSV) is drawn as a scatter plot of --x and --y.

--color colours by a column: text, booleans and integer labels with up to 12 values get
a colour-blind-safe palette and a legend (numbers in ascending order, text in order of
appearance); other numbers a continuous colour map (viridis) with a colour bar
(--color-scale forces either). Ordered classes are drawn in their order with an
ordered palette (viridis from dark blue to green): the order --order a,b,c gives, or
the class order the table's provenance records for its label column (bvp, or a stage
given --order); --palette categorical keeps that order with the categorical palette,
--palette ordinal draws any categories as ordered. --soft-labels mixes the class colours by the
weights. --facet draws one panel per value with shared scales. The title and subtitle
come from the table's provenance unless given. SVG output embeds its fonts, so it
renders the same anywhere.

--placed P draws the rows that ordinate apply placed into the map (P, an embedding
with the map's emb_* columns) over it, on the same axes: rings in their class colour
with a dark edge, larger than the map's dots, and a legend entry "placed (N rows)".
--color and --soft-labels colour them too when P has those columns (apply --keep
label keeps them); without them they are grey. A warning says when P was placed with
the model of another run than the map's.

--join T --on ID colours by a column of another table T (--color names it), matched on
an id column: --on id names it in both tables, --on id=name in each (a JOIN side "row"
that T lacks means T's row numbers from 0, the ids stages give rows without --id).
Rows T has no row for are drawn grey, counted in a warning and in the legend; so SCORE
maps can be coloured by an attribute: --join zoo.csv --on id=row --color type_name.

Control points (ckpca, lsp: the rows with values in the --control columns, when the
table kept them) are drawn as black-edged diamonds, with a legend entry.

--triplets T marks, in SCORE or OE maps, the objects an aspect never observed: T is the
triplet table the maps were fitted on (its train triplets unless the fit took --all);
an object no fitted triplet of an aspect names is drawn in that aspect's panel as a
grey ring, with a legend entry "not observed (N)". The maps table alone cannot say.`,
		Examples: []string{
			"ordinate pca --in testdata/ordinal/newthyroid.csv --label label --out thyroid-pca.parquet",
			"ordinate plot --in thyroid-pca.parquet --color label --out thyroid-pca.svg",
			"ordinate plot --in thyroid-pca.parquet --facet label --color-scale continuous --color emb_0 --out thyroid-facets.png",
			"ordinate triplets --in testdata/zoo/zoo.csv --aspects hair,eggs --per-aspect 300 --out zoo-triplets.parquet",
			"ordinate score --in zoo-triplets.parquet --out zoo-maps.parquet --aspects-out zoo-aspects.parquet",
			"ordinate plot --in zoo-maps.parquet --facet aspect --out zoo-maps.svg",
			"ordinate plot --in zoo-maps.parquet --triplets zoo-triplets.parquet --join testdata/zoo/zoo.csv --on id=row --color type_name --out zoo-maps-types.svg",
			"ordinate tsne --in testdata/ordinal/newthyroid.csv --label label --out thyroid-tsne.parquet --model-out thyroid-tsne.model.parquet",
			"ordinate apply --model thyroid-tsne.model.parquet --in testdata/ordinal/newthyroid.csv --keep label --out thyroid-placed.parquet",
			"ordinate plot --in thyroid-tsne.parquet --placed thyroid-placed.parquet --color label --out thyroid-placed.svg",
		},
		Inputs: []transforms.Role{
			{Name: "in", Help: "table to draw: an embedding, SCORE maps or a long distance table (- for a stream on stdin)", Required: true},
			{Name: "placed", Help: "rows placed into the map of --in by ordinate apply, drawn on it as rings beneath its dots"},
			{Name: "join", Help: "a table to colour by: --color names its column, --on the id to match"},
			{Name: "triplets", Help: "the triplets SCORE or OE maps were fitted on: objects an aspect never observed are drawn as grey rings", Kind: table.Triplets},
		},
		Outputs: []transforms.Role{
			{Name: "out", Help: "output figure: .svg or .png", Kind: transforms.File, Required: true},
		},
	}
}

// format resolves the figure format from the option and the output's path.
func (o *Options) format(env *transforms.Env) (string, error) {
	path := ""
	if pt, ok := env.Tables.(interface{ Path(string) string }); ok {
		path = pt.Path("out")
	}
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	switch o.Format {
	case FormatSVG, FormatPNG:
		if path != "" && path != "-" && ext != string(o.Format) {
			return "", transforms.Optionf("out", "%q: the extension must be .%s for format %s", path, o.Format, o.Format)
		}
		return string(o.Format), nil
	}
	if path == "" || path == "-" {
		return "svg", nil
	}
	if ext != "svg" && ext != "png" {
		return "", transforms.Optionf("out", "%q: the extension must be .svg or .png", path)
	}
	return ext, nil
}

func (Stage) Run(ctx context.Context, env *transforms.Env, o transforms.Options) error {
	opts := o.(*Options)
	format, err := opts.format(env)
	if err != nil {
		return err
	}
	r, err := env.Open(ctx, "in")
	if err != nil {
		return err
	}
	defer r.Release()
	prov := transforms.TableProvenance(r.Schema())
	kind := ""
	if prov != nil {
		kind = prov.Kind
	}
	fo := opts.Style // the titles from the table's provenance fill it
	var buf bytes.Buffer
	switch kind {
	case table.DistancePairs:
		if env.Has("placed") {
			return transforms.Optionf("placed", "%s is a distance table, drawn as a heat map: placed rows are drawn over an embedding", r.Source().Path)
		}
		f, err := env.ReadFrom(ctx, "in", r, PairsSelection())
		if err != nil {
			return err
		}
		defer f.Release()
		objects := PairObjects(f)
		title, subtitle := DistanceTitles(f.Source.Path, int64(f.N)+f.Dropped, objects, prov)
		setTitles(&fo, title, subtitle)
		env.Progress.Start("drawing", 0)
		err = DistanceHeatMap(&buf, format, f, ObjectClasses(ctx, prov, env.Mem), fo)
		env.Progress.Finish()
		if err != nil {
			return err
		}
		env.Figure("objects", objects)
	case table.Embedding, table.Maps, "":
		if err := drawScatter(ctx, env, opts, r, prov, format, fo, &buf); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%w: %s is a %s table (from %s); plot draws embeddings, maps and long distance tables",
			transforms.ErrInvalidData, r.Source().Path, kind, prov.Stage)
	}
	return env.WriteFile("out", buf.Bytes())
}

// readPlaced reads the input "placed", the rows placed into the map f (read
// from a table with that schema and provenance), and returns the map's
// points with them.
func readPlaced(ctx context.Context, env *transforms.Env, schema *arrow.Schema, prov *arrowio.Provenance, f *arrowio.Frame, spec Spec) (*Points, error) {
	r, err := env.Open(ctx, "placed")
	if err != nil {
		return nil, err
	}
	defer r.Release()
	path := r.Source().Path
	if err := CheckPlaced(schema, r.Schema(), f.Source.Path, path); err != nil {
		return nil, err
	}
	if run := ModelRun(transforms.TableProvenance(r.Schema())); run != "" && prov != nil && prov.RunID != "" && run != prov.RunID {
		env.Warn("%s was placed with the model of run %s; the map %s is from run %s: the two may not share their axes",
			path, run, f.Source.Path, prov.RunID)
	}
	q, err := env.ReadFrom(ctx, "placed", r, spec.ForPlaced(r.Schema()).Selection())
	if err != nil {
		return nil, err
	}
	defer q.Release()
	return PointsWithPlaced(f, q, spec)
}

func settitles(fo *Style, f *arrowio.Frame, prov *arrowio.Provenance) {
	title, subtitle := Titles(f.Source.Path, int64(f.N)+f.Dropped, prov)
	setTitles(fo, title, subtitle)
}

// setTitles gives fo the title and subtitle, unless the caller set them.
func setTitles(fo *Style, title, subtitle string) {
	if fo.Title == "" {
		fo.Title = title
	}
	if fo.Subtitle == "" {
		fo.Subtitle = subtitle
	}
}

// PairObjects returns the number of objects of a long distance table read
// with PairsSelection: the ids in its i and j columns.
func PairObjects(f *arrowio.Frame) int {
	ids := map[string]bool{}
	for k := range f.N {
		ids[f.ID.ValueStr(k)], ids[f.Keep[0].ValueStr(k)] = true, true
	}
	return len(ids)
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(Stage{})
}
