package quality

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ordinate/ordinate/transforms"
)

// Block selects block Index of Count contiguous blocks of points, block b
// holding the points [b·n/Count, (b+1)·n/Count) — the rows of fisher's
// tiles. The zero Block is every point.
type Block struct {
	Index, Count int
}

// IsZero reports whether b is every point.
func (b Block) IsZero() bool { return b.Count == 0 }

// Range returns the points [lo, hi) of the block among n.
func (b Block) Range(n int) (lo, hi int) {
	if b.IsZero() {
		return 0, n
	}
	return b.Index * n / b.Count, (b.Index + 1) * n / b.Count
}

// MarshalText writes "i/B", or "" for the zero Block.
func (b Block) MarshalText() ([]byte, error) {
	if b.IsZero() {
		return nil, nil
	}
	return fmt.Appendf(nil, "%d/%d", b.Index, b.Count), nil
}

// String returns the block as "i/B".
func (b Block) String() string { t, _ := b.MarshalText(); return string(t) }

// UnmarshalText reads "i/B" with 0 ≤ i < B; "" is the zero Block.
func (b *Block) UnmarshalText(t []byte) error {
	s := strings.TrimSpace(string(t))
	if s == "" {
		*b = Block{}
		return nil
	}
	bad := fmt.Errorf("%q: want i/B with 0 ≤ i < B, such as 0/4", s)
	is, bs, ok := strings.Cut(s, "/")
	if !ok {
		return bad
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	c, err2 := strconv.Atoi(strings.TrimSpace(bs))
	if err1 != nil || err2 != nil || c < 1 || i < 0 || i >= c {
		return bad
	}
	*b = Block{Index: i, Count: c}
	return nil
}

// Partial holds the exact integer sums behind the neighbourhood and class
// metrics over the query points [Lo, Hi) of Points(): the points
// themselves, or the points of a seeded sample. Partials of disjoint
// blocks that cover every query point merge (Merge) into the Report that
// Evaluate or EvaluateDistances gives on all of them, bit for bit: the sums
// are integers, and the metrics are computed from their totals.
type Partial struct {
	N, Lo, Hi int
	// Sample is the number of query points of a sample (then Lo and Hi
	// are positions in it), 0 when every point is scored; Seed drew it.
	Sample int
	Seed   uint64
	Ks     []int // sorted and distinct
	// Distances: from EvaluateDistancesPartial (the classification of a
	// distance matrix alone).
	Distances bool
	Classes   []int // the class values present, increasing; nil without classes
	// ClassNames, when set by the caller, names the classes (by class
	// value) for the merged summary; it is carried, not checked.
	ClassNames []string
	Ordinal    bool
	// Fingerprint hashes everything the sums depend on (the coordinates or
	// distances, the classes, N, the ks, the sample and the mode), so that
	// partials of different inputs are refused rather than merged into
	// garbage. It is 0 for the zero Block (all points), which has nothing
	// to merge with.
	Fingerprint uint64

	c    *counts     // the sums, without the co-ranking histogram
	hist []rankCount // the co-ranking histogram: its non-zero counts, by rank
	ord  *ordinalResult
}

// rankCount is one non-zero count of the co-ranking histogram: the number
// of pairs (i, j) with max(r(i,j), r̂(i,j)) = rank.
type rankCount struct {
	rank  int
	count int64
}

// Points returns the number of query points: the sample's, or N.
func (p *Partial) Points() int {
	if p.Sample > 0 {
		return p.Sample
	}
	return p.N
}

// EvaluatePartial is Evaluate on the query points of block opts.Block only
// (the zero Block: every query point); each point's neighbourhoods are
// still ranked among all N points.
func EvaluatePartial(ctx context.Context, x []float64, D int, y []float64, d int, classes []int, opts Options) (*Partial, error) {
	n, err := checkCoordinates(x, D, y, d)
	if err != nil {
		return nil, err
	}
	return structurePartial(ctx, pointSpace(x, D), x, y, d, n, classes, opts)
}

// EvaluateAgainstDistancesPartial is EvaluateAgainstDistances on the query
// points of block opts.Block only.
func EvaluateAgainstDistancesPartial(ctx context.Context, dist []float64, y []float64, d int, classes []int, opts Options) (*Partial, error) {
	n, err := checkAgainstDistances(dist, y, d)
	if err != nil {
		return nil, err
	}
	return structurePartial(ctx, matrixSpace(dist, n), dist, y, d, n, classes, opts)
}

// structurePartial scores the query points of opts.Block in the input
// space sx (whose values, xs, the fingerprint hashes) against the
// embedding y.
func structurePartial(ctx context.Context, sx space, xs, y []float64, d, n int, classes []int, opts Options) (*Partial, error) {
	qs, sample, err := queryPoints(n, opts)
	if err != nil {
		return nil, err
	}
	ks, err := checkKs(opts.Ks, n)
	if err != nil {
		return nil, err
	}
	var lab *labels
	if classes != nil {
		if lab, err = newLabels(classes, n); err != nil {
			return nil, err
		}
	} else if opts.Ordinal {
		return nil, transforms.Optionf("ordinal", "%w: the ordinal metrics need classes (a label)", ErrNoClasses)
	}
	c, err := neighborhoods(ctx, sx, pointSpace(y, d), n, qs, ks, lab, opts.Threads, opts.Progress)
	if err != nil {
		return nil, err
	}
	p := &Partial{N: n, Lo: qs.lo, Hi: qs.hi, Sample: sample, Ks: ks, Ordinal: opts.Ordinal}
	p.setCounts(c)
	if sample > 0 {
		p.Seed = opts.Seed
	}
	if lab != nil {
		p.Classes = lab.values
	}
	if opts.Ordinal && qs.lo == 0 {
		o := ordinalMetrics(y, n, d, lab)
		p.ord = &o
	}
	if !opts.Block.IsZero() { // one run on every point merges with nothing
		p.Fingerprint = p.fingerprint(xs, y, lab)
	}
	return p, nil
}

// EvaluateDistancesPartial is EvaluateDistances on the query points of
// block opts.Block only.
func EvaluateDistancesPartial(ctx context.Context, dist []float64, n int, classes []int, opts Options) (*Partial, error) {
	ks, lab, err := checkDistances(dist, n, classes, opts)
	if err != nil {
		return nil, err
	}
	qs, sample, err := queryPoints(n, opts)
	if err != nil {
		return nil, err
	}
	c, err := classify(ctx, matrixSpace(dist, n), n, qs, ks, lab, opts.Threads, opts.Progress)
	if err != nil {
		return nil, err
	}
	p := &Partial{N: n, Lo: qs.lo, Hi: qs.hi, Sample: sample, Ks: ks, Distances: true, Classes: lab.values}
	p.setCounts(c)
	if sample > 0 {
		p.Seed = opts.Seed
	}
	if !opts.Block.IsZero() {
		p.Fingerprint = p.fingerprint(dist, nil, lab)
	}
	return p, nil
}

// setCounts keeps c's sums, its co-ranking histogram as its non-zero
// counts.
func (p *Partial) setCounts(c *counts) {
	for m, v := range c.maxRank {
		if v != 0 {
			p.hist = append(p.hist, rankCount{m, v})
		}
	}
	c.maxRank = nil
	p.c = c
}

// queryPoints returns the query points of opts.Block among the n points
// or the points of the sample opts.Sample draws, and the sample size (0:
// every point).
func queryPoints(n int, opts Options) (queries, int, error) {
	m := opts.Sample.Points(n)
	if err := checkBlock(opts.Block, m); err != nil {
		return queries{}, 0, err
	}
	lo, hi := opts.Block.Range(m)
	qs := queries{lo: lo, hi: hi}
	if m == n {
		return qs, 0, nil
	}
	qs.sample = SamplePoints(n, m, opts.Seed)
	return qs, m, nil
}

// SamplePoints returns m distinct points of 0..n−1 in increasing order,
// drawn uniformly with seed (Floyd's algorithm driven by PCG(seed,
// 0x73616d706c65), with unbiased bounded integers by Lemire's method):
// the same points on every machine and in every version.
func SamplePoints(n, m int, seed uint64) []int32 {
	if m >= n {
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(i)
		}
		return out
	}
	rng := rand.NewPCG(seed, 0x73616d706c65) // "sample"
	chosen := make(map[int32]struct{}, m)
	out := make([]int32, 0, m)
	for j := n - m; j < n; j++ {
		t := int32(bounded(rng, uint64(j)+1))
		if _, dup := chosen[t]; dup {
			t = int32(j)
		}
		chosen[t] = struct{}{}
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// bounded returns a uniform integer in [0, n), n ≥ 1 (Lemire 2019).
func bounded(rng *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(rng.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(rng.Uint64(), n)
		}
	}
	return hi
}

// checkBlock refuses more blocks than query points: a block would be
// empty.
func checkBlock(b Block, n int) error {
	if b.Count > n {
		return transforms.Optionf("block", "%s: %d blocks of %d points, a block would be empty", b, b.Count, n)
	}
	return nil
}

// Merge adds up partials of disjoint blocks that together cover every
// query point once, and returns the metrics. Partials of different inputs
// or options, a missing point or a point counted twice give an error
// wrapping ErrPartial; so do sums whose total does not fit in 64 bits.
func Merge(parts ...*Partial) (*Report, error) {
	return mergeContext(context.Background(), parts)
}

// mergeContext is Merge, stopping with ctx.Err() when ctx is done.
func mergeContext(ctx context.Context, parts []*Partial) (*Report, error) {
	if len(parts) == 0 {
		return nil, transforms.Errorf(ErrPartial, "no partial sums")
	}
	ps := slices.Clone(parts)
	slices.SortStableFunc(ps, func(a, b *Partial) int { return a.Lo - b.Lo })
	first := ps[0]
	next := 0
	for _, p := range ps {
		if err := first.compatible(p); err != nil {
			return nil, err
		}
		switch {
		case p.Lo > next:
			return nil, transforms.Errorf(ErrPartial, "points [%d, %d) of %d are in no block", next, p.Lo, first.Points())
		case p.Lo < next:
			return nil, transforms.Errorf(ErrPartial, "block [%d, %d) overlaps the points before %d: a block given twice?", p.Lo, p.Hi, next)
		}
		next = p.Hi
	}
	if next != first.Points() {
		return nil, transforms.Errorf(ErrPartial, "points [%d, %d) are in no block", next, first.Points())
	}
	total := newCounts(len(first.Ks), 0, !first.Distances)
	var hist []rankCount
	var ord *ordinalResult
	for _, p := range ps {
		if err := p.c.addChecked(total); err != nil {
			return nil, err
		}
		hist = append(hist, p.hist...)
		if p.ord != nil {
			ord = p.ord
		}
	}
	hist, err := mergeHist(hist)
	if err != nil {
		return nil, err
	}
	n, m, ks := first.N, first.Points(), first.Ks
	rep := &Report{N: n, Points: m}
	if first.Sample > 0 {
		rep.Seed = first.Seed
	}
	if first.Distances {
		total.classRows(rep, m, ks, "", SubsetDistances)
		return rep, nil
	}
	classes := first.Classes != nil
	if err := total.structureRows(ctx, rep, n, m, ks, hist, classes); err != nil {
		return nil, err
	}
	if classes {
		total.classRows(rep, m, ks, SubsetEmbedding, SubsetInput)
	}
	if first.Ordinal {
		if ord == nil {
			return nil, transforms.Errorf(ErrPartial, "the ordinal metrics are missing from the block at point 0")
		}
		rep.add(MetricOrdinalSpearman, 0, SubsetAll, ord.spearman)
		rep.add(MetricCenterSpearman, 0, SubsetAll, ord.centerSpearman)
		rep.add(MetricCenterDiscordantPairs, 0, SubsetAll, float64(ord.discordant))
		rep.CenterOrder = ord.centerOrder
	}
	return rep, nil
}

// mergeHist adds up the counts of equal ranks of a co-ranking histogram,
// in the order of the ranks.
func mergeHist(h []rankCount) ([]rankCount, error) {
	slices.SortStableFunc(h, func(a, b rankCount) int { return a.rank - b.rank })
	out := h[:0]
	for _, e := range h {
		if k := len(out) - 1; k >= 0 && out[k].rank == e.rank {
			s, ok := addInt64(out[k].count, e.count)
			if !ok {
				return nil, transforms.Errorf(ErrPartial, "the co-ranking count of rank %d overflows 64 bits", e.rank)
			}
			out[k].count = s
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// addChecked adds c's sums to dst, refusing a total that overflows.
func (c *counts) addChecked(dst *counts) error {
	for _, p := range []struct {
		name     string
		dst, src []int64
	}{
		{partTPenalty, dst.tPen, c.tPen}, {partTInter, dst.tInter, c.tInter},
		{partCPenalty, dst.cPen, c.cPen}, {partCIntra, dst.cIntra, c.cIntra},
		{partHitEmbedding, dst.hitY, c.hitY}, {partHitInput, dst.hitX, c.hitX},
		{partSameEmbedding, dst.sameY, c.sameY}, {partSameInput, dst.sameX, c.sameX},
	} {
		for i, v := range p.src {
			s, ok := addInt64(p.dst[i], v)
			if !ok {
				return transforms.Errorf(ErrPartial, "the total of %s[%d] overflows 64 bits", p.name, i)
			}
			p.dst[i] = s
		}
	}
	var ok1, ok2 bool
	dst.nnY, ok1 = addInt64(dst.nnY, c.nnY)
	dst.nnX, ok2 = addInt64(dst.nnX, c.nnX)
	if !ok1 || !ok2 {
		return transforms.Errorf(ErrPartial, "the total of the 1-NN votes overflows 64 bits")
	}
	return nil
}

// addInt64 returns a + b and whether it did not overflow.
func addInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (s > a) == (b > 0)
}

// mulInt64 returns a·b for a, b ≥ 0, and whether it did not overflow.
func mulInt64(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return int64(lo), hi == 0 && lo <= math.MaxInt64
}

// compatible reports whether q was computed on the same inputs and options
// as p.
func (p *Partial) compatible(q *Partial) error {
	same := p.N == q.N && p.Sample == q.Sample && p.Seed == q.Seed && slices.Equal(p.Ks, q.Ks) && p.Distances == q.Distances &&
		slices.Equal(p.Classes, q.Classes) && (p.Classes == nil) == (q.Classes == nil) &&
		p.Ordinal == q.Ordinal && p.Fingerprint == q.Fingerprint
	if !same {
		return transforms.Errorf(ErrPartial, "block [%d, %d) and block [%d, %d) were computed on different inputs or options (N %d and %d, samples %d and %d, ks %v and %v, fingerprints %016x and %016x)",
			p.Lo, p.Hi, q.Lo, q.Hi, p.N, q.N, p.Sample, q.Sample, p.Ks, q.Ks, p.Fingerprint, q.Fingerprint)
	}
	return nil
}

// fingerprint hashes the inputs and options of p: a 64-bit multiply-xor
// hash over the bits of every value, eight bytes at a time (one pass, about
// a nanosecond per value), which is deterministic across machines.
func (p *Partial) fingerprint(a, b []float64, lab *labels) uint64 {
	h := fpHash{s: 0x6f7264696e617465} // "ordinate"
	h.word(uint64(p.N))
	h.word(uint64(len(p.Ks)))
	for _, k := range p.Ks {
		h.word(uint64(k))
	}
	h.word(boolWord(p.Distances))
	h.word(boolWord(p.Ordinal))
	if p.Sample > 0 { // absent for every point, so that those keep their fingerprint
		h.word(uint64(p.Sample))
		h.word(p.Seed)
	}
	h.floats(a)
	h.floats(b)
	if lab != nil {
		for _, v := range lab.values {
			h.word(uint64(v))
		}
		for _, c := range lab.id {
			h.word(uint64(c))
		}
	}
	return h.sum()
}

type fpHash struct{ s uint64 }

func (h *fpHash) word(w uint64) {
	h.s = (h.s ^ w) * 0x9e3779b97f4a7c15
	h.s ^= h.s >> 29
}

func (h *fpHash) floats(v []float64) {
	h.word(uint64(len(v)))
	for _, f := range v {
		h.word(math.Float64bits(f))
	}
}

func (h *fpHash) sum() uint64 { return h.s }

func boolWord(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
