// Package report writes one self-contained HTML page about the outputs of
// ordinate stages, laid out for a reader comparing methods.
//
// The page opens on a table of contents (every section has a stable id
// from its file name) and a summary: one table of every embedding (and
// SCORE/OE maps) side by side, grouped by the data they were fitted on,
// traced back through the tables of the report (a t-SNE of Fisher
// distances belongs with the similarity data the distances came from):
// method, key parameters as the run resolved them (a resolved γ, not the
// 0 given; bvp's solver, lda's shrinkage as used; for a fit on a feature
// table, whether it standardized the features), N, the stage's run time from its provenance, and the headline
// metrics (trustworthiness, continuity, k-NN accuracy at one k per group,
// 10 when computed; ordinal ρ; hidden-triplet accuracy), the best value of
// each column within a group marked, with a sentence per group naming the
// embedding that kept the neighbourhoods best and the one that kept the
// classes best.
//
// Sections follow the pipeline (see phase): inputs (triplets, splits),
// fits (embeddings, maps, distances), placements (apply outputs whose map
// is not among the files), metrics (metrics tables whose table is not),
// other tables. Each embedding gets its plot, parameters, figures and its
// metrics tables pivoted (a row per metric and subset, a column per k),
// each metrics table shown once, next to the table it scores (its input
// embedding or distances). A distance table gets a heat map ordered by
// class, its subtitle counting pairs and objects; SCORE maps one panel per aspect with the aspect's δ, and the
// objects an aspect never observed marked when the triplet table the maps
// were fitted on is among the files. Embeddings follow the stage's
// recorded class order and mark control points, as plot does. Rows placed
// into a fitted map by ordinate apply are drawn on that map's plot (as
// rings beneath its dots, see package figure) when
// the map is among the files: the apply output's model input records the
// run id of the fit that wrote the model, and the fitted embedding carries
// the same run id. Model files are listed in one table, not drawn.
//
// Figures are drawn at the page's content width and scale with it; up to
// 20,000 points as inline SVG, above that as a PNG embedded as a data: URI
// (an SVG would grow by about 130 bytes a point). The page loads nothing
// from elsewhere.
//
// # Stage
//
// Stage is the report stage (ordinate report): a variadic input role "in"
// (the CLI takes the tables as arguments) and the file output "out". Every
// table is shown by the kind its provenance records; nothing is guessed from
// column names. A table without a recorded kind gets its schema and
// provenance only, with a note. The page is built with html/template, so
// every text taken from the tables is escaped. Its one option is the page
// title (Options; DefaultOptions: "ordinate report"; an empty title is
// refused). The figures are drawn with package figure's Scatter and heat
// maps at the report's own Style (width in cm, fonts set once in the
// page's CSS).
package report
