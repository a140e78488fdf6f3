// Package lsp holds the two control-point baselines that the cKPCA paper
// compares with, named apart because they are different methods:
//
//   - Linear: the minimum-norm linear map through the control points,
//     P = pinv(X_cp)·Y (so that X_cp·P = Y when the control rows are
//     linearly independent), the "LSP" of the InVis tool (Paurat & Gärtner
//     2013) that the cKPCA paper's Table 1 uses. It is a linear model and can
//     place new rows.
//   - Laplacian: the Least Square Projection of Paulovich et al. (2008):
//     every row sits at the weighted mean of its k nearest neighbours
//     (weights 1/(distance + 1e-5), normalised per row) and the control rows
//     at their targets, solved in the least-squares sense,
//     min Σᵢ ‖eᵢ − Σⱼ wᵢⱼ eⱼ‖² + Σ_cp ‖e_cp − y_cp‖², by conjugate gradients on
//     the normal equations. It depends on the neighbour graph, so it has no
//     model for new rows.
//
// Distances are Euclidean on the rows as given (callers standardise).
//
// # Stage
//
// Stage is the lsp stage of the transforms contract: it reads the feature
// table "in" through transforms.Env.ReadFeatures (standardised by default,
// constant columns dropped with a warning), the control points from the
// control columns or the "control-table" input exactly as the ckpca stage
// does (ckpca.ControlSelection, ckpca.ReadControl), fits the chosen
// Options.Variant (linear by default), and writes the embedding "out" and, for the linear map, the
// model "model-out" that apply uses. The linear map's embedding is the
// affine model's own placement of the raw kept features (not X·P, equal
// to rounding), exactly as apply places rows, so apply on the same rows is
// bit-identical to the stage's output.
//
// The stage and Laplacian share one Options struct, validated once
// (transforms.Run, or Laplacian's entry) against the ranges and values its
// tags declare; start from DefaultOptions. Tol and Threads are the
// library's: the stage runs the conjugate gradients to a relative residual
// of 1e-10 (the default) on the run's threads.
package lsp
