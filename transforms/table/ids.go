package table

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// IDColumn writes the ids of an input's rows to an output column: int64 ids
// stay int64, any other id type is written as its text.
type IDColumn struct {
	ids   arrow.Array
	int64 *array.Int64
}

// NewIDColumn returns the id column for the ids of a frame.
func NewIDColumn(ids arrow.Array) IDColumn {
	if a, ok := ids.(*array.Int64); ok {
		return IDColumn{ids: ids, int64: a}
	}
	return IDColumn{ids: ids}
}

// Type is the column's output type.
func (c IDColumn) Type() arrow.DataType {
	if c.int64 != nil {
		return arrow.PrimitiveTypes.Int64
	}
	return arrow.BinaryTypes.String
}

// Append appends the id of row to b, a builder of Type.
func (c IDColumn) Append(b array.Builder, row int) {
	if c.int64 != nil {
		b.(*array.Int64Builder).Append(c.int64.Value(row))
		return
	}
	b.(*array.StringBuilder).Append(c.ids.ValueStr(row))
}
