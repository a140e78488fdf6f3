package figure

import (
	"fmt"
	"image/color"
	"math"
	"testing"
)

// luminance is the relative luminance of c (WCAG): the lightness order of
// colours.
func luminance(c color.NRGBA) float64 {
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// TestOrdinalColor checks that ordered levels get colours that grow
// lighter with the level, all distinct, none as light as viridis' yellow.
func TestOrdinalColor(t *testing.T) {
	yellow := luminance((&viridis{min: 0, max: 1}).nrgba(1))
	for _, n := range []int{2, 3, 5, 9} {
		prev := -1.0
		for k := range n {
			l := luminance(OrdinalColor(k, n))
			if l <= prev {
				t.Errorf("%d levels: level %d has luminance %.3f, not above level %d's %.3f", n, k, l, k-1, prev)
			}
			if l > 0.75*yellow {
				t.Errorf("%d levels: level %d has luminance %.3f, too light (yellow is %.3f)", n, k, l, yellow)
			}
			prev = l
		}
	}
}

// TestLevelColor checks which palette a level takes: ordered levels the
// ordinal one with dots, others Okabe–Ito, whose glyph changes after the
// eighth colour.
func TestLevelColor(t *testing.T) {
	for _, tc := range []struct {
		name    string
		k, n    int
		ordinal bool
		want    color.NRGBA
		glyph   string
	}{
		{"first ordinal", 0, 5, true, OrdinalColor(0, 5), "draw.CircleGlyph"},
		{"ninth ordinal", 8, 12, true, OrdinalColor(8, 12), "draw.CircleGlyph"},
		{"first category", 0, 5, false, okabeIto[0], "draw.CircleGlyph"},
		{"ninth category", 8, 12, false, okabeIto[0], "draw.TriangleGlyph"},
	} {
		c, g := levelColor(tc.k, tc.n, tc.ordinal)
		if c != tc.want || typeName(g) != tc.glyph {
			t.Errorf("%s: %v %s, want %v %s", tc.name, c, typeName(g), tc.want, tc.glyph)
		}
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
