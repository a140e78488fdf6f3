package report

// tocGroup is a step of the pipeline in the table of contents, with the
// sections of that step in page order.
type tocGroup struct {
	Name    string
	Entries []tocEntry
}

type tocEntry struct{ ID, Name string }

// toc lists the sections by phase; sections come sorted by phase.
func toc(secs []*section) []tocGroup {
	var out []tocGroup
	for i, s := range secs {
		if i == 0 || secs[i-1].Phase != s.Phase {
			out = append(out, tocGroup{Name: s.Phase.String()})
		}
		g := &out[len(out)-1]
		g.Entries = append(g.Entries, tocEntry{ID: s.ID, Name: s.Name})
	}
	return out
}
