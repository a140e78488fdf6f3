package arrowio

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// intLabels reads an integer label column, or a dictionary of integers,
// exactly: the values as int64, those of an unsigned 64-bit column as their
// bits (unsigned true). It gives nil for any other column. A null slot, or
// a dictionary index out of range, gives 0: that row is reported or dropped
// as invalid by the label's null scan.
func intLabels(arr arrow.Array) (v []int64, unsigned bool) {
	n := arr.Len()
	if d, ok := arr.(*array.Dictionary); ok {
		table, unsigned := intLabels(d.Dictionary())
		if table == nil {
			return nil, false
		}
		v = make([]int64, n)
		for i := range n {
			if d.IsNull(i) {
				continue
			}
			if k := d.GetValueIndex(i); k >= 0 && k < len(table) {
				v[i] = table[k]
			}
		}
		return v, unsigned
	}
	switch a := arr.(type) {
	case *array.Int8:
		return widen(a.Int8Values()), false
	case *array.Int16:
		return widen(a.Int16Values()), false
	case *array.Int32:
		return widen(a.Int32Values()), false
	case *array.Int64:
		return widen(a.Int64Values()), false
	case *array.Uint8:
		return widen(a.Uint8Values()), false
	case *array.Uint16:
		return widen(a.Uint16Values()), false
	case *array.Uint32:
		return widen(a.Uint32Values()), false
	case *array.Uint64:
		return widen(a.Uint64Values()), true
	}
	return nil, false
}

// widen copies integers into int64 (uint64 as its bits).
func widen[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](v []T) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// dictOrder gives the values of an ordered dictionary's dictionary as
// text, in dictionary order, as Labels.Text writes the rows that hold
// them (null and repeated entries left out), or nil when the dictionary
// is not ordered or its values cannot be labels.
func dictOrder(arr arrow.Array) []string {
	a, ok := arr.(*array.Dictionary)
	if !ok || !a.DataType().(*arrow.DictionaryType).Ordered {
		return nil
	}
	dict := a.Dictionary()
	n := dict.Len()
	l := &Labels{}
	switch dt := dict.DataType(); {
	case isString(dt):
		src := newStrSource(dict)
		l.Str = make([]string, n)
		for k := range n {
			if !dict.IsNull(k) {
				l.Str[k] = src.get(k)
			}
		}
	case IsNumeric(dt):
		l.Numeric = true
		l.Num = make([]float64, n)
		if n > 0 {
			newNumSource(dict).into(l.Num, 1, 0, n)
		}
		l.Int, l.Unsigned = intLabels(dict)
	default:
		return nil
	}
	order := make([]string, 0, n)
	seen := make(map[string]bool, n)
	for k := range n {
		if dict.IsNull(k) {
			continue
		}
		if t := l.Text(k); !seen[t] {
			seen[t] = true
			order = append(order, t)
		}
	}
	return order
}
