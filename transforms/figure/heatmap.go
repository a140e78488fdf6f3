package figure

import (
	"fmt"
	"image"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ordinate/ordinate/transforms"
)

// HeatMap draws the n×n row-major matrix d (e.g. distances, rows already
// ordered by class) as an image in viridis, with lines between the groups
// (group[i] is row i's class; consecutive equal values form a block) and
// a colour bar. NaN cells are grey.
func HeatMap(w io.Writer, format string, d []float64, n int, group []string, o Style) error {
	if err := transforms.Validate(&o); err != nil {
		return err
	}
	if n < 1 || len(d) != n*n || (group != nil && len(group) != n) {
		return fmt.Errorf("%w: %d values and %d groups for a %d×%d matrix", ErrInput, len(d), len(group), n, n)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range d {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if lo > hi {
		lo, hi = 0, 1
	}
	if lo == hi {
		hi = lo + 1
	}
	cmap := &viridis{min: lo, max: hi}
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	for i := range n {
		for j := range n {
			v := d[i*n+j]
			c := missing
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				c = cmap.nrgba(v)
			}
			img.SetNRGBA(j, i, c) // row i at the top
		}
	}
	width, height := o.size()
	if width == 0 {
		width = 14 * vg.Centimeter
	}
	if height == 0 {
		height = width * 0.85
	}
	pl := newPlot()
	pl.Add(plotter.NewImage(img, 0, 0, float64(n), float64(n)))
	pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = 0, float64(n), 0, float64(n)
	pl.X.Label.Text, pl.Y.Label.Text = o.XLabel, o.YLabel
	var ticks []plot.Tick
	for start := 0; start < n && group != nil; {
		end := start
		for end < n && group[end] == group[start] {
			end++
		}
		mid := float64(start+end) / 2
		ticks = append(ticks, plotTick(mid, group[start]))
		if start > 0 {
			for _, line := range [][2]plotter.XY{{{X: float64(start), Y: 0}, {X: float64(start), Y: float64(n)}},
				{{X: 0, Y: float64(n - start)}, {X: float64(n), Y: float64(n - start)}}} {
				l, _ := plotter.NewLine(plotter.XYs{line[0], line[1]})
				l.Color = okabeIto[7]
				l.Width = vg.Points(0.6)
				pl.Add(l)
			}
		}
		start = end
	}
	if ticks != nil {
		pl.X.Tick.Marker = fixedTicks(ticks)
		yt := make([]plot.Tick, len(ticks))
		for k, t := range ticks {
			yt[k] = plotTick(float64(n)-t.Value, t.Label)
		}
		pl.Y.Tick.Marker = fixedTicks(yt)
	}
	canvas, finish, err := newCanvas(w, format, width, height, !o.NoFontEmbedding)
	if err != nil {
		return err
	}
	dc := drawTitles(draw.New(canvas), o)
	side := 3 * vg.Centimeter
	drawSide(draw.Crop(dc, dc.Max.X-dc.Min.X-side, 0, 0, 0), &painter{cmap: cmap}, o.ColorLabel)
	pl.Draw(draw.Crop(dc, 0, -side, 0, 0))
	return finish()
}

func plotTick(v float64, label string) plot.Tick { return plot.Tick{Value: v, Label: label} }

// fixedTicks is a plot.Ticker that returns its ticks.
type fixedTicks []plot.Tick

func (t fixedTicks) Ticks(_, _ float64) []plot.Tick { return t }
