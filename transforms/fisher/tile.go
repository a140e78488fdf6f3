package fisher

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/table"
)

// Tile selects one block of the pair matrix, so that independent tasks
// (Spark tasks, the pods of a Kubernetes Indexed Job, a shell loop) can
// compute the long distance table together: the n objects are split in
// Count contiguous blocks in row order, block b holding the rows
// [b·n/Count, (b+1)·n/Count), and tile (I, J) holds the pairs (i, j) with i
// in block I and j in block J. The Count² tiles are the whole table; with
// upper (pairs i < j) only the tiles I ≤ J exist. The zero Tile is the
// whole table.
//
// A tile costs the same whatever its Count: only its two blocks are
// computed (in exact integer arithmetic, for any Count), and with more
// blocks than objects most tiles are empty. The text form accepts counts
// up to MaxTiles.
type Tile struct {
	I, J, Count int
}

// MaxTiles is the largest count of the text form "I,J/T" (2³¹−1, the count
// ordinate.spark asks for to learn the output's schema without a fit): more
// blocks than that only adds empty tiles.
const MaxTiles = math.MaxInt32

// IsZero reports whether t is the whole table.
func (t Tile) IsZero() bool { return t.Count == 0 }

// MarshalText writes "I,J/T", or "" for the zero Tile.
func (t Tile) MarshalText() ([]byte, error) {
	if t.IsZero() {
		return nil, nil
	}
	return fmt.Appendf(nil, "%d,%d/%d", t.I, t.J, t.Count), nil
}

// UnmarshalText reads "I,J/T" with 0 ≤ I, J < T ≤ MaxTiles; "" is the zero
// Tile.
func (t *Tile) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "" {
		*t = Tile{}
		return nil
	}
	bad := fmt.Errorf("%q: want I,J/T with 0 ≤ I, J < T ≤ %d, such as 0,1/4", s, MaxTiles)
	ij, ts, ok := strings.Cut(s, "/")
	if !ok {
		return bad
	}
	is, js, ok := strings.Cut(ij, ",")
	if !ok {
		return bad
	}
	var v [3]int
	for q, f := range []string{is, js, ts} {
		x, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return bad
		}
		v[q] = x
	}
	if v[2] < 1 || v[2] > MaxTiles || v[0] < 0 || v[0] >= v[2] || v[1] < 0 || v[1] >= v[2] {
		return bad
	}
	*t = Tile{I: v[0], J: v[1], Count: v[2]}
	return nil
}

// String returns the tile as "I,J/T".
func (t Tile) String() string { b, _ := t.MarshalText(); return string(b) }

// Block returns the rows [lo, hi) of block b (0 ≤ b < Count) of n ≥ 0
// objects: ⌊b·n/Count⌋ and ⌊(b+1)·n/Count⌋, in 128-bit arithmetic so that
// b·n cannot overflow.
func (t Tile) Block(b, n int) (lo, hi int) {
	return mulDiv(b, n, t.Count), mulDiv(b+1, n, t.Count)
}

// mulDiv returns ⌊a·b/c⌋ for a, b ≥ 0, c > 0 and a ≤ c (so that the
// quotient is at most b and fits).
func mulDiv(a, b, c int) int {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int(q)
}

// pairs returns the filter of the unordered pairs {a, b} the tile needs
// (either order may be written, so both are computed), or nil for the
// zero Tile. It looks at the rows of the tile's two blocks only.
func (t Tile) pairs(n int) func(a, b int) bool {
	if t.IsZero() {
		return nil
	}
	ilo, ihi := t.Block(t.I, n)
	jlo, jhi := t.Block(t.J, n)
	inI := func(r int) bool { return ilo <= r && r < ihi }
	inJ := func(r int) bool { return jlo <= r && r < jhi }
	return func(a, b int) bool {
		return inI(a) && inJ(b) || inJ(a) && inI(b)
	}
}

// ordered returns the filter of the ordered entries (i, j) of the tile: i
// in block I and j in block J (the local mode's lists are ordered).
func (t Tile) ordered(n int) func(i, j int) bool {
	ilo, ihi := t.Block(t.I, n)
	jlo, jhi := t.Block(t.J, n)
	return func(i, j int) bool { return ilo <= i && i < ihi && jlo <= j && j < jhi }
}

// empty reports whether the tile holds no pairs of n objects: one of its
// blocks has no rows (more tiles than objects).
func (t Tile) empty(n int) bool {
	if t.IsZero() {
		return false
	}
	ilo, ihi := t.Block(t.I, n)
	jlo, jhi := t.Block(t.J, n)
	return ilo == ihi || jlo == jhi
}

// figures returns the provenance figures of the tile over n objects: the
// rows of its blocks (the tile itself is the option's value).
func (t Tile) figures(n int) map[string]any {
	ilo, ihi := t.Block(t.I, n)
	jlo, jhi := t.Block(t.J, n)
	return map[string]any{"tile_rows": []int{ilo, ihi}, "tile_columns": []int{jlo, jhi}}
}

// writeTilePairs writes the pairs of tile t of the n×n row-major dist
// (n = ids.Len()) as a long table to w: i in block I, j in block J, i ≠ j,
// and with upper only i < j, ordered by i then j as the whole table is.
// done, if not nil, is called with the rows of the tile written so far.
func writeTilePairs(ctx context.Context, w arrowio.Writer, mem memory.Allocator, ids arrow.Array, dist []float64, t Tile, upper bool, done func(rows int64)) error {
	n := ids.Len()
	ilo, ihi := t.Block(t.I, n)
	jlo, jhi := t.Block(t.J, n)
	p := table.NewPairWriter(w, mem, ids)
	defer p.Release()
	for i := ilo; i < ihi; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		for j := jlo; j < jhi; j++ {
			if j == i || upper && j < i {
				continue
			}
			if err := p.Append(i, j, dist[i*n+j]); err != nil {
				return err
			}
		}
		if done != nil {
			done(int64(i - ilo + 1))
		}
	}
	return p.Flush()
}

// writeTileNeighborPairs writes the entries of tile t of the local mode's
// lists (idx, dist: n×k): row i's pairs with i in block I and j in block
// J, in list order; with upper only i < j.
func writeTileNeighborPairs(ctx context.Context, w arrowio.Writer, mem memory.Allocator, ids arrow.Array, idx []int32, dist []float64, k int, t Tile, upper bool, done func(rows int64)) error {
	n := ids.Len()
	ilo, ihi := t.Block(t.I, n)
	jlo, jhi := t.Block(t.J, n)
	p := table.NewPairWriter(w, mem, ids)
	defer p.Release()
	for i := ilo; i < ihi; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		for q := range k {
			j := int(idx[i*k+q])
			if j < jlo || j >= jhi || upper && j <= i {
				continue
			}
			if err := p.Append(i, j, dist[i*k+q]); err != nil {
				return err
			}
		}
		if done != nil {
			done(int64(i - ilo + 1))
		}
	}
	return p.Flush()
}
