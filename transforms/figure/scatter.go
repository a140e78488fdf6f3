package figure

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// ErrInput reports points that cannot be drawn.
var ErrInput = arrowio.NewSentinel(arrowio.ErrInvalidData, "figure: bad input")

// Points are the rows of an embedding to draw, with at most one colouring
// (Category, Value or Soft) and optional facets.
type Points struct {
	X, Y []float64
	// Category colours by a class; Order fixes the legend order (nil: the
	// order of first appearance). Ordinal draws the levels, in Order, with
	// an ordered palette (OrdinalColor) instead of Okabe–Ito.
	Category []string
	Order    []string
	Ordinal  bool
	// Value colours by a number (viridis).
	Value []float64
	// Soft colours by n×len(Classes) weights, mixing the class colours.
	Soft    []float64
	Classes []string
	// Facet splits the points into panels; FacetOrder fixes their order.
	Facet      []string
	FacetOrder []string
	// FacetNotes, if set, are printed under each panel title (e.g. SCORE's δ).
	FacetNotes map[string]string
	// Placed, if set, are rows placed into this map (ordinate apply), drawn
	// as thin rings with a dark edge, a third larger than the map's dots
	// and beneath them, so that the map stays visible. Their
	// X and Y are required; their colouring must be of the map's kind
	// (Category, Value, or Soft with the same Classes) or absent (a neutral
	// grey), their Facet absent (drawn in every panel) or of the map's
	// facets. The map's Order and FacetOrder apply to them; their own
	// Order, FacetOrder, FacetNotes and Placed are not read.
	Placed *Points
	// PlacedLegend is the legend entry of the placed rows (default
	// "placed (N rows)").
	PlacedLegend string
	// Control marks control points (cKPCA, LSP), drawn over the dots as
	// black-edged diamonds with a legend entry "control point (N)".
	Control []bool
	// Unobserved marks the rows of SCORE maps whose aspect never observed
	// the object (ReadObserved): drawn as hollow grey rings, with a legend
	// entry "not observed (N)".
	Unobserved []bool
	// Unmatched marks rows that the table coloured from (plot --join) has
	// no row for: drawn grey, with the legend entry UnmatchedLegend
	// (default "no match (N)").
	Unmatched       []bool
	UnmatchedLegend string
}

// Style is the texts and size of a figure: what Scatter, HeatMap and
// DistanceHeatMap read. The plot stage's Options embed it: its title,
// subtitle, width and height are the stage's options; the axis and colour
// labels and the font embedding are the library's.
type Style struct {
	Title    string `opt:"title" help:"title (default: the stage from the table's provenance)"`
	Subtitle string `opt:"subtitle" help:"subtitle (default: table, rows and key parameters)"`
	// Width and Height are in cm; 0 is by the figure: a scatter plot 16 cm
	// wide (5 cm per column of panels when that is wider) and 12 cm high
	// (by the panels when there are several), a heat map 14 cm wide and
	// 0.85 of its width high.
	Width  float64 `opt:"width" range:"[0,)" help:"width in cm (0: by the figure, 16 cm or 5 cm per column of panels; a heat map 14 cm)"`
	Height float64 `opt:"height" range:"[0,)" help:"height in cm (0: by the panels)"`

	XLabel, YLabel string
	ColorLabel     string
	// NoFontEmbedding leaves the fonts out of an SVG (it then names
	// "Liberation Sans"): for pages that hold many figures and set the font
	// once in CSS.
	NoFontEmbedding bool
}

// size returns the width and height of o as lengths (0 stays 0: by the
// figure).
func (o Style) size() (width, height vg.Length) {
	return vg.Length(o.Width) * vg.Centimeter, vg.Length(o.Height) * vg.Centimeter
}

var glyphShapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.BoxGlyph{}, draw.PlusGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}}

var missing = color.NRGBA{0xa0, 0xa0, 0xa0, 0xff}

// PointStyle returns the glyph radius and opacity for n points: 3 pt and
// opaque up to a few hundred points, falling to 0.8 pt and 0.35 at 100,000.
func PointStyle(n int) (radius vg.Length, alpha float64) {
	l := math.Log10(math.Max(float64(n), 1))
	r := math.Min(3, math.Max(0.8, 3-0.75*(l-2)))
	a := math.Min(1, math.Max(0.35, 1-0.22*(l-2.5)))
	return vg.Points(r), a
}

// painter assigns each point its colour (before fading) and glyph.
type painter struct {
	rgb    func(i int) color.NRGBA
	glyph  func(i int) draw.GlyphDrawer
	legend []legendItem
	cmap   *viridis     // numeric colouring, for the colour bar
	marks  []legendItem // the entries of the marks (control points, placed rows), drawn last
}

type legendItem struct {
	name  string
	style draw.GlyphStyle
}

// fade returns c with opacity alpha.
func fade(c color.NRGBA, alpha float64) color.Color {
	c.A = uint8(math.Round(alpha * 255))
	return c
}

func newPainter(p *Points) (*painter, error) {
	n := len(p.X)
	pt := &painter{glyph: func(int) draw.GlyphDrawer { return draw.CircleGlyph{} }}
	switch {
	case p.Category != nil:
		if len(p.Category) != n {
			return nil, fmt.Errorf("%w: %d categories for %d points", ErrInput, len(p.Category), n)
		}
		order := Levels(p.Category, p.Order)
		pos := make(map[string]int, len(order))
		for k, v := range order {
			pos[v] = k
		}
		for _, v := range p.Category {
			if _, ok := pos[v]; !ok {
				return nil, fmt.Errorf("%w: category %q is not in the given order %v", ErrInput, v, p.Order)
			}
		}
		pt.rgb = func(i int) color.NRGBA {
			c, _ := levelColor(pos[p.Category[i]], len(order), p.Ordinal)
			return c
		}
		pt.glyph = func(i int) draw.GlyphDrawer {
			_, g := levelColor(pos[p.Category[i]], len(order), p.Ordinal)
			return g
		}
		for k, v := range order {
			c, g := levelColor(k, len(order), p.Ordinal)
			pt.legend = append(pt.legend, legendItem{v, draw.GlyphStyle{Color: c, Radius: vg.Points(3.5), Shape: g}})
		}
	case p.Value != nil:
		if len(p.Value) != n {
			return nil, fmt.Errorf("%w: %d values for %d points", ErrInput, len(p.Value), n)
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range p.Value {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		if lo > hi {
			lo, hi = 0, 1
		}
		if lo == hi {
			lo, hi = lo-0.5, hi+0.5
		}
		pt.cmap = &viridis{min: lo, max: hi}
		pt.rgb = func(i int) color.NRGBA {
			v := p.Value[i]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return missing
			}
			return pt.cmap.nrgba(v)
		}
	case p.Soft != nil:
		c := len(p.Classes)
		if c == 0 || len(p.Soft) != n*c {
			return nil, fmt.Errorf("%w: %d soft-label values for %d points × %d classes", ErrInput, len(p.Soft), n, c)
		}
		pt.rgb = func(i int) color.NRGBA {
			var r, g, b, s float64
			for k, wgt := range p.Soft[i*c : (i+1)*c] {
				if math.IsNaN(wgt) {
					return missing
				}
				cc, _ := CategoryColor(k)
				r, g, b, s = r+wgt*float64(cc.R), g+wgt*float64(cc.G), b+wgt*float64(cc.B), s+wgt
			}
			if s <= 0 {
				return missing
			}
			return color.NRGBA{uint8(math.Round(r / s)), uint8(math.Round(g / s)), uint8(math.Round(b / s)), 0xff}
		}
		for k, name := range p.Classes {
			cc, _ := CategoryColor(k)
			pt.legend = append(pt.legend, legendItem{name, draw.GlyphStyle{Color: cc, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}})
		}
	default:
		pt.rgb = func(int) color.NRGBA { return okabeIto[4] }
	}
	return pt, nil
}

// Levels returns order, or the distinct values of v in order of first
// appearance: the order of the legend and of the panels.
func Levels(v, order []string) []string {
	if order != nil {
		return order
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range v {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Scatter draws the points to w as "svg" or "png", and p.Placed, if set,
// as rings beneath them.
func Scatter(w io.Writer, format string, p *Points, o Style) error {
	if err := transforms.Validate(&o); err != nil {
		return err
	}
	n := len(p.X)
	if err := checkXY(p, "point"); err != nil {
		return err
	}
	if p.Facet != nil && len(p.Facet) != n {
		return fmt.Errorf("%w: %d facet values for %d points", ErrInput, len(p.Facet), n)
	}
	all, neutral, err := withPlaced(p)
	if err != nil {
		return err
	}
	radius, alpha := PointStyle(len(all.X))
	pt, err := newPainter(all)
	if err != nil {
		return err
	}
	// The map's rows are 0…n-1 of all; the placed rows follow.
	ring := placedStyle(len(all.X)-n, radius)
	if q := p.Placed; q != nil {
		name := p.PlacedLegend
		if name == "" {
			name = fmt.Sprintf("placed (%d rows)", len(q.X))
		}
		c := neutralColor
		if pt.legend == nil && pt.cmap == nil {
			c = placedDefault // the map's dots are all blue
		}
		pt.marks = append(pt.marks, legendItem{name, draw.GlyphStyle{Color: c, Radius: vg.Points(3.5), Shape: placedGlyph{}}})
		base := pt.rgb
		pt.rgb = func(i int) color.NRGBA {
			if i >= n && neutral[i-n] {
				return c
			}
			return base(i)
		}
	}
	if p.Control != nil && len(p.Control) != n {
		return fmt.Errorf("%w: %d control flags for %d points", ErrInput, len(p.Control), n)
	}
	if p.Unobserved != nil && len(p.Unobserved) != n {
		return fmt.Errorf("%w: %d observed flags for %d points", ErrInput, len(p.Unobserved), n)
	}
	if p.Unmatched != nil && len(p.Unmatched) != n {
		return fmt.Errorf("%w: %d match flags for %d points", ErrInput, len(p.Unmatched), n)
	}
	if k := len(flagged(p.Unmatched, seq(0, n))); k > 0 {
		rgb := pt.rgb
		pt.rgb = func(i int) color.NRGBA {
			if i < n && p.Unmatched[i] {
				return missing
			}
			return rgb(i)
		}
		name := p.UnmatchedLegend
		if name == "" {
			name = fmt.Sprintf("no match (%d)", k)
		}
		pt.marks = append([]legendItem{{name, draw.GlyphStyle{Color: missing, Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}}}, pt.marks...)
	}
	if k := len(flagged(p.Unobserved, seq(0, n))); k > 0 {
		rgb, glyph := pt.rgb, pt.glyph
		pt.rgb = func(i int) color.NRGBA {
			if i < n && p.Unobserved[i] {
				return unobservedColor
			}
			return rgb(i)
		}
		pt.glyph = func(i int) draw.GlyphDrawer {
			if i < n && p.Unobserved[i] {
				return draw.RingGlyph{}
			}
			return glyph(i)
		}
		pt.marks = append([]legendItem{unobservedLegend(k)}, pt.marks...)
	}
	if k := len(flagged(p.Control, seq(0, n))); k > 0 {
		// Listed before the placed rows, whose entry stays last.
		coloured := pt.legend != nil || pt.cmap != nil
		pt.marks = append([]legendItem{controlLegend(k, coloured)}, pt.marks...)
	}
	groups, placed, names := facetGroups(p)
	cols := int(math.Ceil(math.Sqrt(float64(len(groups)))))
	rows := (len(groups) + cols - 1) / cols
	width, height := o.size()
	if width == 0 {
		width = max(16*vg.Centimeter, vg.Length(cols)*5*vg.Centimeter)
	}
	if height == 0 {
		height = 12 * vg.Centimeter
		if rows > 1 || cols > 1 {
			panel := (width - sideStrip(pt, o.ColorLabel)) / vg.Length(cols)
			height = vg.Length(rows)*panel*0.85 + 1.5*vg.Centimeter
		}
	}
	x0, x1 := span(all.X)
	y0, y1 := span(all.Y)
	panels := make([][]*plot.Plot, rows)
	for r := range panels {
		panels[r] = make([]*plot.Plot, cols)
	}
	for g, idx := range groups {
		pl := newPlot()
		pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = x0, x1, y0, y1
		pl.X.Label.Text, pl.Y.Label.Text = o.XLabel, o.YLabel
		if len(groups) > 1 {
			// Small multiples share their scales: every panel has the same
			// tick labels, and the axis names are left to the caption.
			pl.X.Label.Text, pl.Y.Label.Text = "", ""
			for _, st := range []*text.Style{&pl.X.Tick.Label, &pl.Y.Tick.Label} {
				st.Font.Size = vg.Points(7)
			}
		}
		if names != nil {
			pl.Title.Text = names[g]
			if note, ok := p.FacetNotes[names[g]]; ok {
				pl.Title.Text += "\n" + note
			}
			pl.Title.TextStyle.Font.Size = vg.Points(10)
		}
		if placed != nil && len(placed[g]) > 0 {
			// Drawn before the map's dots, beneath them: the map stays
			// whole, and a ring shows around the dots it circles.
			rings, err := scatterOf(all, placed[g], func(i int) draw.GlyphStyle {
				return draw.GlyphStyle{Color: fade(pt.rgb(i), ring.alpha), Radius: ring.radius, Shape: placedGlyph{}}
			})
			if err != nil {
				return err
			}
			pl.Add(rings)
		}
		dots, err := scatterOf(all, idx, func(i int) draw.GlyphStyle {
			return draw.GlyphStyle{Color: fade(pt.rgb(i), alpha), Radius: radius, Shape: pt.glyph(i)}
		})
		if err != nil {
			return err
		}
		pl.Add(dots)
		if ctl := flagged(p.Control, idx); len(ctl) > 0 {
			marks, err := scatterOf(all, ctl, func(i int) draw.GlyphStyle {
				return draw.GlyphStyle{Color: pt.rgb(i), Radius: controlRadius(radius), Shape: controlGlyph{}}
			})
			if err != nil {
				return err
			}
			pl.Add(marks)
		}
		panels[g/cols][g%cols] = pl
	}
	canvas, finish, err := newCanvas(w, format, width, height, !o.NoFontEmbedding)
	if err != nil {
		return err
	}
	dc := draw.New(canvas)
	dc = drawTitles(dc, o)
	side := sideStrip(pt, o.ColorLabel)
	main := dc
	if side > 0 {
		main = draw.Crop(dc, 0, -side, 0, 0)
		drawSide(draw.Crop(dc, dc.Max.X-dc.Min.X-side, 0, 0, 0), pt, o.ColorLabel)
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: 2 * vg.Millimeter, PadY: 2 * vg.Millimeter, PadTop: vg.Millimeter}
	for r := range rows {
		for c := range cols {
			if panels[r][c] != nil {
				panels[r][c].Draw(tiles.At(main, c, r))
			}
		}
	}
	return finish()
}

// checkXY checks that p has as many finite y as x values, and at least one.
func checkXY(p *Points, what string) error {
	n := len(p.X)
	if len(p.Y) != n || n == 0 {
		return fmt.Errorf("%w: %d x and %d y values", ErrInput, n, len(p.Y))
	}
	for i := range n {
		if math.IsNaN(p.X[i]) || math.IsInf(p.X[i], 0) || math.IsNaN(p.Y[i]) || math.IsInf(p.Y[i], 0) {
			return fmt.Errorf("%w: %s %d is (%v, %v)", ErrInput, what, i, p.X[i], p.Y[i])
		}
	}
	return nil
}

// scatterOf is a scatter of the points idx of all, styled by style (called
// with the index into all).
func scatterOf(all *Points, idx []int, style func(i int) draw.GlyphStyle) (*plotter.Scatter, error) {
	xy := make(plotter.XYs, len(idx))
	for k, i := range idx {
		xy[k].X, xy[k].Y = all.X[i], all.Y[i]
	}
	sc, err := plotter.NewScatter(xy)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	sc.GlyphStyleFunc = func(k int) draw.GlyphStyle { return style(idx[k]) }
	return sc, nil
}

// facetGroups returns the indices of the map's points in each panel, those
// of the placed points (nil without them: indices into the map's points
// followed by the placed ones), and the panel names (nil without facets).
// Placed points without facet values are drawn in every panel.
func facetGroups(p *Points) (groups, placed [][]int, names []string) {
	n := len(p.X)
	q := p.Placed
	if p.Facet == nil {
		groups = [][]int{seq(0, n)}
		if q != nil {
			placed = [][]int{seq(n, n+len(q.X))}
		}
		return groups, placed, nil
	}
	all := p.Facet
	if q != nil && q.Facet != nil {
		all = append(slices.Clip(p.Facet), q.Facet...)
	}
	names = Levels(all, p.FacetOrder)
	pos := make(map[string]int, len(names))
	for k, v := range names {
		pos[v] = k
	}
	groups = make([][]int, len(names))
	for i, f := range p.Facet {
		if k, ok := pos[f]; ok {
			groups[k] = append(groups[k], i)
		}
	}
	if q == nil {
		return groups, nil, names
	}
	placed = make([][]int, len(names))
	for k := range placed {
		if q.Facet == nil {
			placed[k] = seq(n, n+len(q.X))
		}
	}
	for i, f := range q.Facet {
		if k, ok := pos[f]; ok {
			placed[k] = append(placed[k], n+i)
		}
	}
	return groups, placed, names
}

// seq is lo, lo+1, …, hi-1.
func seq(lo, hi int) []int {
	out := make([]int, hi-lo)
	for k := range out {
		out[k] = lo + k
	}
	return out
}

// span returns the range of v padded by 4 % on each side.
func span(v []float64) (lo, hi float64) {
	lo, hi = slices.Min(v), slices.Max(v)
	pad := 0.04 * (hi - lo)
	if pad == 0 {
		pad = 0.5
	}
	return lo - pad, hi + pad
}

// newCanvas returns a canvas of the format and a function that writes it.
func newCanvas(w io.Writer, format string, width, height vg.Length, embed bool) (vg.CanvasWriterTo, func() error, error) {
	var c vg.CanvasWriterTo
	switch format {
	case "svg":
		c = vgsvg.NewWith(vgsvg.UseWH(width, height), vgsvg.EmbedFonts(embed))
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(144))}
	default:
		return nil, nil, fmt.Errorf("%w: format %q: want svg or png", ErrInput, format)
	}
	return c, func() error { _, err := c.WriteTo(w); return err }, nil
}

// sansFont is Liberation Sans (compiled into gonum/plot): plot's default
// is the serif face.
var sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// newPlot is plot.New with every text in the sans face.
func newPlot() *plot.Plot {
	p := plot.New()
	for _, st := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		st.Font = font.From(sansFont, st.Font.Size)
	}
	return p
}

// textStyle is the plot title style at the given size.
func textStyle(size vg.Length) text.Style {
	s := plot.New().Title.TextStyle
	s.Font = font.From(sansFont, size)
	return s
}

// drawTitles draws the title and subtitle at the top and returns the
// canvas below them.
func drawTitles(dc draw.Canvas, o Style) draw.Canvas {
	top := dc.Max.Y - vg.Millimeter
	mid := (dc.Min.X + dc.Max.X) / 2
	for _, t := range []struct {
		s    string
		size vg.Length
	}{{o.Title, vg.Points(12)}, {o.Subtitle, vg.Points(9)}} {
		if t.s == "" {
			continue
		}
		st := textStyle(t.size)
		st.XAlign, st.YAlign = draw.XCenter, draw.YTop
		dc.FillText(st, vg.Point{X: mid, Y: top}, t.s)
		top -= st.Height(t.s) + vg.Millimeter
	}
	return draw.Crop(dc, 0, 0, 0, top-dc.Max.Y)
}

// sideStrip is the width of the legend or colour bar strip: the widest
// legend entry and the legend's title, as drawn (legendTitle), or the
// colour bar.
func sideStrip(pt *painter, label string) vg.Length {
	st := legendText()
	var w vg.Length
	for _, it := range slices.Concat(pt.legend, pt.marks) {
		w = max(w, legendIndent+st.Width(it.name)+legendPad)
	}
	if pt.cmap != nil {
		// The legend holds at most the marks' entries, under the bar; the
		// label is drawn above the bar on one line.
		return max(3*vg.Centimeter, w, 3*vg.Millimeter+textStyle(vg.Points(8)).Width(label)+legendPad)
	}
	if w > 0 && label != "" {
		for _, line := range strings.Split(legendTitle(label), "\n") {
			w = max(w, vg.Millimeter+st.Width(line)+legendPad)
		}
	}
	return w
}

// The legend's layout: the glyph at 2 mm, the text from legendIndent,
// legendPad to spare at the right.
const (
	legendIndent = 5 * vg.Millimeter
	legendPad    = 3 * vg.Millimeter
)

// legendTitleMax is the widest a legend title is drawn on one line; a
// longer one is wrapped at its underscores, dots or spaces.
const legendTitleMax = 4.5 * vg.Centimeter

func legendText() text.Style {
	st := textStyle(vg.Points(9))
	st.XAlign, st.YAlign = draw.XLeft, draw.YCenter
	return st
}

// legendTitle is the legend title as drawn: label, wrapped onto lines
// no wider than legendTitleMax where it has a place to break (after "_",
// "." or "-", or at a space); a word without one stays whole, and the
// strip widens to hold it.
func legendTitle(label string) string {
	st := legendText()
	if st.Width(label) <= legendTitleMax {
		return label
	}
	var lines []string
	line := ""
	for _, word := range splitAfterBreaks(label) {
		if line != "" && st.Width(strings.TrimSpace(line+word)) > legendTitleMax {
			lines = append(lines, strings.TrimSpace(line))
			line = ""
		}
		line += word
	}
	return strings.Join(append(lines, strings.TrimSpace(line)), "\n")
}

// splitAfterBreaks splits s after each "_", ".", "-" and space.
func splitAfterBreaks(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		if r == '_' || r == '.' || r == '-' || r == ' ' {
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// drawSide draws the legend or the colour bar into dc, and the entries of
// the marks last.
func drawSide(dc draw.Canvas, pt *painter, label string) {
	st := legendText()
	item := func(it legendItem, y vg.Length) {
		dc.DrawGlyph(it.style, vg.Point{X: dc.Min.X + 2*vg.Millimeter, Y: y})
		dc.FillText(st, vg.Point{X: dc.Min.X + legendIndent, Y: y}, it.name)
	}
	if pt.cmap != nil {
		drawColorBar(dc, pt.cmap, label)
		y := dc.Min.Y + 0.5*vg.Centimeter
		for k := len(pt.marks) - 1; k >= 0; k-- {
			item(pt.marks[k], y)
			y += 1.5 * st.Height(pt.marks[k].name)
		}
		return
	}
	y := dc.Max.Y - vg.Centimeter
	if label != "" {
		title := legendTitle(label)
		ts := st
		ts.YAlign = draw.YTop
		dc.FillText(ts, vg.Point{X: dc.Min.X + vg.Millimeter, Y: y + 0.5*st.Height("M")}, title)
		y -= ts.Height(title) + 0.4*st.Height("M")
	}
	for _, it := range pt.legend {
		item(it, y)
		y -= 1.5 * st.Height(it.name)
	}
	y -= 0.5 * st.Height("M")
	for _, it := range pt.marks {
		item(it, y)
		y -= 1.5 * st.Height(it.name)
	}
}

// drawColorBar draws a vertical colour bar with five labelled ticks and
// the label above it, in the left part of dc.
func drawColorBar(dc draw.Canvas, m *viridis, label string) {
	st := textStyle(vg.Points(8))
	top, bottom := dc.Max.Y-1.4*vg.Centimeter, dc.Min.Y+1.2*vg.Centimeter
	x0 := dc.Min.X + 3*vg.Millimeter
	x1 := x0 + 4*vg.Millimeter
	if label != "" {
		st.XAlign, st.YAlign = draw.XLeft, draw.YBottom
		dc.FillText(st, vg.Point{X: x0, Y: top + 2*vg.Millimeter}, label)
	}
	const steps = 128
	h := (top - bottom) / steps
	for k := range steps {
		v := m.min + (m.max-m.min)*(float64(k)+0.5)/steps
		dc.SetColor(m.nrgba(v))
		y := bottom + vg.Length(k)*h
		var p vg.Path
		p.Move(vg.Point{X: x0, Y: y})
		p.Line(vg.Point{X: x1, Y: y})
		p.Line(vg.Point{X: x1, Y: y + h*1.02})
		p.Line(vg.Point{X: x0, Y: y + h*1.02})
		p.Close()
		dc.Fill(p)
	}
	st.XAlign, st.YAlign = draw.XLeft, draw.YCenter
	for k := range 5 {
		v := m.min + (m.max-m.min)*float64(k)/4
		y := bottom + (top-bottom)*vg.Length(k)/4
		dc.StrokeLine2(draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}, x1, y, x1+vg.Millimeter, y)
		dc.FillText(st, vg.Point{X: x1 + 1.5*vg.Millimeter, Y: y}, strconv.FormatFloat(v, 'g', 3, 64))
	}
}
