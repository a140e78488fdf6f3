package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/ordinate/ordinate/arrowio"
)

// provenanceView is the stage's parameters, figures and warnings.
func provenanceView(p *arrowio.Provenance) *provView {
	if p == nil {
		return nil
	}
	v := &provView{Stage: p.Stage, Version: p.Version, Seed: p.Seed, Seconds: seconds(p.RunSeconds), Warnings: p.Warnings}
	for _, k := range sortedKeys(p.Params) {
		v.Params = append(v.Params, [2]string{k, short(p.Params[k])})
	}
	for _, k := range sortedKeys(p.Figures) {
		v.Figures = append(v.Figures, [2]string{k, short(p.Figures[k])})
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// short renders a value for a table cell, cut at 300 characters.
func short(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case float64:
		s = strconv.FormatFloat(x, 'g', 6, 64)
	default:
		b, err := json.Marshal(x)
		if err != nil {
			s = fmt.Sprint(x)
		} else {
			s = string(b)
		}
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
