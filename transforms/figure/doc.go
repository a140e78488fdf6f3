// Package figure draws the pictures of embeddings with gonum/plot: scatter
// plots coloured by a category, a number or soft labels, small multiples
// with shared scales (one panel per facet value), and heat maps of distance
// matrices. It writes SVG (fonts embedded, so the file renders the same
// anywhere and needs no network) or PNG.
//
// Conventions:
//   - Ordered categories (ordinal labels) are drawn in their order with
//     viridis sampled at evenly spaced points from its dark end to 85 % of
//     the way (the yellow beyond is too light on white), so that colour
//     lightness follows the order (OrdinalColor). The order is known when
//     it is given (plot --order) or recorded: the label column's class
//     order in the provenance of an ordinal stage (bvp) or of a stage given
//     --order (RecordedOrder, Spec.WithProvenance), or declared: a colour
//     column that is an ordered dictionary (a pandas ordered Categorical)
//     in the order of its dictionary; plot --palette categorical or
//     ordinal overrides the choice.
//   - Other categories use the Okabe–Ito palette (colour-blind safe), in
//     the order given or of first appearance (numbers ascending); beyond
//     eight categories the colours repeat with another glyph shape
//     (triangle, box, plus, cross, ring), so 48 stay apart.
//   - Numbers use viridis (perceptually uniform, colour-blind safe) from the
//     smallest to the largest finite value, with a colour bar; a NaN value is
//     drawn grey.
//   - Soft labels mix the class colours by the weights (in sRGB), as in the
//     SoftClassNeRV paper's pictures; an unlabelled row is grey.
//   - The legend strip is as wide as its widest entry and its title; a
//     title wider than 4.5 cm is wrapped after "_", "." or "-" or at a
//     space, so that it is never clipped.
//   - Control points (cKPCA, LSP: Points.Control, from the columns the
//     stage's option control names, or from the ids of the control table
//     the provenance records, Spec.WithControlTable) are drawn over the dots as diamonds in
//     their colour with a black edge, with a legend entry
//     "control point (N)".
//   - In SCORE or OE maps, the objects an aspect never observed
//     (Points.Unobserved; ReadObserved reads them from the triplet table the
//     maps were fitted on, since the maps table does not record them) are
//     grey rings, with a legend entry "not observed (N)".
//   - Point radius and opacity fall with the number of points (PointStyle),
//     so that 100 points and 100,000 both read well.
//   - Rows placed into a fitted map (ordinate apply; Points.Placed) are
//     drawn as thin rings in their colour with a dark edge, a third larger
//     than the dots and beneath them (the map stays visible; a ring shows
//     around the dot it circles), on the same axes, with a legend
//     entry "placed (N rows)"; placed rows without the colour column are
//     grey (vermillion when nothing is coloured).
//
// # Stage
//
// Stage is the plot stage (ordinate plot): input role "in", file output
// "out". It reads the table by the kind its provenance records: an
// embedding or SCORE maps become a scatter plot (maps one panel per aspect),
// a long distance table a heat map; a table that records no kind is drawn as
// a scatter plot of the columns x and y. The optional input "placed" is an
// embedding of rows placed into that map by ordinate apply, drawn on it
// (CheckPlaced says what it must be); the optional input "triplets" marks
// what each aspect of SCORE maps never observed; the optional input "join"
// is a table whose column colours the points, matched on an id (rows
// without a match grey, with a legend entry). The subtitle shows the parameters the
// run resolved (γ from the median rule, dims) rather than their "from the
// data" defaults, and leaves out those the kernel does not read. Spec, PointsOf, PointsWithPlaced,
// ModelRun and Titles are the pieces the report stage shares.
//
// # Options
//
// The stage's Options embed the two structs the library reads: Spec (the
// columns drawn: x, y, color, order, color-scale, soft-labels, facet,
// facet-order, on-invalid) and Style (the texts and size that Scatter,
// HeatMap and DistanceHeatMap take: title, subtitle, width and height in
// cm, and the library's axis labels and font embedding), with palette, on
// and format beside them; so one declaration gives the flags, and the
// stage hands its Spec and Style to the library as they are. DefaultOptions
// holds the defaults (16 cm wide, height by the panels, everything else
// auto). A width or height of 0 is by the figure: a scatter plot 16 cm
// wide, or 5 cm per column of panels when wider, a heat map 14 cm. The
// drawing functions validate their Style (transforms.Validate); a Spec
// built in code may leave X, Y, ColorScale and OnInvalid zero (emb_0,
// emb_1, auto, error).
package figure
