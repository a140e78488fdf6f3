package report

import (
	"html/template"

	"github.com/ordinate/ordinate/transforms"
)

// The page, as html/template fills it: every string from a table is escaped
// by the template; only the figures the figure package drew are inserted as
// they are.
type page struct {
	Title, Created, Version string
	Figures, Files          int
	Summary                 *summary
	Models                  []modelView
	TOC                     []tocGroup
	Sections                []*section
}

// FilesLine is the count of files read, pluralised.
func (p *page) FilesLine() string { return transforms.Plural(p.Files, "file") }

type section struct {
	ID, Name, Subtitle string
	Phase              phase
	Heading            string // the phase's name, on its first section
	Kind               string
	Embedding          bool // listed in the summary
	Skip               string
	Note               string
	Figure             template.HTML
	FigureClass        string // "square": a heat map, kept narrower than the column
	Placed             []placedView
	Tables             []htmlTable
	Prov               *provView
	scores             []metricRow // of the metrics tables shown here, for the summary
}

// modelView is a model file, listed rather than drawn.
type modelView struct {
	Path, Method string
	Rows         int64
}

// placedView is an apply output drawn on its map's figure.
type placedView struct {
	Line string // "p.parquet, 43 rows"
	Prov *provView
}

type htmlTable struct {
	Heading string
	Class   string
	Columns []string
	Rows    [][]string
}

type provView struct {
	Stage, Version, Seconds string
	Seed                    uint64
	Params, Figures         [][2]string
	Warnings                []string
}

var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<meta name="ordinate-figures" content="{{.Figures}}">
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; margin: 2em auto; max-width: 64em; color: #222; padding: 0 1em; }
svg text { font-family: "Liberation Sans", Arial, Helvetica, sans-serif !important; }
svg image { image-rendering: pixelated; }
section { border-top: 1px solid #ccc; margin-top: 2em; padding-top: 1em; }
h2.phase { margin-top: 2em; color: #555; font-size: 1.1em; text-transform: uppercase; letter-spacing: 0.05em; }
figure { margin: 0; } figure svg, figure img { display: block; width: 100%; max-width: 100%; height: auto; }
figure.square svg, figure.square img { max-width: 42em; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
td, th { border: 1px solid #ddd; padding: 0.15em 0.6em; text-align: left; vertical-align: top; }
table.pivot td:nth-child(n+3), table.summary td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.summary td.best { background: #d9f0d3; font-weight: bold; }
table.summary tr.group th { background: #f3f3f3; }
nav ul { font-size: 0.9em; padding-left: 1.2em; } nav li { margin: 0.3em 0; }
table.summary td:first-child, table.summary th:first-child { position: sticky; left: 0; background: #fff; }
table.summary tr.group th:first-child { background: #f3f3f3; }
@media (max-width: 40em) { body { margin: 1em auto; padding: 0 0.5em; } h1 { font-size: 1.5em; } }
details { margin: 0.4em 0; } .skip { color: #a33; } .meta { color: #666; font-size: 0.9em; }
</style></head><body>
<h1>{{.Title}}</h1>
<p class="meta">{{.Created}} · {{.FilesLine}}</p>
<nav id="contents"><h2>Contents</h2><ul>
{{if .Summary}}<li><a href="#summary">Summary: the embeddings side by side</a></li>
{{end}}{{if .Models}}<li><a href="#models">Model files</a></li>
{{end}}{{range .TOC}}<li><b>{{.Name}}:</b> {{range $i, $e := .Entries}}{{if $i}} · {{end}}<a href="#{{$e.ID}}">{{$e.Name}}</a>{{end}}</li>
{{end}}</ul></nav>
{{with .Summary}}<section id="summary" class="summary"><h2>Summary: the embeddings side by side</h2>
{{if .Compared}}<p>Per data set, which embedding kept the neighbourhoods best and which the classes:</p>
<ul>{{range .Groups}}{{if .Sentence}}<li><b>{{.Data}}</b>: {{.Sentence}}</li>{{end}}{{end}}</ul>
{{else}}<p>No data set has two embeddings with metrics to compare.</p>
{{end}}
<p class="meta">Best value of each column within a data set in green (when two or more embeddings have one); ↑: higher is better. Neighbourhood and class metrics at the k named in each data set's row; the run time is the fitting stage's own, from its provenance.</p>
<div class="scroll"><table class="summary"><tr><th>embedding</th><th>method</th><th>key parameters (as resolved)</th><th>N</th><th>run time (s)</th>{{range .Columns}}<th title="{{.Title}}">{{.Label}}</th>{{end}}</tr>
{{$span := .Span}}{{range .Groups}}<tr class="group"><th colspan="{{$span}}">data: {{.Data}}{{if .K}} · at k = {{.K}}{{end}}</th></tr>
{{range .Rows}}<tr data-section="{{.Section}}"><td><a href="#{{.Section}}">{{.Name}}</a></td><td>{{.Method}}</td><td>{{.Params}}</td><td class="num">{{.N}}</td><td class="num">{{.Seconds}}</td>{{range .Cells}}<td class="num{{if .Best}} best{{end}}">{{.Text}}</td>{{end}}</tr>
{{end}}{{end}}</table></div></section>
{{end}}{{if .Models}}<section id="models" class="models"><h2>Model files</h2>
<p class="meta">Fitted models for ordinate apply; listed, not drawn.</p>
<table><tr><th>path</th><th>method</th><th>rows</th></tr>
{{range .Models}}<tr><td>{{.Path}}</td><td>{{.Method}}</td><td>{{.Rows}}</td></tr>
{{end}}</table></section>
{{end}}{{range .Sections}}{{with .Heading}}<h2 class="phase">{{.}}</h2>
{{end}}<section class="table" id="{{.ID}}" data-kind="{{.Kind}}"{{if .Embedding}} data-embedding="1"{{end}}><h2>{{.Name}}</h2>
{{if .Skip}}<p class="skip">not drawn: {{.Skip}}</p>
{{else}}{{if .Subtitle}}<p class="meta">{{.Subtitle}}</p>
{{end}}{{if .Note}}<p class="meta">{{.Note}}</p>
{{end}}{{if .Figure}}<figure{{with .FigureClass}} class="{{.}}"{{end}}>{{.Figure}}</figure>
{{end}}{{range .Placed}}<p class="meta">placed: {{.Line}}</p>
{{end}}{{range .Tables}}{{if .Heading}}<h3>{{.Heading}}</h3>
{{end}}<div class="scroll"><table{{if .Class}} class="{{.Class}}"{{end}}><tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>
{{end}}{{with .Prov}}<details><summary>Parameters of {{.Stage}} (ordinate {{.Version}}, seed {{.Seed}}, {{.Seconds}} s)</summary><table>
{{range .Params}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table></details>
{{if .Figures}}<details><summary>Figures of the run</summary><table>
{{range .Figures}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table></details>
{{end}}{{range .Warnings}}<p class="skip">warning: {{.}}</p>
{{end}}{{else}}<p class="meta">no ordinate metadata</p>
{{end}}{{range .Placed}}{{$line := .Line}}{{with .Prov}}<details><summary>Parameters of {{.Stage}} for the placed rows {{$line}} (ordinate {{.Version}}, seed {{.Seed}}, {{.Seconds}} s)</summary><table>
{{range .Params}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table></details>
{{if .Figures}}<details><summary>Figures of the placement</summary><table>
{{range .Figures}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table></details>
{{end}}{{end}}{{end}}{{end}}</section>
{{end}}<p class="meta">written by ordinate {{.Version}}</p>
</body></html>
`))
