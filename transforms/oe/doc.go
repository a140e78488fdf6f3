// Package oe fits classic single-map ordinal embeddings to triplets: t-STE
// (van der Maaten and Weinberger 2012) and SOE (Terada and von Luxburg 2014),
// the "disjoint learning" baselines of Le and Lauw (IJCAI 2019).
//
// # Conventions
//
// A triplet ⟨i, j, k⟩ (a row of triplets.Table) says that j is more similar
// to i than to k, so its anchor is j: it is satisfied when d(j, i) < d(j, k),
// as in Eq. 1 of Le and Lauw. Below a = j is the anchor, b = i the near and
// c = k the far object. Y is row-major n×Dims; d is the plain Euclidean
// distance and d² its square.
//
// # Objectives
//
// t-STE: K_ab = (1 + d²_ab/α)^(−(α+1)/2), P = K_ab/(K_ab + K_ac),
// C = −Σ log P + λ‖Y‖². α = 0 (the default) means Dims − 1 (the MATLAB
// reference), and 1 when Dims = 1, where Dims − 1 = 0 is not a valid degree
// of freedom.
// With β_ab = 1/(1 + d²_ab/α) and c = (α+1)/α the gradient is
// ∂C/∂y_a = c(1−P)[β_ab(y_a−y_b) − β_ac(y_a−y_c)],
// ∂C/∂y_b = −c(1−P)β_ab(y_a−y_b), ∂C/∂y_c = c(1−P)β_ac(y_a−y_c), + 2λY.
// −log P is evaluated as softplus(log K_ac − log K_ab), which neither
// overflows nor loses precision for far-apart points.
//
// Costs are sums over triplets, not means. The λ term applies to both
// methods and defaults to 0.
//
// SOE: C = Σ max(0, d_ab + δ − d_ac)² + λ‖Y‖² on plain distances, margin
// δ = 0.1 by default. ∂d_ab/∂y_a = (y_a − y_b)/d_ab; at d_ab = 0 the norm
// is not differentiable and the zero vector (the minimum-norm subgradient)
// is used.
//
// # Optimisation
//
// Full batch L-BFGS with Options.Store (s, y) pairs of memory and a weak
// Wolfe bisection line search, at most MaxIter iterations; it stops earlier
// when the cost has not decreased by more than Tol·|C| over 10 iterations,
// when ‖∇C‖∞ ≤ 1e-12, or when the line search fails (near a
// minimum, in floating point); Result.Status says which. The optimiser is
// local to this package because gonum's optimize package imports a module
// (golang.org/x/tools, through stat/distmv) that go.sum does not hold.
//
// Initial points are N(0, s²) with s = InitScale: by default 1e-4 for
// t-STE (the MATLAB tste.m default) and 1 for SOE (the R loe and cblearn
// default). The generator is rand.NewPCG(Seed, 0) for a single map and
// rand.NewPCG(Seed, t+1) for aspect t in PerAspect.
//
// # Determinism and cost
//
// Each evaluation splits the triplets into at most 16 fixed chunks (their
// bounds depend only on the number of triplets), computes each chunk's cost
// and gradient into its own buffer on Threads goroutines, and sums the
// chunks in chunk order. Results are therefore bit-identical for every
// thread count. An evaluation costs O(T·Dims) time and O(16·n·Dims) memory.
//
// # Options
//
// Each method has one options struct, used by its stage and its function
// alike: TSTEOptions (TSTEStage, TSTE) and SOEOptions (SOEStage, SOE), both
// embedding the shared Options; PerAspect takes either (a pointer). Start
// from DefaultTSTEOptions or DefaultSOEOptions: every field is set there,
// and a zero field is not a default (only t-STE's α = 0 has a meaning).
// Lambda, InitScale, Tol, Store, Threads and Progress are the library's
// alone; the stages leave them at their defaults.
//
// # Errors
//
// Bad triplets give a *TripletError (wrapping triplets.ErrTriplet); an
// option out of its range is a *transforms.OptionError naming it (TSTE,
// SOE and PerAspect check the options with transforms.Validate at entry);
// no triplets (or an aspect without triplets in PerAspect) wraps
// ErrNoTriplets; cancellation returns ctx.Err(). The sentinels are invalid
// data.
//
// # Stage
//
// TSTEStage and SOEStage are the tste and soe stages: they read a triplet
// table (role "in", optionally "objects") with triplets.ReadFit, fit one map
// or, with --per-aspect, one independent map per aspect, and write a
// table.Maps table ("out": aspect, id, emb_*; aspect "all" for the single
// map). Progress is one phase per map, "optimising" or, with --per-aspect,
// "optimising aspect a/A", with --max-iter as its total and an Add per
// L-BFGS iteration (fewer when the optimisation converges early). The
// figures are objects, triplets, and the cost, iterations and status of the
// map, or lists of them by aspect with --per-aspect.
package oe
