package arrowio

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Tests of Selection.Exclude, of duplicate column names, of Plan.LeftOut,
// and of labels read exactly (integers beyond 2^53, ordered dictionaries).

func TestSelectionExclude(t *testing.T) {
	base := frSchema("id", frString, "x1", frFloat, "x2", frFloat, "year", frInt64, "y", frFloat, "lab", frString, "k", frInt32)
	lists := frSchema("emb", arrow.ListOf(arrow.PrimitiveTypes.Float64), "a", frFloat)
	tests := []struct {
		name   string
		schema *arrow.Schema
		sel    Selection
		want   []string // feature names
		err    error    // or the error's kind
		col    string   // the column the error names
	}{
		{"default without exclude", base, Selection{ID: "id", Label: "lab", Keep: []string{"k"}}, []string{"x1", "x2", "year", "y"}, nil, ""},
		{"default minus a name", base, Selection{ID: "id", Label: "lab", Keep: []string{"k"}, Exclude: []string{"year"}}, []string{"x1", "x2", "y"}, nil, ""},
		{"default minus a glob", base, Selection{ID: "id", Label: "lab", Keep: []string{}, Exclude: []string{"x*", "k"}}, []string{"year", "y"}, nil, ""},
		{"glob in features minus a name", base, Selection{Features: []string{"x*", "y*"}, Exclude: []string{"x2", "year"}}, []string{"x1", "y"}, nil, ""},
		{"glob matching only excluded columns beside others", base, Selection{Features: []string{"x*", "y"}, Exclude: []string{"x*"}}, []string{"y"}, nil, ""},
		{"exclude of a role column is harmless", base, Selection{ID: "id", Label: "lab", Exclude: []string{"id", "lab", "x1"}}, []string{"x2", "year", "y", "k"}, nil, ""},
		{"name in features and exclude", base, Selection{Features: []string{"x1", "y"}, Exclude: []string{"x1"}}, nil, ErrSelection, "x1"},
		{"name in features matched by an exclude glob", base, Selection{Features: []string{"x1"}, Exclude: []string{"x*"}}, nil, ErrSelection, "x1"},
		{"everything excluded", base, Selection{Features: []string{"x*"}, Exclude: []string{"x*"}}, nil, ErrSelection, ""},
		{"missing excluded name", base, Selection{Exclude: []string{"yaer"}}, nil, ErrMissingColumn, "yaer"},
		{"excluded glob matching nothing", base, Selection{Exclude: []string{"z*"}}, nil, ErrMissingColumn, "z*"},
		{"bad excluded glob", base, Selection{Exclude: []string{"x["}}, nil, ErrSelection, "x["},
		{"excluded list column leaves the scalars", lists, Selection{Exclude: []string{"a"}}, []string{"emb[0]"}, nil, ""},
	}
	for _, tc := range tests {
		p, err := tc.sel.Compile(tc.schema, Source{Path: "t.parquet"})
		if tc.err != nil {
			var e *Error
			if !errors.Is(err, tc.err) || !errors.As(err, &e) || e.Column != tc.col || e.File != "t.parquet" {
				t.Errorf("%s: error %v, want %v naming column %q of t.parquet", tc.name, err, tc.err, tc.col)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got := p.FeatureNames()
		if p.FeatureList() != "" {
			got = []string{p.FeatureList() + "[0]"}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: features %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSelectionDuplicateNames(t *testing.T) {
	// A schema may hold a name twice (a Parquet file written by another
	// tool, a dataset); a glob or the default set reaching both must not
	// give two features of one name, which no model could find again.
	dup := frSchema("id", frString, "x1", frFloat, "x1", frFloat, "x2", frFloat, "s", frString, "s", frString)
	tests := []struct {
		name string
		sel  Selection
		want []string // features; nil: ErrSelection naming col
		col  string
	}{
		{"glob reaching a name twice", Selection{ID: "id", Features: []string{"x*"}}, nil, "x1"},
		{"default set with a name twice", Selection{ID: "id"}, nil, "x1"},
		{"glob then the name", Selection{ID: "id", Features: []string{"x*", "x1"}}, nil, "x1"},
		{"kept glob reaching a name twice", Selection{ID: "id", Features: []string{"x2"}, Keep: []string{"s*"}}, nil, "s"},
		{"excluding the name", Selection{ID: "id", Exclude: []string{"x1"}}, []string{"x2"}, ""},
		{"glob not reaching it", Selection{ID: "id", Features: []string{"x2*"}}, []string{"x2"}, ""},
	}
	for _, tc := range tests {
		p, err := tc.sel.Compile(dup, Source{Path: "dup.parquet"})
		if tc.want == nil {
			var e *Error
			if !errors.Is(err, ErrSelection) || !errors.As(err, &e) || e.Column != tc.col {
				t.Errorf("%s: error %v, want ErrSelection naming %q", tc.name, err, tc.col)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := p.FeatureNames(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: features %v, want %v", tc.name, got, tc.want)
		}
	}
	// Unique names: a name the glob already took is taken once.
	uniq := frSchema("x1", frFloat, "x2", frFloat)
	p, err := Selection{Features: []string{"x*", "x1"}}.Compile(uniq, Source{Path: "u.parquet"})
	if err != nil || !slices.Equal(p.FeatureNames(), []string{"x1", "x2"}) {
		t.Errorf("x*,x1 on unique names: %v, %v", p, err)
	}
}

func TestPlanLeftOut(t *testing.T) {
	schema := frSchema("id", frString, "x1", frFloat, "name", frString, "year", frInt64, "lab", frInt32,
		"p_a", frFloat, "p_b", frFloat, "k", frFloat, "v", arrow.ListOf(frFloat))
	p, err := Selection{ID: "id", Label: "lab", SoftLabels: []string{"p_*"}, Keep: []string{"k"}, Exclude: []string{"year"}}.
		Compile(schema, Source{Path: "t"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Omitted{{"id", "is the id"}, {"name", "is not numeric (utf8)"}, {"year", "is excluded"}, {"lab", "is the label"},
		{"p_a", "is a soft label"}, {"p_b", "is a soft label"}, {"k", "is kept (passed through)"},
		{"v", "is a list column (taken by default only when no column is numeric)"}}
	if got := p.LeftOut(); !slices.Equal(got, want) {
		t.Errorf("left out %v, want %v", got, want)
	}
	p, err = Selection{Features: []string{"x1"}}.Compile(schema, Source{Path: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.LeftOut(); len(got) != 8 || got[2] != (Omitted{"year", "is not in the features"}) {
		t.Errorf("explicit features: left out %v", got)
	}
}

// labelFrame reads the label column lab of rec through a plan.
func labelFrame(t *testing.T, rec arrow.RecordBatch) *Labels {
	t.Helper()
	r := NewRecordsReader("mem", rec.Schema(), []arrow.RecordBatch{rec})
	defer r.Release()
	f, err := ReadFrame(context.Background(), r, Selection{Label: "lab", NoFeatures: true, Keep: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	return f.Label
}

func TestLabelsExactIntegers(t *testing.T) {
	mem := frMem(t)
	const p53 = int64(1) << 53
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: frInt64}
	tests := []struct {
		name string
		col  func() arrow.Array
		want []string
	}{
		{"int64 beyond 2^53", func() arrow.Array {
			b := array.NewInt64Builder(mem)
			defer b.Release()
			b.AppendValues([]int64{p53, p53 + 1, p53 + 2, p53 + 1, math.MinInt64}, nil)
			return b.NewArray()
		}, []string{"9007199254740992", "9007199254740993", "9007199254740994", "9007199254740993", "-9223372036854775808"}},
		{"uint64 near 2^64", func() arrow.Array {
			b := array.NewUint64Builder(mem)
			defer b.Release()
			b.AppendValues([]uint64{math.MaxUint64, math.MaxUint64 - 1, 3}, nil)
			return b.NewArray()
		}, []string{"18446744073709551615", "18446744073709551614", "3"}},
		{"dictionary of int64", func() arrow.Array {
			b := array.NewDictionaryBuilder(mem, dictType).(*array.Int64DictionaryBuilder)
			defer b.Release()
			for _, v := range []int64{p53 + 2, p53, p53 + 2} {
				if err := b.Append(v); err != nil {
					t.Fatal(err)
				}
			}
			return b.NewArray()
		}, []string{"9007199254740994", "9007199254740992", "9007199254740994"}},
		{"int8", func() arrow.Array { return frCol(t, mem, arrow.PrimitiveTypes.Int8, "[-3, 7]") }, []string{"-3", "7"}},
		{"float64 as before", func() arrow.Array { return frCol(t, mem, frFloat, "[1, 2.5, 9007199254740993]") }, []string{"1", "2.5", "9.007199254740992e+15"}},
	}
	for _, tc := range tests {
		rec := frRecord(t, []string{"lab"}, []arrow.Array{tc.col()})
		l := labelFrame(t, rec)
		rec.Release()
		var got []string
		for i := range len(l.Num) {
			got = append(got, l.Text(i))
		}
		if !l.Numeric || !slices.Equal(got, tc.want) {
			t.Errorf("%s: labels %v (numeric %v), want %v", tc.name, got, l.Numeric, tc.want)
		}
	}
}

func TestLabelsOrderedDictionary(t *testing.T) {
	mem := frMem(t)
	dict := func(ordered bool, values string, idx []int32, valueType arrow.DataType) arrow.Array {
		dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: valueType, Ordered: ordered}
		d := frCol(t, mem, valueType, values)
		defer d.Release()
		b := array.NewInt32Builder(mem)
		defer b.Release()
		b.AppendValues(idx, nil)
		ind := b.NewArray()
		defer ind.Release()
		return array.NewDictionaryArray(dt, ind, d)
	}
	levels := `["Fair","Good","Very Good","Premium","Ideal"]`
	tests := []struct {
		name string
		col  arrow.Array
		want []string // Order
	}{
		{"ordered text", dict(true, levels, []int32{4, 0, 2}, frString), []string{"Fair", "Good", "Very Good", "Premium", "Ideal"}},
		{"unordered text", dict(false, levels, []int32{4, 0, 2}, frString), nil},
		{"ordered integers", dict(true, "[9007199254740994, 9007199254740992, 3]", []int32{0, 1, 2}, frInt64), []string{"9007199254740994", "9007199254740992", "3"}},
		{"ordered floats", dict(true, "[2.5, 1, 0.5]", []int32{2, 0}, frFloat), []string{"2.5", "1", "0.5"}},
	}
	for _, tc := range tests {
		rec := frRecord(t, []string{"lab"}, []arrow.Array{tc.col})
		l := labelFrame(t, rec)
		rec.Release()
		if !slices.Equal(l.Order, tc.want) {
			t.Errorf("%s: order %v, want %v", tc.name, l.Order, tc.want)
		}
	}

	// Through Parquet: the ordered flag survives in the stored Arrow
	// schema, as pandas writes an ordered Categorical.
	path := filepath.Join(t.TempDir(), "cut.parquet")
	rec := frRecord(t, []string{"lab", "x"}, []arrow.Array{dict(true, levels, []int32{3, 1, 1, 0}, frString), frCol(t, mem, frFloat, "[1,2,3,4]")})
	defer rec.Release()
	if err := WriteRecord(context.Background(), path, rec); err != nil {
		t.Fatal(err)
	}
	r, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	f, err := ReadFrame(context.Background(), r, Selection{Label: "lab", Features: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	if !slices.Equal(f.Label.Order, []string{"Fair", "Good", "Very Good", "Premium", "Ideal"}) || !slices.Equal(f.Label.Str, []string{"Premium", "Good", "Good", "Fair"}) {
		t.Errorf("parquet: order %v, labels %v", f.Label.Order, f.Label.Str)
	}
}

func TestLabelsMergeOrder(t *testing.T) {
	tests := []struct {
		name      string
		a, b      []string
		want      []string
		conflicts bool
	}{
		{"same", []string{"a", "b"}, []string{"a", "b"}, []string{"a", "b"}, false},
		{"later part adds at the end", []string{"a", "b"}, []string{"a", "b", "c"}, []string{"a", "b", "c"}, false},
		{"later part adds in the middle", []string{"a", "c"}, []string{"a", "b", "c"}, []string{"a", "b", "c"}, false},
		{"later part adds at the start", []string{"b", "c"}, []string{"a", "b"}, []string{"a", "b", "c"}, false},
		{"later part lacks some", []string{"a", "b", "c"}, []string{"a", "c"}, []string{"a", "b", "c"}, false},
		{"conflicting order", []string{"a", "b"}, []string{"b", "a"}, nil, true},
	}
	for _, tc := range tests {
		l := &Labels{Name: "lab", Order: slices.Clone(tc.a)}
		err := l.appendLabels(&Labels{Order: tc.b}, "part-1.parquet")
		if tc.conflicts {
			if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), "part-1.parquet") {
				t.Errorf("%s: error %v, want ErrSchema naming the part", tc.name, err)
			}
			continue
		}
		if err != nil || !slices.Equal(l.Order, tc.want) {
			t.Errorf("%s: order %v (%v), want %v", tc.name, l.Order, err, tc.want)
		}
	}
}
