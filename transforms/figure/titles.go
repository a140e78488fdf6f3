package figure

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ordinate/ordinate/arrowio"
)

// titleParams are the parameters worth showing in a figure's subtitle, in order.
var titleParams = []string{"method", "variant", "kernel", "solver", "alpha", "gamma", "perplexity", "nu", "scale", "metric", "theta", "dims"}

// kernelParams are parameters that only some kernels read: under another
// kernel (linear) their value means nothing and is not shown.
var kernelParams = map[string][]string{"gamma": {"rbf", "poly"}, "degree": {"poly"}, "coef0": {"poly"}}

// Titles returns a title (the stage and, if any, its mode) and a subtitle
// (file, rows, key parameters) for a table at path with rows rows and
// provenance p (nil when it has none). A parameter the run resolved from
// the data (γ = 0 meaning "the median rule", dims 0 meaning "as many as
// the data allow") shows the value used: the figure "resolved_<name>",
// else the figure of the same name when the parameter is 0 or "auto".
func Titles(path string, rows int64, p *arrowio.Provenance) (title, subtitle string) {
	return titles(path, fmt.Sprintf("%d rows", rows), p)
}

// DistanceTitles is Titles for a long distance table (kind distance_pairs)
// of pairs rows between objects objects: its subtitle counts pairs and
// objects ("999000 pairs of 1000 objects"), not rows.
func DistanceTitles(path string, pairs int64, objects int, p *arrowio.Provenance) (title, subtitle string) {
	unit := "pairs"
	if pairs == 1 {
		unit = "pair"
	}
	return titles(path, fmt.Sprintf("%d %s of %d objects", pairs, unit, objects), p)
}

// titles is Titles with the size of the table (its rows, or its pairs and
// objects) given as text.
func titles(path, size string, p *arrowio.Provenance) (title, subtitle string) {
	title = filepath.Base(path)
	parts := []string{filepath.Base(path), size}
	if p != nil {
		title = p.Stage
		if m, ok := p.Figures["mode"].(string); ok && m != "" {
			title += " · " + m
		}
		// A stage with a kernel option shows a kernel's parameters only
		// under a kernel that reads them: not under linear, nor with no
		// kernel at all (fisher on a precomputed similarity records "").
		// A stage without one (nerv's γ is a trade-off) shows them all.
		kernel, hasKernel := p.Params["kernel"].(string)
		for _, k := range titleParams {
			if ks, ok := kernelParams[k]; ok && hasKernel && !slices.Contains(ks, kernel) {
				continue
			}
			v, ok := p.Params[k]
			if r, rok := p.Figures["resolved_"+k]; rok && r != nil {
				v, ok = r, true
			} else if r, rok := p.Figures[k]; rok && r != nil && (v == 0.0 || v == 0 || v == "auto") {
				v, ok = r, true
			}
			if ok && v != "" && v != nil {
				parts = append(parts, k+" "+paramString(v))
			}
		}
	}
	return title, strings.Join(parts, " · ")
}

// paramString formats a parameter for a subtitle: whole numbers as such,
// others to three significant digits (γ 0.338, not 0.3381415586583378).
func paramString(v any) string {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', 3, 64)
	case float32:
		return paramString(float64(x))
	}
	return fmt.Sprint(v)
}
