package arrowio

import (
	"errors"
	"fmt"
	"testing"
)

// TestErrorMessages checks both forms of *Error: a position in a file and a
// position in an in-memory matrix.
func TestErrorMessages(t *testing.T) {
	nan := fmt.Errorf("%w: NaN", ErrInvalidValue)
	for _, tc := range []struct {
		err  *Error
		want string
	}{
		{&Error{File: "part-1", Column: "x", Row: 4, ID: "e", Err: nan}, `part-1: column "x", row 4 (id e): invalid value: NaN`},
		{&Error{File: "a.csv", Row: -1, Err: ErrEmpty}, `a.csv: no rows`},
		{&Error{Column: "x", Row: 2, Err: nan}, `column "x", row 2: invalid value: NaN`},
		{&Error{Row: -1, Err: ErrEmpty}, `no rows`},
		{MatrixError("x", 1, 2, nan), `row 1, column 2 of x: invalid value: NaN`},
		{MatrixError("classes", 4, -1, nan), `row 4 of classes: invalid value: NaN`},
		{MatrixError("dist", -1, 3, nan), `column 3 of dist: invalid value: NaN`},
		{MatrixError("s", -1, -1, nan), `s: invalid value: NaN`},
		{&Error{Matrix: "x", Column: "0", Row: 7, ID: "frog", Err: nan}, `row 7 (id frog), column 0 of x: invalid value: NaN`},
		// A file takes precedence over a matrix name.
		{&Error{File: "f.csv", Matrix: "x", Column: "c", Row: 0, Err: nan}, `f.csv: column "c", row 0: invalid value: NaN`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%#v: message %q, want %q", tc.err, got, tc.want)
		}
		if !errors.Is(tc.err, ErrInvalidData) {
			t.Errorf("%q does not match ErrInvalidData", tc.want)
		}
	}
	e := MatrixError("x", 3, 5, ErrInvalidValue)
	if e.File != "" || e.Matrix != "x" || e.Row != 3 || e.Column != "5" || e.Err != ErrInvalidValue {
		t.Errorf("MatrixError: %#v", e)
	}
	if e := MatrixError("classes", 3, -1, ErrInvalidValue); e.Column != "" || e.Row != 3 {
		t.Errorf("MatrixError of a vector: %#v", e)
	}
	var target *Error
	if err := fmt.Errorf("wrapped: %w", e); !errors.As(err, &target) || target != e {
		t.Errorf("errors.As through a wrap failed")
	}
}
