package figure

import (
	"image/color"

	"gonum.org/v1/plot/vg/draw"
)

// Okabe–Ito: eight colours distinguishable with the common colour-vision
// deficiencies (Okabe & Ito 2008), black moved last.
var okabeIto = []color.NRGBA{
	{0xE6, 0x9F, 0x00, 0xff}, {0x56, 0xB4, 0xE9, 0xff}, {0x00, 0x9E, 0x73, 0xff}, {0xF0, 0xE4, 0x42, 0xff},
	{0x00, 0x72, 0xB2, 0xff}, {0xD5, 0x5E, 0x00, 0xff}, {0xCC, 0x79, 0xA7, 0xff}, {0x00, 0x00, 0x00, 0xff},
}

// CategoryColor returns the palette colour and glyph of category k.
func CategoryColor(k int) (color.NRGBA, draw.GlyphDrawer) {
	return okabeIto[k%len(okabeIto)], glyphShapes[(k/len(okabeIto))%len(glyphShapes)]
}

// ordinalTop is the highest viridis position ordinal levels use: above it
// the yellow is too light to see on white.
const ordinalTop = 0.85

// OrdinalColor returns the colour of level k of n ordered levels: viridis
// at evenly spaced positions from 0 (dark blue) to ordinalTop (green), so
// that the colours are ordered in lightness as the levels are.
func OrdinalColor(k, n int) color.NRGBA {
	t := ordinalTop / 2
	if n > 1 {
		t = ordinalTop * float64(k) / float64(n-1)
	}
	return (&viridis{min: 0, max: 1}).nrgba(t)
}

// levelColor is the colour and glyph of level k of n: OrdinalColor and a
// dot for ordered levels, CategoryColor otherwise.
func levelColor(k, n int, ordinal bool) (color.NRGBA, draw.GlyphDrawer) {
	if ordinal {
		return OrdinalColor(k, n), draw.CircleGlyph{}
	}
	return CategoryColor(k)
}

// Palette is how categories are coloured: auto (ordinal when their order
// is given or recorded, categorical otherwise), ordinal or categorical.
type Palette string

// The palettes.
const (
	PaletteAuto        Palette = "auto"
	PaletteOrdinal     Palette = "ordinal"
	PaletteCategorical Palette = "categorical"
)

// Values lists the palettes.
func (Palette) Values() []string { return []string{"auto", "ordinal", "categorical"} }
