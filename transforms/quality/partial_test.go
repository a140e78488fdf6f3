package quality

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// mustSame fails unless got and want have the same rows with the same
// bits, and the same centre order.
func mustSame(t *testing.T, name string, got, want *Report) {
	t.Helper()
	if !sameReport(got, want) {
		t.Errorf("%s: got %+v %v, want %+v %v", name, got.Rows, got.CenterOrder, want.Rows, want.CenterOrder)
	}
}

// partialsOf computes the partials of every block of count, in a shuffled
// order, each with its own thread count.
func partialsOf(t *testing.T, rng *rand.Rand, count int, eval func(Block, int) (*Partial, error)) []*Partial {
	t.Helper()
	parts := make([]*Partial, count)
	for i := range parts {
		p, err := eval(Block{Index: i, Count: count}, 1+i%3)
		if err != nil {
			t.Fatalf("block %d/%d: %v", i, count, err)
		}
		parts[i] = p
	}
	rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return parts
}

// roundTrip writes the partials as one concatenated table (one batch each)
// and reads them back.
func roundTrip(t *testing.T, parts []*Partial) []*Partial {
	t.Helper()
	recs := make([]arrow.RecordBatch, len(parts))
	for i, p := range parts {
		recs[i] = PartialRecord(memory.DefaultAllocator, p)
		defer recs[i].Release()
	}
	r := arrowio.NewRecordsReader("parts", PartialSchema(), recs)
	defer r.Release()
	back, err := ReadPartials(context.Background(), r)
	if err != nil {
		t.Fatalf("ReadPartials: %v", err)
	}
	return back
}

// TestMergeEqualsWhole: the blocks of every split, merged directly or
// after a trip through their tables, give the metrics of one run on all
// points bit for bit — with ties (grid points), classes and the ordinal
// metrics, and for distances.
func TestMergeEqualsWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 1))
	const n = 90
	ks := []int{1, 5, 12, 88}
	for _, tc := range []struct {
		name    string
		x       []float64
		D       int
		classes []int
		ordinal bool
	}{
		{"normal, no classes", normalPoints(rng, n, 4), 4, nil, false},
		{"grid ties, classes", gridPoints(rng, n, 2, 3), 2, randomClasses(rng, n, 3), false},
		{"normal, ordinal", normalPoints(rng, n, 3), 3, randomClasses(rng, n, 4), true},
	} {
		y := gridPoints(rng, n, 2, 6) // ties in the embedding too
		opts := Options{Ks: ks, Ordinal: tc.ordinal}
		whole := mustEvaluate(t, tc.x, tc.D, y, 2, tc.classes, opts)
		for _, count := range []int{1, 2, 3, 7, n} {
			parts := partialsOf(t, rng, count, func(b Block, threads int) (*Partial, error) {
				o := opts
				o.Threads, o.Block = threads, b
				return EvaluatePartial(context.Background(), tc.x, tc.D, y, 2, tc.classes, o)
			})
			name := tc.name + ", " + Block{Index: 0, Count: count}.String()
			got, err := Merge(parts...)
			if err != nil {
				t.Fatalf("%s: Merge: %v", name, err)
			}
			mustSame(t, name, got, whole)
			got, err = Merge(roundTrip(t, parts)...)
			if err != nil {
				t.Fatalf("%s: Merge after the table: %v", name, err)
			}
			mustSame(t, name+", through the table", got, whole)
		}
		if tc.classes == nil {
			continue
		}
		dist := squaredDistances(tc.x, n, tc.D)
		dwhole, err := EvaluateDistances(context.Background(), dist, n, tc.classes, Options{Ks: ks})
		if err != nil {
			t.Fatalf("%s: EvaluateDistances: %v", tc.name, err)
		}
		parts := partialsOf(t, rng, 4, func(b Block, threads int) (*Partial, error) {
			return EvaluateDistancesPartial(context.Background(), dist, n, tc.classes, Options{Ks: ks, Threads: threads, Block: b})
		})
		got, err := Merge(roundTrip(t, parts)...)
		if err != nil {
			t.Fatalf("%s, distances: Merge: %v", tc.name, err)
		}
		mustSame(t, tc.name+", distances", got, dwhole)
	}
}

// TestMergeRefuses: a missing block, a block twice, blocks of other data,
// options or counts are refused, never merged.
func TestMergeRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 2))
	const n = 40
	x, y, cl := normalPoints(rng, n, 3), normalPoints(rng, n, 2), randomClasses(rng, n, 2)
	part := func(x []float64, ks []int, b Block) *Partial {
		p, err := EvaluatePartial(context.Background(), x, 3, y, 2, cl, Options{Ks: ks, Block: b})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	ks := []int{3, 7}
	b0, b1, b2 := part(x, ks, Block{0, 3}), part(x, ks, Block{1, 3}), part(x, ks, Block{2, 3})
	other := slices.Clone(x)
	other[17] += 1e-9
	for _, tc := range []struct {
		name  string
		parts []*Partial
		want  string
	}{
		{"none", nil, "no partial sums"},
		{"missing middle", []*Partial{b0, b2}, "points [13, 26) of 40 are in no block"},
		{"missing end", []*Partial{b0, b1}, "points [26, 40) are in no block"},
		{"twice", []*Partial{b0, b1, b1, b2}, "overlaps"},
		{"other blocking", []*Partial{b0, part(x, ks, Block{0, 2}), b2}, "overlaps"},
		{"other data", []*Partial{b0, b1, part(other, ks, Block{2, 3})}, "different inputs"},
		{"other ks", []*Partial{b0, b1, part(x, []int{3}, Block{2, 3})}, "different inputs"},
	} {
		_, err := Merge(tc.parts...)
		if !errors.Is(err, ErrPartial) || !errors.Is(err, arrowio.ErrInvalidData) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrPartial with %q", tc.name, err, tc.want)
		}
	}
	var oe *transforms.OptionError
	if _, err := EvaluatePartial(context.Background(), x, 3, y, 2, cl, Options{Ks: ks, Block: Block{0, n + 1}}); !errors.As(err, &oe) || oe.Option != "block" {
		t.Errorf("more blocks than points: error %v, want an OptionError naming block", err)
	}
	if _, err := Evaluate(context.Background(), x, 3, y, 2, cl, Options{Ks: ks, Block: Block{0, 2}}); !errors.As(err, &oe) || oe.Option != "block" {
		t.Errorf("Evaluate of a block: error %v, want an OptionError naming block", err)
	}
}

// TestReadPartialsRefuses: damaged partial tables name the column and row.
func TestReadPartialsRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 3))
	const n = 30
	p, err := EvaluatePartial(context.Background(), normalPoints(rng, n, 2), 2, normalPoints(rng, n, 2), 2, randomClasses(rng, n, 2), Options{Ks: []int{4}, Block: Block{0, 2}})
	if err != nil {
		t.Fatal(err)
	}
	good := PartialRecord(memory.DefaultAllocator, p)
	defer good.Release()
	// edit returns good with value v at row of column col (null when v < 0
	// and null is set).
	edit := func(col, row int, v int64, null bool) arrow.RecordBatch {
		cols := make([]arrow.Array, good.NumCols())
		for c := range cols {
			cols[c] = good.Column(c)
			cols[c].Retain()
		}
		if c, ok := cols[col].(*array.Int64); ok {
			b := array.NewInt64Builder(memory.DefaultAllocator)
			for i := range c.Len() {
				switch {
				case i == row && null:
					b.AppendNull()
				case i == row:
					b.Append(v)
				default:
					b.Append(c.Value(i))
				}
			}
			cols[col].Release()
			cols[col] = b.NewArray()
			b.Release()
		}
		rec := array.NewRecordBatch(good.Schema(), cols, good.NumRows())
		for _, c := range cols {
			c.Release()
		}
		return rec
	}
	wrongType := arrow.NewSchema([]arrow.Field{
		{Name: "lo", Type: arrow.PrimitiveTypes.Int32}, {Name: "hi", Type: arrow.PrimitiveTypes.Int64},
		{Name: "part", Type: arrow.BinaryTypes.String}, {Name: "index", Type: arrow.PrimitiveTypes.Int64},
		{Name: "value", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for _, tc := range []struct {
		name   string
		schema *arrow.Schema
		recs   []arrow.RecordBatch
		want   error
		column string
		row    int64
	}{
		{"twice", PartialSchema(), []arrow.RecordBatch{good, good}, ErrPartial, "part", good.NumRows()},
		{"null value", PartialSchema(), []arrow.RecordBatch{edit(4, 3, 0, true)}, arrowio.ErrInvalidValue, "value", 3},
		{"newer format", PartialSchema(), []arrow.RecordBatch{edit(4, 0, 2, false)}, ErrPartial, "part", 0},
		{"n too small", PartialSchema(), []arrow.RecordBatch{edit(4, 1, 3, false)}, ErrPartial, "part", 0},
		{"no rows", PartialSchema(), nil, ErrPartial, "", -1},
		{"not a partial table", arrow.NewSchema([]arrow.Field{{Name: "metric", Type: arrow.BinaryTypes.String}}, nil), nil, arrowio.ErrMissingColumn, "lo", -1},
		{"wrong type", wrongType, nil, arrowio.ErrColumnType, "lo", -1},
	} {
		r := arrowio.NewRecordsReader("parts.parquet", tc.schema, tc.recs)
		_, err := ReadPartials(context.Background(), r)
		r.Release()
		var pe *arrowio.Error
		if !errors.Is(err, tc.want) || !errors.As(err, &pe) || pe.File != "parts.parquet" || pe.Column != tc.column || pe.Row != tc.row {
			t.Errorf("%s: error %v, want %v at column %q row %d", tc.name, err, tc.want, tc.column, tc.row)
		}
	}
}

func TestBlockText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Block
		ok   bool
	}{
		{"", Block{}, true},
		{"0/1", Block{0, 1}, true},
		{" 3 / 8 ", Block{3, 8}, true},
		{"8/8", Block{}, false},
		{"-1/2", Block{}, false},
		{"1/0", Block{}, false},
		{"1", Block{}, false},
		{"a/2", Block{}, false},
	} {
		var b Block
		err := b.UnmarshalText([]byte(tc.in))
		if (err == nil) != tc.ok || (tc.ok && b != tc.want) {
			t.Errorf("%q: %+v, %v; want %+v, ok %v", tc.in, b, err, tc.want, tc.ok)
		}
		// Set as the option, a bad block is an OptionError naming it.
		o := DefaultOptions()
		err = transforms.SetOptions(&o, map[string]string{"block": tc.in})
		var oe *transforms.OptionError
		if (err == nil) != tc.ok || (err != nil && (!errors.As(err, &oe) || oe.Option != "block")) {
			t.Errorf("%q: option error %v, want ok %v or an OptionError naming block", tc.in, err, tc.ok)
		}
	}
	for _, n := range []int{5, 17, 100} {
		next := 0
		for i := range 5 {
			lo, hi := Block{i, 5}.Range(n)
			if lo != next || hi < lo {
				t.Errorf("n=%d block %d: [%d, %d) after %d", n, i, lo, hi, next)
			}
			next = hi
		}
		if next != n {
			t.Errorf("n=%d: blocks end at %d", n, next)
		}
	}
}
