package arrowio

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// csvOneColumn writes one column, built by fill, to a CSV file and returns
// the file's text and its fields (after the header) as encoding/csv reads
// them.
func csvOneColumn(t *testing.T, name string, typ arrow.DataType, fill func(b array.Builder)) (string, []string) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: typ, Nullable: true}}, nil)
	path := filepath.Join(t.TempDir(), "one.csv")
	w, err := Create(context.Background(), path, schema, WithWriteAllocator(mem))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer w.Abort()
	w.SetMetadata(MetadataKey, "ignored")
	b := array.NewBuilder(mem, typ)
	fill(b)
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	col.Release()
	err = w.Write(rec)
	rec.Release()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(text))).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, text)
	}
	if len(recs) == 0 || !slices.Equal(recs[0], []string{"v"}) {
		t.Fatalf("%s: header %q", name, recs)
	}
	var fields []string
	for _, r := range recs[1:] {
		fields = append(fields, r[0])
	}
	return string(text), fields
}

func TestCSVNumbers(t *testing.T) {
	floats := []float64{0.1, 1e21, 1e-7, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 5e-324, math.MaxFloat64, 123456789.125, 1.0 / 3}
	for _, tc := range []struct {
		name string
		typ  arrow.DataType
		fill func(b array.Builder)
		want []string
	}{
		{"float64", arrow.PrimitiveTypes.Float64, func(b array.Builder) {
			b.(*array.Float64Builder).AppendValues(floats, nil)
			b.AppendNull()
		}, []string{"0.1", "1e+21", "1e-07", "NaN", "+Inf", "-Inf", "-0", "5e-324", "1.7976931348623157e+308", "1.23456789125e+08", "0.3333333333333333", ""}},
		{"float32", arrow.PrimitiveTypes.Float32, func(b array.Builder) {
			b.(*array.Float32Builder).AppendValues([]float32{0.1, 1.0 / 3, 16777216}, nil)
		}, []string{"0.1", "0.33333334", "1.6777216e+07"}},
		{"int64", arrow.PrimitiveTypes.Int64, func(b array.Builder) {
			b.(*array.Int64Builder).AppendValues([]int64{math.MinInt64, 0, math.MaxInt64}, nil)
			b.AppendNull()
		}, []string{"-9223372036854775808", "0", "9223372036854775807", ""}},
		{"uint64", arrow.PrimitiveTypes.Uint64, func(b array.Builder) {
			b.(*array.Uint64Builder).Append(math.MaxUint64)
		}, []string{"18446744073709551615"}},
		{"int8", arrow.PrimitiveTypes.Int8, func(b array.Builder) {
			b.(*array.Int8Builder).AppendValues([]int8{-128, 127}, nil)
		}, []string{"-128", "127"}},
		{"bool", arrow.FixedWidthTypes.Boolean, func(b array.Builder) {
			b.(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
		}, []string{"true", "false"}},
	} {
		_, got := csvOneColumn(t, tc.name, tc.typ, tc.fill)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: fields %q, want %q", tc.name, got, tc.want)
		}
		// Independently of the spelling: every float reads back exactly.
		if tc.name == "float64" {
			for i, v := range floats {
				f, err := strconv.ParseFloat(got[i], 64)
				if err != nil || !sameFloat(f, v) {
					t.Errorf("%s: %q reads back as %v (%v), want %v", tc.name, got[i], f, err, v)
				}
			}
		}
	}
}

func TestCSVTextAndLists(t *testing.T) {
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	for _, tc := range []struct {
		name string
		typ  arrow.DataType
		fill func(b array.Builder)
		want []any // per row: nil for null, a string, or the JSON value of a list
	}{
		{"strings", arrow.BinaryTypes.String, func(b array.Builder) {
			b.(*array.StringBuilder).AppendValues([]string{"plain", "a,b", `say "hi"`, "two\nlines", " x "}, nil)
			b.AppendNull()
		}, []any{"plain", "a,b", `say "hi"`, "two\nlines", " x ", nil}},
		{"dictionary", dictType, func(b array.Builder) {
			db := b.(*array.BinaryDictionaryBuilder)
			for _, s := range []string{"b", "a", "b"} {
				if err := db.AppendString(s); err != nil {
					t.Fatal(err)
				}
			}
			db.AppendNull()
		}, []any{"b", "a", "b", nil}},
		{"list of float64", arrow.ListOf(arrow.PrimitiveTypes.Float64), func(b array.Builder) {
			lb := b.(*array.ListBuilder)
			vb := lb.ValueBuilder().(*array.Float64Builder)
			lb.Append(true)
			vb.AppendValues([]float64{1, 2.5, -3, 0.1}, nil)
			lb.Append(true) // empty
			lb.AppendNull()
			lb.Append(true)
			vb.Append(4)
			vb.AppendNull()
		}, []any{[]any{1.0, 2.5, -3.0, 0.1}, []any{}, nil, []any{4.0, nil}}},
		{"list of strings", arrow.ListOf(arrow.BinaryTypes.String), func(b array.Builder) {
			lb := b.(*array.ListBuilder)
			vb := lb.ValueBuilder().(*array.StringBuilder)
			lb.Append(true)
			vb.AppendValues([]string{"a", `b"c`, "d,e"}, nil)
		}, []any{[]any{"a", `b"c`, "d,e"}}},
		{"fixed-size list of int32", arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int32), func(b array.Builder) {
			lb := b.(*array.FixedSizeListBuilder)
			vb := lb.ValueBuilder().(*array.Int32Builder)
			lb.Append(true)
			vb.AppendValues([]int32{1, -2}, nil)
			lb.AppendNull()
			lb.Append(true)
			vb.AppendValues([]int32{3, 4}, nil)
		}, []any{[]any{1.0, -2.0}, nil, []any{3.0, 4.0}}},
		{"list of lists", arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int64)), func(b array.Builder) {
			lb := b.(*array.ListBuilder)
			ib := lb.ValueBuilder().(*array.ListBuilder)
			vb := ib.ValueBuilder().(*array.Int64Builder)
			lb.Append(true)
			ib.Append(true)
			vb.AppendValues([]int64{1, 2}, nil)
			ib.Append(true)
		}, []any{[]any{[]any{1.0, 2.0}, []any{}}}},
	} {
		_, got := csvOneColumn(t, tc.name, tc.typ, tc.fill)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d rows %q, want %d", tc.name, len(got), got, len(tc.want))
			continue
		}
		for i, want := range tc.want {
			var v any
			switch want.(type) {
			case nil:
				if got[i] != "" {
					t.Errorf("%s: row %d: %q, want empty (null)", tc.name, i, got[i])
				}
				continue
			case string:
				v = got[i]
			default:
				if err := json.Unmarshal([]byte(got[i]), &v); err != nil {
					t.Errorf("%s: row %d: %q is not JSON: %v", tc.name, i, got[i], err)
					continue
				}
			}
			if !reflect.DeepEqual(v, want) {
				t.Errorf("%s: row %d: %#v, want %#v", tc.name, i, v, want)
			}
		}
	}
}

// A CSV file has no metadata: SetMetadata leaves no trace, and a null in a
// one-column table must not become a blank line (which readers skip).
func TestCSVExactText(t *testing.T) {
	text, _ := csvOneColumn(t, "nulls", arrow.PrimitiveTypes.Float64, func(b array.Builder) {
		fb := b.(*array.Float64Builder)
		fb.Append(1.5)
		fb.AppendNull()
		fb.Append(-2)
	})
	if want := "v\n1.5\n\"\"\n-2\n"; text != want {
		t.Errorf("file text %q, want %q", text, want)
	}
}
