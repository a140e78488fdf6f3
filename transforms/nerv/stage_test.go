package nerv

import (
	"strings"
	"testing"
)

// The stage warns where a method outgrows the machine, and only there.
func TestSizeWarning(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    Method
		n    int
		want string // a substring; "" for no warning
	}{
		{"exact at the limit", Exact, exactWarnAbove, ""},
		{"exact above", Exact, exactWarnAbove + 1, "three N×N matrices"},
		{"bh at the limit", BarnesHut, bhWarnAbove, ""},
		{"bh above", BarnesHut, bhWarnAbove + 1, "tsne is the method"},
		{"bh at 10⁴", BarnesHut, 10_001, ""},
		{"cutoff at the limit", Cutoff, bhWarnAbove, ""},
		{"cutoff above", Cutoff, bhWarnAbove + 1, "tsne is the method"},
	} {
		got := sizeWarning(tc.m, tc.n)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: sizeWarning(%v, %d) = %q, want one containing %q", tc.name, tc.m, tc.n, got, tc.want)
		}
	}
}
