package nerv

import (
	"strings"
	"testing"
)

// The stage warns where a method outgrows the machine, and only there.
func TestSizeWarning(t *testing.T) {
	for _, tc := range []struct {
		name    string
		m       Method
		start   Start
		n       int
		maxIter int    // 0: the default
		want    string // a substring; "" for no warning
	}{
		{"exact at the limit", Exact, StartAuto, exactWarnAbove, 0, ""},
		{"exact above", Exact, StartAuto, exactWarnAbove + 1, 0, "three N×N matrices"},
		{"bh at the limit", BarnesHut, StartAuto, bhWarnAbove, 0, ""},
		{"bh above", BarnesHut, StartAuto, bhWarnAbove + 1, 0, "tsne is faster"},
		{"bh at 10⁶", BarnesHut, StartAuto, 1_000_000, 0, "about 140 minutes for the last level's 150 iterations"},
		{"bh at 10⁶, one iteration", BarnesHut, StartAuto, 1_000_000, 1, "about 1 minute for the last level's 1 iteration;"},
		{"bh above, few iterations", BarnesHut, StartAuto, bhWarnAbove + 1, 2, "about 1 minute for the last level's 2 iterations;"},
		{"bh above, PCA start", BarnesHut, StartPCA, bhWarnAbove + 1, 0, "--start sample"},
		{"bh at 10⁴", BarnesHut, StartAuto, 10_001, 0, ""},
		{"cutoff at the limit", Cutoff, StartAuto, bhWarnAbove, 0, ""},
		{"cutoff above", Cutoff, StartAuto, bhWarnAbove + 1, 0, "tsne is faster"},
		{"t kernel at the limit", Grid, StartAuto, tMeasuredRows, 0, ""},
		{"t kernel above", Grid, StartAuto, tMeasuredRows + 1, 0, "output kernel t at N = 100001"},
	} {
		o := DefaultOptions()
		o.Method, o.Start = tc.m, tc.start
		if strings.HasPrefix(tc.name, "t kernel") {
			o.OutputKernel = KernelT
		}
		if tc.maxIter > 0 {
			o.MaxIter = tc.maxIter
		}
		got := sizeWarning(o, tc.n)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: sizeWarning(%v, start %v, %d) = %q, want one containing %q", tc.name, tc.m, tc.start, tc.n, got, tc.want)
		}
	}
}
