package quality_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/quality"
	"github.com/ordinate/ordinate/transforms/table"
)

// evaluate runs the evaluate stage on an embedding and the measurements.
func evaluate(t *testing.T, emb, in arrow.RecordBatch, set func(*quality.Options)) (map[string]any, []string) {
	t.Helper()
	opts := quality.Stage{}.NewOptions().(*quality.Options)
	opts.ID, opts.Ks = "id", []int{5, 10}
	if set != nil {
		set(opts)
	}
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"embedding": emb, "in": in}, "out")
	defer tables.Release()
	if err := transforms.Run(context.Background(), quality.Stage{}, opts, &transforms.Env{Tables: tables}); err != nil {
		t.Fatal(err)
	}
	out := tables.Out("out")
	p := out.Provenance()
	if p.Kind != table.Metrics {
		t.Errorf("kind %q, want %q", p.Kind, table.Metrics)
	}
	return p.Figures, p.Warnings
}

// columns returns the float64 columns of rec, row-major.
func columns(rec arrow.RecordBatch, names ...string) []float64 {
	n := int(rec.NumRows())
	out := make([]float64, n*len(names))
	for j, name := range names {
		c := rec.Column(rec.Schema().FieldIndices(name)[0]).(*array.Float64)
		for i := range n {
			out[i*len(names)+j] = c.Value(i)
		}
	}
	return out
}

// zscore standardises the columns of the n×d x with their mean and sample
// standard deviation (N−1).
func zscore(x []float64, n, d int) []float64 {
	out := make([]float64, len(x))
	for j := range d {
		var m, s float64
		for i := range n {
			m += x[i*d+j]
		}
		m /= float64(n)
		for i := range n {
			s += (x[i*d+j] - m) * (x[i*d+j] - m)
		}
		s = math.Sqrt(s / float64(n-1))
		for i := range n {
			out[i*d+j] = (x[i*d+j] - m) / s
		}
	}
	return out
}

// TestStageUsesFittedSpace fits PCA with standardisation and checks that
// evaluate, told nothing about the features, scores the embedding on the
// standardised features recorded in its provenance; and that explicit
// options and an embedding without provenance behave as documented.
func TestStageUsesFittedSpace(t *testing.T) {
	rec := measurements()
	defer rec.Release()
	fitted := fitPCA(rec)
	defer fitted.Release()
	emb := fitted.Out("out").Records[0]

	n := int(rec.NumRows())
	raw := columns(rec, "height_mm", "weight_kg", "ratio")
	y := columns(emb, "emb_0", "emb_1")
	want := func(x []float64) map[string]float64 {
		rep, err := quality.Evaluate(context.Background(), x, 3, y, 2, nil, quality.Options{Ks: []int{5, 10}})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, k := range []int{5, 10} {
			out[table.MetricKey("trustworthiness", k, "all")], _ = rep.Value("trustworthiness", k, "all")
		}
		return out
	}
	std, plain := want(zscore(raw, n, 3)), want(raw)
	if std["trustworthiness@5"] == plain["trustworthiness@5"] {
		t.Fatalf("test data do not tell standardised from raw features: T(5) = %v", std["trustworthiness@5"])
	}
	check := func(name string, fig map[string]any, w map[string]float64) {
		t.Helper()
		for _, k := range []int{5, 10} {
			got, _ := fig["trustworthiness_k"+map[int]string{5: "5", 10: "10"}[k]].(float64)
			if wv := w[table.MetricKey("trustworthiness", k, "all")]; math.Abs(got-wv) > 1e-12 {
				t.Errorf("%s: T(%d) = %v, want %v", name, k, got, wv)
			}
		}
	}

	fig, warns := evaluate(t, emb, rec, nil)
	check("from provenance", fig, std)
	if fig["standardize"] != true || fig["standardize_source"] != "embedding" || fig["features_source"] != "embedding" {
		t.Errorf("from provenance: figures %v", fig)
	}
	if len(warns) != 0 {
		t.Errorf("from provenance: warnings %v", warns)
	}

	fig, _ = evaluate(t, emb, rec, func(o *quality.Options) { o.Standardize = quality.StandardizeOff })
	check("standardize false", fig, plain)
	if fig["standardize"] != false || fig["standardize_source"] != "option" {
		t.Errorf("standardize false: figures %v", fig)
	}

	// Without provenance: every numeric column (id left out), unstandardised, with a warning.
	bare := array.NewRecordBatch(arrow.NewSchema(emb.Schema().Fields(), nil), emb.Columns(), emb.NumRows())
	defer bare.Release()
	fig, warns = evaluate(t, bare, rec, nil)
	check("no provenance", fig, plain)
	if fig["features_source"] != "default" || len(warns) == 0 || !strings.Contains(strings.Join(warns, "\n"), "no ordinate provenance") {
		t.Errorf("no provenance: figures %v, warnings %v", fig, warns)
	}
}

// TestMetricsTableRoundTrip reads back the metrics table the stage writes.
func TestMetricsTableRoundTrip(t *testing.T) {
	rows := []table.MetricRow{{Metric: "trustworthiness", K: 5, Subset: "all", Value: 0.9}, {Metric: "rnx_auc", Subset: "all", Value: math.NaN()}}
	rec := table.MetricsRecord(memory.DefaultAllocator, rows)
	defer rec.Release()
	r := transforms.NewMemTables(map[string]arrow.RecordBatch{"m": rec})
	rd, err := r.Open(context.Background(), "m", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	got, err := table.ReadMetrics(context.Background(), rd)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != rows[0] || !math.IsNaN(got[1].Value) || got[1].Key() != "rnx_auc" || got[0].Key() != "trustworthiness@5" {
		t.Errorf("read %v", got)
	}
}

// TestStageBlocks runs the stage on each block of an ordinal evaluation and
// merges the partial tables (given in reverse order): the metrics table and
// the centre order equal one run on all points.
func TestStageBlocks(t *testing.T) {
	rec := measurements()
	defer rec.Release()
	fitted := fitPCA(rec)
	defer fitted.Release()
	emb := fitted.Out("out").Records[0]
	run := func(in map[string][]arrow.RecordBatch, set func(*quality.Options)) *transforms.MemTable {
		t.Helper()
		opts := quality.Stage{}.NewOptions().(*quality.Options)
		opts.ID, opts.Ks, opts.Label, opts.Order = "id", []int{3, 5}, "class", []string{"c", "a", "b"}
		set(opts)
		tables := &transforms.MemTables{In: in, Want: []string{"out"}}
		t.Cleanup(tables.Release)
		if err := transforms.Run(context.Background(), quality.Stage{}, opts, &transforms.Env{Tables: tables}); err != nil {
			t.Fatal(err)
		}
		return tables.Out("out")
	}
	inputs := map[string][]arrow.RecordBatch{"embedding": {emb}, "in": {rec}}
	whole := run(inputs, func(*quality.Options) {})
	const count = 3
	var parts []arrow.RecordBatch
	for i := count - 1; i >= 0; i-- {
		out := run(inputs, func(o *quality.Options) { o.Block = quality.Block{Index: i, Count: count} })
		if k := out.Provenance().Kind; k != table.MetricsPartial {
			t.Errorf("block %d: kind %q, want %q", i, k, table.MetricsPartial)
		}
		parts = append(parts, out.Records...)
	}
	merged := run(map[string][]arrow.RecordBatch{"partials": parts}, func(*quality.Options) {})
	read := func(m *transforms.MemTable) []table.MetricRow {
		r := arrowio.NewRecordsReader("out", table.MetricsSchema(), m.Records)
		defer r.Release()
		rows, err := table.ReadMetrics(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	got, want := read(merged), read(whole)
	if len(got) != len(want) || len(want) < 20 {
		t.Fatalf("merged %d rows, whole %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Key() != want[i].Key() || math.Float64bits(got[i].Value) != math.Float64bits(want[i].Value) {
			t.Errorf("row %d: merged %+v, whole %+v", i, got[i], want[i])
		}
	}
	g, w := merged.Provenance().Figures["center_order"], whole.Provenance().Figures["center_order"]
	if fmt.Sprint(g) != fmt.Sprint(w) || w == nil {
		t.Errorf("centre order: merged %v, whole %v", g, w)
	}
}
