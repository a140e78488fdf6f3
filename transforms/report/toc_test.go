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

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 files", 1: "1 file", 2: "2 files"} {
		if got := plural(n, "file"); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}
