package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"gonum.org/v1/plot/vg"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/figure"
	"github.com/ordinate/ordinate/transforms/table"
)

// ErrNoFiles reports a report with nothing to show.
var ErrNoFiles = transforms.NewSentinel(transforms.ErrInvalidOption, "report needs at least one table")

// file is one input table of the report, held in memory.
type file struct {
	role   string
	path   string
	schema *arrow.Schema
	prov   *arrowio.Provenance
	kind   string
	recs   []arrow.RecordBatch
	rows   int64
}

func (f *file) reader() arrowio.Reader { return arrowio.NewRecordsReader(f.path, f.schema, f.recs) }

func (f *file) release() {
	for _, r := range f.recs {
		r.Release()
	}
	f.recs = nil
}

// readAll reads the input table of role into memory.
func readAll(ctx context.Context, env *transforms.Env, role string) (*file, error) {
	r, err := env.Open(ctx, role)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	f := &file{role: role, path: r.Source().Path, schema: r.Schema(), prov: transforms.TableProvenance(r.Schema())}
	if f.prov != nil {
		f.kind = f.prov.Kind
	}
	env.Progress.Start("reading "+filepath.Base(f.path), 0)
	defer env.Progress.Finish()
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		f.recs = append(f.recs, rec)
		f.rows += rec.NumRows()
		env.Progress.Add(rec.NumRows())
		if err := ctx.Err(); err != nil {
			f.release()
			return nil, err
		}
	}
	if err := r.Err(); err != nil {
		f.release()
		return nil, err
	}
	env.Input(role, r.Source(), f.rows, 0, f.prov)
	return f, nil
}

// frame reads f with a selection.
func (f *file) frame(ctx context.Context, env *transforms.Env, sel arrowio.Selection) (*arrowio.Frame, error) {
	r := f.reader()
	defer r.Release()
	return arrowio.ReadFrame(ctx, r, sel, arrowio.WithFrameAllocator(env.Mem))
}

// The page, as html/template fills it: every string from a table is escaped
// by the template; only the SVG the figure package drew is inserted as it is.
type page struct {
	Title, Created, Version string
	Figures, Files          int
	Sections                []*section
}

type section struct {
	ID, Name, Subtitle string
	Skip               string
	Note               string
	Figure             template.HTML
	Placed             []placedView
	Tables             []htmlTable
	Prov               *provView
}

// placedView is an apply output drawn on its map's figure.
type placedView struct {
	Line string // "p.parquet, 43 rows"
	Prov *provView
}

type htmlTable struct {
	Heading string
	Columns []string
	Rows    [][]string
}

type provView struct {
	Stage, Version, Seconds string
	Seed                    uint64
	Params, Figures         [][2]string
	Warnings                []string
}

var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{{.Title}}</title>
<meta name="ordinate-figures" content="{{.Figures}}">
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; margin: 2em auto; max-width: 64em; color: #222; padding: 0 1em; }
svg text { font-family: "Liberation Sans", Arial, Helvetica, sans-serif !important; }
svg image { image-rendering: pixelated; }
section { border-top: 1px solid #ccc; margin-top: 2em; padding-top: 1em; }
figure { margin: 0; } figure svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
td, th { border: 1px solid #ddd; padding: 0.15em 0.6em; text-align: left; vertical-align: top; }
details { margin: 0.4em 0; } .skip { color: #a33; } .meta { color: #666; font-size: 0.9em; }
</style></head><body>
<h1>{{.Title}}</h1>
<p class="meta">{{.Created}} · {{.Files}} files</p>
{{range .Sections}}<section id="{{.ID}}"><h2>{{.Name}}</h2>
{{if .Skip}}<p class="skip">not drawn: {{.Skip}}</p>
{{else}}{{if .Subtitle}}<p class="meta">{{.Subtitle}}</p>
{{end}}{{if .Note}}<p class="meta">{{.Note}}</p>
{{end}}{{if .Figure}}<figure>{{.Figure}}</figure>
{{end}}{{range .Placed}}<p class="meta">placed: {{.Line}}</p>
{{end}}{{range .Tables}}{{if .Heading}}<h3>{{.Heading}}</h3>
{{end}}<table><tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{end}}{{with .Prov}}<details><summary>Parameters of {{.Stage}} (ordinate {{.Version}}, seed {{.Seed}}, {{.Seconds}} s)</summary><table>
{{range .Params}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table></details>
{{if .Figures}}<details><summary>Figures of the run</summary><table>
{{range .Figures}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table></details>
{{end}}{{range .Warnings}}<p class="skip">warning: {{.}}</p>
{{end}}{{else}}<p class="meta">no ordinate metadata</p>
{{end}}{{range .Placed}}{{$line := .Line}}{{with .Prov}}<details><summary>Parameters of {{.Stage}} for the placed rows {{$line}} (ordinate {{.Version}}, seed {{.Seed}}, {{.Seconds}} s)</summary><table>
{{range .Params}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table></details>
{{if .Figures}}<details><summary>Figures of the placement</summary><table>
{{range .Figures}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table></details>
{{end}}{{end}}{{end}}{{end}}</section>
{{end}}<p class="meta">written by ordinate {{.Version}}</p>
</body></html>
`))

// build reads nothing: it lays out the page for the files read.
func build(ctx context.Context, env *transforms.Env, all []*file, title, created string) (*page, []string) {
	pg := &page{Title: title, Created: created, Version: env.Version, Files: len(all)}
	var skipped []string
	placed := placements(all)
	onMap := map[*file]bool{}
	for _, ps := range placed {
		for _, p := range ps {
			onMap[p] = true
		}
	}
	for _, f := range all {
		if onMap[f] {
			continue // drawn on its map
		}
		switch f.kind {
		case table.Metrics:
			if attached(all, f) {
				continue // shown with its embedding
			}
		case table.Aspects:
			if mapsFor(all, f) {
				continue
			}
		}
		sec, err := makeSection(ctx, env, f, all, placed[f])
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", f.path, err))
			sec = &section{ID: filepath.Base(f.path), Name: filepath.Base(f.path), Skip: err.Error()}
		} else if sec.Figure != "" {
			pg.Figures++
		}
		pg.Sections = append(pg.Sections, sec)
	}
	return pg, skipped
}

// sameFile compares a path recorded in provenance with a report input.
func sameFile(recorded, path string) bool {
	if recorded == "" {
		return false
	}
	if recorded == path {
		return true
	}
	a, _ := filepath.Abs(recorded)
	b, _ := filepath.Abs(path)
	return a == b
}

// inputPath is the path of the input of role that p records, or, for
// outputs of older versions, the parameter of that name.
func inputPath(p *arrowio.Provenance, role string) string {
	if p == nil {
		return ""
	}
	for _, in := range p.Inputs {
		if in.Role == role {
			return in.Path
		}
	}
	s, _ := p.Params[role].(string)
	return s
}

// metricsFor returns the metrics tables computed for f (by their input
// role embedding).
func metricsFor(all []*file, f *file) []*file {
	var out []*file
	for _, m := range all {
		if m.kind == table.Metrics && sameFile(inputPath(m.prov, "embedding"), f.path) {
			out = append(out, m)
		}
	}
	return out
}

// attached reports whether metrics table m is shown with the table it was
// computed for (an embedding, or maps), when that is among the files.
func attached(all []*file, m *file) bool {
	for _, g := range all {
		if g != m && sameFile(inputPath(m.prov, "embedding"), g.path) {
			return true
		}
	}
	return false
}

// aspectsOf returns the aspects table written in the same run as maps m.
func aspectsOf(all []*file, m *file) *file {
	if m.prov == nil || m.kind != table.Maps {
		return nil
	}
	out, _ := m.prov.Params["aspects_out"].(string)
	for _, f := range all {
		if f.kind != table.Aspects || f.prov == nil {
			continue
		}
		if (m.prov.RunID != "" && f.prov.RunID == m.prov.RunID) || sameFile(out, f.path) {
			return f
		}
	}
	return nil
}

// mapsFor reports whether aspects table a belongs to maps among the files.
func mapsFor(all []*file, a *file) bool {
	for _, f := range all {
		if f.kind == table.Maps && aspectsOf(all, f) == a {
			return true
		}
	}
	return false
}

// placements pairs each apply output with the fitted embedding among the
// files that the run which made its model wrote (the same run id), whose
// section then draws its rows over that map: the maps it returns are the
// keys, their placed rows the values. Several apply outputs share a map
// when their columns match the first's; one that does not match, or fails
// figure.CheckPlaced, keeps a section of its own.
func placements(all []*file) map[*file][]*file {
	out := map[*file][]*file{}
	for _, p := range all {
		run := figure.ModelRun(p.prov)
		if p.kind != table.Embedding || run == "" {
			continue
		}
		for _, m := range all {
			if m == p || m.kind != table.Embedding || m.prov == nil || m.prov.RunID != run || figure.ModelRun(m.prov) != "" {
				continue
			}
			if prev := out[m]; len(prev) > 0 && !sameColumns(prev[0].schema, p.schema) {
				break
			}
			if figure.CheckPlaced(m.schema, p.schema, m.path, p.path) != nil {
				break
			}
			out[m] = append(out[m], p)
			break
		}
	}
	return out
}

// sameColumns reports whether two schemas have the same columns (names and
// types), whatever their metadata.
func sameColumns(a, b *arrow.Schema) bool {
	return slices.EqualFunc(a.Fields(), b.Fields(), func(x, y arrow.Field) bool {
		return x.Name == y.Name && arrow.TypeEqual(x.Type, y.Type)
	})
}

func makeSection(ctx context.Context, env *transforms.Env, f *file, all, placed []*file) (*section, error) {
	name := filepath.Base(f.path)
	title, subtitle := figure.Titles(f.path, f.rows, f.prov)
	sec := &section{ID: name, Name: name, Subtitle: subtitle}
	opts := figure.Options{Title: title, NoFontEmbedding: true}
	if f.kind != table.Maps {
		opts.Width = 15 * vg.Centimeter
	}
	var svg bytes.Buffer
	var err error
	switch f.kind {
	case table.Embedding:
		err = drawEmbedding(ctx, env, &svg, f, placed, opts)
	case table.Maps:
		opts.Subtitle = "one panel per aspect, shared scales (emb_0 across, emb_1 up)"
		err = drawMaps(ctx, env, &svg, f, aspectsOf(all, f), opts)
	case table.DistancePairs:
		err = drawDistances(ctx, env, &svg, f, opts)
	case table.Metrics:
		sec.Tables = append(sec.Tables, tableOf(f, "", 200))
	case table.Aspects:
		sec.Tables = append(sec.Tables, tableOf(f, "", 100))
	case "":
		sec.Note = "this table records no kind (another tool's, or an older ordinate's): its schema and provenance only"
		t := htmlTable{Heading: "Schema", Columns: []string{"column", "type"}}
		for _, fl := range f.schema.Fields() {
			t.Rows = append(t.Rows, []string{fl.Name, fl.Type.String()})
		}
		sec.Tables = append(sec.Tables, t)
	}
	if err != nil {
		return nil, err
	}
	if svg.Len() > 0 {
		sec.Figure = template.HTML(stripXMLHeader(svg.String())) // drawn by package figure, its text escaped
	}
	for _, m := range metricsFor(all, f) {
		sec.Tables = append(sec.Tables, tableOf(m, fmt.Sprintf("Quality (%s)", filepath.Base(m.path)), 200))
	}
	for _, p := range placed {
		sec.Placed = append(sec.Placed, placedView{Line: fmt.Sprintf("%s, %d rows", filepath.Base(p.path), p.rows), Prov: provenanceView(p.prov)})
		for _, m := range metricsFor(all, p) {
			sec.Tables = append(sec.Tables, tableOf(m, fmt.Sprintf("Quality of the placed rows %s (%s)", filepath.Base(p.path), filepath.Base(m.path)), 200))
		}
	}
	if a := aspectsOf(all, f); a != nil {
		sec.Tables = append(sec.Tables, tableOf(a, fmt.Sprintf("Aspects (%s)", filepath.Base(a.path)), 100))
	}
	sec.Prov = provenanceView(f.prov)
	return sec, nil
}

func stripXMLHeader(s string) string {
	if i := strings.Index(s, "<svg"); i > 0 {
		return s[i:]
	}
	return s
}

// hasField reports whether schema has a column of that name.
func hasField(schema *arrow.Schema, name string) bool {
	return slices.ContainsFunc(schema.Fields(), func(f arrow.Field) bool { return f.Name == name })
}

// given reports whether a recorded option value is set: a non-empty string
// or list.
func given(v any) bool {
	switch x := v.(type) {
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case []string:
		return len(x) > 0
	}
	return false
}

// colourSpec picks how to colour an embedding, preferring the supervision
// the stage itself used: its soft_labels columns, else its label column, if
// the table kept them; then any soft-label columns (p_*); then the first
// text column that is not the id.
func colourSpec(schema *arrow.Schema, p *arrowio.Provenance) figure.Spec {
	var spec figure.Spec
	fields := schema.Fields()
	var soft []string
	for _, fl := range fields {
		if strings.HasPrefix(fl.Name, "p_") && fl.Type.ID() == arrow.FLOAT64 {
			soft = append(soft, fl.Name)
		}
	}
	var id string
	if p != nil {
		id, _ = p.Params["id"].(string)
		if given(p.Params["soft_labels"]) && len(soft) >= 2 {
			spec.SoftLabels = soft
			return spec
		}
		if l, _ := p.Params["label"].(string); l != "" && hasField(schema, l) {
			spec.Color = l
			return spec
		}
	}
	if len(soft) >= 2 {
		spec.SoftLabels = soft
		return spec
	}
	for _, fl := range fields {
		if fl.Name != id && fl.Name != "row" && (fl.Type.ID() == arrow.STRING || fl.Type.ID() == arrow.DICTIONARY) {
			spec.Color = fl.Name
			return spec
		}
	}
	return spec
}

// maxPoints is the most points a report figure draws: an SVG costs about
// 130 bytes a point, so 20,000 points are about 2.6 MB of page.
const maxPoints = 20000

// thin keeps every k-th point so that at most maxPoints remain, and every
// k-th placed point so that at most maxPoints of those remain, and says so
// in the subtitle.
func thin(p *figure.Points, o *figure.Options) {
	var notes []string
	if n, step := thinPoints(p); step > 1 {
		notes = append(notes, fmt.Sprintf("every %d-th of %d points shown", step, n))
	}
	if p.Placed != nil {
		if n, step := thinPoints(p.Placed); step > 1 {
			notes = append(notes, fmt.Sprintf("every %d-th of %d placed rows shown", step, n))
		}
	}
	if len(notes) == 0 {
		return
	}
	if o.Subtitle != "" {
		notes = append([]string{o.Subtitle}, notes...)
	}
	o.Subtitle = strings.Join(notes, " · ")
}

// thinPoints keeps every step-th of the n points of p (not its Placed), so
// that at most maxPoints remain.
func thinPoints(p *figure.Points) (n, step int) {
	n = len(p.X)
	if n <= maxPoints {
		return n, 1
	}
	step = (n + maxPoints - 1) / maxPoints
	pick := func(i int) bool { return i%step == 0 }
	p.X, p.Y = every(p.X, pick), every(p.Y, pick)
	if p.Category != nil {
		p.Category = every(p.Category, pick)
	}
	if p.Value != nil {
		p.Value = every(p.Value, pick)
	}
	if p.Facet != nil {
		p.Facet = every(p.Facet, pick)
	}
	if p.Soft != nil {
		c := len(p.Classes)
		var soft []float64
		for i := 0; i < n; i += step {
			soft = append(soft, p.Soft[i*c:(i+1)*c]...)
		}
		p.Soft = soft
	}
	return n, step
}

func every[T any](v []T, pick func(int) bool) []T {
	var out []T
	for i, x := range v {
		if pick(i) {
			out = append(out, x)
		}
	}
	return out
}

func points(ctx context.Context, env *transforms.Env, f *file, spec figure.Spec) (*figure.Points, error) {
	fr, err := f.frame(ctx, env, spec.Selection())
	if err != nil {
		return nil, err
	}
	defer fr.Release()
	return figure.PointsOf(fr, spec)
}

func drawEmbedding(ctx context.Context, env *transforms.Env, w *bytes.Buffer, f *file, placed []*file, o figure.Options) error {
	spec := colourSpec(f.schema, f.prov)
	var pts *figure.Points
	var err error
	if placed == nil {
		pts, err = points(ctx, env, f, spec)
	} else {
		pts, err = withPlaced(ctx, env, f, placed, spec)
	}
	if err != nil {
		return err
	}
	thin(pts, &o)
	o.XLabel, o.YLabel, o.ColorLabel = "emb_0", "emb_1", spec.Color
	return figure.Scatter(w, "svg", pts, o)
}

// withPlaced reads map f with the rows of the apply outputs placed into it
// (columns alike: see placements), read as one table.
func withPlaced(ctx context.Context, env *transforms.Env, f *file, placed []*file, spec figure.Spec) (*figure.Points, error) {
	fr, err := f.frame(ctx, env, spec.Selection())
	if err != nil {
		return nil, err
	}
	defer fr.Release()
	var recs []arrow.RecordBatch
	for _, p := range placed {
		recs = append(recs, p.recs...)
	}
	first := placed[0]
	r := arrowio.NewRecordsReader(first.path, first.schema, recs)
	defer r.Release()
	q, err := arrowio.ReadFrame(ctx, r, spec.ForPlaced(first.schema).Selection(), arrowio.WithFrameAllocator(env.Mem))
	if err != nil {
		return nil, err
	}
	defer q.Release()
	pts, err := figure.PointsWithPlaced(fr, q, spec)
	if err != nil {
		return nil, err
	}
	pts.PlacedLegend = fmt.Sprintf("placed (%d rows)", len(pts.Placed.X))
	return pts, nil
}

func drawMaps(ctx context.Context, env *transforms.Env, w *bytes.Buffer, f, aspects *file, o figure.Options) error {
	pts, err := points(ctx, env, f, figure.Spec{Facet: "aspect"})
	if err != nil {
		return err
	}
	thin(pts, &o)
	if aspects != nil {
		deltas, err := readAspects(ctx, env, aspects)
		if err != nil {
			return err
		}
		pts.FacetNotes = map[string]string{}
		for a, d := range deltas {
			pts.FacetNotes[a] = fmt.Sprintf("δ = %.3g", d)
		}
	}
	o.XLabel, o.YLabel = "emb_0", "emb_1"
	return figure.Scatter(w, "svg", pts, o)
}

func readAspects(ctx context.Context, env *transforms.Env, a *file) (map[string]float64, error) {
	f, err := a.frame(ctx, env, arrowio.Selection{ID: "aspect", Features: []string{"delta"}, Keep: []string{}})
	if err != nil {
		return nil, err
	}
	defer f.Release()
	out := make(map[string]float64, f.N)
	for i := range f.N {
		out[f.ID.ValueStr(i)] = f.X[i]
	}
	return out, nil
}

// drawDistances draws a long distance table as a heat map, its objects
// ordered by class when the stage's labels can be found.
func drawDistances(ctx context.Context, env *transforms.Env, w *bytes.Buffer, f *file, o figure.Options) error {
	pf, err := f.frame(ctx, env, figure.PairsSelection())
	if err != nil {
		return err
	}
	defer pf.Release()
	return figure.DistanceHeatMap(w, "svg", pf, figure.ObjectClasses(ctx, f.prov, env.Mem), o)
}

// tableOf renders up to maxRows rows of a small table.
func tableOf(f *file, heading string, maxRows int) htmlTable {
	t := htmlTable{Heading: heading}
	for _, fl := range f.schema.Fields() {
		t.Columns = append(t.Columns, fl.Name)
	}
	for _, rec := range f.recs {
		for i := 0; i < int(rec.NumRows()) && len(t.Rows) < maxRows; i++ {
			row := make([]string, rec.NumCols())
			for c := range row {
				row[c] = cell(rec.Column(c), i)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

func cell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return ""
	}
	if f, ok := a.(*array.Float64); ok {
		return strconv.FormatFloat(f.Value(i), 'g', 5, 64)
	}
	return a.ValueStr(i)
}

// provenanceView is the stage's parameters, figures and warnings.
func provenanceView(p *arrowio.Provenance) *provView {
	if p == nil {
		return nil
	}
	v := &provView{Stage: p.Stage, Version: p.Version, Seed: p.Seed, Seconds: strconv.FormatFloat(p.RunSeconds, 'f', 1, 64), Warnings: p.Warnings}
	for _, k := range sortedKeys(p.Params) {
		v.Params = append(v.Params, [2]string{k, short(p.Params[k])})
	}
	for _, k := range sortedKeys(p.Figures) {
		v.Figures = append(v.Figures, [2]string{k, short(p.Figures[k])})
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// short renders a value for a table cell, cut at 300 characters.
func short(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case float64:
		s = strconv.FormatFloat(x, 'g', 6, 64)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			s = fmt.Sprint(x)
		} else {
			s = string(b)
		}
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
