package report

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestPivot: one row per (metric, subset) in the table's order, one column
// per k ascending with "(no k)" first for metrics without k, blanks where a
// metric has no value at a k.
func TestPivot(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rows    []metricRow
		columns string
		cells   []string // rows, cells "|"-joined
	}{
		{"k columns", []metricRow{{"trustworthiness", "all", 10, 0.9}, {"trustworthiness", "all", 5, 0.8}, {"trustworthiness", "intra", 5, 0.7}},
			"metric subset k = 5 k = 10", []string{"trustworthiness|all|0.8|0.9", "trustworthiness|intra|0.7|"}},
		{"metrics without k", []metricRow{{"rnx_auc", "all", 0, 0.35}, {"knn_accuracy", "embedding", 10, 0.95}},
			"metric subset (no k) k = 10", []string{"rnx_auc|all|0.35|", "knn_accuracy|embedding||0.95"}},
		{"subsets only", []metricRow{{"triplet_accuracy", "all", 0, 0.7}, {"triplet_accuracy", "hidden", 0, 0.69}},
			"metric subset (no k)", []string{"triplet_accuracy|all|0.7", "triplet_accuracy|hidden|0.69"}},
		{"empty", nil, "metric subset", nil},
	} {
		p := pivot(tc.rows, "h")
		if got := strings.Join(p.Columns, " "); got != tc.columns {
			t.Errorf("%s: columns %q, want %q", tc.name, got, tc.columns)
		}
		var got []string
		for _, r := range p.Rows {
			got = append(got, strings.Join(r, "|"))
		}
		if strings.Join(got, "\n") != strings.Join(tc.cells, "\n") {
			t.Errorf("%s: rows %q, want %q", tc.name, got, tc.cells)
		}
	}
}

// TestReadMetrics reads evaluate's long form and refuses a table without
// its columns (the page then shows it as it is).
func TestReadMetrics(t *testing.T) {
	m := metricsRec(t, "e", []metricRow{{"continuity", "all", 10, 0.5}, {"rnx_auc", "all", 0, 0.25}})
	defer m.Release()
	f := &file{path: "m", schema: m.Schema(), recs: []arrow.RecordBatch{m}}
	rows, err := readMetrics(f)
	if err != nil || len(rows) != 2 || rows[0] != (metricRow{"continuity", "all", 10, 0.5}) || rows[1].K != 0 {
		t.Errorf("evaluate's table: %v, %v", rows, err)
	}
	r := rec(t, []string{"metric", "k", "value"}, 3, nil)
	defer r.Release()
	if _, err := readMetrics(&file{path: "x", schema: r.Schema(), recs: []arrow.RecordBatch{r}}); err == nil || !strings.Contains(err.Error(), `"subset"`) {
		t.Errorf("no subset column: %v", err)
	}
}
