package figure

import (
	"bytes"
	"strings"
	"testing"
)

// TestScatterControl checks the control points' marks: one black-edged
// diamond per control point in its panel, and one in the legend with the
// count, for every kind of colouring.
func TestScatterControl(t *testing.T) {
	p := testPoints()
	control := make([]bool, len(p.X))
	for _, i := range []int{0, 1, 2, 5} {
		control[i] = true
	}
	for _, tc := range []string{"category", "value", "soft", "facets", "none"} {
		q := only(p, tc)
		q.Control = control
		var buf bytes.Buffer
		if err := Scatter(&buf, "svg", q, Style{NoFontEmbedding: true}); err != nil {
			t.Fatalf("%s: %v", tc, err)
		}
		svg := buf.String()
		if !strings.Contains(svg, ">control point (4)<") {
			t.Errorf("%s: no legend entry for the control points", tc)
		}
		if got := strings.Count(svg, diamondEdge); got != 5 {
			t.Errorf("%s: %d diamond edges, want 4 control points and the legend's", tc, got)
		}
	}
	q := only(p, "category")
	q.Control = control[:3]
	if err := Scatter(&bytes.Buffer{}, "svg", q, Style{}); err == nil {
		t.Error("3 control flags for 150 points: no error")
	}
}

// diamondEdge is how the SVG strokes a control point's edge.
const diamondEdge = `stroke:#000000;stroke-width:0.9"`
