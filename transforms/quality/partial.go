package quality

import (
	"context"
	"fmt"
	"math"
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
// metrics over the points [Lo, Hi) of N. Partials of disjoint blocks that
// cover every point merge (Merge) into the Report that Evaluate or
// EvaluateDistances gives on all points, bit for bit: the sums are integers,
// and the metrics are computed from their totals.
type Partial struct {
	N, Lo, Hi int
	Ks        []int // sorted and distinct
	Distances bool  // from EvaluateDistancesPartial
	Classes   []int // the class values present, increasing; nil without classes
	// ClassNames, when set by the caller, names the classes (by class
	// value) for the merged summary; it is carried, not checked.
	ClassNames []string
	Ordinal    bool
	// Fingerprint hashes everything the sums depend on (the coordinates or
	// distances, the classes, N, the ks and the mode), so that partials of
	// different inputs are refused rather than merged into garbage. It is
	// 0 for the zero Block (all points), which has nothing to merge with.
	Fingerprint uint64

	c   *counts
	ord *ordinalResult // the ordinal metrics (over all points) travel with the block at Lo = 0
}

// EvaluatePartial is Evaluate on the points of block opts.Block only (the
// zero Block: every point); each point's neighbourhoods are still ranked
// among all N points.
func EvaluatePartial(ctx context.Context, x []float64, D int, y []float64, d int, classes []int, opts Options) (*Partial, error) {
	n, err := checkCoordinates(x, D, y, d)
	if err != nil {
		return nil, err
	}
	b := opts.Block
	if err := checkBlock(b, n); err != nil {
		return nil, err
	}
	lo, hi := b.Range(n)
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
	c, err := neighborhoods(ctx, pointSpace(x, D), pointSpace(y, d), n, lo, hi, ks, lab, opts.Threads, opts.Progress)
	if err != nil {
		return nil, err
	}
	p := &Partial{N: n, Lo: lo, Hi: hi, Ks: ks, Ordinal: opts.Ordinal, c: c}
	if lab != nil {
		p.Classes = lab.values
	}
	if opts.Ordinal && lo == 0 {
		o := ordinalMetrics(y, n, d, lab)
		p.ord = &o
	}
	if !b.IsZero() { // one run on every point merges with nothing
		p.Fingerprint = p.fingerprint(x, y, lab)
	}
	return p, nil
}

// EvaluateDistancesPartial is EvaluateDistances on the points of block
// opts.Block only.
func EvaluateDistancesPartial(ctx context.Context, dist []float64, n int, classes []int, opts Options) (*Partial, error) {
	ks, lab, err := checkDistances(dist, n, classes, opts)
	if err != nil {
		return nil, err
	}
	b := opts.Block
	if err := checkBlock(b, n); err != nil {
		return nil, err
	}
	lo, hi := b.Range(n)
	c, err := classify(ctx, matrixSpace(dist, n), n, lo, hi, ks, lab, opts.Threads, opts.Progress)
	if err != nil {
		return nil, err
	}
	p := &Partial{N: n, Lo: lo, Hi: hi, Ks: ks, Distances: true, Classes: lab.values, c: c}
	if !b.IsZero() {
		p.Fingerprint = p.fingerprint(dist, nil, lab)
	}
	return p, nil
}

// checkBlock refuses more blocks than points: a block would be empty.
func checkBlock(b Block, n int) error {
	if b.Count > n {
		return transforms.Optionf("block", "%s: %d blocks of %d points, a block would be empty", b, b.Count, n)
	}
	return nil
}

// Merge adds up partials of disjoint blocks that together cover every point
// once, and returns the metrics of all points. Partials of different inputs
// or options, a missing point or a point counted twice give an error
// wrapping ErrPartial.
func Merge(parts ...*Partial) (*Report, error) {
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
			return nil, transforms.Errorf(ErrPartial, "points [%d, %d) of %d are in no block", next, p.Lo, first.N)
		case p.Lo < next:
			return nil, transforms.Errorf(ErrPartial, "block [%d, %d) overlaps the points before %d: a block given twice?", p.Lo, p.Hi, next)
		}
		next = p.Hi
	}
	if next != first.N {
		return nil, transforms.Errorf(ErrPartial, "points [%d, %d) are in no block", next, first.N)
	}
	total := newCounts(len(first.Ks), first.N, !first.Distances)
	var ord *ordinalResult
	for _, p := range ps {
		p.c.addTo(total)
		if p.ord != nil {
			ord = p.ord
		}
	}
	n, ks := first.N, first.Ks
	rep := &Report{N: n}
	if first.Distances {
		total.classRows(rep, n, ks, "", SubsetDistances)
		return rep, nil
	}
	classes := first.Classes != nil
	total.structureRows(rep, n, ks, classes)
	if classes {
		total.classRows(rep, n, ks, SubsetEmbedding, SubsetInput)
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

// compatible reports whether q was computed on the same inputs and options
// as p.
func (p *Partial) compatible(q *Partial) error {
	same := p.N == q.N && slices.Equal(p.Ks, q.Ks) && p.Distances == q.Distances &&
		slices.Equal(p.Classes, q.Classes) && (p.Classes == nil) == (q.Classes == nil) &&
		p.Ordinal == q.Ordinal && p.Fingerprint == q.Fingerprint
	if !same {
		return transforms.Errorf(ErrPartial, "block [%d, %d) and block [%d, %d) were computed on different inputs or options (N %d and %d, ks %v and %v, fingerprints %016x and %016x)",
			p.Lo, p.Hi, q.Lo, q.Hi, p.N, q.N, p.Ks, q.Ks, p.Fingerprint, q.Fingerprint)
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
