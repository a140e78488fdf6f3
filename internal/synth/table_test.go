package synth

import (
	"math/rand/v2"
	"testing"

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
