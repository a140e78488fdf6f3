package report

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ordinate/ordinate/arrowio"
)

// headline is a metric of the summary table: the row of the metrics table
// it reads (at the summary's k when AtK) and whether higher is better.
type headline struct {
	Label, Metric, Subset string
	AtK, Higher           bool
}

// headlines are the summary's metric columns, shown when any embedding
// has them: how well neighbourhoods are kept (trustworthiness, continuity),
// how well classes are (k-NN accuracy, the class ranks' order), and for
// SCORE/OE maps the triplets of the objects not fitted.
var headlines = []headline{
	{"trustworthiness", "trustworthiness", "all", true, true},
	{"continuity", "continuity", "all", true, true},
	{"k-NN accuracy", "knn_accuracy", "embedding", true, true},
	{"ordinal ρ", "ordinal_spearman", "all", false, true},
	{"triplet accuracy (hidden)", "triplet_accuracy", "hidden", false, true},
}

// summaryK is the k the summary reads: 10 when any metrics table has it,
// else the smallest k any has (0: none).
func summaryK(all [][]metricRow) int {
	k := 0
	for _, rows := range all {
		for _, r := range rows {
			if r.Metric != "trustworthiness" && r.Metric != "knn_accuracy" {
				continue
			}
			if r.K == 10 {
				return 10
			}
			if r.K > 0 && (k == 0 || r.K < k) {
				k = r.K
			}
		}
	}
	return k
}

// summary is the first section: every embedding of the report side by side,
// grouped by the data it was fitted on (metrics of different data do not
// compare), the best value of each column within a group marked.
type summary struct {
	Span    int // columns of the table
	Columns []summaryColumn
	Groups  []summaryGroup
}

// Compared reports whether any group has a sentence: two embeddings of
// the same data with metrics to tell them apart.
func (s *summary) Compared() bool {
	return slices.ContainsFunc(s.Groups, func(g summaryGroup) bool { return g.Sentence != "" })
}

type summaryColumn struct{ Label, Title string }

type summaryGroup struct {
	Data     string
	K        int // the k its neighbourhood and class metrics are read at
	Sentence string
	Rows     []summaryRow
}

type summaryRow struct {
	Section, Name, Method, Params, N, Seconds string
	Cells                                     []summaryCell
}

type summaryCell struct {
	Text string
	Best bool
}

// embeddingEntry is what the summary needs of one embedding's section.
type embeddingEntry struct {
	sec     *section
	f       *file
	metrics []metricRow // of every metrics table scoring f
}

// makeSummary lays out the summary of the embeddings, in the order of
// their sections, grouped by the data they were fitted on (data names the
// group of an entry).
func makeSummary(entries []embeddingEntry, data func(*file) string) *summary {
	if len(entries) == 0 {
		return nil
	}
	s := &summary{}
	groupOf := map[string]int{}
	var members [][]int
	for i, e := range entries {
		d := data(e.f)
		g, ok := groupOf[d]
		if !ok {
			g = len(s.Groups)
			groupOf[d] = g
			s.Groups = append(s.Groups, summaryGroup{Data: d})
			members = append(members, nil)
		}
		members[g] = append(members[g], i)
	}
	// Each group at its own k: metrics of different data were often
	// computed at different k, and compare only within a group anyway.
	vals := make([]map[metricKey]float64, len(entries))
	kOf := make([]int, len(entries))
	for g := range s.Groups {
		var rows [][]metricRow
		for _, i := range members[g] {
			rows = append(rows, entries[i].metrics)
		}
		s.Groups[g].K = summaryK(rows)
		for _, i := range members[g] {
			vals[i], kOf[i] = metricValues(entries[i].metrics), s.Groups[g].K
		}
	}
	key := func(h headline, k int) metricKey {
		if h.AtK {
			return metricKey{h.Metric, h.Subset, k}
		}
		return metricKey{h.Metric, h.Subset, 0}
	}
	var cols []headline
	for _, h := range headlines {
		for i := range entries {
			if _, ok := vals[i][key(h, kOf[i])]; ok {
				cols = append(cols, h)
				dir := "higher is better"
				if !h.Higher {
					dir = "lower is better"
				}
				s.Columns = append(s.Columns, summaryColumn{Label: h.Label + " " + directionArrow(h.Higher), Title: dir})
				break
			}
		}
	}
	s.Span = 5 + len(s.Columns)
	for g := range s.Groups {
		grp := &s.Groups[g]
		for _, i := range members[g] {
			e := entries[i]
			row := summaryRow{Section: e.sec.ID, Name: e.sec.Name, Method: methodOf(e.f.prov), Params: keyParams(e.f.prov),
				N: fmt.Sprint(e.f.rows)}
			if e.f.prov != nil && e.f.prov.RunSeconds > 0 {
				row.Seconds = seconds(e.f.prov.RunSeconds)
			}
			for _, h := range cols {
				c := summaryCell{}
				if v, ok := vals[i][key(h, grp.K)]; ok {
					c.Text = formatValue(v)
				}
				row.Cells = append(row.Cells, c)
			}
			grp.Rows = append(grp.Rows, row)
		}
		for c, h := range cols {
			markBest(grp.Rows, c, members[g], vals, key(h, grp.K), h.Higher)
		}
		grp.Sentence = sentence(members[g], entries, vals, grp.K)
	}
	return s
}

// seconds renders a run time with two significant digits below 100 s.
func seconds(s float64) string {
	if s >= 100 {
		return fmt.Sprintf("%.0f", s)
	}
	return strconv.FormatFloat(s, 'g', 2, 64)
}

func directionArrow(higher bool) string {
	if higher {
		return "↑"
	}
	return "↓"
}

// markBest marks the best value of column c among rows, when at least two
// rows have one (a best of one says nothing); ties are all marked.
func markBest(rows []summaryRow, c int, idx []int, vals []map[metricKey]float64, k metricKey, higher bool) {
	best, n := math.NaN(), 0
	for _, i := range idx {
		v, ok := vals[i][k]
		if !ok || math.IsNaN(v) {
			continue
		}
		n++
		if math.IsNaN(best) || (higher && v > best) || (!higher && v < best) {
			best = v
		}
	}
	if n < 2 {
		return
	}
	for r, i := range idx {
		if v, ok := vals[i][k]; ok && v == best {
			rows[r].Cells[c].Best = true
		}
	}
}

// sentence says which embedding of a group kept the neighbourhoods best
// (the mean of trustworthiness and continuity at k) and which the classes
// (k-NN accuracy at k), or for maps the hidden triplets; "" when the group
// has fewer than two embeddings or no metrics to tell them apart.
func sentence(idx []int, entries []embeddingEntry, vals []map[metricKey]float64, k int) string {
	if len(idx) < 2 {
		return ""
	}
	// best names the embeddings of the top score, all of them on a tie.
	best := func(score func(v map[metricKey]float64) (float64, bool)) string {
		var names []string
		top, n := math.Inf(-1), 0
		for _, i := range idx {
			s, ok := score(vals[i])
			if !ok {
				continue
			}
			n++
			name := entries[i].sec.Name + " (" + methodOf(entries[i].f.prov) + ")"
			switch {
			case s > top:
				names, top = []string{name}, s
			case s == top:
				names = append(names, name)
			}
		}
		if n < 2 {
			return ""
		}
		return strings.Join(names, " and ")
	}
	var parts []string
	if n := best(func(v map[metricKey]float64) (float64, bool) {
		t, ok1 := v[metricKey{"trustworthiness", "all", k}]
		c, ok2 := v[metricKey{"continuity", "all", k}]
		return (t + c) / 2, ok1 && ok2
	}); n != "" {
		parts = append(parts, fmt.Sprintf("neighbourhoods kept best by %s (mean of trustworthiness and continuity at k = %d)", n, k))
	}
	if n := best(func(v map[metricKey]float64) (float64, bool) {
		a, ok := v[metricKey{"knn_accuracy", "embedding", k}]
		return a, ok
	}); n != "" {
		parts = append(parts, fmt.Sprintf("classes by %s (k-NN accuracy at k = %d)", n, k))
	}
	if n := best(func(v map[metricKey]float64) (float64, bool) {
		a, ok := v[metricKey{"triplet_accuracy", "hidden", 0}]
		return a, ok
	}); n != "" {
		parts = append(parts, fmt.Sprintf("hidden triplets predicted best by %s", n))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "."
}

// dataRoot names the data f was fitted on: its input "in" (else
// "distances", else the first it records), followed back through the
// tables among all that wrote it (sim-fisher-tsne ← sim-fisher ←
// similarity.parquet), so that fits of the same data share a group.
func dataRoot(all []*file, f *file) string {
	name := "(input not recorded)"
	for range 16 { // a chain of stages is short; a cycle of paths is not followed
		if f.prov == nil || len(f.prov.Inputs) == 0 {
			return name
		}
		path := inputPath(f.prov, "in")
		if path == "" {
			path = inputPath(f.prov, "distances")
		}
		if path == "" {
			path = f.prov.Inputs[0].Path
		}
		name = filepath.Base(path)
		next := slices.IndexFunc(all, func(g *file) bool { return sameFile(path, g.path) })
		if next < 0 {
			return name
		}
		f = all[next]
	}
	return name
}

// methodOf is the stage that wrote an embedding, with the mode or variant
// it ran in, and for placed rows the stage whose model placed them.
func methodOf(p *arrowio.Provenance) string {
	if p == nil {
		return "?"
	}
	m := p.Stage
	for _, k := range []string{"mode", "variant"} {
		if v, ok := p.Figures[k].(string); ok && v != "" && v != m {
			m += " (" + v + ")"
			break
		}
	}
	if s, ok := p.Figures["model_stage"].(string); ok && s != "" {
		m += " (" + s + " model)"
	}
	return m
}

// keyParams are the parameters a reader compares methods by, each as the
// run resolved it: a figure of the same name, or resolved_NAME, wins over
// the option given (γ 0 on the command line means "choose it"). The
// linear methods have theirs (bvp's solver, lda's shrinkage), and every run
// that read a feature table says whether it standardized the features.
func keyParams(p *arrowio.Provenance) string {
	if p == nil {
		return ""
	}
	var out []string
	for _, k := range []string{"kernel", "gamma", "nu", "perplexity", "alpha", "neighbors", "lambda", "solver", "shrinkage"} {
		v, ok := p.Figures["resolved_"+k]
		if !ok {
			v, ok = p.Figures[k]
		}
		if !ok {
			v, ok = p.Params[k]
		}
		if !ok || v == nil {
			continue
		}
		if k == "gamma" {
			if f, isNum := v.(float64); isNum && f == 0 {
				continue // not used by this run's kernel, or not resolved
			}
		}
		out = append(out, k+" "+short(v))
	}
	if z, ok := p.Params["standardize"].(bool); ok && readFeatures(p) {
		if z {
			out = append(out, "standardized")
		} else {
			out = append(out, "not standardized")
		}
	}
	return strings.Join(out, ", ")
}

// readFeatures reports whether the run read a feature table (input role
// in), rather than distances or a model only: then its standardize option
// applied.
func readFeatures(p *arrowio.Provenance) bool {
	if len(p.Inputs) == 0 {
		return true // provenance without inputs (written by hand): trust the option
	}
	for _, in := range p.Inputs {
		if in.Role == "in" {
			return true
		}
	}
	return false
}
