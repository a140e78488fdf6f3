package synth

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The record holds the points, the weights, and the class of largest
// weight, in the demo's column order.
func TestFourClustersRecord(t *testing.T) {
	x, soft := FourClusters(rand.New(rand.NewPCG(1, 2)), 10)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := FourClustersRecord(x, soft, mem)
	defer rec.Release()
	c := len(FourClusterClasses)
	if rec.NumRows() != 40 || rec.NumCols() != int64(3+c+1) || rec.ColumnName(3) != "p_"+FourClusterClasses[0] || rec.ColumnName(3+c) != "class" {
		t.Fatalf("record %d×%d, columns %v", rec.NumRows(), rec.NumCols(), rec.Schema())
	}
	cls := rec.Column(3 + c).(*array.String)
	for i := range 40 {
		if got := rec.Column(1).(*array.Float64).Value(i); got != x[i*3+1] {
			t.Fatalf("row %d: y = %v, want %v", i, got, x[i*3+1])
		}
		best := 0
		for k := range c {
			if soft[i*c+k] > soft[i*c+best] {
				best = k
			}
		}
		if cls.Value(i) != FourClusterClasses[best] {
			t.Errorf("row %d: class %s, want %s", i, cls.Value(i), FourClusterClasses[best])
		}
	}
}

// DecimalBatches emits rows in batches of the given size, every value a
// multiple of 1/1000 in [−10, 10), and stops at emit's error.
func TestDecimalBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var sizes []int64
	err := DecimalBatches(2500, 3, 1000, mem, func(rec arrow.RecordBatch) error {
		sizes = append(sizes, rec.NumRows())
		for c := range 3 {
			for _, v := range rec.Column(c).(*array.Float64).Float64Values() {
				if v < -10 || v >= 10 || math.Abs(v*1000-math.Round(v*1000)) > 1e-6 {
					t.Fatalf("value %v", v)
				}
			}
		}
		return nil
	})
	if err != nil || !slices.Equal(sizes, []int64{1000, 1000, 500}) {
		t.Errorf("batches %v, error %v", sizes, err)
	}
	stop := errors.New("stop")
	calls := 0
	if err := DecimalBatches(2500, 3, 1000, mem, func(arrow.RecordBatch) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Errorf("emit's error: got %v after %d calls", err, calls)
	}
}
