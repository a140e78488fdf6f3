package report

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestPNGFallback: an embedding of more than svgPoints points is drawn as
// an embedded PNG (a data: URI, nothing loaded), all points kept; a smaller
// one as inline SVG. Both count as a figure.
func TestPNGFallback(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	for _, tc := range []struct {
		name     string
		n        int
		svg, png int
	}{
		{"small", 50, 1, 0},
		{"large", svgPoints + 1, 0, 1},
	} {
		r := rec(t, []string{"id", "class", "emb_0", "emb_1"}, tc.n, fitProv("r1"))
		page := runReport(t, mem, r)
		r.Release()
		if got := strings.Count(page, "<svg"); got != tc.svg {
			t.Errorf("%s: %d SVG figures, want %d", tc.name, got, tc.svg)
		}
		if got := strings.Count(page, `<img class="figure" alt="`); got != tc.png || strings.Count(page, `src="data:image/png;base64,`) != tc.png {
			t.Errorf("%s: %d PNG figures, want %d", tc.name, got, tc.png)
		}
		if !strings.Contains(page, `name="ordinate-figures" content="1"`) {
			t.Errorf("%s: the page does not count its figure", tc.name)
		}
		if strings.Contains(page, "every ") {
			t.Errorf("%s: points thinned below maxPoints", tc.name)
		}
	}
}
