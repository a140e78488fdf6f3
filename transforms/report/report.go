package report

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/figure"
	"github.com/ordinate/ordinate/transforms/table"
)

// ErrNoFiles reports a report with nothing to show.
var ErrNoFiles = transforms.NewSentinel(transforms.ErrInvalidOption, "report needs at least one table")

// file is one input table of the report, held in memory.
type file struct {
	role   string
	path   string
	schema *arrow.Schema
	prov   *arrowio.Provenance
	kind   string
	recs   []arrow.RecordBatch
	rows   int64
}

func (f *file) reader() arrowio.Reader { return arrowio.NewRecordsReader(f.path, f.schema, f.recs) }

func (f *file) release() {
	for _, r := range f.recs {
		r.Release()
	}
	f.recs = nil
}

// readAll reads the input table of role into memory.
func readAll(ctx context.Context, env *transforms.Env, role string) (*file, error) {
	r, err := env.Open(ctx, role)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	f := &file{role: role, path: r.Source().Path, schema: r.Schema(), prov: transforms.TableProvenance(r.Schema())}
	if f.prov != nil {
		f.kind = f.prov.Kind
	}
	env.Progress.Start("reading "+filepath.Base(f.path), 0)
	defer env.Progress.Finish()
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		f.recs = append(f.recs, rec)
		f.rows += rec.NumRows()
		env.Progress.Add(rec.NumRows())
		if err := ctx.Err(); err != nil {
			f.release()
			return nil, err
		}
	}
	if err := r.Err(); err != nil {
		f.release()
		return nil, err
	}
	env.Input(role, r.Source(), f.rows, 0, f.prov)
	return f, nil
}

// frame reads f with a selection.
func (f *file) frame(ctx context.Context, env *transforms.Env, sel arrowio.Selection) (*arrowio.Frame, error) {
	r := f.reader()
	defer r.Release()
	return arrowio.ReadFrame(ctx, r, sel, arrowio.WithFrameAllocator(env.Mem))
}

// build reads nothing: it lays out the page for the files read. Sections
// come in the order of the pipeline (see phase), in the order of the files
// within a step; model files are listed, not drawn; each metrics table is
// shown once, in the section of the table it scores when that is among the
// files, else in a section of its own.
func build(ctx context.Context, env *transforms.Env, all []*file, title, created string) (*page, []string) {
	pg := &page{Title: title, Created: created, Version: env.Version, Files: len(all)}
	var skipped []string
	placed := placements(all)
	onMap := map[*file]bool{}
	for _, ps := range placed {
		for _, p := range ps {
			onMap[p] = true
		}
	}
	shown := map[*file]bool{} // metrics tables already on the page
	var entries []embeddingEntry
	taken := map[string]bool{"contents": true, "summary": true, "models": true}
	var files []*file
	for k, f := range all {
		switch {
		case slices.ContainsFunc(all[:k], func(g *file) bool { return sameFile(g.path, f.path) }):
			continue // given twice (a glob and a name): shown once
		case onMap[f]:
			continue // drawn on its map
		case f.kind == table.Model:
			pg.Models = append(pg.Models, modelView{Path: f.path, Method: modelMethod(f.prov), Rows: f.rows})
			continue
		case f.kind == table.Aspects && mapsFor(all, f):
			continue // shown with its maps
		}
		files = append(files, f)
	}
	// Scored tables first, so that their metrics are taken before the
	// metrics tables' own turn comes.
	slices.SortStableFunc(files, func(a, b *file) int { return int(phaseOf(a)) - int(phaseOf(b)) })
	for _, f := range files {
		if phaseOf(f) == phaseMetrics && (shown[f] || attached(all, f)) {
			continue // shown with the table it scores
		}
		name := filepath.Base(f.path)
		sec, err := makeSection(ctx, env, f, all, placed[f], shown)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", f.path, err))
			sec = &section{Name: name, Skip: err.Error()}
		} else if sec.Figure != "" {
			pg.Figures++
		}
		sec.ID, sec.Phase, sec.Kind = sectionID(name, taken), phaseOf(f), f.kind
		if err == nil && (f.kind == table.Embedding || f.kind == table.Maps) {
			sec.Embedding = true
			entries = append(entries, embeddingEntry{sec: sec, f: f, metrics: sec.scores})
		}
		if n := len(pg.Sections); n == 0 || pg.Sections[n-1].Phase != sec.Phase {
			sec.Heading = sec.Phase.String()
		}
		pg.Sections = append(pg.Sections, sec)
	}
	pg.Summary = makeSummary(entries, func(f *file) string { return dataRoot(all, f) })
	pg.TOC = toc(pg.Sections)
	return pg, skipped
}

// modelMethod is the stage a model file was fitted by.
func modelMethod(p *arrowio.Provenance) string {
	if p == nil {
		return "?"
	}
	return p.Stage
}

// metricsTable is a metrics table pivoted (see pivot), or as it is when it
// lacks the columns of evaluate's long form; rows are its values.
func metricsTable(m *file, heading string) (t htmlTable, rows []metricRow) {
	rows, err := readMetrics(m)
	if err != nil {
		return tableOf(m, heading, 200), nil
	}
	return pivot(rows, heading), rows
}

func makeSection(ctx context.Context, env *transforms.Env, f *file, all, placed []*file, shown map[*file]bool) (*section, error) {
	name := filepath.Base(f.path)
	title, subtitle := figure.Titles(f.path, f.rows, f.prov)
	sec := &section{Name: name, Subtitle: subtitle}
	opts := figure.Style{Title: title, NoFontEmbedding: true}
	if f.kind != table.Maps {
		opts.Width = figureWidth
	}
	var err error
	switch f.kind {
	case table.Embedding:
		sec.Figure, err = drawEmbedding(ctx, env, f, placed, opts)
	case table.Maps:
		opts.Subtitle = "one panel per aspect, shared scales (emb_0 across, emb_1 up)"
		sec.Figure, err = drawMaps(ctx, env, f, aspectsOf(all, f), tripletsOf(all, f), opts)
	case table.DistancePairs:
		opts.Width = squareWidth
		var objects int
		sec.Figure, objects, err = drawDistances(ctx, env, f, opts)
		sec.FigureClass = "square" // at the column's width it would be taller than a screen
		_, sec.Subtitle = figure.DistanceTitles(f.path, f.rows, objects, f.prov)
	case table.Metrics:
		t, _ := metricsTable(f, "")
		sec.Tables = append(sec.Tables, t)
		shown[f] = true
	case table.Aspects:
		sec.Tables = append(sec.Tables, tableOf(f, "", 100))
	case "":
		sec.Note = "this table records no kind (another tool's, or an older ordinate's): its schema and provenance only"
		t := htmlTable{Heading: "Schema", Columns: []string{"column", "type"}}
		for _, fl := range f.schema.Fields() {
			t.Rows = append(t.Rows, []string{fl.Name, fl.Type.String()})
		}
		sec.Tables = append(sec.Tables, t)
	}
	if err != nil {
		return nil, err
	}
	for _, m := range metricsFor(all, f) {
		if shown[m] {
			continue
		}
		shown[m] = true
		t, rows := metricsTable(m, fmt.Sprintf("Quality (%s)", filepath.Base(m.path)))
		sec.Tables = append(sec.Tables, t)
		sec.scores = append(sec.scores, rows...)
	}
	for _, p := range placed {
		sec.Placed = append(sec.Placed, placedView{Line: fmt.Sprintf("%s, %s", filepath.Base(p.path), transforms.Plural(int(p.rows), "row")), Prov: provenanceView(p.prov)})
		for _, m := range metricsFor(all, p) {
			if shown[m] {
				continue
			}
			shown[m] = true
			t, _ := metricsTable(m, fmt.Sprintf("Quality of the placed rows %s (%s)", filepath.Base(p.path), filepath.Base(m.path)))
			sec.Tables = append(sec.Tables, t)
		}
	}
	if a := aspectsOf(all, f); a != nil {
		sec.Tables = append(sec.Tables, tableOf(a, fmt.Sprintf("Aspects (%s)", filepath.Base(a.path)), 100))
	}
	sec.Prov = provenanceView(f.prov)
	return sec, nil
}

func stripXMLHeader(s string) string {
	if i := strings.Index(s, "<svg"); i > 0 {
		return s[i:]
	}
	return s
}

// tableOf renders up to maxRows rows of a small table.
func tableOf(f *file, heading string, maxRows int) htmlTable {
	t := htmlTable{Heading: heading}
	for _, fl := range f.schema.Fields() {
		t.Columns = append(t.Columns, fl.Name)
	}
	for _, rec := range f.recs {
		for i := 0; i < int(rec.NumRows()) && len(t.Rows) < maxRows; i++ {
			row := make([]string, rec.NumCols())
			for c := range row {
				row[c] = cell(rec.Column(c), i)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

func cell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return ""
	}
	if f, ok := a.(*array.Float64); ok {
		return strconv.FormatFloat(f.Value(i), 'g', 5, 64)
	}
	return a.ValueStr(i)
}
