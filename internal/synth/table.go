package synth

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// FourClustersRecord returns FourClusters' points x (n×3) and soft labels
// (n×6) as one record batch with the columns of the demo's
// four-clusters.parquet: x, y, z, p_<class> for each of
// FourClusterClasses, and class, the class of largest weight (the first on
// ties).
func FourClustersRecord(x, soft []float64, mem memory.Allocator) arrow.RecordBatch {
	names := FourClusterClasses
	c := len(names)
	n := len(x) / 3
	fields := []arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64}, {Name: "y", Type: arrow.PrimitiveTypes.Float64}, {Name: "z", Type: arrow.PrimitiveTypes.Float64}}
	for _, nm := range names {
		fields = append(fields, arrow.Field{Name: "p_" + nm, Type: arrow.PrimitiveTypes.Float64})
	}
	fields = append(fields, arrow.Field{Name: "class", Type: arrow.BinaryTypes.String})
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i := range n {
		for j := range 3 {
			b.Field(j).(*array.Float64Builder).Append(x[i*3+j])
		}
		best := 0
		for k := range c {
			b.Field(3 + k).(*array.Float64Builder).Append(soft[i*c+k])
			if soft[i*c+k] > soft[i*c+best] {
				best = k
			}
		}
		b.Field(3 + c).(*array.StringBuilder).Append(names[best])
	}
	return b.NewRecordBatch()
}
