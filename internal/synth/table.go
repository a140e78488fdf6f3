package synth

import (
	"fmt"
	"math/rand/v2"

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

// DecimalSchema is the schema of DecimalBatches: cols float64 columns x0,
// x1, ….
func DecimalSchema(cols int) *arrow.Schema {
	fields := make([]arrow.Field, cols)
	for j := range fields {
		fields[j] = arrow.Field{Name: fmt.Sprintf("x%d", j), Type: arrow.PrimitiveTypes.Float64}
	}
	return arrow.NewSchema(fields, nil)
}

// DecimalBatches generates rows × cols values with four significant
// decimal digits in [−10, 10) (as measured data often has: they compress
// somewhat), the table of the Parquet and apply benchmarks, and hands
// them to emit in batches of batch rows, column by column from one
// seeded generator (so the values depend on batch). emit must not keep a
// batch past its return without retaining it; its error stops the run.
func DecimalBatches(rows, cols, batch int, mem memory.Allocator, emit func(arrow.RecordBatch) error) error {
	schema := DecimalSchema(cols)
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, min(batch, rows))
	for off := 0; off < rows; off += batch {
		n := min(batch, rows-off)
		arrs := make([]arrow.Array, cols)
		for j := range arrs {
			for i := range n {
				vals[i] = float64(rng.IntN(20000)-10000) / 1000
			}
			fb := array.NewFloat64Builder(mem)
			fb.AppendValues(vals[:n], nil)
			arrs[j] = fb.NewArray()
			fb.Release()
		}
		rec := array.NewRecordBatch(schema, arrs, int64(n))
		for _, a := range arrs {
			a.Release()
		}
		err := emit(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}
