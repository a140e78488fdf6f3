package main

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// idColumn appends the ids of rows to a builder: int64 ids stay int64, any
// other id type is written as its text.
type idColumn struct {
	ids   arrow.Array
	typ   arrow.DataType
	int64 *array.Int64
}

func newIDColumn(ids arrow.Array) idColumn {
	if a, ok := ids.(*array.Int64); ok {
		return idColumn{ids: ids, typ: arrow.PrimitiveTypes.Int64, int64: a}
	}
	return idColumn{ids: ids, typ: arrow.BinaryTypes.String}
}

func (c idColumn) append(b array.Builder, row int) {
	if c.int64 != nil {
		b.(*array.Int64Builder).Append(c.int64.Value(row))
		return
	}
	b.(*array.StringBuilder).Append(c.ids.ValueStr(row))
}
