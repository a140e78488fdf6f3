// Package report writes one self-contained HTML page about the outputs of
// ordinate stages: for each embedding its plot, parameters, figures and
// quality metrics (from the metrics tables among the files that name it);
// for a distance table a heat map ordered by class; for SCORE maps one
// panel per aspect with the aspect's δ. Figures are inline SVG and the page
// loads nothing from elsewhere.
package report
