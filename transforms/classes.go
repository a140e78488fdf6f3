package transforms

import (
	"cmp"
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
// other values in the shortest form that reads back exactly
// (arrowio.FormatNumber). Integer label columns are formatted exactly,
// beyond 2^53 too (LabelText).
func FormatLabel(v float64) string { return arrowio.FormatNumber(v) }

// OrdinalClasses orders the classes of the frame's label column for an
// ordinal stage: by the given order when it is not empty, else by the
// order of an ordered dictionary (Labels.Order: a pandas ordered
// Categorical), else by ascending value for numeric labels. Text labels
// without an order are an error (ErrTextOrder) whose hint lists the
// classes: sorting them would silently invent an order.
func OrdinalClasses(f *arrowio.Frame, order []string) (*Classes, error) {
	l := f.Label
	if l == nil {
		return nil, &OptionError{Option: "label", Err: ErrNoLabel}
	}
	if len(order) == 0 && !l.Numeric && l.Order == nil {
		return nil, Optionf("order", "label column %q holds text: %w; give the order of its classes, for example --order %s (here in order of first appearance), or make the column an ordered dictionary (a pandas ordered Categorical)",
			l.Name, ErrTextOrder, classHint(l.Str))
	}
	return classes(f, order)
}

// NominalClasses orders the classes of the frame's label column by the
// given order, or else by the order of an ordered dictionary, or else by
// ascending value (numbers) or byte order (text).
func NominalClasses(f *arrowio.Frame, order []string) (*Classes, error) {
	if f.Label == nil {
		return nil, &OptionError{Option: "label", Err: ErrNoLabel}
	}
	return classes(f, order)
}

// classNames lists the classes of the label l, whose rows' labels are
// text (LabelText), in the order NominalClasses describes.
func classNames(l *arrowio.Labels, text, order []string) ([]string, error) {
	var names []string
	switch {
	case len(order) > 0:
		seen := map[string]bool{}
		for _, o := range order {
			o = strings.TrimSpace(o)
			if l.Numeric {
				var err error
				if o, err = numericClass(l, o); err != nil {
					return nil, err
				}
			}
			if seen[o] {
				return nil, Optionf("order", "%w: class %q appears twice", ErrClassOrder, o)
			}
			seen[o] = true
			names = append(names, o)
		}
	case l.Order != nil:
		// An ordered dictionary: its order, without the values no row
		// holds (a filtered pandas Categorical keeps its categories).
		held := make(map[string]bool)
		for _, t := range text {
			held[t] = true
		}
		for _, o := range l.Order {
			if held[o] {
				names = append(names, o)
			}
		}
	case l.Int != nil:
		vals := slices.Clone(l.Int)
		if l.Unsigned {
			slices.SortFunc(vals, func(a, b int64) int { return cmp.Compare(uint64(a), uint64(b)) })
		} else {
			slices.Sort(vals)
		}
		vals = slices.Compact(vals)
		for _, v := range vals {
			if l.Unsigned {
				names = append(names, strconv.FormatUint(uint64(v), 10))
			} else {
				names = append(names, strconv.FormatInt(v, 10))
			}
		}
	case l.Numeric:
		vals := slices.Clone(l.Num)
		slices.Sort(vals)
		vals = slices.Compact(vals)
		for _, v := range vals {
			names = append(names, FormatLabel(v))
		}
	default:
		names = slices.Clone(l.Str)
		slices.Sort(names)
		names = slices.Compact(names)
	}
	return names, nil
}

func classes(f *arrowio.Frame, order []string) (*Classes, error) {
	l := f.Label
	text := LabelText(l)
	names, err := classNames(l, text, order)
	if err != nil {
		return nil, err
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

// numericClass reads an entry of --order for a numeric label column as the
// class name LabelText gives its rows: integers exactly for an integer
// column (2^53 + 1 stays itself), other numbers as FormatLabel writes them.
func numericClass(l *arrowio.Labels, o string) (string, error) {
	if l.Int != nil {
		if l.Unsigned {
			if u, err := strconv.ParseUint(o, 10, 64); err == nil {
				return strconv.FormatUint(u, 10), nil
			}
		} else if i, err := strconv.ParseInt(o, 10, 64); err == nil {
			return strconv.FormatInt(i, 10), nil
		}
	}
	v, err := strconv.ParseFloat(o, 64)
	if err != nil {
		return "", Optionf("order", "%w: %q is not a number, but label column %q is numeric", ErrClassOrder, o, l.Name)
	}
	if l.Int != nil && (v != math.Trunc(v) || math.Abs(v) >= 1<<53) {
		return "", Optionf("order", "%w: %q is not an integer written in full, but label column %q holds integers", ErrClassOrder, o, l.Name)
	}
	return FormatLabel(v), nil
}

// LabelText returns the labels as text: text labels as they are, integers
// exactly, other numbers as FormatLabel writes them (Labels.Text).
func LabelText(l *arrowio.Labels) []string {
	if !l.Numeric {
		return l.Str
	}
	n := len(l.Num)
	out := make([]string, n)
	for i := range n {
		out[i] = l.Text(i)
	}
	return out
}

// maxHintClasses bounds the classes an error's hint lists.
const maxHintClasses = 100

// classHint lists the distinct labels of s, in order of first appearance,
// as a comma list for --order: every class, up to maxHintClasses, then how
// many more there are.
func classHint(s []string) string {
	var out []string
	seen := make(map[string]bool)
	more := 0
	for _, v := range s {
		if seen[v] {
			continue
		}
		seen[v] = true
		if len(out) < maxHintClasses {
			out = append(out, v)
		} else {
			more++
		}
	}
	h := strings.Join(out, ",")
	if more > 0 {
		h += fmt.Sprintf(" … (%d more classes)", more)
	}
	return h
}

// ValueClasses orders the classes of a label known by its distinct values
// rather than its rows (statistics streamed over a table, package
// moments): l holds each value once, counts[i] the rows of value i. The
// order is OrdinalClasses' when ordinal, else NominalClasses', and so are
// the errors, but a value outside --order names its row count, not a row.
// It returns the classes (Index nil) and the class of each value. path
// names the input in errors.
func ValueClasses(l *arrowio.Labels, counts []int64, order []string, ordinal bool, path string) (*Classes, []int, error) {
	text := LabelText(l)
	if ordinal && len(order) == 0 && !l.Numeric && l.Order == nil {
		return nil, nil, Optionf("order", "label column %q holds text: %w; give the order of its classes, for example --order %s (here in order of first appearance), or make the column an ordered dictionary (a pandas ordered Categorical)",
			l.Name, ErrTextOrder, classHint(text))
	}
	names, err := classNames(l, text, order)
	if err != nil {
		return nil, nil, err
	}
	pos := make(map[string]int, len(names))
	for i, nm := range names {
		pos[nm] = i
	}
	c := &Classes{Column: l.Name, Names: names, Counts: make([]int, len(names))}
	of := make([]int, len(text))
	for i, t := range text {
		k, ok := pos[t]
		if !ok {
			return nil, nil, &arrowio.Error{File: path, Column: l.Name, Row: -1,
				Err: fmt.Errorf("%w: label %q (%d rows) is not in the class order %s", ErrClassOrder, t, counts[i], strings.Join(names, ","))}
		}
		of[i] = k
		c.Counts[k] += int(counts[i])
	}
	for k, cnt := range c.Counts {
		if cnt == 0 {
			return nil, nil, Optionf("order", "%w: class %q has no rows", ErrClassOrder, names[k])
		}
	}
	if len(names) < 2 {
		return nil, nil, fmt.Errorf("%w: label column %q has %d class, at least 2 are needed", ErrFewClasses, l.Name, len(names))
	}
	return c, of, nil
}
