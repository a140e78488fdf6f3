package transforms

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ordinate/ordinate/arrowio"
)

// Classes is a hard label column resolved to class indices.
type Classes struct {
	Column string   // the label column
	Names  []string // class names in class order (numbers formatted by FormatLabel)
	Index  []int    // per row, its class in 0..len(Names)−1
	Counts []int    // rows per class
}

// Record records the classes in the provenance's figures ("classes" in
// class order, "class_counts").
func (c *Classes) Record(env *Env) {
	env.Figures(map[string]any{"classes": c.Names, "class_counts": c.Counts})
}

// K is the number of classes.
func (c *Classes) K() int { return len(c.Names) }

// FormatLabel formats a numeric label: integers without a decimal point,
// other values in the shortest form that reads back exactly.
func FormatLabel(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// OrdinalClasses orders the classes of the frame's label column for an ordinal stage: by the given
// order when it is not empty, else by ascending value for numeric labels.
// Text labels without an order are an error (ErrTextOrder): sorting them
// would silently invent an order.
func OrdinalClasses(f *arrowio.Frame, order []string) (*Classes, error) {
	l := f.Label
	if l == nil {
		return nil, &OptionError{Option: "label", Err: ErrNoLabel}
	}
	if len(order) == 0 && !l.Numeric {
		return nil, Optionf("order", "label column %q holds text: %w; give the order of its classes (for example %s)",
			l.Name, ErrTextOrder, strings.Join(firstDistinct(l.Str, 3), ","))
	}
	return classes(f, order)
}

// NominalClasses orders the classes of the frame's label column by the given order, or else by
// ascending value (numbers) or byte order (text).
func NominalClasses(f *arrowio.Frame, order []string) (*Classes, error) {
	if f.Label == nil {
		return nil, &OptionError{Option: "label", Err: ErrNoLabel}
	}
	return classes(f, order)
}

func classes(f *arrowio.Frame, order []string) (*Classes, error) {
	l := f.Label
	text := LabelText(l)
	var names []string
	if len(order) > 0 {
		seen := map[string]bool{}
		for _, o := range order {
			o = strings.TrimSpace(o)
			if l.Numeric {
				v, err := strconv.ParseFloat(o, 64)
				if err != nil {
					return nil, Optionf("order", "%w: %q is not a number, but label column %q is numeric", ErrClassOrder, o, l.Name)
				}
				o = FormatLabel(v)
			}
			if seen[o] {
				return nil, Optionf("order", "%w: class %q appears twice", ErrClassOrder, o)
			}
			seen[o] = true
			names = append(names, o)
		}
	} else if l.Numeric {
		vals := slices.Clone(l.Num)
		slices.Sort(vals)
		vals = slices.Compact(vals)
		for _, v := range vals {
			names = append(names, FormatLabel(v))
		}
	} else {
		names = slices.Clone(l.Str)
		slices.Sort(names)
		names = slices.Compact(names)
	}
	pos := make(map[string]int, len(names))
	for i, nm := range names {
		pos[nm] = i
	}
	c := &Classes{Column: l.Name, Names: names, Index: make([]int, len(text)), Counts: make([]int, len(names))}
	for i, t := range text {
		k, ok := pos[t]
		if !ok {
			row := int64(i)
			if i < len(f.Rows) {
				row = f.Rows[i]
			}
			return nil, &arrowio.Error{File: f.Source.Path, Column: l.Name, Row: row,
				Err: fmt.Errorf("%w: label %q is not in the class order %s", ErrClassOrder, t, strings.Join(names, ","))}
		}
		c.Index[i] = k
		c.Counts[k]++
	}
	for k, cnt := range c.Counts {
		if cnt == 0 {
			return nil, Optionf("order", "%w: class %q has no rows", ErrClassOrder, names[k])
		}
	}
	if len(names) < 2 {
		return nil, fmt.Errorf("%w: label column %q has %d class, at least 2 are needed", ErrFewClasses, l.Name, len(names))
	}
	return c, nil
}

// LabelText returns the labels as text: text labels as they are, numeric
// ones formatted as FormatLabel does.
func LabelText(l *arrowio.Labels) []string {
	if !l.Numeric {
		return l.Str
	}
	out := make([]string, len(l.Num))
	for i, v := range l.Num {
		out[i] = FormatLabel(v)
	}
	return out
}

func firstDistinct(s []string, n int) []string {
	var out []string
	for _, v := range s {
		if !slices.Contains(out, v) {
			out = append(out, v)
			if len(out) == n {
				break
			}
		}
	}
	return out
}
