package table

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// SquareSchema is the schema of a square distance table (kind
// DistanceSquare) over the rows whose ids are ids: the id column idName
// (int64 ids stay int64, others are text), then one float64 column per row,
// named by the row's id, in row order. An id that cannot name a column (a
// repeat, or the id column's own name) is an error.
func SquareSchema(idName string, ids arrow.Array) (*arrow.Schema, error) {
	fields := make([]arrow.Field, 0, 1+ids.Len())
	fields = append(fields, arrow.Field{Name: idName, Type: IDType(ids)})
	seen := map[string]bool{idName: true}
	for r := range ids.Len() {
		name := ids.ValueStr(r)
		if seen[name] {
			return nil, &arrowio.Error{Column: idName, Row: int64(r), ID: name,
				Err: fmt.Errorf("%w: a square table names a column by each id; this one repeats an id or the id column's name", arrowio.ErrInvalidValue)}
		}
		seen[name] = true
		fields = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64})
	}
	return arrow.NewSchema(fields, nil), nil
}

// SquareRecord builds the square table of schema (from SquareSchema) from
// the ids and the n×n row-major matrix dist, n = ids.Len().
func SquareRecord(mem memory.Allocator, schema *arrow.Schema, ids arrow.Array, dist []float64) arrow.RecordBatch {
	n := ids.Len()
	if len(dist) != n*n || schema.NumFields() != n+1 {
		panic(fmt.Sprintf("table: SquareRecord: %d values and %d columns for %d ids", len(dist), schema.NumFields(), n))
	}
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := range n {
		AppendID(b.Field(0), ids, i)
	}
	col := make([]float64, n)
	for j := range n {
		for i := range n {
			col[i] = dist[i*n+j]
		}
		b.Field(1+j).(*array.Float64Builder).AppendValues(col, nil)
	}
	return b.NewRecordBatch()
}

// SquareMatrix is the reader of a square table: f holds one row per object
// and, as its features, one numeric column per object in the same order
// (a square distance table, or a square similarity matrix such as
// fisher --similarity reads). It returns the n×n row-major matrix (f.X
// itself, not a copy). A table with more or fewer columns than rows is an
// error.
func SquareMatrix(f *arrowio.Frame) ([]float64, error) {
	if f.D != f.N {
		first := ""
		if len(f.FeatureNames) > 0 {
			first = " (" + f.FeatureNames[0] + "…)"
		}
		return nil, &arrowio.Error{File: f.Source.Path, Row: -1, Err: fmt.Errorf(
			"%w: a square table needs as many numeric columns as rows; it has %d rows and %d feature columns%s",
			arrowio.ErrSelection, f.N, f.D, first)}
	}
	return f.X, nil
}
