// Package triplets holds conditional ordinal triplets and the tools around
// them: generation from categorical attributes, uniform sampling, the
// object-split evaluation protocol of Le & Lauw (IJCAI 2019), and checks.
//
// A triplet ⟨i, j, k⟩ₜ says that under aspect t the reference object j is
// more similar to object i than to object k: d(j, i) < d(j, k) (Le & Lauw's
// convention, and that of ordinate's triplet tables). Objects and aspects are 0-based indices.
// Triplets are stored as int32 columns (Table), never as per-triplet
// structs, so that tens of millions fit in a few hundred megabytes.
//
// # Triplets from categorical attributes
//
// Each aspect t is one categorical attribute, given as Codes: Codes[t][i] is
// the value code of object i, or −1 (Missing). Under aspect t, ⟨i, j, k⟩ₜ is a
// triplet whenever aₜ(i) = aₜ(j) ≠ aₜ(k), the three values are present and
// i, j, k are distinct. An object whose value is missing under an aspect is
// in no triplet of that aspect (neither as i, j nor k).
//
// The pair (i, j) that shares the value follows one of two conventions,
// which must be chosen explicitly because the literature mixes them:
//
//   - Ordered: every i ≠ j, so ⟨i, j, k⟩ and ⟨j, i, k⟩ are both triplets.
//     With M objects present under the aspect and n_v of them holding value v,
//     the aspect has Σ_v n_v(n_v − 1)(M − n_v) triplets.
//   - Unordered: i < j only, half as many.
//
// The paper's published counts use different conventions: Zoo (101 animals,
// 17 aspects: 16 attributes and type) has 3,233,424 ordered triplets (the
// paper's 3.24×10⁶), HouseVote (232 complete rows, 16 votes) has 23,517,385
// unordered ones (the paper's 2.4×10⁷; 47,034,770 ordered).
//
// # Generation order
//
// Generate and Sample list triplets in generation order: by aspect, then i,
// then j, then k, each ascending. The position of a triplet in this order
// within its aspect is its index; Sample draws indices and decodes them
// arithmetically, so neither function ever holds all triplets.
//
// # Object split
//
// The evaluation of Le & Lauw observes, for each aspect independently, a
// random fraction r of the objects (SplitObjects; round(r·objects) objects,
// halves rounded up). Training triplets are those whose three objects are
// all observed under the triplet's aspect; hidden triplets have at least one
// unobserved object. Split.Partition divides an existing table;
// Split.Codes marks unobserved objects as missing, so that Generate or
// Sample on its result produce the training triplets directly.
//
// # Randomness
//
// Sample and SplitObjects take a *rand.Rand (math/rand/v2) and draw from it
// in a fixed order, so a seeded generator reproduces the same result.
//
// # Stage
//
// Stage is the triplets stage: it reads an attribute table (role "in"; one
// categorical column per aspect, an optional unique id column), streams the
// triplets to "out" (a table.Triplets table: i, j, k, aspect and, with
// Options.SplitObjects, split) and writes the observed objects to
// "split-out" (a table.Split table) when that output is wanted. Every
// column is read as categories; a numeric column (not a dictionary) with
// more than 12 distinct values is a warning naming it and its count, as
// each of its values becomes a category of its own. Its options are
// Options; DefaultOptions gives the defaults (every column an
// aspect, Ordered pairs, all triplets, no split, seed 1). The stages
// that fit maps to triplets (score, tste, soe) share its input side:
// FitInput declares their reading options, FitRoles their input roles and
// ReadFit reads the table and picks the triplets to fit.
package triplets
