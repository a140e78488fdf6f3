package figure

import (
	"fmt"
	"image/color"
	"math"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// Rows placed into a fitted map (ordinate apply) are drawn as thin rings
// in their colour with a dark edge, beneath the map's dots: the map stays
// whole wherever rings fall on it, a ring shows as a halo around the dot
// it circles (a dot of the same class colour does not hide it), and the
// rings stay apart from the map's glyphs (dots, triangles, boxes,
// crosses) at any number of points.

var (
	// neutralColor is the ring of a placed row that has no colour column.
	neutralColor = color.NRGBA{0x70, 0x70, 0x70, 0xff}
	// placedDefault is the ring colour when nothing is coloured: the map's
	// dots are then all Okabe–Ito blue, the rings vermillion.
	placedDefault = okabeIto[5]
	ringEdge      = color.NRGBA{0x22, 0x22, 0x22, 0xff}
)

// The ring's coloured stroke and the dark edge on either side of it.
var ringWidth, edgeWidth = vg.Points(0.9), vg.Points(0.35)

// placedGlyph draws a placed row's ring.
type placedGlyph struct{}

func (placedGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	var p vg.Path
	p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	p.Close()
	edge := ringEdge
	edge.A = color.NRGBAModel.Convert(sty.Color).(color.NRGBA).A
	c.SetLineStyle(draw.LineStyle{Color: edge, Width: ringWidth + 2*edgeWidth})
	c.Stroke(p)
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: ringWidth})
	c.Stroke(p)
}

type ringStyle struct {
	radius vg.Length
	alpha  float64
}

// placedStyle is the ring of m placed rows drawn among dots of the given
// radius: a third larger than the dots (just outside a dot it circles) and
// at least 2.5 pt, opaque unless the rings are many.
func placedStyle(m int, dot vg.Length) ringStyle {
	_, a := PointStyle(m)
	return ringStyle{radius: max(1.35*dot, vg.Points(2.5)), alpha: max(a, 0.6)}
}

// withPlaced returns p's points followed by those of p.Placed, in one
// Points whose colouring covers both, and which placed rows have no colour
// of their own (drawn neutral). Without p.Placed it returns p.
func withPlaced(p *Points) (*Points, []bool, error) {
	q := p.Placed
	if q == nil {
		return p, nil, nil
	}
	if err := checkXY(q, "placed point"); err != nil {
		return nil, nil, err
	}
	m := len(q.X)
	all := &Points{X: slices.Concat(p.X, q.X), Y: slices.Concat(p.Y, q.Y), Order: p.Order, Ordinal: p.Ordinal, Classes: p.Classes}
	neutral := make([]bool, m)
	mismatch := func(kind string) error {
		return fmt.Errorf("%w: the placed points are coloured by %s, the map's are not", ErrInput, kind)
	}
	length := func(got, want int, what string) error {
		if got != want {
			return fmt.Errorf("%w: %d %s for %d placed points", ErrInput, got, what, m)
		}
		return nil
	}
	switch {
	case p.Category != nil:
		if q.Value != nil || q.Soft != nil {
			return nil, nil, mismatch("a number or soft labels")
		}
		cat := q.Category
		if cat == nil {
			cat = make([]string, m)
			if len(p.Category) > 0 {
				for i := range cat {
					cat[i], neutral[i] = p.Category[0], true // a level the map has: no new legend entry
				}
			}
		} else if err := length(len(cat), m, "categories"); err != nil {
			return nil, nil, err
		}
		all.Category = slices.Concat(p.Category, cat)
	case p.Value != nil:
		if q.Category != nil || q.Soft != nil {
			return nil, nil, mismatch("a category or soft labels")
		}
		val := q.Value
		if val == nil {
			val = make([]float64, m)
			for i := range val {
				val[i], neutral[i] = math.NaN(), true
			}
		} else if err := length(len(val), m, "values"); err != nil {
			return nil, nil, err
		}
		all.Value = slices.Concat(p.Value, val)
	case p.Soft != nil:
		if q.Category != nil || q.Value != nil {
			return nil, nil, mismatch("a category or a number")
		}
		soft := q.Soft
		if soft == nil {
			soft = make([]float64, m*len(p.Classes))
			for i := range soft {
				soft[i] = math.NaN()
			}
			for i := range neutral {
				neutral[i] = true
			}
		} else {
			if !slices.Equal(q.Classes, p.Classes) {
				return nil, nil, fmt.Errorf("%w: the placed points' soft-label classes %v are not the map's %v", ErrInput, q.Classes, p.Classes)
			}
			if err := length(len(soft), m*len(p.Classes), "soft-label values"); err != nil {
				return nil, nil, err
			}
		}
		all.Soft = slices.Concat(p.Soft, soft)
	default:
		if q.Category != nil || q.Value != nil || q.Soft != nil {
			return nil, nil, mismatch("a column")
		}
		for i := range neutral {
			neutral[i] = true
		}
	}
	if q.Facet != nil {
		if err := length(len(q.Facet), m, "facet values"); err != nil {
			return nil, nil, err
		}
	}
	return all, neutral, nil
}

// ForPlaced is the spec that reads the rows placed into a map drawn with s
// from a table with the given schema: s without the colour, soft-label and
// facet columns that the table lacks (its rows are then drawn neutral, or
// in every panel), and without control points: a placed row is never one
// (apply does not pass a fit's control columns through).
func (s Spec) ForPlaced(schema *arrow.Schema) Spec {
	q := s
	q.Control, q.ControlIDColumn, q.ControlIDs = nil, "", nil
	if q.Color != "" && !schema.HasField(q.Color) {
		q.Color = ""
	}
	if q.Facet != "" && !schema.HasField(q.Facet) {
		q.Facet = ""
	}
	for _, pat := range q.SoftLabels {
		if !slices.ContainsFunc(schema.Fields(), func(f arrow.Field) bool {
			ok, _ := path.Match(pat, f.Name)
			return f.Name == pat || ok
		}) {
			q.SoftLabels = nil
			break
		}
	}
	return q
}

// PointsWithPlaced returns the points of map frame f, read with
// s.Selection(), with the rows of frame placed, read with
// s.ForPlaced(its schema).Selection(), as their Placed points: coloured as
// the map's (on the map's colour scale) where placed has the colour
// columns, with the category and panel orders of both tables unless s gives
// them.
func PointsWithPlaced(f, placed *arrowio.Frame, s Spec) (*Points, error) {
	p, err := PointsOf(f, s)
	if err != nil {
		return nil, err
	}
	ps := s
	ps.Control, ps.ControlIDColumn, ps.ControlIDs = nil, "", nil // placed rows are never control points
	has := func(name string) bool {
		return slices.ContainsFunc(placed.KeepFields, func(fl arrow.Field) bool { return fl.Name == name })
	}
	if ps.Color != "" && !has(ps.Color) {
		ps.Color = ""
	}
	if ps.Facet != "" && !has(ps.Facet) {
		ps.Facet = ""
	}
	if placed.Soft == nil {
		ps.SoftLabels = nil
	}
	switch {
	case p.Category != nil:
		ps.ColorScale = ScaleCategorical
	case p.Value != nil:
		ps.ColorScale = ScaleContinuous
	}
	q, err := PointsOf(placed, ps)
	if err != nil {
		return nil, err
	}
	if s.Order == nil && p.Category != nil && q.Category != nil {
		p.Order = sortedLevels(slices.Concat(p.Category, q.Category))
	}
	if s.FacetOrder == nil && p.Facet != nil && q.Facet != nil {
		p.FacetOrder = sortedLevels(slices.Concat(p.Facet, q.Facet))
	}
	if q.Soft != nil && !slices.Equal(q.Classes, p.Classes) {
		return nil, fmt.Errorf("%w: %s: soft-label classes %v, the map %s has %v", transforms.ErrInvalidData,
			placed.Source.Path, q.Classes, f.Source.Path, p.Classes)
	}
	p.Placed = q
	return p, nil
}

var embColumn = regexp.MustCompile(`^emb_[0-9]+$`)

// embDims is the number of emb_* columns of a table.
func embDims(schema *arrow.Schema) int {
	n := 0
	for _, f := range schema.Fields() {
		if embColumn.MatchString(f.Name) {
			n++
		}
	}
	return n
}

// CheckPlaced checks that the table at placedPath (its schema) holds rows
// placed into a map like the one at mapPath: an embedding (by its
// provenance) with as many emb_* columns as the map. Errors wrap
// transforms.ErrInvalidData and name the file.
func CheckPlaced(mapSchema, placedSchema *arrow.Schema, mapPath, placedPath string) error {
	p := transforms.TableProvenance(placedSchema)
	switch {
	case p == nil:
		return fmt.Errorf("%w: %s records no kind: the placed rows must be an embedding (the output of ordinate apply)",
			transforms.ErrInvalidData, placedPath)
	case p.Kind != table.Embedding:
		return fmt.Errorf("%w: %s is a %s table (from %s): the placed rows must be an embedding (the output of ordinate apply)",
			transforms.ErrInvalidData, placedPath, p.Kind, p.Stage)
	}
	if dm, dp := embDims(mapSchema), embDims(placedSchema); dm != dp {
		return fmt.Errorf("%w: %s has %d embedding dimensions (%s), the map %s has %d",
			transforms.ErrInvalidData, placedPath, dp, strings.Join(embNames(placedSchema), ", "), mapPath, dm)
	}
	return nil
}

func embNames(schema *arrow.Schema) []string {
	var out []string
	for _, f := range schema.Fields() {
		if embColumn.MatchString(f.Name) {
			out = append(out, f.Name)
		}
	}
	if out == nil {
		return []string{"no emb_* columns"}
	}
	return out
}

// ModelRun returns the run id of the fit whose model placed the rows of a
// table with provenance p (its input of role "model"), or "" when p
// records none: the fitted embedding written by that run has the same
// run id.
func ModelRun(p *arrowio.Provenance) string {
	if p == nil {
		return ""
	}
	for _, in := range p.Inputs {
		if in.Role == "model" {
			return in.RunID
		}
	}
	return ""
}
