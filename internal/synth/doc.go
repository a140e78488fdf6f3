// Package synth generates the synthetic ordinal data sets of the BVP paper
// (Zine-El-Abidine, Dutagaci and Rousseau, "Dimensionality Reduction for
// Ordinal Classification"), for tests and the demo.
//
// The paper shows these data sets only in figures and gives no parameters;
// the constructions here are our reconstruction of what it describes, with
// constants chosen so that the property the paper relies on holds robustly:
// the ordinal direction is not a main axis of variance, so PCA loses the
// class order while BVP keeps it.
//
// Each generator returns an n×3 matrix with the rows grouped by class
// (class 0 first) and the class index of each row, 0…4 in ordinal order.
// All randomness comes from the caller's *rand.Rand, so a seeded
// rand.New(rand.NewPCG(a, b)) gives the same data on every run.
package synth
