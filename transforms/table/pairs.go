package table

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// DistanceMatrix builds the n×n row-major matrix of a long distance table
// (columns i, j, distance, the DistancePairs kind; ids compared as text) over
// the ids of the given frame, in the frame's row order. A table with only
// the pairs i < j (--upper) is mirrored. Diagonal entries may be absent (they
// are 0). A missing pair, an unknown id, a negative distance, or two
// different values for one ordered pair are errors.
func DistanceMatrix(d *arrowio.Frame, ids *arrowio.Frame) ([]float64, error) {
	return pairMatrix(d, ids, true)
}

// SimilarityMatrix builds the n×n row-major matrix of a long similarity
// table (columns i, j, s) like DistanceMatrix, except that values may be
// negative and the diagonal s(i, i) must be given: kernel distances need it.
// Both directions of a pair may be given and differ; the caller symmetrises.
func SimilarityMatrix(d *arrowio.Frame, ids *arrowio.Frame) ([]float64, error) {
	return pairMatrix(d, ids, false)
}

func pairMatrix(d *arrowio.Frame, ids *arrowio.Frame, distances bool) ([]float64, error) {
	n := ids.N
	pos := make(map[string]int, n)
	for r := range n {
		pos[ids.ID.ValueStr(r)] = r
	}
	if len(d.KeepFields) != 1 || d.D != 1 {
		panic("transforms: DistanceMatrix wants a frame with id i, feature distance and kept column j")
	}
	dist := make([]float64, n*n)
	given := make([]bool, n*n)
	for k := range dist {
		dist[k] = math.NaN()
	}
	if distances {
		for r := range n {
			dist[r*n+r] = 0
		}
	}
	jcol := d.Keep[0]
	for r := range d.N {
		iv, jv := d.ID.ValueStr(r), jcol.ValueStr(r)
		a, okA := pos[iv]
		b, okB := pos[jv]
		if !okA || !okB {
			id, col := iv, d.IDName
			if okA {
				id, col = jv, d.KeepFields[0].Name
			}
			return nil, &arrowio.Error{File: d.Source.Path, Column: col, Row: d.Rows[r], ID: id,
				Err: fmt.Errorf("%w: id is not a row of %s", arrowio.ErrInvalidValue, ids.Source.Path)}
		}
		v := d.X[r]
		if distances && v < 0 {
			return nil, &arrowio.Error{File: d.Source.Path, Column: d.FeatureNames[0], Row: d.Rows[r],
				Err: fmt.Errorf("%w: negative distance %g", arrowio.ErrInvalidValue, v)}
		}
		k := a*n + b
		if given[k] && dist[k] != v {
			return nil, &arrowio.Error{File: d.Source.Path, Column: d.FeatureNames[0], Row: d.Rows[r],
				Err: fmt.Errorf("%w: pair (%s, %s) given twice with different distances", arrowio.ErrInvalidValue, iv, jv)}
		}
		dist[k], given[k] = v, true
		// The mirror is only a default: an ordered table may give both
		// directions, and they may differ.
		if m := b*n + a; !given[m] {
			dist[m] = v
		}
	}
	for k, v := range dist {
		if math.IsNaN(v) {
			return nil, &arrowio.Error{File: d.Source.Path, Row: -1,
				Err: fmt.Errorf("%w: no value for the pair (%s, %s)", arrowio.ErrInvalidValue, ids.ID.ValueStr(k/n), ids.ID.ValueStr(k%n))}
		}
	}
	return dist, nil
}

// NeighborLists turns a long table of each row's nearest neighbours (the
// same number k of pairs for every id, as fisher --neighbors writes) into
// n×k index and distance lists over the ids of the given frame.
func NeighborLists(d *arrowio.Frame, ids *arrowio.Frame) (idx []int32, dist []float64, k int, err error) {
	n := ids.N
	if n == 0 || d.N%n != 0 {
		return nil, nil, 0, &arrowio.Error{File: d.Source.Path, Row: -1,
			Err: fmt.Errorf("%w: %d pairs for %d ids: neither all pairs nor the same number of neighbours per id", arrowio.ErrInvalidValue, d.N, n)}
	}
	k = d.N / n
	pos := make(map[string]int, n)
	for r := range n {
		pos[ids.ID.ValueStr(r)] = r
	}
	idx = make([]int32, n*k)
	dist = make([]float64, n*k)
	fill := make([]int, n)
	jcol := d.Keep[0]
	for r := range d.N {
		iv, jv := d.ID.ValueStr(r), jcol.ValueStr(r)
		a, okA := pos[iv]
		b, okB := pos[jv]
		switch {
		case !okA || !okB:
			id := iv
			if okA {
				id = jv
			}
			return nil, nil, 0, &arrowio.Error{File: d.Source.Path, Row: d.Rows[r], ID: id,
				Err: fmt.Errorf("%w: id is not a row of %s", arrowio.ErrInvalidValue, ids.Source.Path)}
		case a == b:
			return nil, nil, 0, &arrowio.Error{File: d.Source.Path, Row: d.Rows[r], ID: iv,
				Err: fmt.Errorf("%w: a row cannot be its own neighbour", arrowio.ErrInvalidValue)}
		case fill[a] == k:
			return nil, nil, 0, &arrowio.Error{File: d.Source.Path, Row: d.Rows[r], ID: iv,
				Err: fmt.Errorf("%w: id has more than %d neighbours; every id needs the same number", arrowio.ErrInvalidValue, k)}
		case d.X[r] < 0:
			return nil, nil, 0, &arrowio.Error{File: d.Source.Path, Column: d.FeatureNames[0], Row: d.Rows[r],
				Err: fmt.Errorf("%w: negative distance %g", arrowio.ErrInvalidValue, d.X[r])}
		}
		idx[a*k+fill[a]] = int32(b)
		dist[a*k+fill[a]] = d.X[r]
		fill[a]++
	}
	return idx, dist, k, nil
}

// Columns of a long distance table (kind DistancePairs).
const (
	PairI        = "i"
	PairJ        = "j"
	PairDistance = "distance"
)

// PairsSelection is the selection that reads a long pair table (i, j and
// the value column, "distance" for distances, "s" for similarities) into a
// frame for DistanceMatrix, SimilarityMatrix or NeighborLists: id i, the
// value as the one feature, j as the one kept column.
func PairsSelection(value string) arrowio.Selection {
	return arrowio.Selection{ID: PairI, Features: []string{value}, Keep: []string{PairJ}, OnInvalid: arrowio.InvalidError}
}

// HasColumns reports whether schema has exactly one column of each name.
func HasColumns(schema *arrow.Schema, names ...string) bool {
	for _, n := range names {
		if len(schema.FieldIndices(n)) != 1 {
			return false
		}
	}
	return true
}

// IDType is the type under which ids are written: int64 ids stay int64,
// any other id type is written as its text.
func IDType(ids arrow.Array) arrow.DataType {
	if _, ok := ids.(*array.Int64); ok {
		return arrow.PrimitiveTypes.Int64
	}
	return arrow.BinaryTypes.String
}

// AppendID appends the id of row r of ids to b (of the type IDType gives).
func AppendID(b array.Builder, ids arrow.Array, r int) {
	if a, ok := ids.(*array.Int64); ok {
		b.(*array.Int64Builder).Append(a.Value(r))
		return
	}
	b.(*array.StringBuilder).Append(ids.ValueStr(r))
}

// PairsSchema is the schema of a long distance table over the rows whose
// ids are ids: i and j (int64 ids stay int64, others are text) and
// distance (float64).
func PairsSchema(ids arrow.Array) *arrow.Schema {
	t := IDType(ids)
	return arrow.NewSchema([]arrow.Field{
		{Name: PairI, Type: t}, {Name: PairJ, Type: t}, {Name: PairDistance, Type: arrow.PrimitiveTypes.Float64},
	}, nil)
}

// PairBatch is the number of pairs per record batch that PairWriter writes.
const PairBatch = 1 << 16

// PairWriter writes a long distance table in batches of PairBatch rows:
// Append each pair (row indices into ids), then Flush. Release frees the
// builder.
type PairWriter struct {
	w    arrowio.Writer
	ids  arrow.Array
	b    *array.RecordBuilder
	rows int
}

// NewPairWriter returns a writer of pairs to w, whose schema must be
// PairsSchema(ids).
func NewPairWriter(w arrowio.Writer, mem memory.Allocator, ids arrow.Array) *PairWriter {
	return &PairWriter{w: w, ids: ids, b: array.NewRecordBuilder(mem, PairsSchema(ids))}
}

// Append adds the pair (row i, row j) with distance d.
func (p *PairWriter) Append(i, j int, d float64) error {
	AppendID(p.b.Field(0), p.ids, i)
	AppendID(p.b.Field(1), p.ids, j)
	p.b.Field(2).(*array.Float64Builder).Append(d)
	if p.rows++; p.rows == PairBatch {
		return p.Flush()
	}
	return nil
}

// Flush writes the pairs appended since the last batch.
func (p *PairWriter) Flush() error {
	if p.rows == 0 {
		return nil
	}
	rec := p.b.NewRecordBatch()
	defer rec.Release()
	p.rows = 0
	return p.w.Write(rec)
}

// Release frees the builder.
func (p *PairWriter) Release() { p.b.Release() }

// WriteDensePairs writes the n×n row-major dist (n = ids.Len()) as a long
// table to w: every ordered pair i ≠ j, or with upper only i < j. done, if
// not nil, is called with the rows of the matrix written so far; ctx stops
// it between rows.
func WriteDensePairs(ctx context.Context, w arrowio.Writer, mem memory.Allocator, ids arrow.Array, dist []float64, upper bool, done func(rows int64)) error {
	n := ids.Len()
	if len(dist) != n*n {
		panic(fmt.Sprintf("table: WriteDensePairs: %d values for %d ids", len(dist), n))
	}
	p := NewPairWriter(w, mem, ids)
	defer p.Release()
	for i := range n {
		if err := ctx.Err(); err != nil {
			return err
		}
		for j := range n {
			if j == i || upper && j < i {
				continue
			}
			if err := p.Append(i, j, dist[i*n+j]); err != nil {
				return err
			}
		}
		if done != nil {
			done(int64(i + 1))
		}
	}
	return p.Flush()
}

// WriteNeighborPairs writes each row's k nearest neighbours (n×k row-major
// idx and dist, n = ids.Len()) as a long table to w, the pairs of row i in
// the order given; with upper only the pairs i < j. done and ctx are as for
// WriteDensePairs.
func WriteNeighborPairs(ctx context.Context, w arrowio.Writer, mem memory.Allocator, ids arrow.Array, idx []int32, dist []float64, k int, upper bool, done func(rows int64)) error {
	n := ids.Len()
	if len(idx) != n*k || len(dist) != n*k {
		panic(fmt.Sprintf("table: WriteNeighborPairs: %d indices and %d values for %d ids × %d neighbours", len(idx), len(dist), n, k))
	}
	p := NewPairWriter(w, mem, ids)
	defer p.Release()
	for i := range n {
		if err := ctx.Err(); err != nil {
			return err
		}
		for t := range k {
			j := int(idx[i*k+t])
			if upper && j <= i {
				continue
			}
			if err := p.Append(i, j, dist[i*k+t]); err != nil {
				return err
			}
		}
		if done != nil {
			done(int64(i + 1))
		}
	}
	return p.Flush()
}

// DistinctIDs makes a frame of the distinct ids of a pair table read with
// PairsSelection (i as the id, j as the one kept column), in order of first
// appearance, to carry the ids of a distance-only input. i and j must be of
// the same type.
func DistinctIDs(mem memory.Allocator, pairs *arrowio.Frame) (*arrowio.Frame, error) {
	if len(pairs.Keep) != 1 {
		panic("table: DistinctIDs wants a frame with id i and kept column j")
	}
	jcol := pairs.Keep[0]
	t := IDType(pairs.ID)
	if !arrow.TypeEqual(t, IDType(jcol)) {
		return nil, &arrowio.Error{File: pairs.Source.Path, Column: pairs.KeepFields[0].Name, Row: -1,
			Err: fmt.Errorf("%w: columns %s and %s hold ids of different types (%s, %s)", arrowio.ErrInvalidValue,
				pairs.IDName, pairs.KeepFields[0].Name, pairs.ID.DataType(), jcol.DataType())}
	}
	b := array.NewBuilder(mem, t)
	defer b.Release()
	seen := map[string]bool{}
	var rows []int64
	add := func(col arrow.Array, r int) {
		if v := col.ValueStr(r); !seen[v] {
			seen[v] = true
			AppendID(b, col, r)
			rows = append(rows, int64(len(rows)))
		}
	}
	for r := range pairs.N {
		add(pairs.ID, r)
		add(jcol, r)
	}
	return &arrowio.Frame{Source: pairs.Source, N: len(rows), IDName: "id", ID: b.NewArray(), Rows: rows}, nil
}
