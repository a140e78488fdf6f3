package fisher

import (
	"context"
	"fmt"
	"runtime"

	"github.com/ordinate/ordinate/transforms"
)

// reserve checks the plan of the path sums on n objects of k classes with
// the options o against the memory the run may use (transforms.Reserve),
// before they allocate: all pairs hold T+4 n×n work arrays (X_0 … X_T, H,
// s and E) beside the output, its f₀ and the squared distances; the
// sparse mode (neighbors) holds the n×n kernel and, per worker, sums of
// T+1 steps per class. The steps option drives both: a plan that does not
// fit is an error of option steps.
func reserve(ctx context.Context, n, k int, o Options) error {
	T := o.Steps
	if o.Neighbors > 0 {
		workers := o.Threads
		if workers <= 0 {
			workers = runtime.GOMAXPROCS(0)
		}
		need := 3*transforms.Float64Bytes(n, n) + float64(workers)*transforms.Float64Bytes(T+1, 2*k+3)
		return transforms.ReserveOption(ctx, "steps", need,
			fmt.Sprintf("the sparse path sums of %s objects over %s steps", transforms.Thousands(int64(n)), transforms.Thousands(int64(T))),
			"use fewer steps")
	}
	need := transforms.Float64Bytes(T+8, n, n)
	return transforms.ReserveOption(ctx, "steps", need,
		fmt.Sprintf("the path sums' %s n×n tables at N = %s", transforms.Thousands(int64(T+8)), transforms.Thousands(int64(n))),
		"use fewer steps, or neighbors K (the sparse mode; with in, the local mode builds no N×N array), or fewer objects")
}

// reserveDense checks the plan of all pairs of n objects before their n×n
// matrix is built: the path sums' (reserve), or for the kernel metric the
// matrix and its squared distances.
func reserveDense(ctx context.Context, n, k int, o Options) error {
	if o.Metric == MetricKernel {
		return transforms.Reserve(ctx, transforms.Float64Bytes(2, n, n),
			fmt.Sprintf("the kernel matrix and distances of %s objects", transforms.Thousands(int64(n))),
			"use neighbors K (with in: the local mode, no N×N array), or fewer objects")
	}
	return reserve(ctx, n, k, o)
}
