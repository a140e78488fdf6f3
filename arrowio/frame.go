package arrowio

import (
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
	OnInvalid  OnInvalid
	// NoFeatures, when set, selects no features at all (for tables such as
	// label files that carry none).
	NoFeatures bool
}

// Labels holds a hard label column as Go values.
type Labels struct {
	Name    string
	Numeric bool      // true: Num holds the values; false: Str holds them
	Num     []float64 // numeric labels (integers converted exactly when |v| < 2^53)
	Str     []string  // string labels (dictionary-encoded columns are decoded)
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
