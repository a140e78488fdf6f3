package figure

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/ordinate/ordinate/arrowio"
)

// ordinalStages are the stages whose classes are ordered (ordinal
// regression): their recorded class order is the order of the labels even
// when no --order was given (numeric labels in ascending order).
var ordinalStages = []string{"bvp"}

// RecordedOrder returns the class order that provenance p records for the
// column col, or nil: the classes (figure "classes", in class order) of the
// stage's label column, when that stage is ordinal or was given --order.
func RecordedOrder(p *arrowio.Provenance, col string) []string {
	if p == nil || col == "" || p.Params["label"] != col {
		return nil
	}
	if !slices.Contains(ordinalStages, p.Stage) && len(stringList(p.Params["order"])) == 0 {
		return nil
	}
	return stringList(p.Figures["classes"])
}

// stringList reads a JSON list of strings (as decoded into any), or nil.
func stringList(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		out := make([]string, 0, len(l))
		for _, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil
			}
			out = append(out, s)
		}
		return out
	}
	return nil
}

// WithProvenance returns s completed from the provenance p of the table
// with the given schema: the recorded class order of the colour column
// (drawn as ordinal, RecordedOrder) unless s gives an order, or else, when
// the colour column is an ordered dictionary (a pandas ordered
// Categorical), the order of its dictionary (drawn as ordinal; the levels
// are read with the data, levelsOf); and the control-point columns the
// stage recorded (cKPCA, LSP: option control) unless s names some.
func (s Spec) WithProvenance(schema *arrow.Schema, p *arrowio.Provenance) Spec {
	if s.Order == nil && s.ColorScale != ScaleContinuous {
		if order := RecordedOrder(p, s.Color); order != nil {
			s.Order, s.Ordinal, s.recorded = order, true, true
		} else if orderedDictionary(schema, s.Color) {
			s.Ordinal = true
		}
	}
	if s.Control == nil && p != nil {
		cols := stringList(p.Params["control"])
		if len(cols) > 0 && !slices.ContainsFunc(cols, func(c string) bool { return !schema.HasField(c) }) {
			s.Control = cols
		}
	}
	return s
}

// orderWith returns order followed by the levels of v it lacks (a recorded
// order need not list a null label).
func orderWith(order, v []string) []string {
	out := slices.Clip(order)
	for _, l := range Levels(v, nil) {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// orderedDictionary reports whether the column col of schema is an
// ordered dictionary.
func orderedDictionary(schema *arrow.Schema, col string) bool {
	if schema == nil || col == "" {
		return false
	}
	idx := schema.FieldIndices(col)
	if len(idx) != 1 {
		return false
	}
	d, ok := schema.Field(idx[0]).Type.(*arrow.DictionaryType)
	return ok && d.Ordered
}

// levelsOf orders the distinct values v of the colour column a when no
// order is given or recorded: an ordered dictionary's values in dictionary
// order (those some row holds, then any other level such as a null), else
// sortedLevels.
func levelsOf(a arrow.Array, v []string) []string {
	d, ok := a.(*array.Dictionary)
	if !ok || !d.DataType().(*arrow.DictionaryType).Ordered {
		return sortedLevels(v)
	}
	held := make(map[string]bool)
	for _, l := range v {
		held[l] = true
	}
	dict := d.Dictionary()
	var order []string
	for k := range dict.Len() {
		if dict.IsNull(k) {
			continue
		}
		if l := dict.ValueStr(k); held[l] {
			order = append(order, l)
			held[l] = false // a repeated dictionary value is listed once
		}
	}
	return orderWith(order, v)
}
