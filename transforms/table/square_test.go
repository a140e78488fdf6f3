package table

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// writeRead writes a table of schema with write to a Parquet file and
// reads it back into a frame with sel.
func writeRead(t *testing.T, schema *arrow.Schema, write func(w arrowio.Writer) error, sel arrowio.Selection) *arrowio.Frame {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.parquet")
	w, err := arrowio.Create(ctx, path, schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := write(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := arrowio.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	f, err := arrowio.ReadFrame(ctx, r, sel)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Release)
	return f
}

func TestSquareRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	ids := stringArray("a", "b", "c")
	defer ids.Release()
	dist := []float64{0, 1, 2, 1, 0, 3, 2, 3, 0}
	schema, err := SquareSchema("id", ids)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range schema.Fields() {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "id,a,b,c" {
		t.Fatalf("columns %v", names)
	}
	f := writeRead(t, schema, func(w arrowio.Writer) error {
		rec := SquareRecord(mem, schema, ids, dist)
		defer rec.Release()
		return w.Write(rec)
	}, arrowio.Selection{ID: "id", Keep: []string{}})
	got, err := SquareMatrix(f)
	if err != nil {
		t.Fatal(err)
	}
	for k := range dist {
		if got[k] != dist[k] {
			t.Fatalf("entry %d = %v, want %v", k, got[k], dist[k])
		}
	}
	// Ids that cannot name columns.
	dup := stringArray("a", "id")
	defer dup.Release()
	if _, err := SquareSchema("id", dup); err == nil || !strings.Contains(err.Error(), "row 1 (id id)") {
		t.Errorf("id naming the id column: error %v", err)
	}
	// More columns than rows.
	f.D, f.N = 3, 2
	if _, err := SquareMatrix(f); err == nil || !strings.Contains(err.Error(), "2 rows and 3 feature columns") {
		t.Errorf("not square: error %v", err)
	}
}

func TestPairsRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	b.AppendValues([]int64{10, 20, 30}, nil)
	ids := b.NewArray()
	b.Release()
	defer ids.Release()
	frame := &arrowio.Frame{Source: arrowio.Source{Path: "ids"}, N: 3, IDName: "id", ID: ids}
	dist := []float64{0, 1, 2, 1, 0, 3, 2, 3, 0}
	ctx := context.Background()
	for _, upper := range []bool{false, true} {
		var rows []int64
		f := writeRead(t, PairsSchema(ids), func(w arrowio.Writer) error {
			return WriteDensePairs(ctx, w, mem, ids, dist, upper, func(r int64) { rows = append(rows, r) })
		}, PairsSelection(PairDistance))
		if want := map[bool]int{false: 6, true: 3}[upper]; f.N != want || len(rows) != 3 {
			t.Errorf("upper %v: %d pairs, %d progress calls; want %d, 3", upper, f.N, len(rows), want)
		}
		got, err := DistanceMatrix(f, frame)
		if err != nil {
			t.Fatal(err)
		}
		for k := range dist {
			if got[k] != dist[k] {
				t.Fatalf("upper %v: entry %d = %v, want %v", upper, k, got[k], dist[k])
			}
		}
		if f.ID.DataType().ID() != arrow.INT64 {
			t.Errorf("int64 ids written as %s", f.ID.DataType())
		}
	}
	idx := []int32{1, 2, 0, 2, 1, 0}
	nd := []float64{1, 2, 1, 3, 3, 2}
	f := writeRead(t, PairsSchema(ids), func(w arrowio.Writer) error {
		return WriteNeighborPairs(ctx, w, mem, ids, idx, nd, 2, false, nil)
	}, PairsSelection(PairDistance))
	gi, gd, k, err := NeighborLists(f, frame)
	if err != nil || k != 2 {
		t.Fatalf("neighbour lists: k %d, %v", k, err)
	}
	for q := range idx {
		if gi[q] != idx[q] || gd[q] != nd[q] {
			t.Errorf("entry %d: (%d, %v), want (%d, %v)", q, gi[q], gd[q], idx[q], nd[q])
		}
	}
}
