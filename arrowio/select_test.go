package arrowio

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Helpers shared by the selection, extraction and ReadFrame tests (prefix
// fr to keep clear of the other test files of the package).

// frCol builds an array from JSON; floats may be "NaN", "Inf", "-Inf".
func frCol(t testing.TB, mem memory.Allocator, dt arrow.DataType, js string) arrow.Array {
	t.Helper()
	a, _, err := array.FromJSON(mem, dt, strings.NewReader(js))
	if err != nil {
		t.Fatalf("FromJSON(%s, %s): %v", dt, js, err)
	}
	return a
}

// frRecord makes a record batch of the named columns and releases them.
func frRecord(t testing.TB, names []string, cols []arrow.Array) arrow.RecordBatch {
	t.Helper()
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: names[i], Type: c.DataType(), Nullable: true}
	}
	n := int64(0)
	if len(cols) > 0 {
		n = int64(cols[0].Len())
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, n)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// frSchema makes a schema from name/type pairs.
func frSchema(pairs ...any) *arrow.Schema {
	var fields []arrow.Field
	for i := 0; i < len(pairs); i += 2 {
		switch f := pairs[i].(type) {
		case arrow.Field:
			fields = append(fields, f)
			i--
		default:
			fields = append(fields, arrow.Field{Name: f.(string), Type: pairs[i+1].(arrow.DataType), Nullable: true})
		}
	}
	return arrow.NewSchema(fields, nil)
}

func frNames(fields []arrow.Field) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return names
}

var (
	frFloat  = arrow.PrimitiveTypes.Float64
	frInt32  = arrow.PrimitiveTypes.Int32
	frInt64  = arrow.PrimitiveTypes.Int64
	frString = arrow.BinaryTypes.String
	frBool   = arrow.FixedWidthTypes.Boolean
)

func TestCompile(t *testing.T) {
	mostly := arrow.Field{Name: "x3", Type: frString, Nullable: true, Metadata: arrow.NewMetadata(
		[]string{MetaFirstTextRow, MetaFirstTextValue}, []string{"17", "abc"})}
	base := frSchema("id", frString, "x2", frFloat, "a", frInt32, "x1", frFloat, "y", frInt64, "p_a", frFloat, "p_b", frFloat, "s", frString, "k", frInt32)
	lists := frSchema("id", frString, "emb", arrow.ListOf(arrow.PrimitiveTypes.Float32),
		"fix", arrow.FixedSizeListOf(3, frFloat), "x1", frFloat, "words", arrow.ListOf(frString))
	onlyList := frSchema("id", frString, "emb", arrow.LargeListOf(frInt32))
	withRow := frSchema("row", frInt64, "x1", frFloat)
	dup := arrow.NewSchema([]arrow.Field{{Name: "x", Type: frFloat}, {Name: "x", Type: frFloat}}, nil)

	tests := []struct {
		name   string
		schema *arrow.Schema
		sel    Selection
		// on success
		features []string
		list     string
		keep     []string
		id       string
		// on failure
		err     error
		column  string
		row     int64
		message string // a substring of the message
	}{
		{name: "glob in schema order", schema: base, sel: Selection{Features: []string{"x*"}},
			features: []string{"x2", "x1"}, id: "row"},
		{name: "explicit names in given order", schema: base, sel: Selection{Features: []string{"x1", "a", "x2"}},
			features: []string{"x1", "a", "x2"}, id: "row"},
		{name: "name then glob, de-duplicated", schema: base, sel: Selection{Features: []string{"x1", "x*", "a", "x1"}},
			features: []string{"x1", "x2", "a"}, id: "row"},
		{name: "default features skip id label soft keep and text", schema: base,
			sel:      Selection{ID: "id", Label: "y", SoftLabels: []string{"p_*"}, Keep: []string{"k"}},
			features: []string{"x2", "a", "x1"}, keep: []string{"k"}, id: "id"},
		{name: "default keep is the label columns", schema: base,
			sel:      Selection{Label: "y", SoftLabels: []string{"p_b", "p_a"}, Features: []string{"x1"}},
			features: []string{"x1"}, keep: []string{"y", "p_b", "p_a"}, id: "row"},
		{name: "empty keep keeps nothing", schema: base,
			sel:      Selection{Label: "y", Keep: []string{}, Features: []string{"x1"}},
			features: []string{"x1"}, keep: nil, id: "row"},
		{name: "keep glob skips the id", schema: base,
			sel:      Selection{ID: "id", Keep: []string{"*"}, Features: []string{"x1"}},
			features: []string{"x1"}, keep: []string{"x2", "a", "x1", "y", "p_a", "p_b", "s", "k"}, id: "id"},
		{name: "glob skips the label", schema: frSchema("x1", frFloat, "y", frInt64, "x2", frFloat),
			sel: Selection{Label: "y", Features: []string{"*"}}, features: []string{"x1", "x2"}, keep: []string{"y"}, id: "row"},
		{name: "existing row column with synthesised id", schema: withRow, sel: Selection{},
			features: []string{"row", "x1"}, id: "row"},
		{name: "list column", schema: lists, sel: Selection{ID: "id", Features: []string{"emb"}},
			features: nil, list: "emb", id: "id"},
		{name: "fixed-size list column", schema: lists, sel: Selection{Features: []string{"fix"}},
			features: []string{"fix[0]", "fix[1]", "fix[2]"}, list: "fix", id: "row"},
		{name: "default takes the only list column", schema: onlyList, sel: Selection{ID: "id"},
			features: nil, list: "emb", id: "id"},
		{name: "no features", schema: base, sel: Selection{ID: "id", Label: "y", NoFeatures: true},
			features: nil, keep: []string{"y"}, id: "id"},

		{name: "missing column lists the columns", schema: base, sel: Selection{Features: []string{"x9"}},
			err: ErrMissingColumn, column: "x9", row: -1,
			message: `in.parquet: column "x9": no such column (columns: id, x2, a, x1, y, p_a, p_b, s, k)`},
		{name: "missing id", schema: base, sel: Selection{ID: "name"}, err: ErrMissingColumn, column: "name", row: -1},
		{name: "missing label", schema: base, sel: Selection{Label: "grade"}, err: ErrMissingColumn, column: "grade", row: -1},
		{name: "pattern matching nothing", schema: base, sel: Selection{Features: []string{"z*"}},
			err: ErrMissingColumn, column: "z*", row: -1, message: "matches no column"},
		{name: "pattern matching only the label", schema: base, sel: Selection{Label: "y", Features: []string{"y*"}},
			err: ErrMissingColumn, column: "y*", row: -1},
		{name: "bad pattern", schema: base, sel: Selection{Features: []string{"x["}},
			err: ErrSelection, column: "x[", row: -1},
		{name: "string feature", schema: base, sel: Selection{Features: []string{"s"}},
			err: ErrColumnType, column: "s", row: -1, message: "(got utf8)"},
		{name: "string feature by glob", schema: base, sel: Selection{Features: []string{"*"}},
			err: ErrColumnType, column: "id", row: -1},
		{name: "boolean feature", schema: frSchema("b", frBool, "x", frFloat), sel: Selection{Features: []string{"b", "x"}},
			err: ErrColumnType, column: "b", row: -1},
		{name: "mostly numeric text feature", schema: frSchema("x1", frFloat, mostly), sel: Selection{Features: []string{"x*"}},
			err: ErrNotNumeric, column: "x3", row: 17,
			message: `newthyroid.csv: column "x3", row 17: text in a numeric column: "abc"`},
		{name: "mostly numeric text by default", schema: frSchema("x1", frFloat, mostly, "label", frString), sel: Selection{Label: "label"},
			err: ErrNotNumeric, column: "x3", row: 17},
		{name: "id also a feature", schema: base, sel: Selection{ID: "a", Features: []string{"x1", "a"}},
			err: ErrSelection, column: "a", row: -1, message: "is the id"},
		{name: "label also a feature", schema: base, sel: Selection{Label: "y", Features: []string{"y"}},
			err: ErrSelection, column: "y", row: -1, message: "is the label"},
		{name: "label also the id", schema: base, sel: Selection{ID: "y", Label: "y"}, err: ErrSelection, column: "y", row: -1},
		{name: "label also a soft label", schema: base, sel: Selection{Label: "p_a", SoftLabels: []string{"p_a", "p_b"}},
			err: ErrSelection, column: "p_a", row: -1},
		{name: "boolean label", schema: frSchema("b", frBool, "x", frFloat), sel: Selection{Label: "b"},
			err: ErrColumnType, column: "b", row: -1},
		{name: "one soft label", schema: base, sel: Selection{SoftLabels: []string{"p_a"}}, err: ErrSelection, column: "p_a", row: -1},
		{name: "text soft label", schema: base, sel: Selection{SoftLabels: []string{"p_a", "s"}},
			err: ErrColumnType, column: "s", row: -1},
		{name: "list with another feature", schema: lists, sel: Selection{Features: []string{"emb", "x1"}},
			err: ErrSelection, column: "emb", row: -1},
		{name: "list of text", schema: lists, sel: Selection{Features: []string{"words"}},
			err: ErrColumnType, column: "words", row: -1},
		{name: "no numeric column", schema: frSchema("s", frString, "b", frBool), sel: Selection{},
			err: ErrSelection, row: -1, message: "no feature columns"},
		{name: "features with NoFeatures", schema: base, sel: Selection{Features: []string{"x1"}, NoFeatures: true},
			err: ErrSelection, row: -1},
		{name: "keep row clashes with synthesised id", schema: withRow, sel: Selection{Keep: []string{"row"}},
			err: ErrSelection, column: "row", row: -1},
		{name: "ambiguous name", schema: dup, sel: Selection{Features: []string{"x"}}, err: ErrSelection, column: "x", row: -1},
		{name: "unknown OnInvalid", schema: base, sel: Selection{OnInvalid: "skip"}, err: ErrSelection, row: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := "in.parquet"
			if tc.err == ErrNotNumeric {
				file = "newthyroid.csv"
			}
			p, err := tc.sel.Compile(tc.schema, Source{Path: file})
			if tc.err != nil {
				if err == nil {
					t.Fatalf("%s: no error, want %v", tc.name, tc.err)
				}
				if !errors.Is(err, tc.err) {
					t.Fatalf("%s: error %v, want %v", tc.name, err, tc.err)
				}
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("%s: error %T is not *Error", tc.name, err)
				}
				if e.File != file || e.Column != tc.column || e.Row != tc.row || e.ID != "" {
					t.Errorf("%s: got File %q Column %q Row %d ID %q, want %q %q %d \"\"",
						tc.name, e.File, e.Column, e.Row, e.ID, file, tc.column, tc.row)
				}
				if !strings.Contains(err.Error(), tc.message) {
					t.Errorf("%s: message %q does not contain %q", tc.name, err, tc.message)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if got := p.FeatureNames(); !slices.Equal(got, tc.features) {
				t.Errorf("%s: features %q, want %q", tc.name, got, tc.features)
			}
			if got := p.FeatureList(); got != tc.list {
				t.Errorf("%s: list %q, want %q", tc.name, got, tc.list)
			}
			if got := frNames(p.KeepFields()); !slices.Equal(got, tc.keep) && (len(got) > 0 || len(tc.keep) > 0) {
				t.Errorf("%s: keep %q, want %q", tc.name, got, tc.keep)
			}
			if got := p.IDField().Name; got != tc.id {
				t.Errorf("%s: id %q, want %q", tc.name, got, tc.id)
			}
		})
	}
}

// TestCompileIDField checks the type of the synthesised and selected ids.
func TestCompileIDField(t *testing.T) {
	sc := frSchema("name", frString, "x", frFloat)
	for _, tc := range []struct {
		id   string
		want arrow.DataType
	}{{"", frInt64}, {"name", frString}} {
		p, err := Selection{ID: tc.id}.Compile(sc, Source{})
		if err != nil {
			t.Fatalf("id %q: %v", tc.id, err)
		}
		if got := p.IDField().Type; !arrow.TypeEqual(got, tc.want) {
			t.Errorf("id %q: type %s, want %s", tc.id, got, tc.want)
		}
	}
}

// TestCompileManyColumns checks that the list of columns in a message is
// cut short.
func TestCompileManyColumns(t *testing.T) {
	var pairs []any
	for i := range 100 {
		pairs = append(pairs, "c"+strings.Repeat("x", i%3)+string(rune('0'+i%10)), frFloat)
	}
	_, err := Selection{Features: []string{"nope"}}.Compile(frSchema(pairs...), Source{Path: "f"})
	if err == nil || !strings.Contains(err.Error(), "(60 more)") {
		t.Errorf("error %v, want the list cut after %d columns", err, maxListed)
	}
}
