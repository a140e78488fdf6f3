package arrowio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// writeShardDataset writes files of the given row counts (column v =
// global row number) with row groups of rg rows and returns the directory.
func writeShardDataset(t *testing.T, rows []int, rg int64) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	next := int64(0)
	for f, n := range rows {
		w, err := Create(ctx, filepath.Join(dir, fmt.Sprintf("part-%d.parquet", f)), schema, WithRowGroupRows(rg))
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewInt64Builder(memory.DefaultAllocator)
		for range n {
			b.Append(next)
			next++
		}
		col := b.NewArray()
		rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(n))
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		col.Release()
		b.Release()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// readNumbered reads every row's value and its input row number.
func readNumbered(t *testing.T, path string, opts ...ReadOption) (vals, rows []int64) {
	t.Helper()
	r, err := Open(context.Background(), path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	for r.Next() {
		rec := r.RecordBatch()
		_, first := r.Position()
		for i, v := range rec.Column(0).(*array.Int64).Int64Values() {
			vals = append(vals, v)
			rows = append(rows, first+int64(i))
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return vals, rows
}

// TestShard: the shards of a dataset together read every row exactly once,
// each with the row number of the whole dataset, for any shard count.
func TestShard(t *testing.T) {
	cases := []struct {
		name string
		rows []int
		rg   int64
	}{
		{"three files, row groups of 7", []int{20, 1, 33}, 7},
		{"one file, one row group", []int{10}, 100},
		{"an empty file among others", []int{15, 0, 9}, 4},
	}
	for _, c := range cases {
		dir := writeShardDataset(t, c.rows, c.rg)
		all, allRows := readNumbered(t, dir)
		for i, v := range all {
			if allRows[i] != v {
				t.Fatalf("%s: unsharded row %d holds %d", c.name, allRows[i], v)
			}
		}
		for n := 1; n <= 5; n++ {
			var got []int64
			for i := range n {
				vals, rows := readNumbered(t, dir, WithShard(Shard{Index: i, Count: n}))
				for k, v := range vals {
					if rows[k] != v {
						t.Errorf("%s: shard %d/%d numbers the row holding %d as %d", c.name, i, n, v, rows[k])
					}
				}
				got = append(got, vals...)
			}
			slices.Sort(got)
			if !slices.Equal(got, all) {
				t.Errorf("%s: the %d shards read %d rows, want each of the %d once", c.name, n, len(got), len(all))
			}
		}
	}
}

func TestShardErrors(t *testing.T) {
	for _, s := range []string{"4/4", "-1/3", "1", "a/b", "0/0"} {
		var sh Shard
		if err := sh.UnmarshalText([]byte(s)); !errors.Is(err, ErrShard) || !errors.Is(err, ErrInvalidOption) {
			t.Errorf("shard %q: err = %v, want ErrShard", s, err)
		}
	}
	var sh Shard
	if err := sh.UnmarshalText([]byte("2/5")); err != nil || sh != (Shard{2, 5}) || sh.String() != "2/5" {
		t.Errorf("shard 2/5: %+v, %v", sh, err)
	}
	csv := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(csv, []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), csv, WithShard(Shard{0, 2})); !errors.Is(err, ErrShard) {
		t.Errorf("CSV with a shard: err = %v, want ErrShard", err)
	}
}
