package transforms

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Range is an interval of allowed option values, declared by an option's
// range tag in interval notation: "[1,)" is x ≥ 1, "(0,)" x > 0, "[0,1)"
// 0 ≤ x < 1; an empty bound is unbounded.
type Range struct {
	Min, Max         float64 // −Inf and +Inf when unbounded
	MinOpen, MaxOpen bool    // the bound itself is excluded
}

// ParseRange parses interval notation: "[a,b]", "(a,b)", "[a,)", "(,b]", ….
func ParseRange(s string) (Range, error) {
	r := Range{Min: math.Inf(-1), Max: math.Inf(1)}
	t := strings.TrimSpace(s)
	if len(t) < 3 || !strings.ContainsRune("[(", rune(t[0])) || !strings.ContainsRune("])", rune(t[len(t)-1])) {
		return r, fmt.Errorf("range %q: want interval notation such as [1,) or (0,1]", s)
	}
	r.MinOpen, r.MaxOpen = t[0] == '(', t[len(t)-1] == ')'
	lo, hi, ok := strings.Cut(t[1:len(t)-1], ",")
	if !ok {
		return r, fmt.Errorf("range %q: no comma", s)
	}
	var err error
	if lo = strings.TrimSpace(lo); lo != "" {
		if r.Min, err = strconv.ParseFloat(lo, 64); err != nil {
			return r, fmt.Errorf("range %q: %q is not a number", s, lo)
		}
	}
	if hi = strings.TrimSpace(hi); hi != "" {
		if r.Max, err = strconv.ParseFloat(hi, 64); err != nil {
			return r, fmt.Errorf("range %q: %q is not a number", s, hi)
		}
	}
	if !(r.Min <= r.Max) {
		return r, fmt.Errorf("range %q is empty", s)
	}
	return r, nil
}

// Contains reports whether x is in the range (NaN never is).
func (r Range) Contains(x float64) bool {
	switch {
	case math.IsNaN(x):
		return false
	case x < r.Min || (r.MinOpen && x == r.Min):
		return false
	case x > r.Max || (r.MaxOpen && x == r.Max):
		return false
	}
	return true
}

// String is the range as help shows it: "≥ 1", "> 0", "≤ 3" or "in [0, 1)".
func (r Range) String() string {
	lo, hi := !math.IsInf(r.Min, -1), !math.IsInf(r.Max, 1)
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch {
	case lo && hi:
		b := map[bool]string{false: "[", true: "("}[r.MinOpen]
		e := map[bool]string{false: "]", true: ")"}[r.MaxOpen]
		return "in " + b + num(r.Min) + ", " + num(r.Max) + e
	case lo:
		return map[bool]string{false: "≥ ", true: "> "}[r.MinOpen] + num(r.Min)
	case hi:
		return map[bool]string{false: "≤ ", true: "< "}[r.MaxOpen] + num(r.Max)
	}
	return "any value"
}

// MarshalJSON writes the bounds that exist: {"min": 0, "min_open": true}.
func (r Range) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	if !math.IsInf(r.Min, -1) {
		m["min"] = r.Min
		m["min_open"] = r.MinOpen
	}
	if !math.IsInf(r.Max, 1) {
		m["max"] = r.Max
		m["max_open"] = r.MaxOpen
	}
	return json.Marshal(m)
}
