package table

// Kinds of table, as recorded in the provenance ("kind").
const (
	Embedding      = "embedding"       // id, kept columns, emb_0 … emb_{d−1}
	Maps           = "maps"            // SCORE/OE: aspect, object id, emb_0 …
	Aspects        = "aspects"         // SCORE: aspect, delta, pole_0 …
	Sphere         = "sphere"          // SCORE: the shared sphere
	DistancePairs  = "distance_pairs"  // i, j, distance
	DistanceSquare = "distance_square" // id, then one column per row
	Triplets       = "triplets"        // i, j, k, aspect
	Split          = "split"           // aspect, id, observed
	Metrics        = "metrics"         // metric, k, subset, value
	MetricsPartial = "metrics_partial" // lo, hi, part, index, value: evaluate --block
	Model          = "model"           // a fitted model for apply
	Partials       = "partials"        // class, count, mean, m2: statistics for a fit (package moments)
)
