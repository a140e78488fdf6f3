package quality

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
)

// writeSummary writes the metrics of rep as a small text table, one row per
// metric and subset, one column per k, then the order of the class centres
// when there is one.
func writeSummary(w io.Writer, name string, rep *Report, centres []string) {
	type key struct{ metric, subset string }
	var order []key
	vals := map[key]map[int]float64{}
	kset := map[int]bool{}
	for _, r := range rep.Rows {
		kk := key{r.Metric, r.Subset}
		if vals[kk] == nil {
			vals[kk] = map[int]float64{}
			order = append(order, kk)
		}
		vals[kk][r.K] = r.Value
		kset[r.K] = true
	}
	var ks []int
	for k := range kset {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	fmt.Fprintf(w, "quality of %s (%d rows)\n", name, rep.N)
	if rep.Sampled() {
		fmt.Fprintf(w, "%s\n", sampleText(rep))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"metric", "subset"}
	for _, k := range ks {
		if k == 0 {
			head = append(head, "-")
		} else {
			head = append(head, fmt.Sprintf("k=%d", k))
		}
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, kk := range order {
		row := []string{kk.metric, kk.subset}
		for _, k := range ks {
			if v, ok := vals[kk][k]; ok && !math.IsNaN(v) {
				row = append(row, fmt.Sprintf("%.4f", v))
			} else {
				row = append(row, "")
			}
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	if centres != nil {
		fmt.Fprintf(w, "class centres along the best axis: %s\n", strings.Join(centres, " < "))
	}
}

// sampleText says which points a sampled report scored.
func sampleText(rep *Report) string {
	return fmt.Sprintf("neighbourhood and class metrics of a sample of %d of the %d rows (seed %d), each ranked among all %d rows; the ordinal metrics use every row",
		rep.Points, rep.N, rep.Seed, rep.N)
}
