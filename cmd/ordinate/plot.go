package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/plot/vg"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/figure"
)

func plotCommand() *cli.Command {
	return &cli.Command{
		Name:  "plot",
		Usage: "scatter plot of an embedding table, PNG or SVG by the output's extension",
		UsageText: `ordinate plot --in E [--color COL | --soft-labels 'p_*'] [--facet COL] --out fig.svg|fig.png

Draws --y against --x (default emb_1 against emb_0). --color colours by a column: text,
booleans and integer labels with up to 12 values get a colour-blind-safe palette and
a legend (numbers in ascending order, text in order of appearance, or --order a,b,c);
other numbers a continuous colour map (viridis) with a colour bar (--color-scale
forces either). --soft-labels mixes the class colours by the weights. --facet draws
one panel per value with shared scales (SCORE maps: --facet aspect). The title and
subtitle come from the file's ordinate metadata unless given. SVG output embeds its
fonts, so it renders the same anywhere.

Examples:
   ordinate plot --in thyroid-bvp.parquet --color label --out bvp.svg
   ordinate plot --in fc-softclassnerv.parquet --soft-labels 'p_*' --out soft.png
   ordinate plot --in zoo-score-maps.parquet --facet aspect --color label --out maps.svg`,
		Flags: append([]cli.Flag{
			flagIn,
			&cli.StringFlag{Name: "out", Usage: "output figure: .svg or .png", Required: true},
			&cli.StringFlag{Name: "x", Value: "emb_0", Usage: "column on the horizontal axis"},
			&cli.StringFlag{Name: "y", Value: "emb_1", Usage: "column on the vertical axis"},
			&cli.StringFlag{Name: "color", Usage: "column to colour the points by"},
			&cli.StringFlag{Name: "order", Usage: "order of the colour categories, comma list"},
			&cli.StringFlag{Name: "color-scale", Value: "auto", Usage: "auto, categorical or continuous"},
			&cli.StringFlag{Name: "soft-labels", Usage: "soft-label columns (names and globs) to mix class colours"},
			&cli.StringFlag{Name: "facet", Usage: "column with one panel per value"},
			&cli.StringFlag{Name: "facet-order", Usage: "order of the panels, comma list"},
			&cli.StringFlag{Name: "title", Usage: "title (default: the stage from the file's metadata)"},
			&cli.StringFlag{Name: "subtitle", Usage: "subtitle (default: file, rows and key parameters)"},
			&cli.Float64Flag{Name: "width", Value: 16, Usage: "width in cm"},
			&cli.Float64Flag{Name: "height", Usage: "height in cm (default: by the panels)"},
			flagOnInvalid,
		}, flagQuiet, flagLogFormat),
		Action: action(runPlot),
	}
}

func runPlot(c *cli.Context) error {
	e, err := newEnv(c, "plot")
	if err != nil {
		return err
	}
	in, out := c.String("in"), c.String("out")
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(out)), ".")
	if format != "svg" && format != "png" {
		return usagef("--out %s: the extension must be .svg or .png", out)
	}
	if err := checkOutFile(in, out); err != nil {
		return err
	}
	if c.String("color") != "" && c.String("soft-labels") != "" {
		return usagef("give --color or --soft-labels, not both")
	}
	sel, err := selection(c)
	if err != nil {
		return err
	}
	spec := transforms.PlotSpec{
		X: c.String("x"), Y: c.String("y"), Color: c.String("color"), Order: splitList(c.String("order")),
		ColorScale: c.String("color-scale"), SoftLabels: splitList(c.String("soft-labels")),
		Facet: c.String("facet"), FacetOrder: splitList(c.String("facet-order")), OnInvalid: sel.OnInvalid,
	}
	pts, info, err := transforms.LoadPoints(e.ctx, in, spec, arrowio.WithStdin(e.stdin))
	if err != nil {
		return badInput(err)
	}
	title, subtitle := transforms.FigureTitles(in, info)
	if c.IsSet("title") {
		title = c.String("title")
	}
	if c.IsSet("subtitle") {
		subtitle = c.String("subtitle")
	}
	o := figure.Options{Title: title, Subtitle: subtitle, XLabel: spec.X, YLabel: spec.Y, ColorLabel: spec.Color,
		Width: vg.Length(c.Float64("width")) * vg.Centimeter, Height: vg.Length(c.Float64("height")) * vg.Centimeter}
	if o.XLabel == "" {
		o.XLabel, o.YLabel = "emb_0", "emb_1"
	}
	var buf bytes.Buffer
	if err := figure.Scatter(&buf, format, pts, o); err != nil {
		return badInput(err)
	}
	if err := arrowio.WriteFileAtomic(out, buf.Bytes()); err != nil {
		return runtimeError{err}
	}
	e.log.Info(fmt.Sprintf("plot: %d points -> %s", len(pts.X), out))
	return nil
}
