package quality

import (
	"context"
	"fmt"
	"math"
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
	for m, v := range c.maxRank {
		if v != 0 {
			add(partMaxRank, m, v)
		}
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

// partial rebuilds a Partial from its rows, checking that the parts fit
// together.
func (b *partialRows) partial() (*Partial, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: block [%d, %d): "+format, append([]any{ErrPartial, b.lo, b.hi}, args...)...)
	}
	scalar := func(name string) (int64, error) {
		v, ok := b.parts[name][0]
		if !ok || len(b.parts[name]) != 1 {
			return 0, bad("want one %s", name)
		}
		return v, nil
	}
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
	n := head[1]
	if n < 4 || n > math.MaxInt32 || b.lo < 0 || b.hi < b.lo || b.hi > n {
		return nil, bad("points [%d, %d) of N = %d", b.lo, b.hi, n)
	}
	p := &Partial{N: int(n), Lo: int(b.lo), Hi: int(b.hi), Distances: head[2] != 0, Ordinal: head[3] != 0, Fingerprint: uint64(head[4])}
	ks, err := list(partK, len(b.parts[partK]))
	if err != nil {
		return nil, err
	}
	for _, k := range ks {
		p.Ks = append(p.Ks, int(k))
	}
	if p.Ks, err = checkKs(p.Ks, p.N); err != nil {
		return nil, bad("%v", err)
	}
	if len(p.Ks) != len(ks) {
		return nil, bad("the ks repeat")
	}
	if m := b.parts[partClass]; len(m) > 0 {
		cs, err := list(partClass, len(m))
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			p.Classes = append(p.Classes, int(c))
		}
	}
	for name, m := range b.parts {
		if cn, ok := strings.CutPrefix(name, partClassName); ok {
			for v := range m {
				if v < 0 || v > int64(len(p.Classes)) {
					return nil, bad("class %q has value %d", cn, v)
				}
				if int(v) >= len(p.ClassNames) {
					p.ClassNames = append(p.ClassNames, make([]string, int(v)+1-len(p.ClassNames))...)
				}
				p.ClassNames[v] = cn
			}
		}
	}
	structure := !p.Distances
	c := newCounts(len(p.Ks), p.N, structure)
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
	for m, v := range b.parts[partMaxRank] {
		if !structure || m < 0 || m >= int64(len(c.maxRank)) {
			return nil, bad("max_rank index %d out of range [0, %d)", m, len(c.maxRank))
		}
		c.maxRank[m] = v
	}
	p.c = c
	if _, ok := b.parts[partSpearman]; ok {
		o := &ordinalResult{}
		var bits [3]int64
		for i, name := range []string{partSpearman, partCenterRho, partDiscordant} {
			if bits[i], err = scalar(name); err != nil {
				return nil, err
			}
		}
		o.spearman, o.centerSpearman, o.discordant = math.Float64frombits(uint64(bits[0])), math.Float64frombits(uint64(bits[1])), int(bits[2])
		order, err := list(partCenterOrder, len(p.Classes))
		if err != nil {
			return nil, err
		}
		for _, v := range order {
			o.centerOrder = append(o.centerOrder, int(v))
		}
		p.ord = o
	}
	return p, nil
}
