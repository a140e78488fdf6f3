package moments

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
)

// labelledTable returns the statistics of n seeded rows of D features in
// the given label values (row i has values[i%len(values)]), added in
// batches of batch rows, with the rows themselves.
func labelledTable(t *testing.T, seed uint64, n, D, batch int, values []string) (*Table, []float64, []int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 38))
	x := make([]float64, n*D)
	cls := make([]int, n)
	for i := range n {
		cls[i] = i % len(values)
		for j := range D {
			x[i*D+j] = 100 + float64(cls[i]*(j+1)) + rng.NormFloat64()*float64(j+1)
		}
	}
	tb := newTable("mem", names(D), "", "y", LabelText)
	for lo := 0; lo < n; lo += batch {
		hi := min(lo+batch, n)
		slots := make([]int, hi-lo)
		for i := lo; i < hi; i++ {
			var err error
			if slots[i-lo], err = tb.classOf(values[cls[i]]); err != nil {
				t.Fatal(err)
			}
		}
		if err := tb.Add(context.Background(), x[lo*D:hi*D], hi-lo, slots, 1); err != nil {
			t.Fatal(err)
		}
	}
	return tb, x, cls
}

func names(D int) []string {
	out := make([]string, D)
	for j := range out {
		out[j] = string(rune('a' + j))
	}
	return out
}

// roundTrip writes tb as a partials record and reads it back.
func roundTrip(t *testing.T, tb *Table) (*Table, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec, err := tb.Record(mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	return readRecord(t, rec, mem)
}

func readRecord(t *testing.T, rec arrow.RecordBatch, mem memory.Allocator) (*Table, error) {
	t.Helper()
	mt := transforms.NewMemTables(map[string]arrow.RecordBatch{"p": rec})
	defer mt.Release()
	r, err := mt.Open(context.Background(), "p", mem)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	return readPartials(&transforms.Env{MemoryLimit: -1}, r, "p.arrow")
}

// TestPartialsRoundTrip: a partials table reads back as the same bits:
// counts, means, co-moments, ranges (±Inf among them), label values in
// their order, the ordered dictionary and the dropped count; without a
// label too.
func TestPartialsRoundTrip(t *testing.T) {
	tb, _, _ := labelledTable(t, 1, 90, 4, 13, []string{"mid", "low", "high"})
	tb.LabelOrder, tb.Dropped = []string{"low", "mid", "high"}, 5
	tb.Min[2] = math.Inf(-1)
	pooled := newTable("mem", names(3), "v", "", "")
	if err := pooled.Add(context.Background(), []float64{1, 2, 3, 4, 5, 7}, 2, nil, 1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tb   *Table
	}{{"labelled", tb}, {"pooled", pooled}} {
		got, err := roundTrip(t, tc.tb)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		w := tc.tb
		same := func(what string, a, b []float64) {
			for i := range a {
				if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
					t.Fatalf("%s: %s[%d] = %v, want %v", tc.name, what, i, a[i], b[i])
				}
			}
		}
		if got.K != w.K || strings.Join(got.Values, ",") != strings.Join(w.Values, ",") || got.Label != w.Label ||
			got.LabelType != w.LabelType || strings.Join(got.LabelOrder, ",") != strings.Join(w.LabelOrder, ",") ||
			got.Dropped != w.Dropped || got.FeatureList != w.FeatureList || strings.Join(got.Features, ",") != strings.Join(w.Features, ",") {
			t.Fatalf("%s: header %+v, want %+v", tc.name, got, w)
		}
		for c := range w.K {
			if got.Count[c] != w.Count[c] {
				t.Fatalf("%s: class %d count %d, want %d", tc.name, c, got.Count[c], w.Count[c])
			}
		}
		same("mean", got.Mean, w.Mean)
		if (got.Shift == nil) != (w.Shift == nil) {
			t.Fatalf("%s: shift %v, want %v", tc.name, got.Shift, w.Shift)
		}
		same("shift", got.Shift, w.Shift)
		same("m2", got.M2, w.M2)
		same("min", got.Min, w.Min)
		same("max", got.Max, w.Max)
	}
}

// TestTableMerge: tables of parts whose classes come in different orders
// merge, by label value, into the statistics of all the rows; tables of
// other features or another label are ErrPartials.
func TestTableMerge(t *testing.T) {
	values := []string{"b", "a", "c"}
	whole, x, cls := labelledTable(t, 2, 300, 3, 300, values)
	want := reference(x, 300, 3, 3, cls)
	// Parts that meet the classes in other orders: a part of rows 1..
	// starts with "a".
	merged := newTable("mem", names(3), "", "y", LabelText)
	for _, part := range [][2]int{{1, 120}, {120, 121}, {121, 300}, {0, 1}} {
		p := newTable("part", names(3), "", "y", LabelText)
		for i := part[0]; i < part[1]; i++ {
			k, err := p.classOf(values[cls[i]])
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Add(context.Background(), x[i*3:(i+1)*3], 1, []int{k}, 1); err != nil {
				t.Fatal(err)
			}
		}
		if err := merged.Merge(p); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(merged.Values, ","); got != "a,c,b" {
		t.Errorf("merged classes in order %s, want a,c,b (as first met)", got)
	}
	// Put the merged classes in the reference's order.
	from := make([]int, merged.K)
	for c, v := range merged.Values {
		from[c] = map[string]int{"b": 0, "a": 1, "c": 2}[v]
	}
	compare(t, "merged parts", merged.Reorder(from, 3), want, 1e-13)
	compare(t, "whole", whole.Moments, want, 1e-13)

	for _, tc := range []struct {
		name string
		o    *Table
	}{
		{"other features", newTable("o", names(2), "", "y", LabelText)},
		{"other label", newTable("o", names(3), "", "z", LabelText)},
		{"other label type", newTable("o", names(3), "", "y", LabelInt)},
		{"no label", newTable("o", names(3), "", "", "")},
	} {
		if err := merged.Merge(tc.o); !errors.Is(err, ErrPartials) {
			t.Errorf("%s: %v, want ErrPartials", tc.name, err)
		}
	}
}

// badRecord is a partials record with one change.
func badRecord(t *testing.T, mem memory.Allocator, header string, mean, m2 []float64, classes ...string) arrow.RecordBatch {
	t.Helper()
	md := arrow.NewMetadata([]string{PartialsMetadataKey}, []string{header})
	if header == "" {
		md = arrow.Metadata{}
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "class", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "count", Type: arrow.PrimitiveTypes.Int64},
		{Name: "mean", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64)},
		{Name: "m2", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64)},
	}, &md)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for _, c := range classes {
		b.Field(0).(*array.StringBuilder).Append(c)
		b.Field(1).(*array.Int64Builder).Append(3)
		lb := b.Field(2).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Float64Builder).AppendValues(mean, nil)
		lb = b.Field(3).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.Float64Builder).AppendValues(m2, nil)
	}
	return b.NewRecordBatch()
}

// TestBadPartials: a damaged partials table is an error wrapping
// ErrPartials that names the file, and the row and column when one is at
// fault; never a panic.
func TestBadPartials(t *testing.T) {
	const good = `{"format":1,"features":["a","b"],"label":"y","label_type":"text","dropped":0,"min":["0","0"],"max":["1","1"]}`
	ok2, ok4 := []float64{0.5, 0.5}, []float64{1, 0, 0, 1}
	for _, tc := range []struct {
		name, header string
		mean, m2     []float64
		classes      []string
		want         []string
	}{
		{"no header", "", ok2, ok4, []string{"x"}, []string{"no ordinate.partials header"}},
		{"header not JSON", "{", ok2, ok4, []string{"x"}, []string{"does not parse"}},
		{"other format", strings.Replace(good, `"format":1`, `"format":2`, 1), ok2, ok4, []string{"x"}, []string{"format 2"}},
		{"ranges short", strings.Replace(good, `"min":["0","0"]`, `"min":["0"]`, 1), ok2, ok4, []string{"x"}, []string{"2 features with 1 smallest"}},
		{"range not a number", strings.Replace(good, `"max":["1","1"]`, `"max":["1","one"]`, 1), ok2, ok4, []string{"x"}, []string{`feature "b"`}},
		{"NaN co-moment", good, ok2, []float64{1, math.NaN(), 0, 1}, []string{"x"}, []string{`column "m2"`, "row 0", "NaN"}},
		{"short mean", good, []float64{1}, ok4, []string{"x"}, []string{`column "mean"`, "1 values, want 2"}},
		{"class twice", good, ok2, ok4, []string{"x", "x"}, []string{`column "class"`, "row 1", "appears twice"}},
	} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rec := badRecord(t, mem, tc.header, tc.mean, tc.m2, tc.classes...)
		_, err := readRecord(t, rec, mem)
		rec.Release()
		mem.AssertSize(t, 0)
		if !errors.Is(err, ErrPartials) {
			t.Errorf("%s: %v, want ErrPartials", tc.name, err)
			continue
		}
		for _, w := range append(tc.want, "p.arrow") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", tc.name, err, w)
			}
		}
	}
}

// TestPartialsMemory: a partials header of 100,000 features is refused
// against the memory limit before its D×D matrices are allocated.
func TestPartialsMemory(t *testing.T) {
	feats := make([]string, 100_000)
	for j := range feats {
		feats[j] = "f"
	}
	tb := newTable("mem", feats[:1], "", "", "")
	tb.Features = feats
	tb.Min, tb.Max = make([]float64, len(feats)), make([]float64, len(feats))
	tb.Moments = &Moments{D: len(feats), K: 0, Min: tb.Min, Max: tb.Max}
	tb.Label, tb.LabelType = "y", LabelText
	mem := memory.NewGoAllocator()
	rec, err := tb.Record(mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	mt := transforms.NewMemTables(map[string]arrow.RecordBatch{"p": rec})
	defer mt.Release()
	r, err := mt.Open(context.Background(), "p", mem)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	_, err = readPartials(&transforms.Env{MemoryLimit: 1 << 30}, r, "p.arrow")
	var me *transforms.MemoryError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "100,000 features") {
		t.Errorf("%v, want a memory refusal naming 100,000 features", err)
	}
}

// TestTableLabels: label values read back as labels of their type, so
// that their classes order as the rows' do (transforms.ValueClasses).
func TestTableLabels(t *testing.T) {
	for _, tc := range []struct {
		typ, want string
		values    []string
	}{
		{LabelInt, "-3,2,10", []string{"10", "-3", "2"}},
		{LabelUint, "2,18446744073709551615", []string{"18446744073709551615", "2"}},
		{LabelFloat, "-0.5,0.25,1e+300", []string{"0.25", "1e+300", "-0.5"}},
		{LabelText, "B,a,b", []string{"b", "a", "B"}},
	} {
		tb := newTable("p", names(1), "", "y", tc.typ)
		for _, v := range tc.values {
			k, err := tb.classOf(v)
			if err != nil {
				t.Fatal(err)
			}
			if err := tb.Add(context.Background(), []float64{float64(k)}, 1, []int{k}, 1); err != nil {
				t.Fatal(err)
			}
		}
		cls, m, err := tb.Classes(nil, false)
		if err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		if got := strings.Join(cls.Names, ","); got != tc.want {
			t.Errorf("%s: classes %s, want %s", tc.typ, got, tc.want)
		}
		// Each class holds the row of its value: the value's index.
		for c, nm := range cls.Names {
			for k, v := range tc.values {
				if v == nm && m.Means()[c] != float64(k) {
					t.Errorf("%s: class %s holds the row of value %g", tc.typ, nm, m.Means()[c])
				}
			}
		}
	}
	bad := newTable("p.arrow", names(1), "", "y", LabelInt)
	if _, err := bad.classOf("1.5"); err != nil {
		t.Fatal(err)
	}
	bad.Grow(1)
	if _, _, err := bad.Classes(nil, false); !errors.Is(err, ErrPartials) || !strings.Contains(err.Error(), `"1.5"`) {
		t.Errorf("an int label 1.5: %v, want ErrPartials naming it", err)
	}
}
