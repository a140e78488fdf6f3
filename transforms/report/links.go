package report

import (
	"path/filepath"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/figure"
	"github.com/ordinate/ordinate/transforms/table"
)

// sameFile compares a path recorded in provenance with a report input.
func sameFile(recorded, path string) bool {
	if recorded == "" {
		return false
	}
	if recorded == path {
		return true
	}
	a, _ := filepath.Abs(recorded)
	b, _ := filepath.Abs(path)
	return a == b
}

// inputPath is the path of the input of role that p records, or, for
// outputs of older versions, the parameter of that name.
func inputPath(p *arrowio.Provenance, role string) string {
	if p == nil {
		return ""
	}
	for _, in := range p.Inputs {
		if in.Role == role {
			return in.Path
		}
	}
	s, _ := p.Params[role].(string)
	return s
}

// scored is the path of the table metrics table m scores: its input
// "embedding", or "distances" when evaluate scored a distance table.
func scored(m *file) string {
	if p := inputPath(m.prov, "embedding"); p != "" {
		return p
	}
	return inputPath(m.prov, "distances")
}

// metricsFor returns the metrics tables computed for f (by their input
// role embedding).
func metricsFor(all []*file, f *file) []*file {
	var out []*file
	for _, m := range all {
		if m.kind == table.Metrics && sameFile(scored(m), f.path) {
			out = append(out, m)
		}
	}
	return out
}

// attached reports whether metrics table m is shown with the table it was
// computed for (an embedding, or maps), when that is among the files.
func attached(all []*file, m *file) bool {
	for _, g := range all {
		if g != m && sameFile(scored(m), g.path) {
			return true
		}
	}
	return false
}

// aspectsOf returns the aspects table written in the same run as maps m.
func aspectsOf(all []*file, m *file) *file {
	if m.prov == nil || m.kind != table.Maps {
		return nil
	}
	out, _ := m.prov.Params["aspects_out"].(string)
	for _, f := range all {
		if f.kind != table.Aspects || f.prov == nil {
			continue
		}
		if (m.prov.RunID != "" && f.prov.RunID == m.prov.RunID) || sameFile(out, f.path) {
			return f
		}
	}
	return nil
}

// mapsFor reports whether aspects table a belongs to maps among the files.
func mapsFor(all []*file, a *file) bool {
	for _, f := range all {
		if f.kind == table.Maps && aspectsOf(all, f) == a {
			return true
		}
	}
	return false
}

// placements pairs each apply output with the fitted embedding among the
// files that the run which made its model wrote (the same run id), whose
// section then draws its rows over that map: the maps it returns are the
// keys, their placed rows the values. Several apply outputs share a map
// when their columns match the first's; one that does not match, or fails
// figure.CheckPlaced, keeps a section of its own.
func placements(all []*file) map[*file][]*file {
	out := map[*file][]*file{}
	for _, p := range all {
		run := figure.ModelRun(p.prov)
		if p.kind != table.Embedding || run == "" {
			continue
		}
		for _, m := range all {
			if m == p || m.kind != table.Embedding || m.prov == nil || m.prov.RunID != run || figure.ModelRun(m.prov) != "" {
				continue
			}
			if prev := out[m]; len(prev) > 0 && !sameColumns(prev[0].schema, p.schema) {
				break
			}
			if figure.CheckPlaced(m.schema, p.schema, m.path, p.path) != nil {
				break
			}
			out[m] = append(out[m], p)
			break
		}
	}
	return out
}

// sameColumns reports whether two schemas have the same columns (names and
// types), whatever their metadata.
func sameColumns(a, b *arrow.Schema) bool {
	return slices.EqualFunc(a.Fields(), b.Fields(), func(x, y arrow.Field) bool {
		return x.Name == y.Name && arrow.TypeEqual(x.Type, y.Type)
	})
}

// tripletsOf returns the triplet table among the files that maps m were
// fitted on (the triplet table the fit read as its input), or nil.
func tripletsOf(all []*file, m *file) *file {
	if m.prov == nil {
		return nil
	}
	for _, in := range m.prov.Inputs {
		for _, f := range all {
			if f.kind == table.Triplets && sameFile(in.Path, f.path) {
				return f
			}
		}
	}
	return nil
}
