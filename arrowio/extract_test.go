package arrowio

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// frF64 builds a float64 array; valid nil means all valid. Null slots keep
// the value given, so that a NaN under a null can be told from a NaN.
func frF64(mem memory.Allocator, vals []float64, valid []bool) arrow.Array {
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

func frStrs(a arrow.Array) []string {
	s := make([]string, a.Len())
	for i := range s {
		s[i] = a.ValueStr(i)
	}
	return s
}

func frMem(t testing.TB) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// frSameFloats compares exactly, NaN equal to NaN.
func frSameFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
}

func frCloseFloats(a, b []float64, tol float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool {
		return math.Abs(x-y) <= tol || math.IsNaN(x) && math.IsNaN(y)
	})
}

func TestExtractNumericTypes(t *testing.T) {
	dict := func(idx, val arrow.DataType) arrow.DataType {
		return &arrow.DictionaryType{IndexType: idx, ValueType: val}
	}
	tests := []struct {
		name string
		dt   arrow.DataType
		js   string // values, or indices for a dictionary
		dict string // dictionary values
		want []float64
	}{
		{"int8", arrow.PrimitiveTypes.Int8, `[-128, 0, 127]`, "", []float64{-128, 0, 127}},
		{"int16", arrow.PrimitiveTypes.Int16, `[-32768, 1, 32767]`, "", []float64{-32768, 1, 32767}},
		{"int32", frInt32, `[-2147483648, 5, 2147483647]`, "", []float64{-2147483648, 5, 2147483647}},
		{"int64", frInt64, `[-9007199254740992, 7, 9007199254740991]`, "", []float64{-1 << 53, 7, 1<<53 - 1}},
		{"uint8", arrow.PrimitiveTypes.Uint8, `[0, 200, 255]`, "", []float64{0, 200, 255}},
		{"uint16", arrow.PrimitiveTypes.Uint16, `[0, 3, 65535]`, "", []float64{0, 3, 65535}},
		{"uint32", arrow.PrimitiveTypes.Uint32, `[0, 4, 4294967295]`, "", []float64{0, 4, 4294967295}},
		{"uint64", arrow.PrimitiveTypes.Uint64, `[0, 9, 9007199254740992]`, "", []float64{0, 9, 1 << 53}},
		{"float16", arrow.FixedWidthTypes.Float16, `[1.5, -0.25, 65504]`, "", []float64{1.5, -0.25, 65504}},
		{"float32", arrow.PrimitiveTypes.Float32, `[0.5, -3, 1e30]`, "", []float64{0.5, -3, float64(float32(1e30))}},
		{"float64", frFloat, `[0.1, -1e300, 5e-324]`, "", []float64{0.1, -1e300, 5e-324}},
		{"decimal32 scale 3", &arrow.Decimal32Type{Precision: 9, Scale: 3}, `["1.005", "-0.001", "0"]`, "",
			[]float64{1.005, -0.001, 0}},
		{"decimal64 scale 4", &arrow.Decimal64Type{Precision: 18, Scale: 4}, `["-3.1415", "2", "0.0001"]`, "",
			[]float64{-3.1415, 2, 0.0001}},
		{"decimal128 scale 2", &arrow.Decimal128Type{Precision: 10, Scale: 2}, `["1.15", "-2.50", "0.07"]`, "",
			[]float64{1.15, -2.5, 0.07}},
		{"decimal128 beyond int64", &arrow.Decimal128Type{Precision: 38, Scale: 2},
			`["123456789012345678901234567.89", "-0.01", "99999999999999999999.99"]`, "",
			[]float64{123456789012345678901234567.89, -0.01, 99999999999999999999.99}},
		{"decimal256 scale 2", &arrow.Decimal256Type{Precision: 50, Scale: 2},
			`["1.15", "-12345678901234567890123456789012345.67", "3"]`, "",
			[]float64{1.15, -12345678901234567890123456789012345.67, 3}},
		{"dictionary int16 float64", dict(arrow.PrimitiveTypes.Int16, frFloat), `[1, 0, 1, 2]`, `[1.5, -2.25, 1e10]`,
			[]float64{-2.25, 1.5, -2.25, 1e10}},
		{"dictionary uint8 int32", dict(arrow.PrimitiveTypes.Uint8, frInt32), `[2, 2, 0]`, `[7, 8, -9]`,
			[]float64{-9, -9, 7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := frMem(t)
			var col arrow.Array
			if tc.dict != "" {
				var err error
				col, err = array.DictArrayFromJSON(mem, tc.dt.(*arrow.DictionaryType), tc.js, tc.dict)
				if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
			} else {
				col = frCol(t, mem, tc.dt, tc.js)
			}
			rec := frRecord(t, []string{"v"}, []arrow.Array{col})
			defer rec.Release()

			// As a feature, as a label, and from a slice (non-zero offset).
			feat, err := Selection{Features: []string{"v"}}.Compile(rec.Schema(), Source{}, WithFrameAllocator(mem))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			lab, err := Selection{Label: "v", NoFeatures: true}.Compile(rec.Schema(), Source{}, WithFrameAllocator(mem))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			sub := rec.NewSlice(1, rec.NumRows())
			defer sub.Release()
			for _, c := range []struct {
				what string
				plan *Plan
				rec  arrow.RecordBatch
				want []float64
			}{
				{"feature", feat, rec, tc.want},
				{"label", lab, rec, tc.want},
				{"sliced feature", feat, sub, tc.want[1:]},
				{"sliced label", lab, sub, tc.want[1:]},
			} {
				f, err := c.plan.Extract(c.rec, "f", 0)
				if err != nil {
					t.Fatalf("%s %s: %v", tc.name, c.what, err)
				}
				got := f.X
				if f.Label != nil {
					if !f.Label.Numeric {
						t.Errorf("%s %s: label not numeric", tc.name, c.what)
					}
					got = f.Label.Num
				}
				if !slices.Equal(got, c.want) {
					t.Errorf("%s %s: got %v, want %v", tc.name, c.what, got, c.want)
				}
				f.Release()
			}
		})
	}
}

func TestExtractStringLabels(t *testing.T) {
	strDict := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: frString}
	tests := []struct {
		name string
		dt   arrow.DataType
		js   string
		dict string
	}{
		{"string", frString, `["bad", "good", "", "bad"]`, ""},
		{"large_string", arrow.BinaryTypes.LargeString, `["bad", "good", "", "bad"]`, ""},
		{"string_view", arrow.BinaryTypes.StringView, `["bad", "good", "", "bad"]`, ""},
		{"dictionary", strDict, `[1, 0, 2, 1]`, `["good", "bad", ""]`},
	}
	want := []string{"bad", "good", "", "bad"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := frMem(t)
			var col arrow.Array
			if tc.dict != "" {
				var err error
				if col, err = array.DictArrayFromJSON(mem, strDict, tc.js, tc.dict); err != nil {
					t.Fatal(err)
				}
			} else {
				col = frCol(t, mem, tc.dt, tc.js)
			}
			rec := frRecord(t, []string{"y", "x"}, []arrow.Array{col, frF64(mem, []float64{1, 2, 3, 4}, nil)})
			p, err := Selection{Label: "y"}.Compile(rec.Schema(), Source{}, WithFrameAllocator(mem))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			sub := rec.NewSlice(1, 4)
			full, err := p.Extract(rec, "f", 0)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			part, err := p.Extract(sub, "f", 1)
			if err != nil {
				t.Fatalf("%s sliced: %v", tc.name, err)
			}
			sub.Release()
			rec.Release() // the labels must not point into Arrow memory
			defer full.Release()
			defer part.Release()
			if full.Label.Numeric || !slices.Equal(full.Label.Str, want) {
				t.Errorf("%s: labels %q (numeric %v), want %q", tc.name, full.Label.Str, full.Label.Numeric, want)
			}
			if !slices.Equal(part.Label.Str, want[1:]) {
				t.Errorf("%s sliced: labels %q, want %q", tc.name, part.Label.Str, want[1:])
			}
			if got := frStrs(full.Keep[0]); !slices.Equal(got, want) {
				t.Errorf("%s: kept label %q, want %q", tc.name, got, want)
			}
		})
	}
}

func TestExtractListFeatures(t *testing.T) {
	tests := []struct {
		name      string
		dt        arrow.DataType
		js        string
		slice     [2]int64 // rows to extract; zero: all
		onInvalid OnInvalid
		wantX     []float64
		wantRows  []int64
		errRow    int64 // -1: no error
		errMsg    string
	}{
		{name: "list", dt: arrow.ListOf(frFloat), js: `[[1, 2], [3, 4], [5, 6]]`,
			wantX: []float64{1, 2, 3, 4, 5, 6}, wantRows: []int64{10, 11, 12}, errRow: -1},
		{name: "large list of int32", dt: arrow.LargeListOf(frInt32), js: `[[1, 2], [3, 4], [5, 6]]`,
			wantX: []float64{1, 2, 3, 4, 5, 6}, wantRows: []int64{10, 11, 12}, errRow: -1},
		{name: "fixed-size list of float32", dt: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float32),
			js: `[[1, 2], [3, 4], [5, 6]]`, wantX: []float64{1, 2, 3, 4, 5, 6}, wantRows: []int64{10, 11, 12}, errRow: -1},
		{name: "sliced list", dt: arrow.ListOf(frFloat), js: `[[9, 9, 9], [1, 2], [3, 4]]`, slice: [2]int64{1, 3},
			wantX: []float64{1, 2, 3, 4}, wantRows: []int64{11, 12}, errRow: -1},
		{name: "sliced fixed-size list", dt: arrow.FixedSizeListOf(2, frFloat), js: `[[9, 9], [1, 2], [3, 4]]`,
			slice: [2]int64{1, 3}, wantX: []float64{1, 2, 3, 4}, wantRows: []int64{11, 12}, errRow: -1},
		{name: "null list", dt: arrow.ListOf(frFloat), js: `[[1, 2], null, [5, 6]]`,
			errRow: 11, errMsg: "invalid value: null"},
		{name: "null list first", dt: arrow.ListOf(frFloat), js: `[null, [1, 2], [5, 6]]`,
			errRow: 10, errMsg: "invalid value: null"},
		{name: "null list dropped", dt: arrow.ListOf(frFloat), js: `[null, [1, 2], [5, 6]]`, onInvalid: InvalidDrop,
			wantX: []float64{1, 2, 5, 6}, wantRows: []int64{11, 12}, errRow: -1},
		{name: "null fixed-size list dropped", dt: arrow.FixedSizeListOf(2, frFloat), js: `[[1, 2], null, [5, 6]]`,
			onInvalid: InvalidDrop, wantX: []float64{1, 2, 5, 6}, wantRows: []int64{10, 12}, errRow: -1},
		{name: "null element", dt: arrow.ListOf(frFloat), js: `[[1, 2], [3, 4], [5, null]]`,
			errRow: 12, errMsg: "invalid value: null (element 1)"},
		{name: "NaN element", dt: arrow.FixedSizeListOf(2, frFloat), js: `[[1, 2], ["NaN", 4], [5, 6]]`,
			errRow: 11, errMsg: "invalid value: NaN (element 0)"},
		{name: "Inf element dropped", dt: arrow.ListOf(frFloat), js: `[[1, "-Inf"], [3, 4], [5, 6]]`, onInvalid: InvalidDrop,
			wantX: []float64{3, 4, 5, 6}, wantRows: []int64{11, 12}, errRow: -1},
		{name: "length mismatch", dt: arrow.ListOf(frFloat), js: `[[1, 2], [3, 4, 0], [5, 6]]`,
			errRow: 11, errMsg: "invalid value: list of 3 elements, expected 2"},
		{name: "length mismatch when dropping", dt: arrow.ListOf(frFloat), js: `[[1, 2], [3], [5, 6]]`, onInvalid: InvalidDrop,
			errRow: 11, errMsg: "list of 1 elements, expected 2"},
		{name: "length mismatch after a null", dt: arrow.ListOf(frFloat), js: `[null, [3], [5, 6]]`,
			errRow: 10, errMsg: "invalid value: null"},
		{name: "empty lists", dt: arrow.ListOf(frFloat), js: `[[], []]`, errRow: 10, errMsg: "empty list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := frMem(t)
			rec := frRecord(t, []string{"emb"}, []arrow.Array{frCol(t, mem, tc.dt, tc.js)})
			defer rec.Release()
			first := int64(10)
			if tc.slice != [2]int64{} {
				sub := rec.NewSlice(tc.slice[0], tc.slice[1])
				defer sub.Release()
				rec, first = sub, 10+tc.slice[0]
			}
			p, err := Selection{OnInvalid: tc.onInvalid}.Compile(rec.Schema(), Source{}, WithFrameAllocator(mem))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			f, err := p.Extract(rec, "part-0.parquet", first)
			if tc.errRow >= 0 {
				var e *Error
				if !errors.As(err, &e) || !errors.Is(err, ErrInvalidValue) {
					t.Fatalf("%s: error %v, want an *Error wrapping ErrInvalidValue", tc.name, err)
				}
				if e.File != "part-0.parquet" || e.Column != "emb" || e.Row != tc.errRow || e.ID != "" {
					t.Errorf("%s: error at %q %q row %d id %q, want part-0.parquet emb row %d", tc.name,
						e.File, e.Column, e.Row, e.ID, tc.errRow)
				}
				if !strings.Contains(err.Error(), tc.errMsg) {
					t.Errorf("%s: message %q, want %q in it", tc.name, err, tc.errMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			defer f.Release()
			if f.D != 2 || f.FeatureList != "emb" || !slices.Equal(f.FeatureNames, []string{"emb[0]", "emb[1]"}) {
				t.Errorf("%s: D %d list %q names %q, want 2 emb [emb[0] emb[1]]", tc.name, f.D, f.FeatureList, f.FeatureNames)
			}
			if !slices.Equal(f.X, tc.wantX) || !slices.Equal(f.Rows, tc.wantRows) {
				t.Errorf("%s: X %v rows %v, want %v %v", tc.name, f.X, f.Rows, tc.wantX, tc.wantRows)
			}
			if got := frStrs(f.ID); !slices.Equal(got, frInts(tc.wantRows)) {
				t.Errorf("%s: ids %q, want %v", tc.name, got, tc.wantRows)
			}
		})
	}
}

func frInts(v []int64) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return s
}

// frInvalidBatch is a batch of 5 rows, r = 0..4: id "r<r>", x1 = r+1,
// x2 = 10(r+1), y = r%2, p_a = 1, p_b = 1+2(r%2); the column named col
// holds bad at the rows in at (for a null, NaN stays underneath).
func frInvalidBatch(t *testing.T, mem memory.Allocator, col, bad string, at []int) arrow.RecordBatch {
	names := []string{"id", "x1", "x2", "y", "p_a", "p_b"}
	vals := make([][]float64, len(names))
	valid := make([][]bool, len(names))
	ids := make([]string, 5)
	for r := range 5 {
		ids[r] = fmt.Sprintf("r%d", r)
		for c, v := range []float64{0, float64(r + 1), float64(10 * (r + 1)), float64(r % 2), 1, float64(1 + 2*(r%2))} {
			vals[c] = append(vals[c], v)
			valid[c] = append(valid[c], true)
		}
	}
	c := slices.Index(names, col)
	for _, r := range at {
		switch bad {
		case "null":
			valid[c][r], vals[c][r] = false, math.NaN()
		case "NaN":
			vals[c][r] = math.NaN()
		case "+Inf":
			vals[c][r] = math.Inf(1)
		case "-Inf":
			vals[c][r] = math.Inf(-1)
		default:
			t.Fatalf("bad kind %q", bad)
		}
	}
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	sb.AppendValues(ids, valid[0])
	cols := []arrow.Array{sb.NewArray()}
	for c := 1; c < len(names); c++ {
		cols = append(cols, frF64(mem, vals[c], valid[c]))
	}
	return frRecord(t, names, cols)
}

func TestExtractInvalid(t *testing.T) {
	type role struct {
		col   string
		kinds []string
	}
	roles := []role{
		{"x2", []string{"null", "NaN", "+Inf", "-Inf"}},
		{"y", []string{"null", "NaN", "+Inf", "-Inf"}},
		{"p_b", []string{"NaN", "+Inf", "-Inf"}}, // a null soft entry is 0, see TestExtractSoftLabels
		{"id", []string{"null"}},
	}
	drops := [][]int{{3}, {4}, {0, 2, 3}, {0, 1, 2, 3, 4}}
	for _, ro := range roles {
		for _, kind := range ro.kinds {
			for _, synth := range []bool{false, true} {
				if synth && ro.col == "id" {
					continue
				}
				name := fmt.Sprintf("%s %s synthesised id %v", ro.col, kind, synth)
				sel := Selection{ID: "id", Features: []string{"x*"}, Label: "y", SoftLabels: []string{"p_a", "p_b"}}
				if synth {
					sel.ID = ""
				}
				t.Run(name+" error", func(t *testing.T) {
					mem := frMem(t)
					rec := frInvalidBatch(t, mem, ro.col, kind, []int{3, 4})
					defer rec.Release()
					p, err := sel.Compile(rec.Schema(), Source{Path: "data/"}, WithFrameAllocator(mem))
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					_, err = p.Extract(rec, "data/part-1.parquet", 100)
					var e *Error
					if !errors.As(err, &e) || !errors.Is(err, ErrInvalidValue) {
						t.Fatalf("%s: error %v, want an *Error wrapping ErrInvalidValue", name, err)
					}
					wantID := "r3"
					if synth || ro.col == "id" {
						wantID = ""
					}
					if e.File != "data/part-1.parquet" || e.Column != ro.col || e.Row != 103 || e.ID != wantID {
						t.Errorf("%s: error at %q %q row %d id %q, want data/part-1.parquet %q 103 %q",
							name, e.File, e.Column, e.Row, e.ID, ro.col, wantID)
					}
					if !strings.HasSuffix(err.Error(), "invalid value: "+kind) {
						t.Errorf("%s: message %q does not end in %q", name, err, kind)
					}
				})
				for _, at := range drops {
					t.Run(fmt.Sprintf("%s drop %v", name, at), func(t *testing.T) {
						mem := frMem(t)
						rec := frInvalidBatch(t, mem, ro.col, kind, at)
						defer rec.Release()
						sel := sel
						sel.OnInvalid = InvalidDrop
						p, err := sel.Compile(rec.Schema(), Source{Path: "data/"}, WithFrameAllocator(mem))
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						f, err := p.Extract(rec, "data/part-1.parquet", 100)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						defer f.Release()
						frCheckKept(t, name, f, at, synth)
					})
				}
			}
		}
	}
}

// frCheckKept checks a frame of frInvalidBatch with the rows in dropped gone.
func frCheckKept(t *testing.T, name string, f *Frame, dropped []int, synth bool) {
	t.Helper()
	var rows []int64
	var x, y, soft []float64
	var ids []string
	for r := range 5 {
		if slices.Contains(dropped, r) {
			continue
		}
		rows = append(rows, 100+int64(r))
		x = append(x, float64(r+1), float64(10*(r+1)))
		y = append(y, float64(r%2))
		pb := float64(1 + 2*(r%2))
		soft = append(soft, 1/(1+pb), pb/(1+pb))
		if synth {
			ids = append(ids, fmt.Sprint(100+r))
		} else {
			ids = append(ids, fmt.Sprintf("r%d", r))
		}
	}
	n := len(rows)
	if f.N != n || f.Dropped != int64(len(dropped)) || f.D != 2 {
		t.Fatalf("%s: N %d dropped %d D %d, want %d %d 2", name, f.N, f.Dropped, f.D, n, len(dropped))
	}
	if !slices.Equal(f.Rows, rows) || !slices.Equal(f.X, x) || !slices.Equal(f.Label.Num, y) {
		t.Errorf("%s: rows %v X %v y %v, want %v %v %v", name, f.Rows, f.X, f.Label.Num, rows, x, y)
	}
	if !frCloseFloats(f.Soft, soft, 1e-15) {
		t.Errorf("%s: soft %v, want %v", name, f.Soft, soft)
	}
	if got := frStrs(f.ID); !slices.Equal(got, ids) {
		t.Errorf("%s: ids %q, want %q", name, got, ids)
	}
	if len(f.Keep) != 3 || !slices.Equal(frNames(f.KeepFields), []string{"y", "p_a", "p_b"}) {
		t.Fatalf("%s: keep %v, want y p_a p_b", name, frNames(f.KeepFields))
	}
	for k, a := range f.Keep {
		if a.Len() != n {
			t.Fatalf("%s: kept %s has %d rows, want %d", name, f.KeepFields[k].Name, a.Len(), n)
		}
	}
	// The kept label column is the untouched input: it must match Label.
	for i := range n {
		if got := f.Keep[0].(*array.Float64).Value(i); got != y[i] {
			t.Errorf("%s: kept y[%d] = %v, want %v", name, i, got, y[i])
		}
		pa, pb := f.Keep[1].(*array.Float64).Value(i), f.Keep[2].(*array.Float64).Value(i)
		if math.Abs(pa/(pa+pb)-soft[2*i]) > 1e-15 {
			t.Errorf("%s: kept soft labels of row %d (%v, %v) do not match Soft %v", name, i, pa, pb, soft[2*i:2*i+2])
		}
	}
}

// TestExtractFirstProblem checks that the error names the lowest row and,
// within a row, the first column in role order, whatever the scan order.
func TestExtractFirstProblem(t *testing.T) {
	type bad struct {
		col, kind string
		row       int
	}
	tests := []struct {
		name      string
		bad       []bad
		onInvalid OnInvalid
		col       string
		row       int64
		msg       string
	}{
		{"lower row wins", []bad{{"x2", "NaN", 2}, {"x1", "null", 3}}, InvalidError, "x2", 2, "NaN"},
		{"null under NaN is null", []bad{{"x1", "null", 3}}, InvalidError, "x1", 3, "null"},
		{"first feature in a row", []bad{{"x2", "NaN", 2}, {"x1", "+Inf", 2}}, InvalidError, "x1", 2, "+Inf"},
		{"feature before label", []bad{{"y", "NaN", 1}, {"x2", "-Inf", 1}}, InvalidError, "x2", 1, "-Inf"},
		{"id before feature", []bad{{"x1", "NaN", 4}, {"id", "null", 4}}, InvalidError, "id", 4, "null"},
		{"label before soft", []bad{{"p_a", "NaN", 0}, {"y", "null", 0}}, InvalidError, "y", 0, "null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := frMem(t)
			rec := frInvalidBatch(t, mem, tc.bad[0].col, tc.bad[0].kind, []int{tc.bad[0].row})
			defer func() { rec.Release() }() // rec is replaced below
			for _, b := range tc.bad[1:] {
				other := frInvalidBatch(t, mem, b.col, b.kind, []int{b.row})
				c := rec.Schema().FieldIndices(b.col)[0]
				next, err := rec.SetColumn(c, other.Column(c))
				other.Release()
				if err != nil {
					t.Fatal(err)
				}
				rec.Release()
				rec = next
			}
			sel := Selection{ID: "id", Features: []string{"x1", "x2"}, Label: "y", SoftLabels: []string{"p_*"}, OnInvalid: tc.onInvalid}
			p, err := sel.Compile(rec.Schema(), Source{}, WithFrameAllocator(mem))
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Extract(rec, "f", 0)
			var e *Error
			if !errors.As(err, &e) || e.Column != tc.col || e.Row != tc.row || !strings.HasSuffix(err.Error(), tc.msg) {
				t.Errorf("%s: error %v, want column %q row %d %s", tc.name, err, tc.col, tc.row, tc.msg)
			}
		})
	}
}

func TestExtractSoftLabels(t *testing.T) {
	nan := math.NaN()
	const null = -99 // marks a null entry
	tests := []struct {
		name      string
		rows      [][3]float64
		onInvalid OnInvalid
		want      []float64 // kept rows, normalised
		dropped   int64
		errRow    int64 // -1: none
		errCol    string
		errMsg    string
	}{
		{name: "normalised", rows: [][3]float64{{1, 3, 0}, {2, 2, 4}, {0, 0, 5}},
			want: []float64{.25, .75, 0, .25, .25, .5, 0, 0, 1}, errRow: -1},
		{name: "partial nulls count as 0", rows: [][3]float64{{1, 3, null}, {null, 2, null}},
			want: []float64{.25, .75, 0, 0, 1, 0}, errRow: -1},
		{name: "all null is unlabelled", rows: [][3]float64{{1, 1, 2}, {null, null, null}},
			want: []float64{.25, .25, .5, nan, nan, nan}, errRow: -1},
		{name: "all null is kept when dropping", rows: [][3]float64{{null, null, null}}, onInvalid: InvalidDrop,
			want: []float64{nan, nan, nan}, errRow: -1},
		{name: "NaN is invalid", rows: [][3]float64{{1, 1, 2}, {1, nan, 1}}, errRow: 1, errCol: "p_b", errMsg: "invalid value: NaN"},
		{name: "NaN dropped", rows: [][3]float64{{1, 1, 2}, {1, nan, 1}, {math.Inf(1), 0, 1}}, onInvalid: InvalidDrop,
			want: []float64{.25, .25, .5}, dropped: 2, errRow: -1},
		{name: "negative", rows: [][3]float64{{1, 1, 2}, {1, 1, -0.5}}, errRow: 1, errCol: "p_c", errMsg: "negative weight -0.5"},
		{name: "negative when dropping", rows: [][3]float64{{1, 1, 2}, {-1, 1, 1}}, onInvalid: InvalidDrop,
			errRow: 1, errCol: "p_a", errMsg: "negative weight -1"},
		{name: "zero sum", rows: [][3]float64{{0, 0, 0}}, errRow: 0, errCol: "p_a,p_b,p_c", errMsg: "sum to 0"},
		{name: "zero sum with nulls when dropping", rows: [][3]float64{{1, 2, 3}, {0, null, 0}}, onInvalid: InvalidDrop,
			errRow: 1, errCol: "p_a,p_b,p_c", errMsg: "sum to 0"},
		{name: "overflow", rows: [][3]float64{{math.MaxFloat64, math.MaxFloat64, 0}}, errRow: 0, errMsg: "overflow",
			errCol: "p_a,p_b,p_c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := frMem(t)
			cols := make([]arrow.Array, 3)
			for c := range cols {
				vals := make([]float64, len(tc.rows))
				valid := make([]bool, len(tc.rows))
				for r, row := range tc.rows {
					vals[r], valid[r] = row[c], row[c] != null
				}
				cols[c] = frF64(mem, vals, valid)
			}
			rec := frRecord(t, []string{"p_a", "p_b", "p_c"}, cols)
			defer rec.Release()
			sel := Selection{SoftLabels: []string{"p_*"}, NoFeatures: true, OnInvalid: tc.onInvalid}
			p, err := sel.Compile(rec.Schema(), Source{}, WithFrameAllocator(mem))
			if err != nil {
				t.Fatal(err)
			}
			f, err := p.Extract(rec, "f", 0)
			if tc.errRow >= 0 {
				var e *Error
				if !errors.As(err, &e) || !errors.Is(err, ErrInvalidValue) || e.Row != tc.errRow || e.Column != tc.errCol ||
					!strings.Contains(err.Error(), tc.errMsg) {
					t.Errorf("%s: error %v, want row %d column %q %q", tc.name, err, tc.errRow, tc.errCol, tc.errMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			defer f.Release()
			if !frCloseFloats(f.Soft, tc.want, 1e-15) || f.Dropped != tc.dropped {
				t.Errorf("%s: soft %v dropped %d, want %v %d", tc.name, f.Soft, f.Dropped, tc.want, tc.dropped)
			}
			for r := range f.N {
				row := f.Soft[r*3 : r*3+3]
				if s := row[0] + row[1] + row[2]; !math.IsNaN(s) && math.Abs(s-1) > 1e-15 {
					t.Errorf("%s: row %d sums to %v", tc.name, r, s)
				}
			}
		})
	}
}

func TestExtractSchemaMismatch(t *testing.T) {
	mem := frMem(t)
	p, err := Selection{}.Compile(frSchema("x", frFloat), Source{}, WithFrameAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	rec := frRecord(t, []string{"x"}, []arrow.Array{frCol(t, mem, frInt32, `[1, 2]`)})
	defer rec.Release()
	if _, err := p.Extract(rec, "b.parquet", 0); !errors.Is(err, ErrSchema) {
		t.Errorf("error %v, want ErrSchema", err)
	}
}

func TestExtractEmptyBatch(t *testing.T) {
	mem := frMem(t)
	rec := frRecord(t, []string{"x", "y", "k"}, []arrow.Array{
		frCol(t, mem, frFloat, `[]`), frCol(t, mem, frString, `[]`), frCol(t, mem, frInt32, `[]`)})
	defer rec.Release()
	p, err := Selection{Label: "y", Keep: []string{"k"}}.Compile(rec.Schema(), Source{}, WithFrameAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	f, err := p.Extract(rec, "f", 7)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	if f.N != 0 || f.D != 1 || len(f.X) != 0 || f.ID.Len() != 0 || f.Keep[0].Len() != 0 || len(f.Label.Str) != 0 {
		t.Errorf("empty batch gave N %d D %d X %v", f.N, f.D, f.X)
	}
}

// BenchmarkExtract converts 65536 rows × 32 float64 columns.
func BenchmarkExtract(b *testing.B) {
	const n, d = 65536, 32
	rng := rand.New(rand.NewPCG(1, 2))
	names := make([]string, d)
	cols := make([]arrow.Array, d)
	for j := range cols {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		names[j] = fmt.Sprintf("x%d", j)
		cols[j] = frF64(memory.DefaultAllocator, v, nil)
	}
	rec := frRecord(b, names, cols)
	defer rec.Release()
	p, err := Selection{}.Compile(rec.Schema(), Source{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Extract", func(b *testing.B) {
		b.SetBytes(n * d * 8)
		b.ReportAllocs()
		for b.Loop() {
			f, err := p.Extract(rec, "f", 0)
			if err != nil {
				b.Fatal(err)
			}
			f.Release()
		}
	})
	// apply's loop: X reused.
	b.Run("ExtractTo", func(b *testing.B) {
		b.SetBytes(n * d * 8)
		b.ReportAllocs()
		var x []float64
		for b.Loop() {
			f, err := p.ExtractTo(x, rec, "f", 0)
			if err != nil {
				b.Fatal(err)
			}
			x = f.X[:0]
			f.Release()
		}
	})
}

// TestExtractDictionaryInvalid checks null indices, null dictionary entries
// and NaN dictionary values.
func TestExtractDictionaryInvalid(t *testing.T) {
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: frFloat}
	for _, tc := range []struct {
		name      string
		indices   string
		onInvalid OnInvalid
		wantX     []float64
		errRow    int64
		errMsg    string
	}{
		{"null entry", `[0, 1, 0]`, InvalidError, nil, 1, "invalid value: null"},
		{"NaN entry", `[0, 0, 2]`, InvalidError, nil, 2, "invalid value: NaN"},
		{"null index", `[0, null, 2]`, InvalidError, nil, 1, "invalid value: null"},
		{"dropped", `[1, 0, null, 2, 3, 0]`, InvalidDrop, []float64{1.5, 4, 1.5}, -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := frMem(t)
			col, err := array.DictArrayFromJSON(mem, dt, tc.indices, `[1.5, null, "NaN", 4]`)
			if err != nil {
				t.Fatal(err)
			}
			rec := frRecord(t, []string{"x"}, []arrow.Array{col})
			defer rec.Release()
			p, err := Selection{OnInvalid: tc.onInvalid}.Compile(rec.Schema(), Source{}, WithFrameAllocator(mem))
			if err != nil {
				t.Fatal(err)
			}
			f, err := p.Extract(rec, "f", 0)
			if tc.errRow >= 0 {
				var e *Error
				if !errors.As(err, &e) || e.Row != tc.errRow || e.Column != "x" || !strings.HasSuffix(err.Error(), tc.errMsg) {
					t.Errorf("%s: error %v, want row %d %q", tc.name, err, tc.errRow, tc.errMsg)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			defer f.Release()
			if !slices.Equal(f.X, tc.wantX) || !slices.Equal(f.Rows, []int64{1, 4, 5}) {
				t.Errorf("%s: X %v rows %v, want %v [1 4 5]", tc.name, f.X, f.Rows, tc.wantX)
			}
		})
	}
}
