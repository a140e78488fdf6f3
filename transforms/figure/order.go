package figure

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

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
// (drawn as ordinal, RecordedOrder) unless s gives an order, and the
// control-point columns the stage recorded (cKPCA, LSP: option control)
// unless s names some.
func (s Spec) WithProvenance(schema *arrow.Schema, p *arrowio.Provenance) Spec {
	if s.Order == nil && s.ColorScale != ScaleContinuous {
		if order := RecordedOrder(p, s.Color); order != nil {
			s.Order, s.Ordinal, s.recorded = order, true, true
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
