package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/ordinate/ordinate/arrowio"
)

// TestApplyShards: apply --shard i/N over a Parquet dataset of several files
// and row groups places every row exactly once, with the bits and the row
// ids of the unsharded run, for a linear and a t-SNE model.
func TestApplyShards(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := arrowio.Open(ctx, "../../testdata/ordinal/newthyroid.csv", arrowio.WithBatchSize(80))
	if err != nil {
		t.Fatal(err)
	}
	part := 0
	for r.Next() { // three files of up to 80 rows, row groups of 17
		rec := r.RecordBatch()
		w, err := arrowio.Create(ctx, filepath.Join(data, fmt.Sprintf("part-%d.parquet", part)), rec.Schema(), arrowio.WithRowGroupRows(17))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		part++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	r.Release()
	for _, fit := range [][]string{
		{"bvp", "--in", data, "--label", "label"},
		{"tsne", "--in", data, "--label", "label", "--perplexity", "10"},
	} {
		model := filepath.Join(dir, fit[0]+".model.parquet")
		args := append(fit, "--out", filepath.Join(dir, fit[0]+".parquet"), "--model-out", model)
		if code, _, stderr := runCmd(t, nil, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", fit[0], code, stderr)
		}
		full := filepath.Join(dir, fit[0]+"-all.parquet")
		if code, _, stderr := runCmd(t, nil, "apply", "--model", model, "--in", data, "--out", full); code != 0 {
			t.Fatalf("%s apply: exit %d: %s", fit[0], code, stderr)
		}
		want := embeddingByRow(t, full)
		for _, n := range []int{2, 3, 7, 20} { // 20 > the 14 row groups: some shards are empty
			got := map[int64][]float64{}
			for i := range n {
				out := filepath.Join(dir, fmt.Sprintf("%s-%d-of-%d.parquet", fit[0], i, n))
				code, _, stderr := runCmd(t, nil, "apply", "--model", model, "--in", data, "--shard", fmt.Sprintf("%d/%d", i, n), "--out", out)
				if code != 0 {
					t.Fatalf("%s shard %d/%d: exit %d: %s", fit[0], i, n, code, stderr)
				}
				for id, y := range embeddingByRow(t, out) {
					if _, dup := got[id]; dup {
						t.Fatalf("%s: row %d placed by two of %d shards", fit[0], id, n)
					}
					got[id] = y
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %d shards placed %d rows, want %d", fit[0], n, len(got), len(want))
			}
			for id, y := range want {
				for c := range y {
					if math.Float64bits(got[id][c]) != math.Float64bits(y[c]) {
						t.Fatalf("%s: %d shards: row %d coordinate %d is %v, unsharded %v", fit[0], n, id, c, got[id][c], y[c])
					}
				}
			}
		}
	}
	if code, _, stderr := runCmd(t, nil, "apply", "--model", filepath.Join(dir, "bvp.model.parquet"), "--in", "../../testdata/ordinal/newthyroid.csv",
		"--shard", "0/2", "--out", filepath.Join(dir, "x.parquet")); code != 2 {
		t.Errorf("a shard of a CSV input: exit %d (%s), want 2", code, stderr)
	}
}

// embeddingByRow reads an apply output keyed by its synthesised row id
// (an empty shard's output has no rows, which ReadFrame refuses).
func embeddingByRow(t *testing.T, path string) map[int64][]float64 {
	t.Helper()
	r, err := arrowio.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	out := map[int64][]float64{}
	for r.Next() {
		rec := r.RecordBatch()
		ids := rec.Column(0).(*array.Int64)
		for i := range ids.Len() {
			var y []float64
			for c := 1; c < int(rec.NumCols()); c++ {
				y = append(y, rec.Column(c).(*array.Float64).Value(i))
			}
			out[ids.Value(i)] = y
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
