package figure

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// Spec says which columns of a table a scatter plot draws. Its tagged
// fields are options of the plot stage (Options embeds it); a Spec built in
// code may leave them zero: X and Y "" are emb_0 and emb_1, ColorScale ""
// is auto, OnInvalid "" is error.
type Spec struct {
	X          string     `opt:"x" help:"column on the horizontal axis"`
	Y          string     `opt:"y" help:"column on the vertical axis"`
	Color      string     `opt:"color" help:"column to colour the points by"`
	Order      []string   `opt:"order" help:"order of the colour categories, comma list"` // nil: none given
	ColorScale ColorScale `opt:"color-scale" help:"how to read the colour column"`
	// SoftLabels are soft-label columns (names and globs), instead of
	// Color.
	SoftLabels []string          `opt:"soft-labels" help:"soft-label columns (names and globs) whose weights mix the class colours"`
	Facet      string            `opt:"facet" help:"column with one panel per value (default for SCORE maps: aspect)"` // "": one panel
	FacetOrder []string          `opt:"facet-order" help:"order of the panels, comma list"`
	OnInvalid  arrowio.OnInvalid `opt:"on-invalid" help:"NaN, ±Inf or null in a drawn column: error or drop the row"`

	// Ordinal says Order is an order of the levels: an ordered palette.
	Ordinal bool
	// Control are the columns of control points' target coordinates
	// (cKPCA, LSP): a row with all of them non-null is a control point.
	Control []string
	// ControlIDs, with ControlIDColumn, mark the rows whose value in that
	// column is among them as control points instead (a fit given its
	// control points as a table: WithControlTable).
	ControlIDColumn string
	ControlIDs      map[string]bool
	recorded        bool // Order is from the provenance: levels it lacks follow it
}

// ColorScale is how a colour column is read: auto (categories for text,
// booleans and integers with at most 12 values, a colour map otherwise),
// categorical or continuous.
type ColorScale string

// The colour scales.
const (
	ScaleAuto        ColorScale = "auto"
	ScaleCategorical ColorScale = "categorical"
	ScaleContinuous  ColorScale = "continuous"
)

// Values lists the colour scales.
func (ColorScale) Values() []string { return []string{"auto", "categorical", "continuous"} }

// maxAutoCategories is the most distinct integer values that "auto" still
// treats as categories (class labels such as 1, 2, 3).
const maxAutoCategories = 12

func (s Spec) axes() (x, y string) {
	x, y = s.X, s.Y
	if x == "" {
		x = "emb_0"
	}
	if y == "" {
		y = "emb_1"
	}
	return x, y
}

// Selection is the selection that reads the columns of s.
func (s Spec) Selection() arrowio.Selection {
	x, y := s.axes()
	sel := arrowio.Selection{Features: []string{x, y}, Keep: []string{}, SoftLabels: s.SoftLabels, OnInvalid: s.OnInvalid}
	for _, c := range slices.Concat([]string{s.Color, s.Facet, s.ControlIDColumn}, s.Control) {
		if c != "" && !slices.Contains(sel.Keep, c) {
			sel.Keep = append(sel.Keep, c)
		}
	}
	return sel
}

// PointsOf returns the points of a frame read with s.Selection().
func PointsOf(f *arrowio.Frame, s Spec) (*Points, error) {
	x, y := s.axes()
	if f.D != 2 {
		return nil, transforms.Optionf("x", "x %s and y %s select %d columns, want 2", x, y, f.D)
	}
	p := &Points{X: make([]float64, f.N), Y: make([]float64, f.N)}
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
	if s.Color != "" {
		if err := colourColumn(p, keep(s.Color), s); err != nil {
			return nil, fmt.Errorf("%s: column %q: %w", f.Source.Path, s.Color, err)
		}
	}
	if s.Control != nil {
		p.Control = make([]bool, f.N)
		for i := range f.N {
			p.Control[i] = !slices.ContainsFunc(s.Control, func(c string) bool { return keep(c).IsNull(i) })
		}
	} else if s.ControlIDs != nil {
		ids := keep(s.ControlIDColumn)
		p.Control = make([]bool, f.N)
		for i := range f.N {
			p.Control[i] = !ids.IsNull(i) && s.ControlIDs[valueString(ids, i)]
		}
	}
	if f.Soft != nil {
		p.Soft, p.Classes = f.Soft, trimCommonPrefix(f.SoftNames)
	}
	if s.Facet != "" {
		a := keep(s.Facet)
		p.Facet = make([]string, f.N)
		for i := range f.N {
			p.Facet[i] = valueString(a, i)
		}
		p.FacetOrder = s.FacetOrder
		if p.FacetOrder == nil {
			p.FacetOrder = sortedLevels(p.Facet)
		}
	}
	return p, nil
}

// colourColumn sets p's Category or Value from a.
func colourColumn(p *Points, a arrow.Array, s Spec) error {
	n := a.Len()
	numeric, integer := false, false
	switch a.DataType().ID() {
	case arrow.FLOAT32, arrow.FLOAT64:
		numeric = true
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		numeric, integer = true, true
	}
	scale := s.ColorScale
	if scale == "" || scale == ScaleAuto {
		scale = ScaleCategorical
		if numeric && !(integer && distinct(a) <= maxAutoCategories) {
			scale = ScaleContinuous
		}
	}
	if scale == ScaleContinuous {
		if !numeric {
			return transforms.Optionf("color-scale", "continuous needs a numeric column, not %s", a.DataType())
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
	p.Order, p.Ordinal = s.Order, s.Ordinal
	switch {
	case p.Order == nil:
		p.Order = levelsOf(a, p.Category)
	case s.recorded:
		p.Order = orderWith(p.Order, p.Category)
	}
	return nil
}

// floatAt reads value i of a numeric column; ok is false for a null.
func floatAt(a arrow.Array, i int) (v float64, ok bool, err error) {
	if a.IsNull(i) {
		return 0, false, nil
	}
	switch c := a.(type) {
	case *array.Float64:
		return c.Value(i), true, nil
	case *array.Float32:
		return float64(c.Value(i)), true, nil
	case *array.Int8:
		return float64(c.Value(i)), true, nil
	case *array.Int16:
		return float64(c.Value(i)), true, nil
	case *array.Int32:
		return float64(c.Value(i)), true, nil
	case *array.Int64:
		return float64(c.Value(i)), true, nil
	case *array.Uint8:
		return float64(c.Value(i)), true, nil
	case *array.Uint16:
		return float64(c.Value(i)), true, nil
	case *array.Uint32:
		return float64(c.Value(i)), true, nil
	case *array.Uint64:
		return float64(c.Value(i)), true, nil
	}
	return 0, false, fmt.Errorf("%w: %s is not numeric", transforms.ErrInvalidData, a.DataType())
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
	out := Levels(v, nil)
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
