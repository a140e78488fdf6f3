package quality

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// partialFormat is the version of the partial-sums table layout.
const partialFormat = 1

// PartialSchema is the schema of a partial-sums table (kind
// metrics_partial): lo, hi (the block's points [lo, hi)), part (the name of
// a sum), index (its position: the index into the ks, a rank, …) and value,
// every value an exact int64. Every row names its block, so the tables of
// many blocks can be concatenated (files of a folder, a Spark union) and
// still be told apart.
func PartialSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "lo", Type: arrow.PrimitiveTypes.Int64},
		{Name: "hi", Type: arrow.PrimitiveTypes.Int64},
		{Name: "part", Type: arrow.BinaryTypes.String},
		{Name: "index", Type: arrow.PrimitiveTypes.Int64},
		{Name: "value", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
}

// Names of the parts. Floats (the ordinal correlations) are stored as their
// IEEE 754 bits, so they too travel exactly.
const (
	partFormat        = "format"
	partN             = "n"
	partDistances     = "distances"
	partOrdinal       = "ordinal"
	partFingerprint   = "fingerprint"
	partSample        = "sample" // only for a sample: its size
	partSeed          = "seed"   // only for a sample: its seed
	partK             = "k"
	partClass         = "class"
	partTPenalty      = "t_penalty"
	partTInter        = "t_inter"
	partCPenalty      = "c_penalty"
	partCIntra        = "c_intra"
	partHitEmbedding  = "hit_embedding"
	partHitInput      = "hit_input"
	partSameEmbedding = "same_embedding"
	partSameInput     = "same_input"
	partNNEmbedding   = "nn_embedding"
	partNNInput       = "nn_input"
	partMaxRank       = "max_rank" // only the non-zero counts
	partSpearman      = "ordinal_spearman"
	partCenterRho     = "center_spearman"
	partDiscordant    = "center_discordant_pairs"
	partCenterOrder   = "center_order"
	partClassName     = "class_name/" // + the name, index the class value, value 0
)

// PartialRecord is the partial-sums table of p.
func PartialRecord(mem memory.Allocator, p *Partial) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, PartialSchema())
	defer b.Release()
	lo, hi := b.Field(0).(*array.Int64Builder), b.Field(1).(*array.Int64Builder)
	part, index, value := b.Field(2).(*array.StringBuilder), b.Field(3).(*array.Int64Builder), b.Field(4).(*array.Int64Builder)
	add := func(name string, i int, v int64) {
		lo.Append(int64(p.Lo))
		hi.Append(int64(p.Hi))
		part.Append(name)
		index.Append(int64(i))
		value.Append(v)
	}
	addAll := func(name string, vs []int64) {
		for i, v := range vs {
			add(name, i, v)
		}
	}
	add(partFormat, 0, partialFormat)
	add(partN, 0, int64(p.N))
	add(partDistances, 0, int64(boolWord(p.Distances)))
	add(partOrdinal, 0, int64(boolWord(p.Ordinal)))
	add(partFingerprint, 0, int64(p.Fingerprint))
	if p.Sample > 0 {
		add(partSample, 0, int64(p.Sample))
		add(partSeed, 0, int64(p.Seed))
	}
	for t, k := range p.Ks {
		add(partK, t, int64(k))
	}
	for t, v := range p.Classes {
		add(partClass, t, int64(v))
	}
	for v, name := range p.ClassNames {
		add(partClassName+name, v, 0)
	}
	c := p.c
	addAll(partTPenalty, c.tPen)
	addAll(partTInter, c.tInter)
	addAll(partCPenalty, c.cPen)
	addAll(partCIntra, c.cIntra)
	addAll(partHitEmbedding, c.hitY)
	addAll(partHitInput, c.hitX)
	addAll(partSameEmbedding, c.sameY)
	addAll(partSameInput, c.sameX)
	add(partNNEmbedding, 0, c.nnY)
	add(partNNInput, 0, c.nnX)
	for _, e := range p.hist {
		add(partMaxRank, e.rank, e.count)
	}
	if o := p.ord; o != nil {
		add(partSpearman, 0, int64(math.Float64bits(o.spearman)))
		add(partCenterRho, 0, int64(math.Float64bits(o.centerSpearman)))
		add(partDiscordant, 0, int64(o.discordant))
		for i, v := range o.centerOrder {
			add(partCenterOrder, i, int64(v))
		}
	}
	return b.NewRecordBatch()
}

// partialRows are the rows of one block, by part and index.
type partialRows struct {
	lo, hi int64
	row    int64 // input row of the block's first row, for errors
	parts  map[string]map[int64]int64
}

// ReadPartials reads a partial-sums table, of one block or of many
// concatenated, and returns the blocks in the order they first appear. A
// missing column, a column of another type, a null, a part given twice for
// one block or a block whose parts do not fit together is an
// *arrowio.Error naming the file, column and row.
func ReadPartials(ctx context.Context, r arrowio.Reader) ([]*Partial, error) {
	file := r.Source().Path
	schema := r.Schema()
	cols := make([]int, 0, 5)
	for _, f := range PartialSchema().Fields() {
		is := schema.FieldIndices(f.Name)
		if len(is) == 0 {
			return nil, &arrowio.Error{File: file, Column: f.Name, Row: -1,
				Err: fmt.Errorf("%w: not a partial-sums table (columns lo, hi, part, index, value; from evaluate --block)", arrowio.ErrMissingColumn)}
		}
		if got := schema.Field(is[0]).Type; !arrow.TypeEqual(got, f.Type) {
			return nil, &arrowio.Error{File: file, Column: f.Name, Row: -1, Err: fmt.Errorf("%w: want %s, got %s", arrowio.ErrColumnType, f.Type, got)}
		}
		cols = append(cols, is[0])
	}
	var blocks []*partialRows
	byRange := map[[2]int64]*partialRows{}
	for r.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec := r.RecordBatch()
		_, first := r.Position()
		lo, hi := rec.Column(cols[0]).(*array.Int64), rec.Column(cols[1]).(*array.Int64)
		part := rec.Column(cols[2]).(*array.String)
		index, value := rec.Column(cols[3]).(*array.Int64), rec.Column(cols[4]).(*array.Int64)
		for i := range int(rec.NumRows()) {
			row := first + int64(i)
			for c, a := range []arrow.Array{lo, hi, part, index, value} {
				if a.IsNull(i) {
					return nil, &arrowio.Error{File: file, Column: PartialSchema().Field(c).Name, Row: row, Err: fmt.Errorf("%w: null", arrowio.ErrInvalidValue)}
				}
			}
			key := [2]int64{lo.Value(i), hi.Value(i)}
			b := byRange[key]
			if b == nil {
				b = &partialRows{lo: key[0], hi: key[1], row: row, parts: map[string]map[int64]int64{}}
				byRange[key] = b
				blocks = append(blocks, b)
			}
			name, at := part.Value(i), index.Value(i)
			m := b.parts[name]
			if m == nil {
				m = map[int64]int64{}
				b.parts[name] = m
			}
			if _, dup := m[at]; dup {
				return nil, &arrowio.Error{File: file, Column: "part", Row: row,
					Err: fmt.Errorf("%w: %s[%d] of block [%d, %d) given twice: the block's table is in the input twice", ErrPartial, name, at, key[0], key[1])}
			}
			m[at] = value.Value(i)
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if len(blocks) == 0 {
		return nil, &arrowio.Error{File: file, Row: -1, Err: fmt.Errorf("%w: no rows", ErrPartial)}
	}
	out := make([]*Partial, len(blocks))
	for i, b := range blocks {
		p, err := b.partial()
		if err != nil {
			return nil, &arrowio.Error{File: file, Column: "part", Row: b.row, Err: err}
		}
		out[i] = p
	}
	return out, nil
}

// knownParts are the names of the parts a partial table may hold, besides
// the class names (partClassName + name).
var knownParts = map[string]bool{
	partFormat: true, partN: true, partDistances: true, partOrdinal: true, partFingerprint: true,
	partSample: true, partSeed: true, partK: true, partClass: true,
	partTPenalty: true, partTInter: true, partCPenalty: true, partCIntra: true,
	partHitEmbedding: true, partHitInput: true, partSameEmbedding: true, partSameInput: true,
	partNNEmbedding: true, partNNInput: true, partMaxRank: true,
	partSpearman: true, partCenterRho: true, partDiscordant: true, partCenterOrder: true,
}

// partial rebuilds a Partial from its rows and checks that they could come
// from evaluate --block: every part known and given once; N, the block,
// the sample, the ks and the classes in range; every sum within what the
// block's points can add up to (penalties within the worst rank penalty
// sum, votes within the points, the co-ranking histogram summing to the
// block's pairs and never above what its ranks allow); the ordinal
// metrics in range, consistent with each other, and only in the block at
// point 0. Nothing is allocated from a claimed size before it is checked
// against the rows that back it.
func (b *partialRows) partial() (*Partial, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: block [%d, %d): "+format, append([]any{ErrPartial, b.lo, b.hi}, args...)...)
	}
	for name := range b.parts {
		if !knownParts[name] && !strings.HasPrefix(name, partClassName) {
			return nil, bad("unknown part %q", name)
		}
	}
	scalar := func(name string) (int64, error) {
		v, ok := b.parts[name][0]
		if !ok || len(b.parts[name]) != 1 {
			return 0, bad("want one %s", name)
		}
		return v, nil
	}
	// list returns the values of name at indices 0..n−1, n being the
	// number of its rows (so that nothing larger than the table is made).
	list := func(name string, n int) ([]int64, error) {
		m := b.parts[name]
		if len(m) != n {
			return nil, bad("%d values of %s, want %d", len(m), name, n)
		}
		out := make([]int64, n)
		for i := range out {
			v, ok := m[int64(i)]
			if !ok {
				return nil, bad("%s has no value at %d", name, i)
			}
			out[i] = v
		}
		return out, nil
	}
	absent := func(names ...string) error {
		for _, name := range names {
			if len(b.parts[name]) > 0 {
				return bad("%s does not belong in this block", name)
			}
		}
		return nil
	}
	var head [5]int64
	for i, name := range []string{partFormat, partN, partDistances, partOrdinal, partFingerprint} {
		v, err := scalar(name)
		if err != nil {
			return nil, err
		}
		head[i] = v
	}
	if head[0] != partialFormat {
		return nil, bad("format %d, this ordinate reads format %d", head[0], partialFormat)
	}
	if head[2] != 0 && head[2] != 1 || head[3] != 0 && head[3] != 1 {
		return nil, bad("distances %d and ordinal %d: want 0 or 1", head[2], head[3])
	}
	n := head[1]
	if n < 4 || n > math.MaxInt32 {
		return nil, bad("N = %d: want 4 to %d points", n, math.MaxInt32)
	}
	p := &Partial{N: int(n), Distances: head[2] != 0, Ordinal: head[3] != 0, Fingerprint: uint64(head[4])}
	points := n
	if _, ok := b.parts[partSample]; ok {
		m, err := scalar(partSample)
		if err != nil {
			return nil, err
		}
		seed, err := scalar(partSeed)
		if err != nil {
			return nil, err
		}
		if m < 1 || m >= n {
			return nil, bad("a sample of %d of %d points", m, n)
		}
		p.Sample, p.Seed, points = int(m), uint64(seed), m
	} else if err := absent(partSeed); err != nil {
		return nil, err
	}
	if b.lo < 0 || b.hi <= b.lo || b.hi > points {
		return nil, bad("points [%d, %d) of %d", b.lo, b.hi, points)
	}
	p.Lo, p.Hi = int(b.lo), int(b.hi)
	q := b.hi - b.lo // the block's query points
	ks, err := list(partK, len(b.parts[partK]))
	if err != nil {
		return nil, err
	}
	if len(ks) == 0 {
		return nil, bad("no k")
	}
	for _, k := range ks {
		if k < 1 || k > n-2 {
			return nil, bad("k = %d with N = %d", k, n)
		}
		p.Ks = append(p.Ks, int(k))
	}
	if !slices.IsSorted(p.Ks) || len(slices.Compact(slices.Clone(p.Ks))) != len(p.Ks) {
		return nil, bad("the ks %v are not increasing", p.Ks)
	}
	if m := b.parts[partClass]; len(m) > 0 {
		cs, err := list(partClass, len(m))
		if err != nil {
			return nil, err
		}
		if len(cs) < 2 || int64(len(cs)) > n {
			return nil, bad("%d classes of %d points", len(cs), n)
		}
		for i, c := range cs {
			if c < 0 || c > math.MaxInt32 || i > 0 && c <= cs[i-1] {
				return nil, bad("class values %v: want increasing values ≥ 0", cs)
			}
			p.Classes = append(p.Classes, int(c))
		}
	} else if p.Ordinal {
		return nil, bad("ordinal metrics without classes")
	} else if p.Distances {
		return nil, bad("distances without classes")
	}
	if err := b.classNames(p, bad); err != nil {
		return nil, err
	}
	structure := !p.Distances
	nk := len(p.Ks)
	c := newCounts(nk, 0, structure)
	fill := []struct {
		name string
		dst  []int64
	}{
		{partHitEmbedding, c.hitY}, {partHitInput, c.hitX}, {partSameEmbedding, c.sameY}, {partSameInput, c.sameX},
	}
	if structure {
		fill = append(fill, []struct {
			name string
			dst  []int64
		}{{partTPenalty, c.tPen}, {partTInter, c.tInter}, {partCPenalty, c.cPen}, {partCIntra, c.cIntra}}...)
	} else if err := absent(partTPenalty, partTInter, partCPenalty, partCIntra, partMaxRank); err != nil {
		return nil, err
	}
	for _, f := range fill {
		v, err := list(f.name, len(f.dst))
		if err != nil {
			return nil, err
		}
		copy(f.dst, v)
	}
	if c.nnY, err = scalar(partNNEmbedding); err != nil {
		return nil, err
	}
	if c.nnX, err = scalar(partNNInput); err != nil {
		return nil, err
	}
	// The votes: within the block's points (k per point for the
	// same-class neighbours), none without classes, and none in the
	// embedding for a distance matrix.
	within := func(name string, v, hi int64) error {
		if v < 0 || v > hi {
			return bad("%s = %d, out of range [0, %d]", name, v, hi)
		}
		return nil
	}
	classes := p.Classes != nil
	votes := q
	if !classes {
		votes = 0
	}
	embVotes := votes
	if p.Distances {
		embVotes = 0
	}
	for t, k := range p.Ks {
		sameMax, _ := mulInt64(votes, int64(k))
		embSameMax, _ := mulInt64(embVotes, int64(k))
		for _, e := range []error{
			within(fmt.Sprintf("%s[%d]", partHitEmbedding, t), c.hitY[t], embVotes),
			within(fmt.Sprintf("%s[%d]", partHitInput, t), c.hitX[t], votes),
			within(fmt.Sprintf("%s[%d]", partSameEmbedding, t), c.sameY[t], embSameMax),
			within(fmt.Sprintf("%s[%d]", partSameInput, t), c.sameX[t], sameMax),
		} {
			if e != nil {
				return nil, e
			}
		}
	}
	if err := within(partNNEmbedding, c.nnY, embVotes); err != nil {
		return nil, err
	}
	if err := within(partNNInput, c.nnX, votes); err != nil {
		return nil, err
	}
	if structure {
		// The penalties: within the worst sum of the block's points, the
		// class-aware part within the whole; none without classes.
		for t, k := range p.Ks {
			worst, ok := mulInt64(q, pointPenaltyMax(n, int64(k)))
			if !ok {
				worst = math.MaxInt64
			}
			for _, pair := range []struct {
				name, part string
				all, sub   []int64
			}{{partTPenalty, partTInter, c.tPen, c.tInter}, {partCPenalty, partCIntra, c.cPen, c.cIntra}} {
				subMax := pair.all[t]
				if !classes {
					subMax = 0
				}
				if err := within(fmt.Sprintf("%s[%d]", pair.name, t), pair.all[t], worst); err != nil {
					return nil, err
				}
				if err := within(fmt.Sprintf("%s[%d]", pair.part, t), pair.sub[t], subMax); err != nil {
					return nil, err
				}
			}
		}
		if p.hist, err = b.histogram(n, q, bad); err != nil {
			return nil, err
		}
	}
	p.c = c
	if err := b.ordinal(p, bad); err != nil {
		return nil, err
	}
	return p, nil
}

// classNames reads the class names: one per class value, the values
// 0..M−1 for M names, every class value below M.
func (b *partialRows) classNames(p *Partial, bad func(string, ...any) error) error {
	var count int
	for name, m := range b.parts {
		if strings.HasPrefix(name, partClassName) {
			count += len(m)
		}
	}
	if count == 0 {
		return nil
	}
	if p.Classes == nil || int64(p.Classes[len(p.Classes)-1]) >= int64(count) {
		return bad("%d class names for the class values %v", count, p.Classes)
	}
	p.ClassNames = make([]string, count)
	seen := make([]bool, count)
	for name, m := range b.parts {
		cn, ok := strings.CutPrefix(name, partClassName)
		if !ok {
			continue
		}
		for v := range m {
			if v < 0 || v >= int64(count) || seen[v] {
				return bad("class %q has value %d, want distinct values in [0, %d)", cn, v, count)
			}
			seen[v] = true
			p.ClassNames[v] = cn
		}
	}
	return nil
}

// histogram reads the co-ranking histogram of q query points among n: the
// count of rank 0 is q (each point with itself), the counts of ranks 1 to
// n−1 add up to q(n−1) pairs, and at every rank m the cumulative count
// C(m) = Σ_{1 ≤ r ≤ m} lies within q·max(0, 2m−n+1) ≤ C(m) ≤ q·m, the
// bounds of |N_m(i) ∩ N̂_m(i)| summed over the block's points.
func (b *partialRows) histogram(n, q int64, bad func(string, ...any) error) ([]rankCount, error) {
	m := b.parts[partMaxRank]
	ranks := make([]int64, 0, len(m))
	for r := range m {
		ranks = append(ranks, r)
	}
	slices.Sort(ranks)
	if len(ranks) > 0 && (ranks[0] < 0 || ranks[len(ranks)-1] > n-1) {
		r := ranks[0]
		if r >= 0 {
			r = ranks[len(ranks)-1]
		}
		return nil, bad("max_rank index %d out of range [0, %d)", r, n)
	}
	hist := make([]rankCount, 0, len(ranks))
	total := q * (n - 1) // ≤ 2³¹·2³¹: no overflow
	var cum int64
	var self int64
	lower := func(r int64) int64 { return q * max(0, 2*r-n+1) }
	for i, r := range ranks {
		v := m[r]
		if v < 0 {
			return nil, bad("max_rank[%d] = %d is negative", r, v)
		}
		if r == 0 {
			self = v
			if v != 0 {
				hist = append(hist, rankCount{0, v})
			}
			continue
		}
		if v > total-cum {
			return nil, bad("the co-ranking counts exceed the %d pairs of the block's points", total)
		}
		cum += v
		if cum > q*r {
			return nil, bad("the co-ranking count up to rank %d is %d, above %d (the block's %d points times the rank)", r, cum, q*r, q)
		}
		// C stays at cum until the next rank with a count.
		until := n - 1
		if i+1 < len(ranks) {
			until = ranks[i+1] - 1
		}
		if cum < lower(until) {
			return nil, bad("the co-ranking count up to rank %d is %d, below %d", until, cum, lower(until))
		}
		if v != 0 {
			hist = append(hist, rankCount{int(r), v})
		}
	}
	// Before the first count of a rank ≥ 1, C = 0 must be allowed.
	first := n
	for _, r := range ranks {
		if r > 0 {
			first = r
			break
		}
	}
	if lower(first-1) > 0 {
		return nil, bad("no co-ranking count up to rank %d", first-1)
	}
	if self != q || cum != total {
		return nil, bad("co-ranking counts %d (rank 0) and %d (ranks ≥ 1), want %d and %d for %d points", self, cum, q, total, q)
	}
	return hist, nil
}

// ordinal reads the ordinal metrics, which travel with the block at point
// 0 when the classes are ordinal: each ρ within [−1, 1] (NaN only when the
// projection is constant, and then for both, with no discordant pair and
// the centres in class order), the centre order a permutation of the
// class values, and the discordant pairs exactly its inversions.
func (b *partialRows) ordinal(p *Partial, bad func(string, ...any) error) error {
	parts := []string{partSpearman, partCenterRho, partDiscordant, partCenterOrder}
	if !p.Ordinal || p.Lo != 0 {
		for _, name := range parts {
			if len(b.parts[name]) > 0 {
				return bad("%s belongs only in the block at point 0 of ordinal metrics", name)
			}
		}
		return nil
	}
	var bits [3]int64
	for i, name := range parts[:3] {
		v, ok := b.parts[name][0]
		if !ok || len(b.parts[name]) != 1 {
			return bad("want one %s", name)
		}
		bits[i] = v
	}
	o := &ordinalResult{spearman: math.Float64frombits(uint64(bits[0])), centerSpearman: math.Float64frombits(uint64(bits[1]))}
	const slack = 1e-12 // a correlation may round a hair beyond ±1
	for _, r := range []struct {
		name string
		v    float64
	}{{partSpearman, o.spearman}, {partCenterRho, o.centerSpearman}} {
		if !math.IsNaN(r.v) && !(math.Abs(r.v) <= 1+slack) {
			return bad("%s = %v, out of range [−1, 1]", r.name, r.v)
		}
	}
	nc := int64(len(p.Classes))
	if bits[2] < 0 || bits[2] > nc*(nc-1)/2 {
		return bad("%s = %d, out of range [0, %d] for %d classes", partDiscordant, bits[2], nc*(nc-1)/2, nc)
	}
	o.discordant = int(bits[2])
	m := b.parts[partCenterOrder]
	if int64(len(m)) != nc {
		return bad("%d values of %s, want %d", len(m), partCenterOrder, nc)
	}
	dense := make([]int, nc)
	seen := make([]bool, nc)
	for i := range nc {
		v, ok := m[i]
		if !ok {
			return bad("%s has no value at %d", partCenterOrder, i)
		}
		c, found := slices.BinarySearch(p.Classes, int(min(max(v, -1), math.MaxInt32)))
		if !found || v < 0 || seen[c] {
			return bad("%s[%d] = %d is not one of the class values %v, once each", partCenterOrder, i, v, p.Classes)
		}
		seen[c] = true
		dense[i] = c
		o.centerOrder = append(o.centerOrder, int(v))
	}
	if inv := inversions(dense); inv != o.discordant {
		return bad("%s = %d, but the centre order has %d pairs out of class order", partDiscordant, o.discordant, inv)
	}
	if math.IsNaN(o.spearman) != math.IsNaN(o.centerSpearman) && math.IsNaN(o.spearman) {
		return bad("%s is NaN (a constant projection) but %s is %v", partSpearman, partCenterRho, o.centerSpearman)
	}
	if math.IsNaN(o.centerSpearman) && o.discordant != 0 {
		return bad("%s is NaN (equal centres) with %d discordant pairs", partCenterRho, o.discordant)
	}
	p.ord = o
	return nil
}
