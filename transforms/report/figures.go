package report

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/figure"
)

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

// An SVG costs about 130 bytes a point, so a figure of more than svgPoints
// points (2.6 MB of page) is drawn as a PNG instead, embedded as a data:
// URI, whose size does not grow with the points; maxPoints bounds the
// drawing time of those.
const (
	svgPoints = 20000
	maxPoints = 200000
)

// figureWidth is the drawn width in cm of a single-panel figure: about the
// page's content column (64em at 16 px), so that the CSS scales it little.
const figureWidth = 26

// squareWidth is the drawn width in cm of a heat map, square, shown at
// about its drawn size (CSS caps it at 42em) so that it is no taller than a
// screen.
const squareWidth = 17

// render draws a figure of n points by draw, as inline SVG up to svgPoints
// points and as an embedded PNG above, and returns its HTML.
func render(n int, alt string, draw func(w *bytes.Buffer, format string) error) (template.HTML, error) {
	var buf bytes.Buffer
	if n <= svgPoints {
		if err := draw(&buf, "svg"); err != nil {
			return "", err
		}
		return template.HTML(stripXMLHeader(buf.String())), nil // drawn by package figure, its text escaped
	}
	if err := draw(&buf, "png"); err != nil {
		return "", err
	}
	return template.HTML(`<img class="figure" alt="` + template.HTMLEscapeString(alt) + `" src="data:image/png;base64,` +
		base64.StdEncoding.EncodeToString(buf.Bytes()) + `">`), nil
}

// count is the number of points p draws, placed rows included.
func count(p *figure.Points) int {
	n := len(p.X)
	if p.Placed != nil {
		n += len(p.Placed.X)
	}
	return n
}

// thin keeps every k-th point so that at most maxPoints remain, and every
// k-th placed point so that at most maxPoints of those remain, and says so
// in the subtitle.
func thin(p *figure.Points, o *figure.Style) {
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
	if p.Control != nil {
		p.Control = every(p.Control, pick)
	}
	if p.Unobserved != nil {
		p.Unobserved = every(p.Unobserved, pick)
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

func drawEmbedding(ctx context.Context, env *transforms.Env, f *file, placed []*file, o figure.Style) (template.HTML, error) {
	// The recorded class order (ordinal palette) and control points, as
	// ordinate plot draws them.
	spec := colourSpec(f.schema, f.prov).WithProvenance(f.schema, f.prov).WithControlTable(ctx, f.schema, f.prov, env.Mem)
	var pts *figure.Points
	var err error
	if placed == nil {
		pts, err = points(ctx, env, f, spec)
	} else {
		pts, err = withPlaced(ctx, env, f, placed, spec)
	}
	if err != nil {
		return "", err
	}
	thin(pts, &o)
	o.XLabel, o.YLabel, o.ColorLabel = "emb_0", "emb_1", spec.Color
	return render(count(pts), o.Title, func(w *bytes.Buffer, format string) error { return figure.Scatter(w, format, pts, o) })
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

func drawMaps(ctx context.Context, env *transforms.Env, f, aspects, triplets *file, o figure.Style) (template.HTML, error) {
	spec := figure.Spec{Facet: "aspect"}
	sel := spec.Selection()
	sel.ID = "id" // for the objects an aspect never observed
	fr, err := f.frame(ctx, env, sel)
	if err != nil {
		return "", err
	}
	defer fr.Release()
	pts, err := figure.PointsOf(fr, spec)
	if err != nil {
		return "", err
	}
	if triplets != nil {
		// As plot --triplets; a triplet table that cannot be read leaves
		// the figure unmarked, with a warning.
		if _, err := figure.MarkUnobserved(ctx, triplets.reader(), f.prov, fr, pts); err != nil {
			env.Warn("%s: objects not observed are not marked: %v", f.path, err)
		}
	}
	thin(pts, &o)
	if aspects != nil {
		deltas, err := readAspects(ctx, env, aspects)
		if err != nil {
			return "", err
		}
		pts.FacetNotes = map[string]string{}
		for a, d := range deltas {
			pts.FacetNotes[a] = fmt.Sprintf("δ = %.3g", d)
		}
	}
	o.XLabel, o.YLabel = "emb_0", "emb_1"
	return render(count(pts), o.Title, func(w *bytes.Buffer, format string) error { return figure.Scatter(w, format, pts, o) })
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
// ordered by class when the stage's labels can be found, and returns the
// number of objects.
func drawDistances(ctx context.Context, env *transforms.Env, f *file, o figure.Style) (template.HTML, int, error) {
	pf, err := f.frame(ctx, env, figure.PairsSelection())
	if err != nil {
		return "", 0, err
	}
	defer pf.Release()
	classes := figure.ObjectClasses(ctx, f.prov, env.Mem)
	// The heat map is a raster inside the SVG already: its size does not
	// grow with the pairs.
	h, err := render(0, o.Title, func(w *bytes.Buffer, format string) error { return figure.DistanceHeatMap(w, format, pf, classes, o) })
	return h, figure.PairObjects(pf), err
}
