package report

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// metricRow is one row of a long metrics table (evaluate's metric, k,
// subset, value); k is 0 for a metric that has none.
type metricRow struct {
	Metric, Subset string
	K              int
	Value          float64
}

// metricKey names one value of a metrics table.
type metricKey struct {
	Metric, Subset string
	K              int
}

// readMetrics reads the rows of a metrics table held in memory.
func readMetrics(f *file) ([]metricRow, error) {
	col := func(name string) (int, error) {
		idx := f.schema.FieldIndices(name)
		if len(idx) == 0 {
			return 0, fmt.Errorf("%s: metrics table without a %q column", f.path, name)
		}
		return idx[0], nil
	}
	var cols [4]int
	for i, name := range []string{"metric", "k", "subset", "value"} {
		c, err := col(name)
		if err != nil {
			return nil, err
		}
		cols[i] = c
	}
	var out []metricRow
	for _, rec := range f.recs {
		value, ok := rec.Column(cols[3]).(*array.Float64)
		if !ok {
			return nil, fmt.Errorf("%s: metrics column value is %s, want float64", f.path, rec.Column(cols[3]).DataType())
		}
		for i := range int(rec.NumRows()) {
			k, err := strconv.Atoi(rec.Column(cols[1]).ValueStr(i))
			if err != nil || value.IsNull(i) {
				continue // not a value this page can place
			}
			out = append(out, metricRow{Metric: rec.Column(cols[0]).ValueStr(i), Subset: rec.Column(cols[2]).ValueStr(i), K: k, Value: value.Value(i)})
		}
	}
	return out, nil
}

// metricValues indexes the rows of a metrics table.
func metricValues(rows []metricRow) map[metricKey]float64 {
	m := make(map[metricKey]float64, len(rows))
	for _, r := range rows {
		m[metricKey{r.Metric, r.Subset, r.K}] = r.Value
	}
	return m
}

// pivot lays a long metrics table out as one row per (metric, subset), in
// the order the table has them, and one column per k (ascending; "(no k)"
// first for the metrics that have none).
func pivot(rows []metricRow, heading string) htmlTable {
	var ks []int
	type rk struct{ metric, subset string }
	var order []rk
	seen := map[rk]bool{}
	for _, r := range rows {
		if !slices.Contains(ks, r.K) {
			ks = append(ks, r.K)
		}
		if key := (rk{r.Metric, r.Subset}); !seen[key] {
			seen[key] = true
			order = append(order, key)
		}
	}
	slices.Sort(ks)
	t := htmlTable{Heading: heading, Class: "pivot", Columns: []string{"metric", "subset"}}
	for _, k := range ks {
		if k == 0 {
			t.Columns = append(t.Columns, "(no k)")
		} else {
			t.Columns = append(t.Columns, "k = "+strconv.Itoa(k))
		}
	}
	vals := metricValues(rows)
	for _, key := range order {
		row := []string{key.metric, key.subset}
		for _, k := range ks {
			if v, ok := vals[metricKey{key.metric, key.subset, k}]; ok {
				row = append(row, formatValue(v))
			} else {
				row = append(row, "")
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// formatValue renders a metric for a table cell.
func formatValue(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
