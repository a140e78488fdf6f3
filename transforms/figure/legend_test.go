package figure

import (
	"bytes"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// TestLegendTitle checks that the legend's title is drawn whole: every
// character kept, every line inside the legend strip (it starts 1 mm in),
// and a long name wrapped at its underscores rather than widening the
// strip without end.
func TestLegendTitle(t *testing.T) {
	st := textStyle(vg.Points(9))
	for _, tc := range []struct {
		name, label string
		lines       int
	}{
		{"short", "label", 1},
		{"issue 17's", "prog_class", 1},
		{"long with underscores", "prognosis_class_after_treatment_of_the_patient", 2},
		{"long without breaks", "prognosisclassaftertreatmentofthepatient", 1},
	} {
		p := &Points{X: []float64{0, 1}, Y: []float64{0, 1}, Category: []string{"a", "b"}}
		pt, err := newPainter(p)
		if err != nil {
			t.Fatal(err)
		}
		strip := sideStrip(pt, tc.label)
		title := legendTitle(tc.label)
		lines := strings.Split(title, "\n")
		if strings.Join(lines, "") != tc.label || len(lines) != tc.lines {
			t.Errorf("%s: title drawn as %q, want %q on %d lines", tc.name, title, tc.label, tc.lines)
		}
		for _, l := range lines {
			if w := vg.Millimeter + st.Width(l); w > strip {
				t.Errorf("%s: line %q is %.1f pt wide from the strip's edge, the strip %.1f pt", tc.name, l, w, strip)
			}
		}
		var buf bytes.Buffer
		if err := Scatter(&buf, "svg", p, Style{ColorLabel: tc.label, NoFontEmbedding: true}); err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			if !strings.Contains(buf.String(), ">"+l+"<") {
				t.Errorf("%s: the SVG lacks the title line %q", tc.name, l)
			}
		}
	}
}
