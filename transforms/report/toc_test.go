package report

import (
	"fmt"
	"testing"
)

// TestTOC groups the sections by phase, in page order.
func TestTOC(t *testing.T) {
	secs := []*section{{ID: "a", Phase: phaseInputs}, {ID: "b", Phase: phaseFits}, {ID: "c", Phase: phaseFits}, {ID: "d", Phase: phaseMetrics}}
	got := fmt.Sprint(toc(secs))
	if want := "[{Inputs [{a }]} {Fits [{b } {c }]} {Metrics [{d }]}]"; got != want {
		t.Errorf("contents %s, want %s", got, want)
	}
}
