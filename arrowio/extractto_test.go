package arrowio

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// frWideBatch is n rows of an id and d float64 features x0…, with nulls,
// NaN and ±Inf in a few rows (dropped with InvalidDrop), so that X spans
// several of scalarFeatures' blocks.
func frWideBatch(t *testing.T, n, d int) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(21, 22))
	names := []string{"id"}
	ib := array.NewInt64Builder(frMem(t))
	defer ib.Release()
	for r := range n {
		ib.Append(int64(r))
	}
	cols := []arrow.Array{ib.NewArray()}
	for c := range d {
		names = append(names, fmt.Sprintf("x%d", c))
		vals := make([]float64, n)
		valid := make([]bool, n)
		for r := range n {
			vals[r], valid[r] = rng.NormFloat64(), true
			switch (r*7 + c) % 1009 {
			case 0:
				valid[r] = false
			case 1:
				vals[r] = math.NaN()
			case 2:
				vals[r] = math.Inf(1 - 2*(c%2))
			}
		}
		cols = append(cols, frF64(frMem(t), vals, valid))
	}
	return frRecord(t, names, cols)
}

// TestExtractToAndThreads: ExtractTo fills the caller's storage (dirty or
// not) with Extract's X, takes fresh storage when it is too small, and any
// number of frame threads gives the same frame.
func TestExtractToAndThreads(t *testing.T) {
	const n, d = 10_000, 6 // 1,365 rows a block: 8 blocks
	rec := frWideBatch(t, n, d)
	defer rec.Release()
	for _, mode := range []OnInvalid{InvalidDrop, InvalidError} {
		sel := Selection{ID: "id", Features: []string{"x*"}, OnInvalid: mode}
		ref, err := sel.Compile(rec.Schema(), Source{Path: "w.parquet"})
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := ref.Extract(rec, "w.parquet", 0)
		for _, threads := range []int{1, 2, 3, 0} {
			p, err := sel.Compile(rec.Schema(), Source{Path: "w.parquet"}, WithFrameThreads(threads))
			if err != nil {
				t.Fatal(err)
			}
			dirty := make([]float64, n*d+5)
			for i := range dirty {
				dirty[i] = -7
			}
			for _, tc := range []struct {
				name string
				dst  []float64
				same bool // X must live in dst
			}{{"nil", nil, false}, {"dirty, large enough", dirty, true}, {"too small", make([]float64, n*d-1), false}} {
				name := fmt.Sprintf("%v threads=%d dst %s", mode, threads, tc.name)
				f, err := p.ExtractTo(tc.dst, rec, "w.parquet", 0)
				if wantErr != nil {
					if err == nil || err.Error() != wantErr.Error() {
						t.Errorf("%s: error %v, want %v", name, err, wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !slices.Equal(f.X, want.X) || !slices.Equal(f.Rows, want.Rows) || f.N != want.N || f.Dropped != want.Dropped {
					t.Errorf("%s: frame differs from Extract's (N %d/%d, dropped %d/%d)", name, f.N, want.N, f.Dropped, want.Dropped)
				}
				inDst := len(tc.dst) > 0 && len(f.X) > 0 && &f.X[0] == &tc.dst[0]
				if inDst != tc.same {
					t.Errorf("%s: X in dst's storage %v, want %v", name, inDst, tc.same)
				}
				f.Release()
			}
		}
		if want != nil {
			if want.Dropped == 0 {
				t.Errorf("%v: no row dropped: the batch has no invalid value", mode)
			}
			want.Release()
		}
	}
}

// TestExtractColumns: float64 features without nulls come as columns
// (views, unchecked), with the id, labels, rows and kept columns Extract
// gives; any other batch is ExtractTo's frame.
func TestExtractColumns(t *testing.T) {
	mem := frMem(t)
	for _, tc := range []struct {
		name      string
		col, bad  string
		at        []int
		mode      OnInvalid
		asColumns bool
	}{
		{"clean", "x1", "NaN", nil, InvalidError, true},
		{"NaN in a feature: columns, unchecked", "x2", "NaN", []int{3}, InvalidError, true},
		{"+Inf in a feature, drop mode: columns, unchecked", "x1", "+Inf", []int{0}, InvalidDrop, true},
		{"null in a feature: X", "x1", "null", []int{2}, InvalidDrop, false},
		{"null label, drop mode: X, row dropped", "y", "null", []int{1, 4}, InvalidDrop, false},
		{"null id, error mode: the error", "id", "null", []int{2}, InvalidError, false},
	} {
		rec := frInvalidBatch(t, mem, tc.col, tc.bad, tc.at)
		sel := Selection{ID: "id", Features: []string{"x1", "x2"}, Label: "y", Keep: []string{"p_a"}, OnInvalid: tc.mode}
		p, err := sel.Compile(rec.Schema(), Source{Path: "c.parquet"})
		if err != nil {
			t.Fatal(err)
		}
		got, gotErr := p.ExtractColumns(nil, rec, "c.parquet", 10)
		want, wantErr := p.Extract(rec, "c.parquet", 10)
		switch {
		case wantErr != nil && !tc.asColumns:
			if gotErr == nil || gotErr.Error() != wantErr.Error() {
				t.Errorf("%s: error %v, want %v", tc.name, gotErr, wantErr)
			}
		case gotErr != nil:
			t.Errorf("%s: %v", tc.name, gotErr)
		case tc.asColumns:
			if got.X != nil || len(got.Columns) != 2 || got.N != 5 {
				t.Fatalf("%s: X %v, %d columns, N %d; want columns of 5 rows", tc.name, got.X, len(got.Columns), got.N)
			}
			for j, name := range []string{"x1", "x2"} {
				want := rec.Column(slices.Index(got.FeatureNames, name) + 1).(*array.Float64).Float64Values()
				if !frSameFloats(got.Columns[j], want) {
					t.Errorf("%s: column %s = %v, want %v", tc.name, name, got.Columns[j], want)
				}
			}
			if !slices.Equal(frStrs(got.ID), []string{"r0", "r1", "r2", "r3", "r4"}) || !slices.Equal(got.Rows, []int64{10, 11, 12, 13, 14}) ||
				!slices.Equal(got.Label.Num, []float64{0, 1, 0, 1, 0}) || got.Keep[0].Len() != 5 {
				t.Errorf("%s: ids %v rows %v labels %v", tc.name, frStrs(got.ID), got.Rows, got.Label.Num)
			}
		default:
			if got.Columns != nil || !frSameFloats(got.X, want.X) || !slices.Equal(got.Rows, want.Rows) || got.Dropped != want.Dropped {
				t.Errorf("%s: columns %v, X %v rows %v dropped %d; want X %v rows %v dropped %d", tc.name, got.Columns, got.X, got.Rows, got.Dropped, want.X, want.Rows, want.Dropped)
			}
		}
		got.Release()
		want.Release()
		rec.Release()
	}
}
