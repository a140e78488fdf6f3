// Package quality measures how well an embedding Y (N×d) keeps the
// neighbourhoods and the class structure of its input X (N×D).
//
// Evaluate compares Y with X point by point; EvaluateAgainstDistances does
// the same with the input space given as a distance matrix (an embedding
// fitted on distances); EvaluateDistances gives the classification metrics
// of a precomputed N×N distance matrix. All return a Report whose Rows are
// the long metrics table (metric, k, subset, value) that the evaluate stage
// writes.
//
// # Conventions
//
// Points are rows of row-major []float64 slices. Distances are squared
// Euclidean distances computed by package kernels; only their order
// matters, so the results are those of plain Euclidean distances.
// r(i,j) is the rank of j among the neighbours of i in X (nearest = 1) and
// r̂(i,j) the rank in Y. Neighbours at the same distance are ranked by index,
// the smaller index first, in both spaces; a point is never its own
// neighbour, but its duplicates are. N_k(i) and N̂_k(i) are the k nearest
// neighbours in X and Y; U_k(i) = N̂_k(i) \ N_k(i) are the intrusions and
// V_k(i) = N_k(i) \ N̂_k(i) the extrusions. c_i is the class of point i.
// k ranges over [1, N−2]; K = 0 in a Row means the metric has no k.
//
// # Metrics (in Report order)
//
//   - trustworthiness, k, subset all (Venna and Kaski 2001):
//     T(k) = 1 − G(k) Σ_i Σ_{j∈U_k(i)} (r(i,j) − k), with
//     G(k) = 2 / (N k (2N − 3k − 1)) for k < N/2 and
//     G(k) = 2 / (N (N−k) (N−k−1)) for k ≥ N/2, so T ∈ [0, 1] for every k.
//     With classes also subsets inter and intra (Colange et al. 2020): the
//     same sum restricted to intrusions of another class (c_j ≠ c_i), or of
//     the same class, with the same G(k). T = T_intra + T_inter − 1.
//   - continuity, k, subsets all, intra, inter: the same with V_k(i) and
//     r̂(i,j): C(k) = 1 − G(k) Σ_i Σ_{j∈V_k(i)} (r̂(i,j) − k).
//     C = C_intra + C_inter − 1.
//   - rnx, k, all: R_NX(k) = ((N−1) Q_NX(k) − k) / (N−1−k) with
//     Q_NX(k) = Σ_i |N_k(i) ∩ N̂_k(i)| / (kN) (Lee and Verleysen 2009). 1 for
//     a perfect embedding, about 0 for a random one.
//   - rnx_auc, K = 0, all: Σ_k R_NX(k)/k ÷ Σ_k 1/k over every k = 1..N−2,
//     whatever Options.Ks holds.
//   - knn_accuracy, k, subsets embedding and input (classes only): the
//     leave-one-out k-NN classification accuracy, by majority vote among the
//     k nearest neighbours. A tie between classes goes to the tied class
//     whose nearest member is nearest. The input subset is the same
//     classifier in X, as a reference.
//   - nn_error, K = 1, subsets embedding and input: the leave-one-out 1-NN
//     error rate.
//   - knn_gain, k, all (de Bodt et al. 2019):
//     G_NN(k) = (1/(Nk)) Σ_i (|{j ∈ N̂_k(i): c_j = c_i}| − |{j ∈ N_k(i): c_j = c_i}|),
//     positive when the embedding gathers classes better than the input.
//   - With Options.Ordinal (the classes are ordered by value), on the best
//     axis w of the embedding: the direction that maximises the Pearson
//     correlation between the class rank and the projection y·w (the
//     least-squares regression direction of the rank on the centred
//     coordinates), oriented so that center_spearman ≥ 0. The class rank is
//     the position of the class value among the values present.
//     ordinal_spearman, K = 0, all: Spearman's ρ between class rank and
//     projection over the points (average ranks for ties).
//     center_spearman, K = 0, all: ρ between class rank and the projection
//     of the class centres (class means of Y).
//     center_discordant_pairs, K = 0, all: the number of class pairs a < b
//     whose centres are strictly out of order along w.
//     Report.CenterOrder lists the class values by projected centre. A ρ is
//     NaN when the projection is constant (Y has no direction correlated
//     with the classes).
//
// EvaluateDistances reports knn_accuracy and nn_error with subset distances.
//
// # Cost and determinism
//
// Everything is exact and costs O(M·N(D + d)) time for M query points
// (every point by default, M = N): for each query point both distance rows
// are computed and ranked in linear time (a radix sort of the distances
// packed with their index), and the metrics are accumulated as integer
// counts. Q_NX(k) for every k comes from a histogram of max(r(i,j),
// r̂(i,j)), so no N×N co-ranking matrix is built; memory is O(N) per
// thread. Integer sums are exact in any order, so results are
// bit-identical for every thread count.
//
// # Samples
//
// Options.Sample scores the neighbourhoods of a seeded sample of M query
// points (SamplePoints: M distinct points drawn with Options.Seed), each
// still ranked among all N points. Every sum then runs over the sample,
// and the normalisations use M where the formulas above use N as the
// number of points summed over: G(k) = 2 / (M k (2N − 3k − 1)) (and its
// other branch), Q_NX(k) = Σ_i |N_k(i) ∩ N̂_k(i)| / (kM), accuracies and
// the KNN gain divided by M. The metrics are exact for the sample, and
// unbiased estimates of those of all points; the ordinal metrics use every
// point. SampleAuto, the stage's default, scores every point up to
// AutoSampleAbove points and DefaultSampleSize points above; SampleAll (the
// zero value) every point. Report.Points and Report.Seed say what was
// scored.
//
// # Blocks
//
// Because the sums are integers, the work splits exactly over query
// points: EvaluatePartial, EvaluateAgainstDistancesPartial and
// EvaluateDistancesPartial score the query points of one Block (block b of
// B holds positions [b·M/B, (b+1)·M/B) of the M query points: the rows of
// fisher's tiles, or the sample's points in increasing order), each still
// ranked among all N points, and return a Partial: the integer sums, N,
// the sample, the ks, the class values and a fingerprint of the inputs.
// Merge adds the partials of blocks that cover every query point once and
// computes the metrics from the totals, so the result is the Report of one
// run, bit for bit (Evaluate is itself one block merged). The co-ranking
// histogram behind R_NX travels as its non-zero counts, so nothing in a
// merge grows with N; the ordinal metrics (a function of the whole
// embedding, O(N·d)) travel with the block that starts at position 0,
// their floats as IEEE 754 bits. Merge refuses partials of other inputs or
// options (the fingerprint: a 64-bit hash of every coordinate, class and
// option), a point in no block, a point in two, and totals that overflow
// 64 bits. PartialRecord and ReadPartials give the partial's table (kind
// metrics_partial: lo, hi, part, index, value, all int64 but part), whose
// every row names its block, so that the tables of many blocks can be
// concatenated. ReadPartials checks that a table could have come from a
// block before anything is made from it: every part known and given once;
// N, the block, the sample, the ks and the classes in range; each vote
// within the block's points (k per point for same-class neighbours), each
// rank penalty within the worst the block's points can reach at its k;
// the co-ranking counts adding up to the block's pairs and, at every rank
// m, within the bounds of |N_m(i) ∩ N̂_m(i)|; the ordinal metrics in
// range, their centre order a permutation of the classes, and the
// discordant pairs its inversions.
//
// # Options
//
// Options is one struct for the stage and the metrics: the stage's options
// are its tagged fields (the CLI's flags), and Evaluate and its relatives
// read Ks, Ordinal, Block, Sample, Seed, Threads and Progress from the
// same struct. A host starts from DefaultOptions (ks 5, 10, 30;
// standardize auto; emb emb_*; sample auto, seed 1), and transforms.Run
// validates the tags (each k ≥ 1; standardize one of auto, true, false)
// and Options.Validate (at least one k and one embedding column, no kept
// columns, a sample ≥ 0 or auto). What needs the data is checked once,
// by the metrics: each k against N (ErrK, as an error of option "k"), the
// ordinal metrics against classes and coordinates ("ordinal"), a block
// against the points ("block"). The zero values of the fields the metrics
// read are meaningful, so a Go caller may pass a literal such as
// Options{Ks: []int{10}}.
//
// # Stage
//
// Stage is the evaluate stage on the one stage contract (transforms.Stage):
// it reads an embedding (or a distance table, or maps and triplets) and the
// table it was made from, and writes the long metrics table (kind
// table.Metrics) and, when asked, a text summary of it.
//
// It scores an embedding only against the rows it was made from. The rows
// are matched by id (the id option; by default the id column the
// embedding's provenance records, else the row numbers ordinate writes
// without an id), both tables holding the same ids once each (ErrRowsDiffer
// names how many are missing on either side, and the first few). And the
// feature-reading path of every stage (transforms.Env.ReadFeatures, and
// apply) records a fingerprint of the rows it read in the input's
// provenance (arrowio.Fingerprint: the row count and a sum of one SHA-256
// per row over its id or row number and its features as read; see
// transforms.Fingerprinter): evaluate computes the same fingerprint of the
// in table (the same columns, identity and invalid-value policy, reading
// the columns again when the scoring features differ) and refuses a table
// that does not hold those rows (ErrNotFittedOn, naming both files). Ids
// alone do not prove identity: two samples renumbered 0…N−1 share every
// id. An embedding that records no fingerprint is scored with a warning.
//
// By default it scores an embedding in the space it was made in: the
// feature columns (the fingerprint's, else the provenance's features) and
// the standardisation recorded in the embedding's provenance (apply
// records its model's features and standardisation), read through
// transforms.Env.ReadFeatures; the features and standardize options
// override them, and an embedding without provenance is scored on every
// numeric feature column, unstandardised, with a warning. An embedding
// fitted on a distance table (t-SNE of distances) is scored against that
// table, given as distances (EvaluateAgainstDistances), with the classes
// of in; against features only when they are named, and a distance table
// of another run (by the run id both record) is refused. The metrics'
// provenance records what was used (figures features, standardize,
// features_source, standardize_source, rows_fingerprint, and with a sample
// sample_points, sample_seed and sample) and every metric under a
// snake_case key (trustworthiness_k10, knn_accuracy_k5_input). The rank
// computations report progress per query point. The block option writes a
// block's partial table instead of the metrics; the partials input merges
// them.
//
// # Errors
//
// Bad data or options (sizes, fewer than 4 points, NaN or ±Inf, k out of
// range, negative class values, fewer than 2 classes, partial sums that do
// not merge, a table that does not hold the embedding's rows) give an
// error that wraps one of the sentinel errors; a bad option is a
// *transforms.OptionError naming it (k out of range wraps ErrK); a bad value at one position (NaN or ±Inf,
// a negative class) is an *arrowio.Error (transforms.DataError) that names
// the matrix, row and column. Cancellation returns ctx.Err().
package quality
