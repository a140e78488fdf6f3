package table

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// MetricRow is one row of a metrics table (kind Metrics): a metric, its
// neighbourhood size k (0 for a metric without one), the subset of points
// or triplets it is computed on, and its value (NaN when undefined).
type MetricRow struct {
	Metric string
	K      int
	Subset string
	Value  float64
}

// Key is the row's name in a flat map of figures: metric, then "@k" when k
// > 0, then "/subset" unless the subset is "" or "all" — for example
// trustworthiness@10, knn_accuracy@5/input, triplet_accuracy/hidden.
func (r MetricRow) Key() string { return MetricKey(r.Metric, r.K, r.Subset) }

// MetricKey is MetricRow.Key for the given metric, k and subset.
func MetricKey(metric string, k int, subset string) string {
	key := metric
	if k > 0 {
		key += "@" + strconv.Itoa(k)
	}
	if subset != "" && subset != "all" {
		key += "/" + subset
	}
	return key
}

// MetricsSchema is the schema of a metrics table: the long form metric
// (string), k (int64), subset (string), value (float64), all non-null.
func MetricsSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "metric", Type: arrow.BinaryTypes.String},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "subset", Type: arrow.BinaryTypes.String},
		{Name: "value", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
}

// MetricsRecord builds a metrics table of the rows, in their order.
func MetricsRecord(mem memory.Allocator, rows []MetricRow) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, MetricsSchema())
	defer b.Release()
	metric := b.Field(0).(*array.StringBuilder)
	k := b.Field(1).(*array.Int64Builder)
	subset := b.Field(2).(*array.StringBuilder)
	value := b.Field(3).(*array.Float64Builder)
	for _, r := range rows {
		metric.Append(r.Metric)
		k.Append(int64(r.K))
		subset.Append(r.Subset)
		value.Append(r.Value)
	}
	return b.NewRecordBatch()
}

// MetricsFigures is the flat map of a metrics table's rows under their
// keys (MetricRow.Key), as the evaluate stage records them in its
// provenance.
func MetricsFigures(rows []MetricRow) map[string]any {
	out := make(map[string]any, len(rows))
	for _, r := range rows {
		out[r.Key()] = r.Value
	}
	return out
}

// ReadMetrics reads a metrics table. The columns are found by name, so
// their order does not matter; k may be any integer type and value any
// floating-point type (a CSV gives int64 and float64). A null k is 0, a
// null value NaN; a null metric or subset is an error.
func ReadMetrics(ctx context.Context, r arrowio.Reader) ([]MetricRow, error) {
	schema := r.Schema()
	file := r.Source().Path
	idx := map[string]int{}
	for _, name := range []string{"metric", "k", "subset", "value"} {
		is := schema.FieldIndices(name)
		if len(is) == 0 {
			return nil, &arrowio.Error{File: file, Column: name, Row: -1, Err: fmt.Errorf("%w: not a metrics table (columns metric, k, subset, value)", arrowio.ErrMissingColumn)}
		}
		idx[name] = is[0]
	}
	var out []MetricRow
	for r.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec := r.RecordBatch()
		_, first := r.Position()
		metric, ok1 := rec.Column(idx["metric"]).(*array.String)
		subset, ok2 := rec.Column(idx["subset"]).(*array.String)
		if !ok1 || !ok2 {
			col := "metric"
			if ok1 {
				col = "subset"
			}
			return nil, &arrowio.Error{File: file, Column: col, Row: -1, Err: fmt.Errorf("%w: want a string column", arrowio.ErrColumnType)}
		}
		kcol, vcol := rec.Column(idx["k"]), rec.Column(idx["value"])
		for i := range int(rec.NumRows()) {
			if metric.IsNull(i) || subset.IsNull(i) {
				col := "metric"
				if !metric.IsNull(i) {
					col = "subset"
				}
				return nil, &arrowio.Error{File: file, Column: col, Row: first + int64(i), Err: fmt.Errorf("%w: null", arrowio.ErrInvalidValue)}
			}
			k, err := intAt(kcol, i)
			if err != nil {
				return nil, &arrowio.Error{File: file, Column: "k", Row: first + int64(i), Err: err}
			}
			v, err := floatAt(vcol, i)
			if err != nil {
				return nil, &arrowio.Error{File: file, Column: "value", Row: first + int64(i), Err: err}
			}
			out = append(out, MetricRow{Metric: metric.Value(i), K: k, Subset: subset.Value(i), Value: v})
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func intAt(a arrow.Array, i int) (int, error) {
	if a.IsNull(i) {
		return 0, nil
	}
	switch c := a.(type) {
	case *array.Int64:
		return int(c.Value(i)), nil
	case *array.Int32:
		return int(c.Value(i)), nil
	case *array.Int16:
		return int(c.Value(i)), nil
	case *array.Int8:
		return int(c.Value(i)), nil
	case *array.Uint32:
		return int(c.Value(i)), nil
	case *array.Uint16:
		return int(c.Value(i)), nil
	case *array.Uint8:
		return int(c.Value(i)), nil
	}
	return 0, fmt.Errorf("%w: want an integer column, got %s", arrowio.ErrColumnType, a.DataType())
}

func floatAt(a arrow.Array, i int) (float64, error) {
	if a.IsNull(i) {
		return math.NaN(), nil
	}
	switch c := a.(type) {
	case *array.Float64:
		return c.Value(i), nil
	case *array.Float32:
		return float64(c.Value(i)), nil
	case *array.Int64:
		return float64(c.Value(i)), nil
	}
	return 0, fmt.Errorf("%w: want a floating-point column, got %s", arrowio.ErrColumnType, a.DataType())
}
