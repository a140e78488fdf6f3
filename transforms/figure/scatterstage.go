package figure

import (
	"bytes"
	"context"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// drawScatter draws the embedding or maps table r (provenance prov, nil
// when none) as the plot stage's scatter plot into buf: the colouring (its
// own column, or a joined table's), the placed rows, and the marks of
// control points and of objects an aspect never observed.
func drawScatter(ctx context.Context, env *transforms.Env, opts *Options, r arrowio.Reader, prov *arrowio.Provenance,
	format string, fo Style, buf *bytes.Buffer) error {
	kind := ""
	if prov != nil {
		kind = prov.Kind
	}
	var err error
	if kind == "" {
		env.Log.Info("the table records no kind: drawing its columns " + opts.X + " and " + opts.Y)
	}
	spec := opts.Spec
	spec.Order, spec.SoftLabels, spec.FacetOrder = nilIfEmpty(spec.Order), nilIfEmpty(spec.SoftLabels), nilIfEmpty(spec.FacetOrder)
	if kind == table.Maps && spec.Facet == "" {
		spec.Facet = "aspect"
	}
	// An order given here is an order of the levels, as a recorded one.
	spec.Ordinal = spec.Order != nil
	spec = spec.WithProvenance(r.Schema(), prov).WithControlTable(ctx, r.Schema(), prov, env.Mem)
	switch opts.Palette {
	case PaletteOrdinal:
		spec.Ordinal = true
	case PaletteCategorical:
		spec.Ordinal = false
	}
	joined := env.Has("join")
	var inID, joinID string
	if joined {
		if opts.Color == "" || opts.On == "" {
			return transforms.Optionf("join", "give --color, a column of the joined table, and --on, the id column to match")
		}
		if env.Has("placed") {
			return transforms.Optionf("join", "join does not colour placed rows yet: give one of join and placed")
		}
		if inID, joinID, err = joinKeys(opts.On); err != nil {
			return err
		}
		if !r.Schema().HasField(inID) {
			return transforms.Optionf("on", "%s has no id column %q (it has %s)", r.Source().Path, inID, fieldNames(r.Schema()))
		}
		spec.Color = "" // not a column of the drawn table
	}
	sel := spec.Selection()
	if joined {
		sel.ID = inID
	}
	if env.Has("triplets") {
		if kind != table.Maps {
			return transforms.Optionf("triplets", "%s is not a maps table: triplets mark the objects an aspect never observed in SCORE or OE maps", r.Source().Path)
		}
		if spec.Facet != "aspect" {
			return transforms.Optionf("triplets", "the panels must be the aspects (facet aspect, the default) to mark what each aspect never observed")
		}
		if joined && inID != "id" {
			return transforms.Optionf("on", "with triplets the maps are matched on their column id, not %q", inID)
		}
		sel.ID = "id"
	}
	f, err := env.ReadFrom(ctx, "in", r, sel)
	if err != nil {
		return err
	}
	defer f.Release()
	var pts *Points
	var unmatched []bool
	var joinPath string
	if joined {
		if unmatched, joinPath, err = joinColour(ctx, env, f, opts.Color, joinID); err != nil {
			return err
		}
		spec.Color = opts.Color
	}
	if env.Has("placed") {
		pts, err = readPlaced(ctx, env, r.Schema(), prov, f, spec)
	} else {
		pts, err = PointsOf(f, spec)
	}
	if err != nil {
		return err
	}
	if joined {
		if err := markUnmatched(pts, unmatched, spec.Order, joinPath); err != nil {
			return err
		}
		if k := len(flagged(unmatched, seq(0, len(unmatched)))); k > 0 {
			env.Warn("%d of %d rows of %s have no row in %s (matched on %s): drawn grey", k, len(unmatched), f.Source.Path, joinPath, opts.On)
		}
	}
	if env.Has("triplets") {
		if err := readObserved(ctx, env, prov, f, pts); err != nil {
			return err
		}
	}
	settitles(&fo, f, prov)
	fo.XLabel, fo.YLabel, fo.ColorLabel = f.FeatureNames[0], f.FeatureNames[1], spec.Color
	drawn := len(pts.X)
	if pts.Placed != nil {
		drawn += len(pts.Placed.X)
	}
	env.Progress.Start("drawing", int64(drawn))
	err = Scatter(buf, format, pts, fo)
	env.Progress.Finish()
	if err != nil {
		return err
	}
	env.Figure("points", len(pts.X))
	if pts.Placed != nil {
		env.Figure("placed", len(pts.Placed.X))
	}
	if n := len(flagged(pts.Unobserved, seq(0, len(pts.X)))); pts.Unobserved != nil {
		env.Figure("unobserved", n)
	}
	if pts.Control != nil {
		env.Figure("control_points", len(flagged(pts.Control, seq(0, len(pts.X)))))
	}
	return nil
}
