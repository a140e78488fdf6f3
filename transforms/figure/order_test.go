package figure

import (
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/ordinate/ordinate/arrowio"
)

// TestRecordedOrder checks when a table's provenance gives the order of
// its colour column: the label of an ordinal stage, or of a stage given
// --order, in the recorded class order (as read back from JSON).
func TestRecordedOrder(t *testing.T) {
	classes := []any{"very_low", "low", "mid", "high", "very_high"}
	want := []string{"very_low", "low", "mid", "high", "very_high"}
	prov := func(stage string, order any) *arrowio.Provenance {
		return &arrowio.Provenance{Stage: stage, Params: map[string]any{"label": "label", "order": order},
			Figures: map[string]any{"classes": classes}}
	}
	for _, tc := range []struct {
		name string
		p    *arrowio.Provenance
		col  string
		want []string
	}{
		{"bvp without --order", prov("bvp", nil), "label", want},
		{"lda given --order", prov("lda", []any{"very_low", "low", "mid", "high", "very_high"}), "label", want},
		{"lda without --order", prov("lda", nil), "label", nil},
		{"another column", prov("bvp", nil), "group", nil},
		{"no provenance", nil, "label", nil},
		{"no classes recorded", &arrowio.Provenance{Stage: "bvp", Params: map[string]any{"label": "label"}}, "label", nil},
	} {
		if got := RecordedOrder(tc.p, tc.col); !slices.Equal(got, tc.want) {
			t.Errorf("%s: order %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestWithProvenance checks what a spec takes from the provenance: the
// recorded order (drawn ordinal) unless it gives its own or reads the
// column as numbers, and the control columns when the table has them.
func TestWithProvenance(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "label", Type: arrow.BinaryTypes.String},
		{Name: "cx", Type: arrow.PrimitiveTypes.Float64}, {Name: "cy", Type: arrow.PrimitiveTypes.Float64}}, nil)
	p := &arrowio.Provenance{Stage: "bvp", Params: map[string]any{"label": "label", "control": []any{"cx", "cy"}},
		Figures: map[string]any{"classes": []any{"b", "a"}}}
	for _, tc := range []struct {
		name    string
		spec    Spec
		schema  *arrow.Schema
		order   []string
		ordinal bool
		control []string
	}{
		{"recorded", Spec{Color: "label"}, schema, []string{"b", "a"}, true, []string{"cx", "cy"}},
		{"own order", Spec{Color: "label", Order: []string{"a", "b"}}, schema, []string{"a", "b"}, false, []string{"cx", "cy"}},
		{"continuous", Spec{Color: "label", ColorScale: ScaleContinuous}, schema, nil, false, []string{"cx", "cy"}},
		{"control columns dropped", Spec{Color: "label"}, arrow.NewSchema(schema.Fields()[:2], nil), []string{"b", "a"}, true, nil},
	} {
		got := tc.spec.WithProvenance(tc.schema, p)
		if !slices.Equal(got.Order, tc.order) || got.Ordinal != tc.ordinal || !slices.Equal(got.Control, tc.control) {
			t.Errorf("%s: order %v ordinal %v control %v, want %v %v %v", tc.name, got.Order, got.Ordinal, got.Control,
				tc.order, tc.ordinal, tc.control)
		}
	}
}
