package figure

import (
	"image/color"
	"math"

	"gonum.org/v1/plot/palette"
)

// viridisAnchors are nine evenly spaced samples of matplotlib's viridis
// (van der Walt & Smith), interpolated linearly in sRGB.
var viridisAnchors = [][3]float64{
	{68, 1, 84}, {71, 44, 122}, {59, 81, 139}, {44, 113, 142}, {33, 144, 141},
	{39, 173, 129}, {92, 200, 99}, {170, 220, 50}, {253, 231, 37},
}

// viridis is a palette.ColorMap over [min, max].
type viridis struct {
	min, max float64
	alpha    float64 // 0 means opaque
}

// nrgba returns the colour of v, clamped to the range.
func (m *viridis) nrgba(v float64) color.NRGBA {
	t := 0.0
	if m.max > m.min {
		t = math.Min(1, math.Max(0, (v-m.min)/(m.max-m.min)))
	}
	f := t * float64(len(viridisAnchors)-1)
	k := min(int(f), len(viridisAnchors)-2)
	u := f - float64(k)
	a, b := viridisAnchors[k], viridisAnchors[k+1]
	mix := func(c int) uint8 { return uint8(math.Round(a[c] + u*(b[c]-a[c]))) }
	alpha := uint8(255)
	if m.alpha > 0 {
		alpha = uint8(math.Round(255 * m.alpha))
	}
	return color.NRGBA{mix(0), mix(1), mix(2), alpha}
}

// At implements palette.ColorMap.
func (m *viridis) At(v float64) (color.Color, error) {
	switch {
	case v < m.min:
		return nil, palette.ErrUnderflow
	case v > m.max:
		return nil, palette.ErrOverflow
	}
	return m.nrgba(v), nil
}

func (m *viridis) Max() float64       { return m.max }
func (m *viridis) SetMax(v float64)   { m.max = v }
func (m *viridis) Min() float64       { return m.min }
func (m *viridis) SetMin(v float64)   { m.min = v }
func (m *viridis) Alpha() float64     { return m.alpha }
func (m *viridis) SetAlpha(a float64) { m.alpha = a }

// Palette implements palette.ColorMap.
func (m *viridis) Palette(n int) palette.Palette {
	cs := make([]color.Color, n)
	for i := range cs {
		v := m.min
		if n > 1 {
			v += (m.max - m.min) * float64(i) / float64(n-1)
		}
		cs[i] = m.nrgba(v)
	}
	return plainPalette(cs)
}

type plainPalette []color.Color

func (p plainPalette) Colors() []color.Color { return p }
