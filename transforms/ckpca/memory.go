package ckpca

import (
	"fmt"

	"github.com/ordinate/ordinate/transforms"
)

// reserveFit checks the plan of the stage's fit on n rows of p features
// with kernel kind and the resolved fo against the memory the run may use
// (transforms.Reserve), before the feature map is built:
//
//   - a precomputed kernel, or a non-linear one (or the linear one on the
//     dual path): the n×n kernel matrix, the copy its eigendecomposition
//     works on, the eigenvectors, the feature map and its coefficients
//     (about 6·n² values at the peak);
//   - landmarks (Nyström): the m×m landmark kernel and its
//     eigendecomposition, the n×m feature map and the m×m coefficients;
//   - the linear kernel's primal path: the p×p covariance of the features
//     and the sphere problems solved on it (about 3·p²), beside the n×p
//     features;
//   - and the embedding, its coordinates and the model's coefficients,
//     which grow with the output dimensions.
//
// A plan driven by dims or landmarks is an error of that option.
func reserveFit(env *transforms.Env, n, p int, fo Options, kind KernelKind) error {
	if fo.Landmarks > n {
		return nil // the stage refuses more landmarks than rows
	}
	rows := transforms.Thousands(int64(n))
	var pairs float64
	var what, fix, option string
	switch {
	case kind == Precomputed:
		pairs = 6 * transforms.Float64Bytes(n, n)
		what = fmt.Sprintf("the precomputed kernel's N×N matrix and its eigendecomposition at N = %s", rows)
		fix = "use fewer rows"
	case fo.Landmarks > 0:
		m := fo.Landmarks
		pairs = 5*transforms.Float64Bytes(m, m) + 2*transforms.Float64Bytes(n, m)
		what = fmt.Sprintf("the Nyström feature map of %s landmarks at N = %s", transforms.Thousands(int64(m)), rows)
		fix, option = "use fewer landmarks", "landmarks"
	case kind == Linear && fo.Path != PathDual:
		pairs = 3*transforms.Float64Bytes(p, p) + transforms.Float64Bytes(n, p)
		what = fmt.Sprintf("the D×D covariance of %s features and its eigendecomposition", transforms.Thousands(int64(p)))
		fix = "use fewer features (each element of a list column is one), or --path dual when there are fewer rows than features"
	default:
		pairs = 6 * transforms.Float64Bytes(n, n)
		what = fmt.Sprintf("the %s kernel's N×N matrix and its eigendecomposition at N = %s", kind, rows)
		fix = "use --landmarks M (the Nyström approximation), or fewer rows"
	}
	maps := 3 * transforms.Float64Bytes(n+p, fo.Dims)
	if maps > pairs {
		return env.ReserveOption("dims", pairs+maps,
			fmt.Sprintf("an embedding of %s rows in %s dimensions with its coordinates and coefficients", rows, transforms.Thousands(int64(fo.Dims))),
			"use fewer dims")
	}
	if option != "" {
		return env.ReserveOption(option, pairs+maps, what, fix)
	}
	return env.Reserve(pairs+maps, what, fix)
}
