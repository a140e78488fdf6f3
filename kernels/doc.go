// Package kernels holds the numeric building blocks that several transforms
// share: a deterministic chunked parallel-for, pairwise distances, exact
// k-nearest neighbours and neighbour ranks, a graph index for the nearest
// reference rows of new points (Index: approximate search, exact
// distances; t-SNE and NeRV placement share it through package
// placement), kernel (Gram) matrices (Kernel), perplexity calibration,
// spectrum corrections, symmetric eigensolvers, the FFT of t-SNE's
// interpolation (and of its placement field), and the Barnes–Hut tree
// (BHTree) over an embedding. It knows nothing of Arrow.
//
// Numerics that serve a single method live in that method's package: the
// t-SNE gradients and KL in transforms/tsne, the NeRV stresses (exact and
// Barnes–Hut) and the cell grid of its cutoff sums in transforms/nerv, the
// Fisher path sums in transforms/fisher and the sphere-constrained
// quadratic of cKPCA in transforms/ckpca. They
// follow the conventions below and build on the exported helpers here
// (SqDist, EmbedSqDist, CheckEmbedding, KernelSqDistRow, RowKNN, Grow).
//
// # Conventions
//
// Point sets are plain row-major []float64 slices: n points of dimension d
// are stored as x[i*d : (i+1)*d] for point i. Square matrices (n×n) are
// row-major too. Indices of points are int32 where they are stored in bulk
// (neighbour lists, orders, ranks), so n must be below 2³¹.
//
// Distances are squared Euclidean distances Σ_k (a_k − b_k)², summed
// directly from the coordinate differences: term k goes to partial sum
// k mod 4 as s ← fma(t, t, s) (math.FMA: the square and the addition
// rounded once together), and the result is (s0 + s1) + (s2 + s3). This is
// exact up to one rounding per term (no
// ‖a‖² + ‖b‖² − 2⟨a, b⟩ cancellation), symmetric bit for bit, zero for
// identical points, and the same on every architecture and in every
// function of the package (SqDist), except EmbedSqDist, the plain sum for
// the few coordinates of an embedding. SqDistRow, SqDistances and KNN return
// squared distances; KNNFromDistances and the rank functions take whatever
// dissimilarity they are given and only use its order. Inputs must be
// finite: NaN gives unspecified (but never panicking) neighbour orders.
//
// On amd64 CPUs with AVX2 the distance loops run in assembly
// (sqdist_amd64.s, chosen at run time through golang.org/x/sys/cpu; the
// purego build tag turns it off; it needs FMA too). The four partial sums
// are the four lanes of one vector register, added to in the same order by
// a subtract and an FMA per term, so the results equal the pure-Go loop's
// bit for bit (TestSqDistAVX2); math.FMA makes the pure-Go loop itself the
// same on every architecture (in software, slowly, on the rare x86 CPUs
// without FMA). The fused form is half the instructions of a multiply and an
// add: the subtracts go to the two adder pipes and the FMAs to the two FMA
// pipes of a Zen 3 core, eight terms a cycle. One distance is a single chain of additions, so its
// speed is one vector per add latency, which still beats the pure-Go loop,
// most on long rows and in the bounded distance of the neighbour searches
// (BenchmarkSqDist; BENCHMARKS.md, "t-SNE side by side (issue 15)").
// NN-descent's local join computes two distances from one point at once,
// whose chains overlap.
//
// # Ties
//
// Neighbours are ordered by (distance, index): among neighbours at the same
// distance the one with the smaller index comes first. The point itself is
// never its own neighbour, but duplicates of it are (at distance 0). Ranks
// count from 1 for the nearest neighbour; a point has rank 0 with respect to
// itself. +0 and −0 are the same distance. Ranker finds the full order of
// a row in linear time (a stable radix sort), which is what the rank-based
// quality measures need for every row.
//
// # Parallelism and determinism
//
// Long-running functions take a context.Context and a thread count
// (threads ≤ 0 means runtime.GOMAXPROCS(0)). Work is split into static
// chunks that depend only on the problem size, never on the thread count;
// every output element is computed by one chunk with a fixed operation
// order, and floating-point reductions are summed per chunk and then in chunk
// order (ParallelSum, ParallelSumVec). Results are therefore bit-identical
// for any thread count. A cancelled context stops the work between chunks
// and the function returns ctx.Err(); the destination then holds partial
// results.
//
// Chunks are sized to take well under a second at n = 20,000. EigenSym
// checks ctx between its steps and chunks (its longest piece without a
// check is one block of 64 reflectors); CorrectSpectrumContext still runs
// it under parallel.Detach (internal/parallel), which returns ctx.Err() at
// once on cancellation and lets the abandoned computation run on until its
// next check of ctx. ExtremeEigenvalues (Lanczos, O(n²) per step) estimates the
// extreme eigenvalues of a large symmetric matrix without an n×n
// decomposition, for callers that only need to know whether it is
// positive semi-definite.
//
// # Perplexity
//
// Perplexity calibration (PerplexityRow, Perplexity, PerplexitySparse) takes
// SQUARED distances d2 and finds per point the precision β with
// p_j ∝ exp(−β·d2_j) whose entropy is log(perplexity) in nats; the Gaussian
// bandwidth is σ = (2β)^(−1/2). The conditional p it returns is the input
// of the t-SNE joint P (transforms/tsne) and of the NeRV input
// neighbourhoods β (transforms/nerv).
//
// # Barnes–Hut tree
//
// BHTree partitions an n×dims embedding (dims ≤ MaxBHDims) into cubic cells
// with their point counts and centres of mass; the t-SNE gradient and the
// NeRV stress walk it with their own acceptance rules. Its construction
// depends only on the coordinates, so the cells, and the order of every
// sum over them, are the same in every run; coincident points share a leaf.
//
// # Matrix multiply
//
// Gemm is C = αop(A)op(B) + βC in the manner of BLIS: B packed into a
// panel shared by the workers, A into per-worker blocks that stay in L2,
// and a 6×8 micro-kernel that keeps its tile of C in twelve AVX2 registers
// and updates it with fused multiply-adds, or on AVX-512 CPUs a 6×16 tile
// in twelve Z registers, whose twelve independent chains cover the FMA
// latency (gemm_amd64.s, chosen at run time through golang.org/x/sys/cpu;
// pure Go elsewhere and under purego). The kernel fetches its tile of C
// before the k loop: the tile's rows are a stride apart. PackA and PackB
// pack an operand once for a sequence of products that share it, and
// GemmPacked multiplies packed operands with Gemm's bits and no
// allocation. MicroKernelPeak measures the micro-kernel's speed at the
// moment, the peak that benchmarks quote their share of. Every
// element is summed in the same order whatever the thread count, so the
// result is the same bits for any thread count; the FMA and pure-Go
// kernels agree to rounding, not to the bit (TestGemm, TestGemmKernel).
// Its speed against the measured peak and against numpy is in BENCHMARKS.md,
// "Dense linear algebra beside numpy" (BenchmarkGemm,
// scripts/linalg/bench.py).
// SqDistances is not a Gemm: it keeps the exact difference form above, and
// computes four rows against two columns per AVX2 pass instead. From 64
// features on (sqdistblock.go) it works on tiles of 128 × 128 rows whose
// rows are packed, 256 terms at a time, into panels off the 4 KiB aliasing
// stride, each pair keeping its four lanes between runs (so still SqDist's
// bits); the 4×2 pass then runs from L1 instead of waiting on L2, and
// packing and the n² output take the rest (BENCHMARKS.md, "Dense linear
// algebra beside numpy").
//
// # Symmetric eigendecomposition
//
// EigenSym computes all eigenvalues and eigenvectors of a dense symmetric
// matrix in three O(n³) steps: a blocked Householder reduction to
// tridiagonal form (LAPACK's dsytrd; its matrix–vector products run on row
// chunks, its rank-2k updates through Gemm), divide and conquer on the
// tridiagonal (TridiagonalEigen: Cuppen's method as in LAPACK's dstedc,
// with deflation, secular-equation roots found as offsets from the nearer
// pole and the Löwner vector of Gu and Eisenstat, so that the eigenvectors
// are orthogonal without reorthogonalisation; its eigenvector updates are
// Gemm products), and the reflectors of the reduction applied to the
// tridiagonal's eigenvectors in blocks of 64 (compact WY form, two Gemm
// products per block; about 2n³ flops where forming Q with Dorgtr and
// multiplying would take 10n³/3). gonum's mat.EigenSym (Dsyev) instead
// runs implicit QR on the tridiagonal, whose O(n³) plane rotations are
// serial and dominate its time. Tested on random matrices (n = 1 … 400),
// repeated and tightly clustered (1 + k·10⁻¹³) spectra, Wilkinson W21⁺ and
// glued Wilkinson matrices, graded entries (10⁻¹⁰ … 10¹⁰), entries of size
// 10^±300, rank one plus identity, an RBF kernel matrix, and tridiagonals
// that split: the scaled residual ‖AV − VΛ‖_max/(n·ε·‖A‖) stays below 0.7
// and the orthogonality loss ‖VᵀV − I‖_max/(n·ε) below 1.4 (the tests
// require both below 30, LAPACK's threshold), and the eigenvalues agree
// with gonum's within 10·n·ε·‖A‖. Its time with eigenvectors, against
// gonum's mat.EigenSym and numpy's eigh (LAPACK dsyevd), is in
// BENCHMARKS.md, "Dense linear algebra beside numpy" (BenchmarkEigenSym,
// scripts/linalg/bench.py). The reduction's symmetric matrix–vector
// products read the lower triangle once for both of their halves
// (symvLower, an AVX2/FMA dot-and-axpy) and are still the largest part,
// with the Gemm products next. The results are the same bits for any
// thread count. Scratch memory is about 6n² floats at
// the top merge.
//
// SymEigen keeps the decomposition factored, Q = H·V (reflectors times the
// tridiagonal's eigenvectors), and multiplies vectors by Q or Qᵀ in O(n²):
// it saves EigenSym's last step, 2n³ flops in Gemm, for callers that only
// need a few products with Q (cKPCA's sphere problems).
//
// UpdateEigen and UpdateEigenLowRank (rankone.go) update a decomposition
// A = Q·diag(d)·Qᵀ, with Q any Basis (SymEigen, the identity, an earlier
// update), to A + Σ ρ_l v_l v_lᵀ one rank-one term at a time: the merge
// step of the divide and conquer above on its own (deflation, roots as
// offsets from their poles, the Löwner vector), with ρ < 0 handled by
// negating. Each update keeps O(n) numbers (rotations, poles, roots,
// Löwner vector, column norms) and recomputes the entries ẑ_j/(d_j − λ_i)
// of its eigenvector matrix inside each product (O(n²) divisions, shared
// by the vectors carried through together), so a chain of updates costs
// O(n²) time and O(n) memory per term. Tested against EigenSym of the
// dense result (residual and orthogonality below LAPACK's threshold of 30,
// eigenvalues within 10·n·ε·‖A‖) on random, repeated, clustered
// (1 + k·10⁻¹³), graded (10⁻¹⁰ … 10¹⁰) and kernel-like decaying poles,
// both signs of ρ, zero and negligible terms and chains of three; bits
// are the same for any thread count. cKPCA builds its sphere problems this
// way: all of them on the exact kernel path, the later components' on the
// others (package ckpca, "Low-rank updates").
//
// # Errors
//
// Wrong slice lengths and out-of-range arguments (k, row index) are
// programmer errors and panic, as in gonum. Functions return an error only
// for cancellation, and for a perplexity out of range (ErrPerplexity),
// which usually comes from the user.
//
// # Approximate neighbours
//
// ApproxKNN finds the k nearest neighbours of every row in about
// O(N log N) distance evaluations by NN-descent (Dong, Moses & Li 2011)
// started from the leaves of random-projection trees, as pynndescent does;
// its output contract is KNN's, with exact SqDist distances. It computes in
// float64: Go does not vectorise, so float32 would not make the distances
// cheaper, and float64 makes every returned distance exact with no re-rank.
// Candidate sampling uses hash priorities and the local join reads a frozen
// graph whose updates are applied per target chunk in source order, so the
// graph depends on the seed and settings but not on the thread count. Below
// 2,000 rows, or for k ≥ n/8, it runs KNN. Measured recall of the true
// k = 90 neighbours at N = 10⁵, D = 50 (BenchmarkApproxKNN): with the
// default max(k + k/3, 60) = 120 join candidates 0.9998 on a 10-cluster
// mixture and 0.9928 on an isotropic Gaussian, the hardest case (with 90
// candidates 0.9855, with 150 0.9955; t-SNE joins 60, 0.998 on the
// mixture), in a fraction of the exact search's time; the times are in
// BENCHMARKS.md, "t-SNE side by side (issue 15)" and "Neighbour searches".
// The descent converges: more iterations do not help, more candidates do.
// A profile puts most of the time in the candidate distances of the local
// join (BENCHMARKS.md, "Neighbour searches"): the cost is the
// n·MaxCandidates² join itself, which only faster distances or fewer,
// better chosen candidates would cut.
//
// # Exact neighbours for few features
//
// For up to KDTreeMaxDims (8) features KNN searches a k-d tree (median
// splits of the widest side, leaves of 32 points, the nearer child first,
// a box skipped when its bound exceeds the k-th distance) and returns the
// exhaustive search's neighbours and distances bit for bit, ties included
// (TestKDTreeKNNMatchesExhaustive). BenchmarkKNNTree (n = 20,000, k = 30)
// compares it with the exhaustive search on a 10-cluster mixture and on an
// isotropic Gaussian, where the boxes prune least: the tree is far ahead at
// d = 3 and still ahead at d = 8, and at d = 12 on the isotropic set the
// exhaustive search is faster, hence the limit of 8 (BENCHMARKS.md,
// "Neighbour searches"). The tree's cost grows about as n log n, the
// exhaustive search's as n², so it stays practical at 10⁶ rows of 3
// features with 183 neighbours per row (BENCHMARKS.md, "NeRV (issue 5)").
//
// FindKNN is the one entry point of the stages: KNNAuto runs the exact
// search up to AutoApproxRows rows (20,000, or 4c² for NN-descent's c
// candidates per point: t-SNE's 60 give 20,000, the default 234 of k = 176
// give 219,024), where the exhaustive search is as fast as NN-descent and
// needs a tenth of its memory or less (BENCHMARKS.md, "Neighbour
// searches"), and for
// up to KDTreeMaxDims features at any size, where the tree is exact and
// faster than NN-descent; NN-descent otherwise. It returns the method that
// ran.
package kernels
