package arrowio

import (
	"math"
	"strings"
	"testing"
)

func TestProvenanceJSONNonFinite(t *testing.T) {
	tests := []struct {
		name string
		p    Provenance
		want []string
	}{
		{"NaN param", Provenance{Params: map[string]any{"k": math.NaN()}}, []string{`"k":null`}},
		{"Inf figure", Provenance{Params: map[string]any{}, Figures: map[string]any{"kl": math.Inf(-1)}}, []string{`"kl":null`}},
		{"nested slice", Provenance{Params: map[string]any{"w": []float64{1, math.NaN()}}}, []string{`"w":[1,null]`}},
		{"nested maps", Provenance{Params: map[string]any{}, Figures: map[string]any{"levels": []map[string]any{{"kl": math.NaN(), "iterations": 3}}}},
			[]string{`"levels":[{"iterations":3,"kl":null}]`}},
		{"float32", Provenance{Params: map[string]any{"x": float32(math.Inf(1))}}, []string{`"x":null`}},
		{"nil params", Provenance{}, []string{`"params":{}`}},
		{"kind and run id", Provenance{Params: map[string]any{}, Kind: "embedding", RunID: "ab"}, []string{`"kind":"embedding"`, `"run_id":"ab"`}},
	}
	for _, tc := range tests {
		js, err := tc.p.JSON()
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(js, w) {
				t.Errorf("%s: %s lacks %s", tc.name, js, w)
			}
		}
		if _, err := ParseProvenance(js); err != nil {
			t.Errorf("%s: round trip: %v", tc.name, err)
		}
	}
}
