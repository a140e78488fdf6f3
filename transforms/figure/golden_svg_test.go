package figure

import (
	"bytes"
	"strings"
	"testing"
)

// marksPoints are 30 points in three ordered classes with every mark:
// control points, unobserved rows, unmatched rows and placed rows.
func marksPoints() *Points {
	p := only(testPoints(), "category")
	const n = 30
	p.X, p.Y, p.Category = p.X[:n], p.Y[:n], p.Category[:n]
	p.Ordinal = true
	p.Control, p.Unobserved, p.Unmatched = make([]bool, n), make([]bool, n), make([]bool, n)
	for _, i := range []int{0, 1, 2} {
		p.Control[i] = true
	}
	for _, i := range []int{3, 7, 11} {
		p.Unobserved[i] = true
	}
	p.Unmatched[4] = true
	p.UnmatchedLegend = "not in attrs.csv (1)"
	return p
}

// TestMarksGolden compares the SVG of the marks, text for text, with the
// files in testdata (regenerate with go test -update after a deliberate
// change): SVG output is deterministic.
func TestMarksGolden(t *testing.T) {
	for _, tc := range []struct {
		name   string
		points func() *Points
	}{
		{"ordinal", func() *Points { p := marksPoints(); p.Control, p.Unobserved, p.Unmatched = nil, nil, nil; return p }},
		{"control", func() *Points { p := marksPoints(); p.Unobserved, p.Unmatched = nil, nil; return p }},
		{"unobserved", func() *Points { p := marksPoints(); p.Control, p.Unmatched = nil, nil; return p }},
		{"unmatched", func() *Points { p := marksPoints(); p.Control, p.Unobserved = nil, nil; return p }},
		{"all marks", func() *Points {
			p := marksPoints()
			p.Placed = &Points{X: []float64{1, 4}, Y: []float64{0, 2}, Category: []string{"low", "high"}}
			return p
		}},
	} {
		var buf bytes.Buffer
		o := Style{Title: tc.name, ColorLabel: "prognosis_class_after_treatment", Width: 12,
			Height: 8, NoFontEmbedding: true}
		if err := Scatter(&buf, "svg", tc.points(), o); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		goldenText(t, "marks-"+strings.ReplaceAll(tc.name, " ", "-")+".svg", buf.Bytes())
	}
}

// goldenText compares got with the file testdata/name exactly, or writes
// it with -update.
func goldenText(t *testing.T, name string, got []byte) {
	t.Helper()
	compareGolden(t, name, got, "SVG", func(got, want []byte) (bool, error) { return bytes.Equal(got, want), nil })
}
