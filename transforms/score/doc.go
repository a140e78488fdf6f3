// Package score implements SCORE, spherical conditional ordinal embedding
// (Le and Lauw, "Multiple maps for conditional ordinal embedding", IJCAI
// 2019, Section 4): one map per aspect from conditional triplets, all maps
// sharing object coordinates on a sphere.
//
// # Triplets
//
// Input is a triplets.Table over objects 0..N−1 and aspects 0..A−1. A
// triplet ⟨i, j, k⟩ₜ says that under aspect t object j is more similar to i
// than to k (the paper's Eq. 1): it is satisfied in map t when dᵗᵢⱼ < dᵗⱼₖ.
// Ties count as violated in Accuracy (Eq. 10).
//
// # Model
//
// Objects yᵢ and aspect poles xₜ are unit vectors in R^{K+1} (points on
// S^K, K = Dims). Aspect t's map is the orthogonal projection onto the
// tangent hyperplane at xₜ, so map distances are
//
//	dᵗᵢⱼ = ‖(I − xₜxₜᵀ)(yⱼ − yᵢ)‖
//
// PLAIN, NOT SQUARED: Eq. 3 of the paper uses dᵗⱼₖ − dᵗᵢⱼ of the norms
// ‖Proj(yⱼ − yᵢ)‖ defined just above it. Whether the projection is read as
// linear (Eq. 2) or affine (Appendix A offsets by xₜ) does not change dᵗ.
// The aspect view (Eq. 3) and the global view (Eq. 5, inner products, which
// order pairs like geodesic distance, Eq. 4) are
//
//	σᵗᵢⱼₖ = sigmoid(α(dᵗⱼₖ − dᵗᵢⱼ)),  σᵢⱼₖ = sigmoid(α(yᵢᵀyⱼ − yₖᵀyⱼ)),
//
// mixed as lᵗᵢⱼₖ = δₜσᵗᵢⱼₖ + (1 − δₜ)σᵢⱼₖ (Eq. 6). The objective is the
// log-posterior of Eq. 7 with tied vMF priors,
//
//	L = Σ ln lᵗᵢⱼₖ + κ Σₜ μᵀxₜ + κ Σᵢ μᵀyᵢ,
//
// and a uniform prior on δₜ. Defaults are the paper's (Section 5.1):
// α = 30, ε = 0.05, κ = 0 (uniform priors), μ = (0, …, 0, 1), K = 2.
//
// # Learning
//
// Algorithm 1: Riemannian SGD. For each triplet the ambient gradients of
// ln l (plus its share of the prior) with respect to yᵢ, yⱼ, yₖ and xₜ are
// taken at the current parameters, projected onto the tangent spaces by
// (I − zzᵀ) (Eq. 9) and applied by the retraction z ← (z + εg)/‖z + εg‖
// (Eq. 8), as ascent steps. The prior term of a parameter that occurs in c
// triplets is split as κμᵀz/c per occurrence, so an epoch's gradients add up
// to the gradient of L; objects in no triplet keep their initial position.
//
// δₜ: the paper's line 10, δₜ ← clip(δₜ + ε(σᵗ − σ)) after every triplet,
// moves δₜ by up to ε per triplet, so it saturates within a few dozen
// triplets, and δₜ = 0 is absorbing (the pole then gets no gradient). On
// planted models this stalled the fit (held-out accuracy 0.70 against 0.92
// with the rule below, both under an earlier per-epoch ε decay). We therefore hold δₜ fixed during an epoch and set
// it afterwards to the mean responsibility of the aspect view over the
// aspect's triplets, δₜ ← mean(δₜσᵗ/l): the EM update of a mixture weight
// under the uniform prior, which stays in [0, 1] (the paper's clip is
// kept) and moves δₜ towards 1 when the aspect view explains the triplets
// better. The exact gradient ∂ln l/∂δₜ = (σᵗ − σ)/l is tested by finite
// differences but not used for the update. δₜ starts at 0.5, the prior mean.
//
// Initialisation: yᵢ and xₜ uniform on the sphere (normalised Gaussians)
// from Seed; the paper does not say.
//
// Learning rate: the paper says only that ε decays. After u triplet
// updates the rate is ε_u = ε/(1 + Decay·3u/N), 3u/N being the mean number
// of updates an object has had (Robbins–Monro 1/t decay, constant within a
// block of 1024 triplets, so the schedule does not depend on Threads);
// Decay = 0.01 by default (0 keeps ε constant). Scaling by updates per object rather than by
// epochs matters: at α = 30 a violated triplet's gradient has norm up to
// about 2α, so a step of ε = 0.05 moves a point by up to 70°; on the 23.5 M
// HouseVote triplets (10⁵ updates per object per epoch) a per-epoch decay
// left the objects jumping and the mean log-likelihood at −6, while this
// schedule reaches about −0.38 in one epoch. On planted models it also
// beat per-epoch decay (held-out accuracy 0.99 against 0.95). Each epoch visits the triplets in a seeded random order:
// up to 2²² triplets a fresh permutation each epoch; larger sets are
// permuted once and then visited in a fresh random order of blocks of 1024
// each epoch (a full reshuffle of tens of millions of entries would cost
// about as much as the epoch). The visiting order holds each triplet
// packed into one uint64 (object and aspect indices in bit fields, when
// they fit), 8 bytes per triplet, so an epoch streams through one array
// instead of gathering from the table's four columns. The run stops after MaxIter epochs or when the mean
// log-likelihood of an epoch differs from the previous one by less than
// Tol (never, with FixedIter). That mean is accumulated during the epoch (each triplet evaluated
// just before its update), not by a separate pass.
//
// # Parallelism and determinism
//
// With Deterministic (or Threads = 1), one goroutine runs the single
// ordered stream of Algorithm 1: a Seed gives bit-identical results
// whatever Threads is. Otherwise W = Threads workers run in rounds: in each
// round every worker takes the next 8 blocks (8192 triplets) of the epoch's
// order and applies them to its own private copy of all yᵢ and xₜ; then the
// changes of all copies are summed into the shared parameters, rows are
// renormalised, and the copies are refreshed. This is Hogwild-like SGD with
// bounded staleness (a worker does not see the others' updates from the
// current round), but race-free without atomics and reproducible for a
// given Seed and Threads. Lock-free updates of shared memory through
// sync/atomic were tried first: on 2 cores and N = 232 objects the cache
// lines of the few hundred points bounce between cores and 2 workers ran
// slower than one. δₜ is only written between epochs.
//
// # Speed
//
// One triplet update costs O(K); BenchmarkSGD measures the updates per
// second on one thread and on two. On the 23.5 M unordered HouseVote
// triplets (BenchmarkHouseVote) the default Tol = 1e-3 stops after 7 epochs
// (mean ln l −0.373, triplet accuracy 0.812), while Tol = 1e-4 stops after
// 27–29 epochs (−0.368, accuracy 0.813): the slow tail hardly changes the
// maps, so the default stops before it. The times are in BENCHMARKS.md,
// "Triplets and SCORE".
//
// # Maps
//
// Maps gives, per aspect, the N×K coordinates Eₜᵀyᵢ of the objects in an
// orthonormal basis Eₜ of the tangent plane at xₜ (Appendix A: the pole is
// the origin and distances are dᵗ, Eq. 12). Eₜ starts from the Householder
// reflection taking xₜ to ±e_K and is then rotated or reflected about the
// pole by generalised orthogonal Procrustes: starting from aspect 0's map
// as the reference, each map is transformed by the orthogonal K×K matrix
// that brings it closest (Frobenius) to the reference, the reference
// becomes the mean of the aligned maps, and this repeats (at most 10
// rounds) until the spread stops falling. Reflections are allowed, since
// viewers compare maps rather than their handedness. Within-map distances
// are unchanged. With SingleMap every aspect repeats the one pooled pole
// and δ, so all maps are the same.
//
// # Stage
//
// Stage is the score stage: it reads a triplet table (role "in", and
// optionally "objects" naming every object) with triplets.ReadFit, fits
// SCORE with its Options (the train triplets of a split
// unless --all), reports each epoch as progress, and writes the maps
// ("out", a table.Maps table), and when wanted the aspects ("aspects-out",
// table.Aspects) and the objects' sphere coordinates ("sphere-out",
// table.Sphere).
//
// # Errors
//
// Options is both the stage's options struct and Fit's: start from
// DefaultOptions, whose fields are all set (a zero field is not a
// default). Fit checks the options once with transforms.Validate (the
// ranges in the tags, then Options.Validate); an option error is a
// *transforms.OptionError naming the option (wrapping
// transforms.ErrInvalidOption, and ErrMu for a bad Mu); bad or missing
// triplets are invalid data (transforms.ErrInvalidData).
package score
