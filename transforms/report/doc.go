// Package report writes one self-contained HTML page about the outputs of
// ordinate stages: for each embedding its plot, parameters, figures and
// quality metrics (from the metrics tables among the files that name it);
// for a distance table a heat map ordered by class; for SCORE maps one
// panel per aspect with the aspect's δ. Rows placed into a fitted map by
// ordinate apply are drawn on that map's plot when the map is among the
// files: the apply output's model input records the run id of the fit that
// wrote the model, and the fitted embedding carries the same run id.
// Figures are inline SVG and the page loads nothing from elsewhere.
//
// # Stage
//
// Stage is the report stage (ordinate report): a variadic input role "in"
// (the CLI takes the tables as arguments) and the file output "out". Every
// table is shown by the kind its provenance records; nothing is guessed from
// column names. A table without a recorded kind gets its schema and
// provenance only, with a note. The page is built with html/template, so
// every text taken from the tables is escaped.
package report
