// Package table owns the formats of the tables that ordinate's stages
// exchange: embeddings, SCORE maps, aspects and the sphere, distance pairs
// (long and square), triplets and their split, metrics, and models. For each
// it gives the kind (recorded in the provenance of every output as "kind"),
// the schema, a writer and a reader. plot, report and evaluate dispatch on
// the recorded kind; nothing sniffs column names.
package table
