package report

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"golang.org/x/net/html"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// metricsRec builds a long metrics table (evaluate's columns) scoring the
// table recorded at path embedding.
func metricsRec(t *testing.T, embedding string, rows []metricRow) arrow.RecordBatch {
	t.Helper()
	p := &arrowio.Provenance{Stage: "evaluate", Kind: table.Metrics, Params: map[string]any{},
		Inputs: []arrowio.InputInfo{{Role: "embedding", Path: embedding}, {Role: "in", Path: "d.csv"}}}
	md, err := p.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	mb := array.NewStringBuilder(memory.DefaultAllocator)
	kb := array.NewInt64Builder(memory.DefaultAllocator)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	vb := array.NewFloat64Builder(memory.DefaultAllocator)
	for _, r := range rows {
		mb.Append(r.Metric)
		kb.Append(int64(r.K))
		sb.Append(r.Subset)
		vb.Append(r.Value)
	}
	cols := []arrow.Array{mb.NewArray(), kb.NewArray(), sb.NewArray(), vb.NewArray()}
	for _, b := range []interface{ Release() }{mb, kb, sb, vb} {
		b.Release()
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "metric", Type: arrow.BinaryTypes.String}, {Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "subset", Type: arrow.BinaryTypes.String}, {Name: "value", Type: arrow.PrimitiveTypes.Float64},
	}, &md)
	r := array.NewRecordBatch(schema, cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	return r
}

// scores are a metrics table's rows with trustworthiness, continuity and
// k-NN accuracy at k = 5 and 10, and Spearman's ρ (no k).
func scores(t5, t10, c10, acc10, rho float64) []metricRow {
	return []metricRow{
		{"trustworthiness", "all", 5, t5}, {"trustworthiness", "all", 10, t10}, {"trustworthiness", "intra", 10, t10 / 2},
		{"continuity", "all", 10, c10}, {"knn_accuracy", "embedding", 10, acc10}, {"ordinal_spearman", "all", 0, rho},
	}
}

// node helpers over the parsed page.
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, c string) bool {
	return n.Type == html.ElementNode && strings.Contains(" "+attr(n, "class")+" ", " "+c+" ")
}

func findAll(n *html.Node, pick func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if pick(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func text(n *html.Node) string {
	var b strings.Builder
	for _, t := range findAll(n, func(n *html.Node) bool { return n.Type == html.TextNode }) {
		b.WriteString(t.Data)
	}
	return strings.TrimSpace(b.String())
}

func element(tag string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == tag }
}

// parsedPage is what the tests read of a page.
type parsedPage struct {
	sections   []*html.Node      // section.table in page order
	ids        map[string]bool   // every id
	tocLinks   []string          // the table of contents' targets
	summary    map[string]string // summary row's section id → its cells' text, "|"-joined
	best       map[string]string // summary row's section id → its best cells' column labels
	meta, body string
}

func parsePage(t *testing.T, page string) parsedPage {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	p := parsedPage{ids: map[string]bool{}, summary: map[string]string{}, best: map[string]string{}, body: page}
	for _, n := range findAll(doc, func(n *html.Node) bool { return n.Type == html.ElementNode && attr(n, "id") != "" }) {
		p.ids[attr(n, "id")] = true
	}
	p.sections = findAll(doc, func(n *html.Node) bool { return n.Data == "section" && hasClass(n, "table") })
	for _, nav := range findAll(doc, element("nav")) {
		for _, a := range findAll(nav, element("a")) {
			p.tocLinks = append(p.tocLinks, attr(a, "href"))
		}
	}
	for _, tbl := range findAll(doc, func(n *html.Node) bool { return hasClass(n, "summary") && n.Data == "table" }) {
		heads := findAll(findAll(tbl, element("tr"))[0], element("th"))
		for _, tr := range findAll(tbl, func(n *html.Node) bool { return n.Data == "tr" && attr(n, "data-section") != "" }) {
			var cells, best []string
			for k, td := range findAll(tr, element("td")) {
				cells = append(cells, text(td))
				if hasClass(td, "best") {
					best = append(best, text(heads[k]))
				}
			}
			p.summary[attr(tr, "data-section")] = strings.Join(cells, "|")
			p.best[attr(tr, "data-section")] = strings.Join(best, ",")
		}
	}
	return p
}

// TestPage builds pages from tables in memory, given in file order unlike
// the pipeline's, and reads them back as HTML: sections in the pipeline's
// order, each reachable from the table of contents; one summary row per
// embedding section with the best values marked; metrics pivoted and shown
// once, inside the section they score; model files listed, not drawn; the
// file count pluralised.
func TestPage(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	emb := []string{"id", "class", "emb_0", "emb_1"}
	fitOn := func(stage string, params map[string]any) *arrowio.Provenance {
		params["label"], params["id"] = "class", "id"
		return &arrowio.Provenance{Stage: stage, Kind: table.Embedding, Params: params, RunSeconds: 1.5,
			Inputs: []arrowio.InputInfo{{Role: "in", Path: "d.csv"}}}
	}
	trip := rec(t, []string{"emb_0", "emb_1"}, 5, &arrowio.Provenance{Stage: "triplets", Kind: table.Triplets, Params: map[string]any{}})
	defer trip.Release()
	mA := metricsRec(t, "memory:in#3", scores(0.8, 0.81, 0.95, 0.9, 0.8))
	defer mA.Release()
	mA1 := metricsRec(t, "memory:in#0", scores(0.8, 0.81, 0.95, 0.9, 0.8)) // a as in#0
	defer mA1.Release()
	a := rec(t, emb, 20, fitOn("pca", map[string]any{}))
	defer a.Release()
	b := rec(t, emb, 20, fitOn("tsne", map[string]any{"perplexity": 30.0}))
	defer b.Release()
	mB := metricsRec(t, "memory:in#5", scores(0.9, 0.92, 0.88, 0.9, 0.7))
	defer mB.Release()
	model := rec(t, []string{"x"}, 3, &arrowio.Provenance{Stage: "tsne", Kind: table.Model, Params: map[string]any{}})
	defer model.Release()
	placed := rec(t, emb, 6, applyProv("r9")) // its map is not in the report
	defer placed.Release()
	stray := metricsRec(t, "elsewhere.parquet", scores(0.5, 0.5, 0.5, 0.5, 0.5))
	defer stray.Release()

	for _, tc := range []struct {
		name     string
		recs     []arrow.RecordBatch
		sections []string          // section ids in page order
		summary  []string          // section ids with a summary row
		best     map[string]string // section id → its best columns
		pivot    map[string]int    // section id → rows of its pivoted metrics table
		want     []string          // text on the page
		absent   []string
	}{
		{
			name:     "a run in file-name order",
			recs:     []arrow.RecordBatch{stray, placed, mA, a, trip, b, mB, model},
			sections: []string{"t-memory-in-4", "t-memory-in-3", "t-memory-in-5", "t-memory-in-1", "t-memory-in-0"},
			summary:  []string{"t-memory-in-3", "t-memory-in-5", "t-memory-in-1"},
			best: map[string]string{
				"t-memory-in-3": "continuity ↑,k-NN accuracy ↑,ordinal ρ ↑",
				"t-memory-in-5": "trustworthiness ↑,k-NN accuracy ↑",
				"t-memory-in-1": "",
			},
			pivot: map[string]int{"t-memory-in-3": 5, "t-memory-in-5": 5, "t-memory-in-0": 5},
			want: []string{
				"8 files", `<h2 class="phase">Inputs</h2>`, `<h2 class="phase">Placements</h2>`, `id="models"`, "<tr><td>memory:in#7</td><td>tsne</td><td>3</td></tr>",
				"neighbourhoods kept best by memory:in#5 (tsne)", "classes by memory:in#3 (pca) and memory:in#5 (tsne)", "perplexity 30",
				"<th>k = 5</th><th>k = 10</th>",
			},
			absent: []string{"No data set has two embeddings"},
		},
		{
			name:     "one embedding with its metrics",
			recs:     []arrow.RecordBatch{a, mA1},
			sections: []string{"t-memory-in-0"},
			summary:  []string{"t-memory-in-0"},
			best:     map[string]string{"t-memory-in-0": ""}, // a best of one says nothing
			pivot:    map[string]int{"t-memory-in-0": 5},
			want:     []string{"· 2 files</p>", "trustworthiness ↑"},
		},
		{
			name:     "one file",
			recs:     []arrow.RecordBatch{a},
			sections: []string{"t-memory-in-0"},
			summary:  []string{"t-memory-in-0"},
			best:     map[string]string{"t-memory-in-0": ""},
			want:     []string{"· 1 file</p>", "No data set has two embeddings"},
			absent:   []string{"1 files", `id="models"`},
		},
	} {
		page := runReport(t, mem, tc.recs...)
		p := parsePage(t, page)
		var got []string
		for _, s := range p.sections {
			got = append(got, attr(s, "id"))
		}
		if strings.Join(got, " ") != strings.Join(tc.sections, " ") {
			t.Errorf("%s: sections %v, want %v", tc.name, got, tc.sections)
		}
		links := map[string]bool{}
		for _, l := range p.tocLinks {
			links[l] = true
			if !strings.HasPrefix(l, "#") || !p.ids[l[1:]] {
				t.Errorf("%s: contents link %q leads to no element", tc.name, l)
			}
		}
		for _, id := range append(got, "summary") {
			if !links["#"+id] {
				t.Errorf("%s: section %s is not in the contents", tc.name, id)
			}
		}
		if len(p.summary) != len(tc.summary) {
			t.Errorf("%s: %d summary rows, want %d: %v", tc.name, len(p.summary), len(tc.summary), p.summary)
		}
		for _, id := range tc.summary {
			if _, ok := p.summary[id]; !ok {
				t.Errorf("%s: no summary row for %s", tc.name, id)
			}
			if p.best[id] != tc.best[id] {
				t.Errorf("%s: %s best in %q, want %q", tc.name, id, p.best[id], tc.best[id])
			}
		}
		for _, s := range p.sections {
			id := attr(s, "id")
			var rows int
			for _, tbl := range findAll(s, func(n *html.Node) bool { return n.Data == "table" && hasClass(n, "pivot") }) {
				rows += len(findAll(tbl, element("tr"))) - 1
			}
			if rows != tc.pivot[id] {
				t.Errorf("%s: section %s has %d pivoted metric rows, want %d", tc.name, id, rows, tc.pivot[id])
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the page lacks %q", tc.name, w)
			}
		}
		for _, w := range tc.absent {
			if strings.Contains(page, w) {
				t.Errorf("%s: the page has %q", tc.name, w)
			}
		}
		if n := strings.Count(page, "<h3>Quality ("); n != strings.Count(page, "Quality (") {
			t.Errorf("%s: a metrics heading appears outside its table", tc.name)
		}
		for _, m := range []string{"memory:in#0", "memory:in#1", "memory:in#2", "memory:in#6"} {
			if n := strings.Count(page, "Quality ("+m+")"); n > 1 {
				t.Errorf("%s: metrics %s shown %d times", tc.name, m, n)
			}
		}
	}
}

// TestSameFileTwice: a table given twice (a glob and its name) is shown
// once, its metrics too.
func TestSameFileTwice(t *testing.T) {
	m := metricsRec(t, "/r/gone.parquet", scores(0.5, 0.5, 0.5, 0.5, 0.5))
	defer m.Release()
	f := func() *file {
		return &file{path: "/r/m.parquet", schema: m.Schema(), kind: table.Metrics, rows: m.NumRows(), recs: []arrow.RecordBatch{m}}
	}
	pg, skipped := build(t.Context(), &transforms.Env{}, []*file{f(), f()}, "t", "now")
	if len(pg.Sections) != 1 || len(skipped) != 0 {
		t.Errorf("%d sections (%v skipped), want 1", len(pg.Sections), skipped)
	}
}
