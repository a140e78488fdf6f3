package arrowio

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// readBatches reads path whole and returns its batches, to be released.
func readBatches(t *testing.T, path string, opts ...ReadOption) []arrow.RecordBatch {
	t.Helper()
	r, err := Open(context.Background(), path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var out []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		out = append(out, rec)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestParquetParallelRead checks that decoding the columns of a batch on
// several goroutines gives the very batches, in the same order, that one
// goroutine gives: for several thread counts, row group sizes and batch
// sizes, over columns with nulls and of other types than float64 (int64,
// strings, dictionaries, decimals, lists, fixed-size lists).
func TestParquetParallelRead(t *testing.T) {
	const rows = 700
	gen := memory.NewGoAllocator()
	rec := makeTestRecord(gen, rows, 11)
	defer rec.Release()
	for _, rg := range []int64{1, 33, 256, rows} {
		path := filepath.Join(t.TempDir(), "p.parquet")
		writeParquet(t, path, rg, rec)
		for _, batch := range []int{1, 7, 64, 65536} {
			if rg == 1 && batch != 7 {
				continue // 700 row groups: one batch size is enough
			}
			serial := readBatches(t, path, WithBatchSize(batch), WithReadThreads(1))
			for _, threads := range []int{2, 3, 8} {
				name := fmt.Sprintf("rg=%d batch=%d threads=%d", rg, batch, threads)
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				got := readBatches(t, path, WithBatchSize(batch), WithReadThreads(threads), WithReadAllocator(mem))
				if len(got) != len(serial) {
					t.Errorf("%s: %d batches, want the %d of one thread", name, len(got), len(serial))
				}
				for i := range min(len(got), len(serial)) {
					if !array.RecordEqual(got[i], serial[i]) {
						t.Errorf("%s: batch %d differs from that of one thread", name, i)
						break
					}
				}
				for _, b := range got {
					b.Release()
				}
				mem.AssertSize(t, 0)
			}
			for _, b := range serial {
				b.Release()
			}
		}
	}
}

// TestParquetParallelCancel cancels a Parquet read after its first batch
// with several thread counts: Next stops with context.Canceled and no
// memory is held.
func TestParquetParallelCancel(t *testing.T) {
	gen := memory.NewGoAllocator()
	rec := makeTestRecord(gen, 500, 4)
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "t.parquet")
	writeParquet(t, path, 100, rec)
	for _, threads := range []int{1, 2, 4} {
		name := fmt.Sprintf("threads=%d", threads)
		checkCancelAfterFirst(t, name, path, WithBatchSize(3), WithReadThreads(threads))
	}
}
