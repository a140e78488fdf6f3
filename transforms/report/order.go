package report

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/ordinate/ordinate/transforms/figure"
	"github.com/ordinate/ordinate/transforms/table"
)

// phase is a step of the pipeline; the page shows the sections in this
// order, so that a reader meets the data before the fits made of it, and
// the fits before the rows placed with them and the metrics that score them.
type phase int

const (
	phaseInputs phase = iota
	phaseFits
	phasePlacements
	phaseMetrics
	phaseOther
)

var phaseNames = [...]string{"Inputs", "Fits", "Placements", "Metrics", "Other tables"}

func (p phase) String() string { return phaseNames[p] }

// phaseOf is the step of the pipeline that wrote f, by its recorded kind.
func phaseOf(f *file) phase {
	switch f.kind {
	case table.Triplets, table.Split:
		return phaseInputs
	case table.Embedding:
		if figure.ModelRun(f.prov) != "" {
			return phasePlacements
		}
		return phaseFits
	case table.Maps, table.Aspects, table.Sphere, table.DistancePairs, table.DistanceSquare:
		return phaseFits
	case table.Metrics, table.MetricsPartial:
		return phaseMetrics
	}
	return phaseOther
}

var nonID = regexp.MustCompile(`[^a-z0-9]+`)

// sectionID is a stable id for the section of the file named name: its
// name in lower case with runs of other characters as "-", prefixed so
// that it never starts with a digit, and numbered when taken.
func sectionID(name string, taken map[string]bool) string {
	base := "t-" + strings.Trim(nonID.ReplaceAllString(strings.ToLower(name), "-"), "-")
	id := base
	for n := 2; taken[id]; n++ {
		id = base + "-" + strconv.Itoa(n)
	}
	taken[id] = true
	return id
}
