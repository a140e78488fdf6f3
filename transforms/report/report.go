package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
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
)

// ErrNoFiles reports a report with nothing to show.
var ErrNoFiles = errors.New("report: no files")

// Options configure Write.
type Options struct {
	Title   string
	Version string // the tool version, shown in the footer
	// Created is shown under the title (the caller's clock: the package has none).
	Created string
}

// Summary says what a report holds.
type Summary struct {
	Sections, Figures int
	Skipped           []string // files not drawn, with the reason
}

type kind int

const (
	kindOther kind = iota
	kindEmbedding
	kindMaps
	kindDistances
	kindMetrics
	kindAspects
)

type file struct {
	path string
	info *arrowio.FileInfo
	kind kind
}

// Write writes the page for files to w.
func Write(ctx context.Context, w io.Writer, files []string, o Options) (*Summary, error) {
	if len(files) == 0 {
		return nil, ErrNoFiles
	}
	var all []*file
	for _, p := range files {
		info, err := arrowio.Inspect(ctx, p)
		if err != nil {
			return nil, err
		}
		all = append(all, &file{path: p, info: info, kind: classify(info)})
	}
	sum := &Summary{}
	var body bytes.Buffer
	for _, f := range all {
		switch f.kind {
		case kindMetrics:
			if attached(all, f) {
				continue // shown with its embedding
			}
		case kindAspects:
			if mapsFor(all, f) {
				continue
			}
		}
		sec, nfig, err := section(ctx, f, all)
		if err != nil {
			sum.Skipped = append(sum.Skipped, fmt.Sprintf("%s: %v", f.path, err))
			fmt.Fprintf(&body, "<section><h2>%s</h2><p class=\"skip\">not drawn: %s</p></section>\n", esc(filepath.Base(f.path)), esc(err.Error()))
			continue
		}
		body.Write(sec)
		sum.Sections++
		sum.Figures += nfig
	}
	title := o.Title
	if title == "" {
		title = "ordinate report"
	}
	fmt.Fprintf(w, pageHead, esc(title), sum.Figures, esc(title), esc(o.Created), len(files))
	if _, err := w.Write(body.Bytes()); err != nil {
		return nil, err
	}
	_, err := fmt.Fprintf(w, pageFoot, esc(o.Version))
	return sum, err
}

const pageHead = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>%s</title>
<meta name="ordinate-figures" content="%d">
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; margin: 2em auto; max-width: 64em; color: #222; padding: 0 1em; }
svg text { font-family: "Liberation Sans", Arial, Helvetica, sans-serif !important; }
svg image { image-rendering: pixelated; }
section { border-top: 1px solid #ccc; margin-top: 2em; padding-top: 1em; }
figure { margin: 0; } figure svg { max-width: 100%%; height: auto; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
td, th { border: 1px solid #ddd; padding: 0.15em 0.6em; text-align: left; vertical-align: top; }
details { margin: 0.4em 0; } .skip { color: #a33; } .meta { color: #666; font-size: 0.9em; }
</style></head><body>
<h1>%s</h1>
<p class="meta">%s · %d files</p>
`

const pageFoot = `<p class="meta">written by ordinate %s</p>
</body></html>
`

func esc(s string) string { return html.EscapeString(s) }

func has(info *arrowio.FileInfo, names ...string) bool {
	for _, n := range names {
		if !slices.ContainsFunc(info.Schema.Fields(), func(f arrow.Field) bool { return f.Name == n }) {
			return false
		}
	}
	return true
}

func classify(info *arrowio.FileInfo) kind {
	switch {
	case has(info, "metric", "k", "subset", "value"):
		return kindMetrics
	case has(info, "aspect", "delta"):
		return kindAspects
	case has(info, "i", "j", "distance"):
		return kindDistances
	case has(info, "aspect", "emb_0", "emb_1"):
		return kindMaps
	case has(info, "emb_0", "emb_1"):
		return kindEmbedding
	}
	return kindOther
}

// sameFile compares a path recorded in provenance with a report input.
func sameFile(recorded, path string) bool {
	if recorded == "" {
		return false
	}
	a, _ := filepath.Abs(recorded)
	b, _ := filepath.Abs(path)
	return a == b
}

// metricsFor returns the metrics files whose provenance names path as
// their --embedding.
func metricsFor(all []*file, path string) []*file {
	var out []*file
	for _, f := range all {
		if f.kind == kindMetrics && sameFile(embeddingOf(f), path) {
			out = append(out, f)
		}
	}
	return out
}

// embeddingOf is the --embedding a metrics file was computed for.
func embeddingOf(f *file) string {
	if f.info.Provenance == nil {
		return ""
	}
	emb, _ := f.info.Provenance.Params["embedding"].(string)
	return emb
}

// attached reports whether metrics file m is shown with an embedding among
// the files.
func attached(all []*file, m *file) bool {
	for _, g := range all {
		if g.kind == kindEmbedding && sameFile(embeddingOf(m), g.path) {
			return true
		}
	}
	return false
}

// aspectsOf returns the aspects table written with maps m (--aspects-out).
func aspectsOf(all []*file, m *file) *file {
	if m.info.Provenance == nil {
		return nil
	}
	out, _ := m.info.Provenance.Params["aspects-out"].(string)
	for _, f := range all {
		if f.kind == kindAspects && sameFile(out, f.path) {
			return f
		}
	}
	return nil
}

// mapsFor reports whether aspects table a belongs to maps among the files.
func mapsFor(all []*file, a *file) bool {
	for _, f := range all {
		if f.kind == kindMaps && aspectsOf(all, f) == a {
			return true
		}
	}
	return false
}

func section(ctx context.Context, f *file, all []*file) ([]byte, int, error) {
	var b bytes.Buffer
	name := filepath.Base(f.path)
	title, subtitle := transforms.FigureTitles(f.path, f.info)
	fmt.Fprintf(&b, "<section id=\"%s\"><h2>%s</h2>\n<p class=\"meta\">%s</p>\n", esc(name), esc(name), esc(subtitle))
	nfig := 0
	opts := figure.Options{Title: title, NoFontEmbedding: true}
	if f.kind != kindMaps {
		opts.Width = 15 * vg.Centimeter
	}
	var svg bytes.Buffer
	var err error
	switch f.kind {
	case kindEmbedding:
		err = drawEmbedding(ctx, &svg, f, opts)
	case kindMaps:
		opts.Subtitle = "one panel per aspect, shared scales (emb_0 across, emb_1 up)"
		err = drawMaps(ctx, &svg, f, aspectsOf(all, f), opts)
	case kindDistances:
		err = drawDistances(ctx, &svg, f, opts)
	}
	if err != nil {
		return nil, 0, err
	}
	if svg.Len() > 0 {
		fmt.Fprintf(&b, "<figure>%s</figure>\n", stripXMLHeader(svg.String()))
		nfig++
	}
	if f.kind == kindMetrics {
		if err := writeMetrics(ctx, &b, f); err != nil {
			return nil, 0, err
		}
	}
	for _, m := range metricsFor(all, f.path) {
		fmt.Fprintf(&b, "<h3>Quality (%s)</h3>\n", esc(filepath.Base(m.path)))
		if err := writeMetrics(ctx, &b, m); err != nil {
			return nil, 0, err
		}
	}
	if a := aspectsOf(all, f); a != nil {
		fmt.Fprintf(&b, "<h3>Aspects (%s)</h3>\n", esc(filepath.Base(a.path)))
		if err := writeTable(ctx, &b, a.path, 100); err != nil {
			return nil, 0, err
		}
	}
	writeProvenance(&b, f.info)
	b.WriteString("</section>\n")
	return b.Bytes(), nfig, nil
}

func stripXMLHeader(s string) string {
	if i := strings.Index(s, "<svg"); i > 0 {
		return s[i:]
	}
	return s
}

// colourSpec picks how to colour an embedding, preferring the supervision
// the stage itself used: its --soft-labels columns, else its --label
// column, if the file kept them; then any soft-label columns (p_*); then the
// first text column that is not the id.
func colourSpec(f *file) transforms.PlotSpec {
	var spec transforms.PlotSpec
	fields := f.info.Schema.Fields()
	var soft []string
	for _, fl := range fields {
		if strings.HasPrefix(fl.Name, "p_") && fl.Type.ID() == arrow.FLOAT64 {
			soft = append(soft, fl.Name)
		}
	}
	var id string
	if p := f.info.Provenance; p != nil {
		id, _ = p.Params["id"].(string)
		if s, _ := p.Params["soft-labels"].(string); s != "" && len(soft) >= 2 {
			spec.SoftLabels = soft
			return spec
		}
		if l, _ := p.Params["label"].(string); l != "" && has(f.info, l) {
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

// thin keeps every k-th point so that at most maxPoints remain, and says so
// in the subtitle.
func thin(p *figure.Points, o *figure.Options) {
	n := len(p.X)
	if n <= maxPoints {
		return
	}
	step := (n + maxPoints - 1) / maxPoints
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
	note := fmt.Sprintf("every %d-th of %d points shown", step, n)
	if o.Subtitle != "" {
		note = o.Subtitle + " · " + note
	}
	o.Subtitle = note
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

func drawEmbedding(ctx context.Context, w io.Writer, f *file, o figure.Options) error {
	spec := colourSpec(f)
	pts, _, err := transforms.LoadPoints(ctx, f.path, spec)
	if err != nil {
		return err
	}
	thin(pts, &o)
	o.XLabel, o.YLabel, o.ColorLabel = "emb_0", "emb_1", spec.Color
	return figure.Scatter(w, "svg", pts, o)
}

func drawMaps(ctx context.Context, w io.Writer, f, aspects *file, o figure.Options) error {
	pts, _, err := transforms.LoadPoints(ctx, f.path, transforms.PlotSpec{Facet: "aspect"})
	if err != nil {
		return err
	}
	thin(pts, &o)
	if aspects != nil {
		deltas, err := readAspects(ctx, aspects.path)
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

func readAspects(ctx context.Context, path string) (map[string]float64, error) {
	f, err := readTable(ctx, path, arrowio.Selection{ID: "aspect", Features: []string{"delta"}, Keep: []string{}})
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

// readTable reads a whole table with a selection.
func readTable(ctx context.Context, path string, sel arrowio.Selection) (*arrowio.Frame, error) {
	r, err := arrowio.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	return arrowio.ReadFrame(ctx, r, sel)
}

// drawDistances draws a long distance table (i, j, distance) as a heat map,
// its objects ordered by class when the stage's labels can be found.
func drawDistances(ctx context.Context, w io.Writer, f *file, o figure.Options) error {
	pf, err := readTable(ctx, f.path, arrowio.Selection{ID: "i", Features: []string{"distance"}, Keep: []string{"j"}})
	if err != nil {
		return err
	}
	defer pf.Release()
	type pair struct {
		i, j string
		d    float64
	}
	pairs := make([]pair, pf.N)
	ids := map[string]bool{}
	for k := range pairs {
		p := pair{pf.ID.ValueStr(k), pf.Keep[0].ValueStr(k), pf.X[k]}
		pairs[k] = p
		ids[p.i], ids[p.j] = true, true
	}
	if len(ids) > 2000 {
		return fmt.Errorf("%d objects: a heat map is drawn up to 2,000", len(ids))
	}
	classes := objectClasses(ctx, f.info)
	order := make([]string, 0, len(ids))
	for id := range ids {
		order = append(order, id)
	}
	sort.SliceStable(order, func(a, b int) bool {
		ca, cb := classes[order[a]], classes[order[b]]
		if ca != cb {
			return ca < cb
		}
		na, ea := strconv.ParseFloat(order[a], 64)
		nb, eb := strconv.ParseFloat(order[b], 64)
		if ea == nil && eb == nil {
			return na < nb
		}
		return order[a] < order[b]
	})
	pos := make(map[string]int, len(order))
	for k, id := range order {
		pos[id] = k
	}
	n := len(order)
	m := make([]float64, n*n)
	for k := range m {
		m[k] = math.NaN()
	}
	for i := range n {
		m[i*n+i] = 0
	}
	for _, p := range pairs {
		m[pos[p.i]*n+pos[p.j]] = p.d
		if math.IsNaN(m[pos[p.j]*n+pos[p.i]]) {
			m[pos[p.j]*n+pos[p.i]] = p.d
		}
	}
	var group []string
	if len(classes) > 0 {
		group = make([]string, n)
		for k, id := range order {
			group[k] = classes[id]
		}
	}
	o.ColorLabel = "distance"
	return figure.HeatMap(w, "svg", m, n, group, o)
}

// objectClasses reads the class of every object from the table the stage
// read its labels from (--labels, else --similarity or --in), by --id and
// --label; empty when they cannot be found.
func objectClasses(ctx context.Context, info *arrowio.FileInfo) map[string]string {
	p := info.Provenance
	if p == nil {
		return nil
	}
	id, _ := p.Params["id"].(string)
	label, _ := p.Params["label"].(string)
	if id == "" || label == "" {
		return nil
	}
	for _, key := range []string{"labels", "similarity", "in"} {
		path, _ := p.Params[key].(string)
		if path == "" {
			continue
		}
		f, err := readTable(ctx, path, arrowio.Selection{ID: id, Label: label, NoFeatures: true, Keep: []string{}})
		if err != nil {
			continue
		}
		out := make(map[string]string, f.N)
		for i := range f.N {
			if f.Label.Numeric {
				out[f.ID.ValueStr(i)] = strconv.FormatFloat(f.Label.Num[i], 'g', -1, 64)
			} else {
				out[f.ID.ValueStr(i)] = f.Label.Str[i]
			}
		}
		f.Release()
		return out
	}
	return nil
}

func writeMetrics(ctx context.Context, w io.Writer, f *file) error {
	return writeTable(ctx, w, f.path, 200)
}

// writeTable writes up to max rows of a small table as HTML.
func writeTable(ctx context.Context, w io.Writer, path string, maxRows int) error {
	r, err := arrowio.Open(ctx, path)
	if err != nil {
		return err
	}
	defer r.Release()
	fmt.Fprint(w, "<table><tr>")
	for _, fl := range r.Schema().Fields() {
		fmt.Fprintf(w, "<th>%s</th>", esc(fl.Name))
	}
	fmt.Fprint(w, "</tr>\n")
	rows := 0
	for r.Next() && rows < maxRows {
		rec := r.RecordBatch()
		for i := 0; i < int(rec.NumRows()) && rows < maxRows; i++ {
			fmt.Fprint(w, "<tr>")
			for c := range int(rec.NumCols()) {
				fmt.Fprintf(w, "<td>%s</td>", esc(cell(rec.Column(c), i)))
			}
			fmt.Fprint(w, "</tr>\n")
			rows++
		}
	}
	fmt.Fprint(w, "</table>\n")
	return r.Err()
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

// writeProvenance writes the stage's parameters and figures, folded.
func writeProvenance(w io.Writer, info *arrowio.FileInfo) {
	p := info.Provenance
	if p == nil {
		fmt.Fprint(w, "<p class=\"meta\">no ordinate metadata</p>\n")
		return
	}
	fmt.Fprintf(w, "<details><summary>Parameters of %s (ordinate %s, seed %d, %.1f s)</summary><table>\n", esc(p.Stage), esc(p.Version), p.Seed, p.RunSeconds)
	for _, k := range sortedKeys(p.Params) {
		fmt.Fprintf(w, "<tr><td>%s</td><td>%s</td></tr>\n", esc(k), esc(short(p.Params[k])))
	}
	fmt.Fprint(w, "</table></details>\n")
	if len(p.Figures) > 0 {
		fmt.Fprint(w, "<details><summary>Figures of the run</summary><table>\n")
		for _, k := range sortedKeys(p.Figures) {
			fmt.Fprintf(w, "<tr><td>%s</td><td>%s</td></tr>\n", esc(k), esc(short(p.Figures[k])))
		}
		fmt.Fprint(w, "</table></details>\n")
	}
	for _, warn := range p.Warnings {
		fmt.Fprintf(w, "<p class=\"skip\">warning: %s</p>\n", esc(warn))
	}
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
