// Package all registers every ordinate stage and model kind with package
// transforms. Hosts import it for that effect alone:
//
//	import _ "github.com/ordinate/ordinate/transforms/all"
//
// after which transforms.Stages lists every stage and apply reads every
// model kind.
package all

import (
	_ "github.com/ordinate/ordinate/transforms/affine"
	_ "github.com/ordinate/ordinate/transforms/apply"
	_ "github.com/ordinate/ordinate/transforms/bvp"
	_ "github.com/ordinate/ordinate/transforms/ckpca"
	_ "github.com/ordinate/ordinate/transforms/figure"
	_ "github.com/ordinate/ordinate/transforms/fisher"
	_ "github.com/ordinate/ordinate/transforms/linear"
	_ "github.com/ordinate/ordinate/transforms/lsp"
	_ "github.com/ordinate/ordinate/transforms/nerv"
	_ "github.com/ordinate/ordinate/transforms/oe"
	_ "github.com/ordinate/ordinate/transforms/quality"
	_ "github.com/ordinate/ordinate/transforms/report"
	_ "github.com/ordinate/ordinate/transforms/score"
	_ "github.com/ordinate/ordinate/transforms/triplets"
	_ "github.com/ordinate/ordinate/transforms/tsne"
)
