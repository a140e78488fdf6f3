// Package figure draws the pictures of embeddings with gonum/plot: scatter
// plots coloured by a category, a number or soft labels, small multiples
// with shared scales (one panel per facet value), and heat maps of distance
// matrices. It writes SVG (fonts embedded, so the file renders the same
// anywhere and needs no network) or PNG.
//
// Conventions:
//   - Categories use the Okabe–Ito palette (colour-blind safe), in the order
//     given (ordinal labels in their order); beyond eight categories the
//     colours repeat with a different glyph shape.
//   - Numbers use viridis (perceptually uniform, colour-blind safe) from the
//     smallest to the largest finite value, with a colour bar; a NaN value is
//     drawn grey.
//   - Soft labels mix the class colours by the weights (in sRGB), as in the
//     SoftClassNeRV paper's pictures; an unlabelled row is grey.
//   - Point radius and opacity fall with the number of points (PointStyle),
//     so that 100 points and 100,000 both read well.
//   - Rows placed into a fitted map (ordinate apply; Points.Placed) are
//     drawn over the map's dots as rings in their colour with a dark edge,
//     half as large again as the dots, on the same axes, with a legend
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
// embedding of rows placed into that map by ordinate apply, drawn over it
// (CheckPlaced says what it must be). Spec, PointsOf, PointsWithPlaced,
// ModelRun and Titles are the pieces the report stage shares.
package figure
