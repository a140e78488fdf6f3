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
