package transforms

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/figure"
)

// PlotSpec says which columns of a table a figure draws.
type PlotSpec struct {
	X, Y       string   // coordinate columns (default emb_0, emb_1)
	Color      string   // colour column, or ""
	Order      []string // category order for Color
	ColorScale string   // "auto" (default), "categorical" or "continuous"
	SoftLabels []string // soft-label columns (names and globs), instead of Color
	Facet      string   // facet column, or ""
	FacetOrder []string
	OnInvalid  arrowio.OnInvalid
}

// maxAutoCategories is the most distinct integer values that "auto" still
// treats as categories (class labels such as 1, 2, 3).
const maxAutoCategories = 12

// LoadPoints reads the columns of spec from the table at path.
func LoadPoints(ctx context.Context, path string, spec PlotSpec, opts ...arrowio.ReadOption) (*figure.Points, *arrowio.FileInfo, error) {
	if spec.X == "" {
		spec.X = "emb_0"
	}
	if spec.Y == "" {
		spec.Y = "emb_1"
	}
	// A stream on stdin cannot be inspected first; it has no footer either.
	info := &arrowio.FileInfo{Path: path}
	if path != "-" {
		var err error
		if info, err = arrowio.Inspect(ctx, path); err != nil {
			return nil, nil, err
		}
	}
	r, err := arrowio.Open(ctx, path, opts...)
	if err != nil {
		return nil, nil, err
	}
	defer r.Release()
	sel := arrowio.Selection{Features: []string{spec.X, spec.Y}, Keep: []string{}, SoftLabels: spec.SoftLabels, OnInvalid: spec.OnInvalid}
	for _, c := range []string{spec.Color, spec.Facet} {
		if c != "" && !slices.Contains(sel.Keep, c) {
			sel.Keep = append(sel.Keep, c)
		}
	}
	f, err := arrowio.ReadFrame(ctx, r, sel)
	if err != nil {
		return nil, nil, err
	}
	defer f.Release()
	if f.D != 2 {
		return nil, nil, fmt.Errorf("%s: %w: --x %s and --y %s select %d columns, want 2", path, ErrOption, spec.X, spec.Y, f.D)
	}
	p := &figure.Points{X: make([]float64, f.N), Y: make([]float64, f.N)}
	for i := range f.N {
		p.X[i], p.Y[i] = f.X[2*i], f.X[2*i+1]
	}
	keep := func(name string) arrow.Array {
		for k, fl := range f.KeepFields {
			if fl.Name == name {
				return f.Keep[k]
			}
		}
		return nil
	}
	if spec.Color != "" {
		if err := colourColumn(p, keep(spec.Color), spec); err != nil {
			return nil, nil, fmt.Errorf("%s: column %q: %w", path, spec.Color, err)
		}
	}
	if f.Soft != nil {
		p.Soft, p.Classes = f.Soft, trimCommonPrefix(f.SoftNames)
	}
	if spec.Facet != "" {
		a := keep(spec.Facet)
		p.Facet = make([]string, f.N)
		for i := range f.N {
			p.Facet[i] = valueString(a, i)
		}
		p.FacetOrder = spec.FacetOrder
		if p.FacetOrder == nil {
			p.FacetOrder = sortedLevels(p.Facet)
		}
	}
	return p, info, nil
}

// colourColumn sets p's Category or Value from a.
func colourColumn(p *figure.Points, a arrow.Array, spec PlotSpec) error {
	n := a.Len()
	// Numeric means what floatAt reads: integers and float32/64.
	numeric, integer := false, false
	switch a.DataType().ID() {
	case arrow.FLOAT32, arrow.FLOAT64:
		numeric = true
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		numeric, integer = true, true
	}
	scale := spec.ColorScale
	switch scale {
	case "", "auto":
		scale = "categorical"
		if numeric && !(integer && distinct(a) <= maxAutoCategories) {
			scale = "continuous"
		}
	case "categorical", "continuous":
	default:
		return fmt.Errorf("%w: colour scale %q: want auto, categorical or continuous", ErrOption, spec.ColorScale)
	}
	if scale == "continuous" {
		if !numeric {
			return fmt.Errorf("%w: a continuous colour scale needs a numeric column, not %s", ErrOption, a.DataType())
		}
		p.Value = make([]float64, n)
		for i := range n {
			v, ok, err := floatAt(a, i)
			if err != nil {
				return err
			}
			if !ok {
				v = math.NaN() // drawn grey
			}
			p.Value[i] = v
		}
		return nil
	}
	p.Category = make([]string, n)
	for i := range n {
		p.Category[i] = valueString(a, i)
	}
	p.Order = spec.Order
	if p.Order == nil {
		p.Order = sortedLevels(p.Category)
	}
	return nil
}

// trimCommonPrefix drops a prefix such as "p_" that every name shares, for
// the legend.
func trimCommonPrefix(names []string) []string {
	cut := strings.IndexByte(names[0], '_') + 1
	if cut == 0 {
		return names
	}
	for _, n := range names {
		if len(n) <= cut || n[:cut] != names[0][:cut] {
			return names
		}
	}
	out := make([]string, len(names))
	for k, n := range names {
		out[k] = n[cut:]
	}
	return out
}

func valueString(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "(null)"
	}
	if d, ok := a.(*array.Dictionary); ok {
		return d.Dictionary().ValueStr(d.GetValueIndex(i))
	}
	return a.ValueStr(i)
}

func distinct(a arrow.Array) int {
	seen := map[string]bool{}
	for i := range a.Len() {
		seen[valueString(a, i)] = true
	}
	return len(seen)
}

// sortedLevels orders the distinct values: numerically when they all parse
// as numbers (ordinal labels), otherwise in order of first appearance.
func sortedLevels(v []string) []string {
	out := figure.Levels(v, nil)
	nums := make(map[string]float64, len(out))
	for _, s := range out {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return out
		}
		nums[s] = x
	}
	slices.SortStableFunc(out, func(a, b string) int {
		switch {
		case nums[a] < nums[b]:
			return -1
		case nums[a] > nums[b]:
			return 1
		}
		return 0
	})
	return out
}

// titleParams are the parameters worth showing in a figure's subtitle, in order.
var titleParams = []string{"method", "variant", "kernel", "solver", "alpha", "gamma", "perplexity", "nu", "scale", "metric", "theta", "dims"}

// FigureTitles returns a title (the stage and, if any, its mode) and a
// subtitle (file, rows, key parameters) from a file's provenance.
func FigureTitles(path string, info *arrowio.FileInfo) (title, subtitle string) {
	title = filepath.Base(path)
	parts := []string{filepath.Base(path), fmt.Sprintf("%d rows", info.Rows)}
	if p := info.Provenance; p != nil {
		title = p.Stage
		if m, ok := p.Figures["mode"].(string); ok && m != "" {
			title += " · " + m
		}
		for _, k := range titleParams {
			if v, ok := p.Params[k]; ok && v != "" && v != nil {
				parts = append(parts, fmt.Sprintf("%s %v", k, v))
			}
		}
	}
	return title, strings.Join(parts, " · ")
}
