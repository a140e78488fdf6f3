package arrowio

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// csvEncoder writes a header row and then one line per row.
type csvEncoder struct {
	sink io.Writer
	cw   *csv.Writer
	row  []string
	sb   strings.Builder
}

func newCSVEncoder(schema *arrow.Schema, sink io.Writer) (*csvEncoder, error) {
	e := &csvEncoder{sink: sink, cw: csv.NewWriter(sink), row: make([]string, schema.NumFields())}
	for i, f := range schema.Fields() {
		e.row[i] = f.Name
	}
	if err := e.writeRow(); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *csvEncoder) write(rec arrow.RecordBatch) error {
	cols := rec.Columns()
	for i := 0; i < int(rec.NumRows()); i++ {
		for j, c := range cols {
			e.row[j] = e.cell(c, i)
		}
		if err := e.writeRow(); err != nil {
			return err
		}
	}
	return e.cw.Error()
}

// writeRow writes e.row. A row of one empty field would be a blank line,
// which CSV readers skip, so it is written as "" instead.
func (e *csvEncoder) writeRow() error {
	if len(e.row) != 1 || e.row[0] != "" {
		return e.cw.Write(e.row)
	}
	e.cw.Flush()
	if err := e.cw.Error(); err != nil {
		return err
	}
	_, err := io.WriteString(e.sink, "\"\"\n")
	return err
}

func (e *csvEncoder) finish() error {
	e.cw.Flush()
	return e.cw.Error()
}

func (e *csvEncoder) release() {}

// cell formats value i of a as a CSV field; null is "".
func (e *csvEncoder) cell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return ""
	}
	switch a := a.(type) {
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.StringView:
		return a.Value(i)
	case *array.Dictionary:
		return e.cell(a.Dictionary(), a.GetValueIndex(i))
	case array.ListLike:
		e.sb.Reset()
		appendList(&e.sb, a, i)
		return e.sb.String()
	}
	return scalarText(a, i)
}

// scalarText formats a non-null value that is neither a string nor a list:
// numbers in the shortest form that parses back to the same value.
func scalarText(a arrow.Array, i int) string {
	switch a := a.(type) {
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 32)
	case *array.Float16:
		return strconv.FormatFloat(float64(a.Value(i).Float32()), 'g', -1, 32)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Uint64:
		return strconv.FormatUint(a.Value(i), 10)
	case *array.Uint32:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint16:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint8:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	}
	return a.ValueStr(i)
}

// appendList writes list value i of a as [e0,e1,…]: numbers as in CSV
// cells, strings JSON-quoted, null elements as null.
func appendList(sb *strings.Builder, a array.ListLike, i int) {
	start, end := a.ValueOffsets(i)
	vals := a.ListValues()
	sb.WriteByte('[')
	for k := start; k < end; k++ {
		if k > start {
			sb.WriteByte(',')
		}
		appendElem(sb, vals, int(k))
	}
	sb.WriteByte(']')
}

func appendElem(sb *strings.Builder, a arrow.Array, i int) {
	if a.IsNull(i) {
		sb.WriteString("null")
		return
	}
	switch a := a.(type) {
	case *array.String:
		appendQuoted(sb, a.Value(i))
	case *array.LargeString:
		appendQuoted(sb, a.Value(i))
	case *array.StringView:
		appendQuoted(sb, a.Value(i))
	case *array.Dictionary:
		appendElem(sb, a.Dictionary(), a.GetValueIndex(i))
	case array.ListLike:
		appendList(sb, a, i)
	default:
		sb.WriteString(scalarText(a, i))
	}
}

func appendQuoted(sb *strings.Builder, s string) {
	b, _ := json.Marshal(s) // cannot fail for a string
	sb.Write(b)
}
