package quality

// normaliser is Venna and Kaski's G(k), which scales the worst possible
// rank penalty sum to 1: every branch is the reciprocal of that maximum.
func normaliser(n, k int) float64 {
	N, K := float64(n), float64(k)
	if 2*k < n {
		return 2 / (N * K * (2*N - 3*K - 1))
	}
	return 2 / (N * (N - K) * (N - K - 1))
}

// rnx returns R_NX(k) = ((N−1) Q_NX(k) − k) / (N−1−k) with
// Q_NX(k) = overlap / (kN), evaluated as one exact integer ratio.
func rnx(n, k int, overlap int64) float64 {
	N, K := int64(n), int64(k)
	return float64((N-1)*overlap-K*K*N) / float64(K*N*(N-1-K))
}

// structureRows adds trustworthiness, continuity, rnx and rnx_auc.
func (c *counts) structureRows(rep *Report, n int, ks []int, classes bool) {
	for t, k := range ks {
		g := normaliser(n, k)
		addTC(rep, MetricTrustworthiness, k, g, c.tPen[t], c.tPen[t]-c.tInter[t], c.tInter[t], classes)
	}
	for t, k := range ks {
		g := normaliser(n, k)
		addTC(rep, MetricContinuity, k, g, c.cPen[t], c.cIntra[t], c.cPen[t]-c.cIntra[t], classes)
	}
	// overlap[k] = Σ_i |N_k(i) ∩ N̂_k(i)| for every k, from the histogram.
	overlap := make([]int64, n-1)
	var cum int64
	for k := 1; k < n-1; k++ {
		cum += c.maxRank[k]
		overlap[k] = cum
	}
	for _, k := range ks {
		rep.add(MetricRNX, k, SubsetAll, rnx(n, k, overlap[k]))
	}
	var num, den float64
	for k := 1; k <= n-2; k++ {
		num += rnx(n, k, overlap[k]) / float64(k)
		den += 1 / float64(k)
	}
	rep.add(MetricRNXAUC, 0, SubsetAll, num/den)
}

// addTC adds 1 − g·penalty for the whole penalty and, with classes, for its
// within-class and between-class parts.
func addTC(rep *Report, metric string, k int, g float64, all, intra, inter int64, classes bool) {
	rep.add(metric, k, SubsetAll, 1-g*float64(all))
	if classes {
		rep.add(metric, k, SubsetIntra, 1-g*float64(intra))
		rep.add(metric, k, SubsetInter, 1-g*float64(inter))
	}
}

// classRows adds knn_accuracy and nn_error for the embedding (subset emb,
// counts hitY/nnY) and the input (subset in, counts hitX/nnX), and knn_gain
// when emb is not empty. With emb empty, the single space's counts are in
// hitX/nnX.
func (c *counts) classRows(rep *Report, n int, ks []int, emb, in string) {
	N := float64(n)
	type space struct {
		subset string
		hits   []int64
		nn     int64
	}
	var spaces []space
	if emb != "" {
		spaces = append(spaces, space{emb, c.hitY, c.nnY})
	}
	spaces = append(spaces, space{in, c.hitX, c.nnX})
	for t, k := range ks {
		for _, s := range spaces {
			rep.add(MetricKNNAccuracy, k, s.subset, float64(s.hits[t])/N)
		}
	}
	for _, s := range spaces {
		rep.add(MetricNNError, 1, s.subset, float64(int64(n)-s.nn)/N)
	}
	if emb == "" {
		return
	}
	for t, k := range ks {
		rep.add(MetricKNNGain, k, SubsetAll, float64(c.sameY[t]-c.sameX[t])/(N*float64(k)))
	}
}
