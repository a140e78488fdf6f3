package arrowio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestErrorClipsValues checks that ids and column names of any length are
// clipped in messages: a 1 MiB id once filled the error line.
func TestErrorClipsValues(t *testing.T) {
	huge := strings.Repeat("A", 1<<20)
	nan := fmt.Errorf("%w: NaN", ErrInvalidValue)
	clipped := strings.Repeat("A", maxValueRunes) + "…"
	for _, tc := range []struct {
		name string
		err  *Error
		want string
	}{
		{"id", &Error{File: "f.csv", Column: "x", Row: 4, ID: huge, Err: nan}, `f.csv: column "x", row 4 (id ` + clipped + `): invalid value: NaN`},
		{"column", &Error{File: "f.csv", Column: huge, Row: 4, Err: nan}, `f.csv: column "` + clipped + `", row 4: invalid value: NaN`},
		{"matrix id", &Error{Matrix: "x", Column: "0", Row: 7, ID: huge, Err: nan}, `row 7 (id ` + clipped + `), column 0 of x: invalid value: NaN`},
		{"short id", &Error{File: "f.csv", Row: 1, ID: strings.Repeat("é", maxValueRunes), Err: nan}, `f.csv: row 1 (id ` + strings.Repeat("é", maxValueRunes) + `): invalid value: NaN`},
		{"multibyte id", &Error{File: "f.csv", Row: 1, ID: strings.Repeat("é", maxValueRunes+1), Err: nan}, `f.csv: row 1 (id ` + strings.Repeat("é", maxValueRunes) + `…): invalid value: NaN`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("%s: message of %d bytes %.200q…, want %.200q…", tc.name, len(got), got, tc.want)
		}
	}
	if got := ClipValue("short"); got != "short" {
		t.Errorf("ClipValue(short) = %q", got)
	}
}

// TestCSVClipsValues reads a CSV file whose id and text values are 1 MiB
// long: the errors name them clipped.
func TestCSVClipsValues(t *testing.T) {
	huge := strings.Repeat("B", 1<<20)
	for _, tc := range []struct {
		name, text string
		want       string // in the message
	}{
		{"id of a NaN row", "id,x\n1,1\n2,2\n" + huge + ",NaN\n", "(id " + strings.Repeat("B", maxValueRunes) + "…)"},
		{"text in a numeric column", "id,x\n1,1\n2,2\n3,4\n4,x" + huge + "\n", `"x` + strings.Repeat("B", maxValueRunes-1) + `…"`},
	} {
		path := filepath.Join(t.TempDir(), "f.csv")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		_, err = ReadFrame(context.Background(), r, Selection{ID: "id", Features: []string{"x"}})
		r.Release()
		if err == nil {
			t.Fatalf("%s: no error", tc.name)
		}
		if msg := err.Error(); len(msg) > 500 || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: message of %d bytes %.300q…, want one under 500 bytes holding %q", tc.name, len(msg), msg, tc.want)
		}
	}
}
