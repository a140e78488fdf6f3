package arrowio

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// OnInvalid says what to do with a row that holds NaN, ±Inf or null in a
// used column. In a Selection, "" is InvalidError.
type OnInvalid string

const (
	InvalidError OnInvalid = "error" // stop with an *Error naming file, column, row, id
	InvalidDrop  OnInvalid = "drop"  // drop the row and count it in Frame.Dropped
)

// Values lists the policies.
func (OnInvalid) Values() []string { return []string{"error", "drop"} }

// Selection is the column contract shared by every stage. Names may be
// globs (path.Match syntax) except ID and Label.
type Selection struct {
	ID         string   // row identity; "" synthesises an int64 "row" column of input row numbers
	Features   []string // names/globs, or exactly one list/fixed-size-list column; nil: every numeric column not used otherwise
	Label      string   // class column (integer, float, string, or dictionary of those); "" for none
	SoftLabels []string // one column per class, non-negative weights; nil for none
	Keep       []string // pass-through columns; nil: the label columns
	// Exclude leaves columns out of the features (names and globs): out of
	// the default feature set (nil Features) and out of what the globs in
	// Features match. A column Features names exactly and Exclude matches
	// is ErrSelection: the two contradict each other.
	Exclude   []string
	OnInvalid OnInvalid
	// NoFeatures, when set, selects no features at all (for tables such as
	// label files that carry none).
	NoFeatures bool
}

// Labels holds a hard label column as Go values.
type Labels struct {
	Name    string
	Numeric bool      // true: Num holds the values; false: Str holds them
	Num     []float64 // numeric labels (integers converted exactly when |v| < 2^53)
	// Int holds the labels of an integer column (or a dictionary of
	// integers) exactly, beside Num, which rounds beyond 2^53: classes
	// are formed from Int when it is not nil. An unsigned 64-bit column
	// is stored as its bits, with Unsigned set.
	Int      []int64
	Unsigned bool
	Str      []string // string labels (dictionary-encoded columns are decoded)
	// Order is the declared order of the classes when the column is an
	// ordered dictionary (an Arrow dictionary with ordered=true, which a
	// pandas ordered Categorical becomes): its values in dictionary order,
	// as text (numbers as FormatNumber writes them, integers exactly),
	// values no row holds included; nil for any other column.
	Order []string
}

// Text gives label i as text: text labels as they are, integers exactly,
// other numbers as FormatNumber writes them.
func (l *Labels) Text(i int) string {
	switch {
	case !l.Numeric:
		return l.Str[i]
	case l.Int == nil:
		return FormatNumber(l.Num[i])
	case l.Unsigned:
		return strconv.FormatUint(uint64(l.Int[i]), 10)
	}
	return strconv.FormatInt(l.Int[i], 10)
}

// FormatNumber formats a numeric label: integers below 2^53 without a
// decimal point, other values in the shortest form that reads back
// exactly.
func FormatNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// appendLabels appends the labels of the next part of a frame, m, to l
// (ReadFrame). The ordered dictionaries of different parts are merged: a
// value a later part adds is placed after the value that precedes it
// there; parts that order two values differently are ErrSchema.
func (l *Labels) appendLabels(m *Labels, file string) error {
	l.Num = append(l.Num, m.Num...)
	l.Str = append(l.Str, m.Str...)
	if m.Int != nil {
		l.Int = append(l.Int, m.Int...)
	}
	return l.MergeOrder(m, file)
}

// MergeOrder merges the ordered dictionary of m, the labels of a later
// part of the input, into l's, as ReadFrame does: a value m adds is placed
// after the value that precedes it in m; parts that order two values
// differently are ErrSchema naming file.
func (l *Labels) MergeOrder(m *Labels, file string) error {
	switch {
	case m.Order == nil || slices.Equal(l.Order, m.Order):
		return nil
	case l.Order == nil:
		l.Order = slices.Clone(m.Order)
		return nil
	}
	prev := -1 // position in l.Order of the value before v in m.Order
	for _, v := range m.Order {
		k := slices.Index(l.Order, v)
		switch {
		case k < 0:
			k = prev + 1
			l.Order = slices.Insert(l.Order, k, v)
		case k < prev:
			return &Error{File: file, Column: l.Name, Row: -1, Err: fmt.Errorf(
				"%w: the ordered dictionary of the label column puts %q after %q here, before it in an earlier part",
				ErrSchema, v, l.Order[prev])}
		}
		prev = k
	}
	return nil
}

// Frame is a selection materialised as plain slices: the result of reading a
// whole input (ReadFrame) or one batch (Plan.Extract). Release frees the
// Arrow arrays it holds.
type Frame struct {
	Source Source
	N      int // rows kept
	D      int // number of features

	FeatureNames []string  // D names; for a list column "name[0]", "name[1]", …
	FeatureList  string    // the list column the features came from, or ""
	X            []float64 // N×D row-major
	// Columns, from Plan.ExtractColumns only, holds the D features as
	// columns of N values instead of X (X is then nil): views into the
	// batch, valid until its reader moves on, and not checked for NaN or
	// ±Inf.
	Columns [][]float64

	IDName string      // the id column, or "row" when synthesised
	ID     arrow.Array // N ids

	Label *Labels // nil without --label

	SoftNames []string  // C class names (the column names)
	Soft      []float64 // N×C row-major, each row sums to 1; an unlabelled row is all NaN

	KeepFields []arrow.Field // pass-through columns, in selection order
	Keep       []arrow.Array // N values each

	Rows    []int64 // input row number of every kept row
	Dropped int64   // rows dropped by InvalidDrop
}

// Release frees the Arrow arrays of the frame. It is safe on a nil frame.
func (f *Frame) Release() {
	if f == nil {
		return
	}
	if f.ID != nil {
		f.ID.Release()
		f.ID = nil
	}
	for _, a := range f.Keep {
		a.Release()
	}
	f.Keep = nil
	f.Columns = nil
}
