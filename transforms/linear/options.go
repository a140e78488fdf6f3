package linear

import (
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/statfit"
)

// PCAOptions are the options of PCAStage. PCA itself takes only the
// output dimension.
type PCAOptions struct {
	transforms.Columns
	// Order is the order of the label's classes, recorded for plot and
	// report (PCA itself ignores the labels).
	Order []string `opt:"order" help:"class order of the label as a comma list, recorded so that plot and report colour the classes in this order with an ordered palette (PCA itself ignores the label; needs label)"`
	Dims  int      `opt:"dims" range:"[1,)" help:"output dimensions, at most the number of features"`
	transforms.Standardization
	statfit.Streaming
}

// DefaultPCAOptions returns the defaults: 2 dimensions of the standardised
// features.
func DefaultPCAOptions() PCAOptions {
	return PCAOptions{Columns: transforms.DefaultColumns(), Dims: 2, Standardization: transforms.Standardization{Standardize: true},
		Streaming: statfit.DefaultStreaming()}
}

// LDAOptions are the options of LDAStage and of LDA, which uses Dims and
// Shrinkage.
type LDAOptions struct {
	transforms.Columns
	Order []string `opt:"order" help:"class order as a comma list (default: ascending values, or byte order of text); fixes the sign of axis 1 (the last class on its positive side)"`
	Dims  int      `opt:"dims" range:"[1,)" help:"output dimensions, at most the number of features; axes beyond classes − 1 are filled with directions of largest variance, with a warning"`
	transforms.Standardization
	statfit.Streaming
	// Shrinkage is the ε added to the diagonal of S_w; 0 selects
	// 1e−6·trace(S_w)/D (see the package documentation).
	Shrinkage float64 `opt:"shrinkage" range:"[0,)" help:"ridge ε added to the within-class scatter; 0: 1e-6·trace/D"`
}

// DefaultLDAOptions returns the defaults: 2 dimensions of the standardised
// features, the automatic shrinkage.
func DefaultLDAOptions() LDAOptions {
	return LDAOptions{Columns: transforms.DefaultColumns(), Dims: 2, Standardization: transforms.Standardization{Standardize: true},
		Streaming: statfit.DefaultStreaming()}
}
