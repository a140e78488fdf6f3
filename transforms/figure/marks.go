package figure

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Control points (cKPCA, LSP: the rows whose target coordinates were
// given) are drawn over the map's dots as diamonds in their colour with a
// black edge, larger than the dots, so that they stand out from every
// glyph of the palette (dots, triangles, boxes, crosses) and from the
// placed rows' rings.

// controlGlyph draws a control point's diamond.
type controlGlyph struct{}

func (controlGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.3 // a diamond of the same area looks smaller than a dot
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	p.Close()
	c.SetColor(sty.Color)
	c.Fill(p)
	c.SetLineStyle(draw.LineStyle{Color: color.Black, Width: vg.Points(0.9)})
	c.Stroke(p)
}

// controlRadius is the diamond of a control point over dots of the given
// radius.
func controlRadius(dot vg.Length) vg.Length { return max(1.5*dot, vg.Points(3)) }

// controlLegend is the legend entry of n control points; the diamond is
// white when the map is coloured (its fill is the row's colour).
func controlLegend(n int, coloured bool) legendItem {
	c := color.NRGBA{0xff, 0xff, 0xff, 0xff}
	if !coloured {
		c = okabeIto[4]
	}
	return legendItem{fmt.Sprintf("control point (%d)", n), draw.GlyphStyle{Color: c, Radius: vg.Points(3.5), Shape: controlGlyph{}}}
}

// flagged returns the indices in idx whose flag is set (control points,
// unobserved rows).
func flagged(control []bool, idx []int) []int {
	var out []int
	for _, i := range idx {
		if i < len(control) && control[i] {
			out = append(out, i)
		}
	}
	return out
}

// unobservedColor is the ring of a row its aspect never observed: grey, as
// a row without a value.
var unobservedColor = missing

// unobservedLegend is the legend entry of n rows their aspect never
// observed.
func unobservedLegend(n int) legendItem {
	return legendItem{fmt.Sprintf("not observed (%d)", n), draw.GlyphStyle{Color: unobservedColor, Radius: vg.Points(3.5), Shape: draw.RingGlyph{}}}
}
