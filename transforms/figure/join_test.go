package figure

import (
	"slices"
	"testing"
)

// TestMarkUnmatched checks the legend of a joined colouring: the levels of
// the matched rows (or the given order, less a level only unmatched rows
// have), the unmatched rows moved onto a level and flagged.
func TestMarkUnmatched(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cat       []string
		order     []string // given
		pOrder    []string // p.Order before
		unmatched []bool
		want      []string
		err       bool
	}{
		{"appearance", []string{"b", "(null)", "a"}, nil, []string{"b", "(null)", "a"}, []bool{false, true, false}, []string{"b", "a"}, false},
		{"recorded order", []string{"b", "(null)", "a"}, []string{"a", "b", "c"}, []string{"a", "b", "c", "(null)"}, []bool{false, true, false},
			[]string{"a", "b", "c"}, false},
		{"none matched", []string{"(null)", "(null)"}, nil, nil, []bool{true, true}, nil, true},
	} {
		p := &Points{Category: slices.Clone(tc.cat), Order: tc.pOrder}
		err := markUnmatched(p, tc.unmatched, tc.order, "/x/attrs.csv")
		if tc.err {
			if err == nil {
				t.Errorf("%s: no error", tc.name)
			}
			continue
		}
		if err != nil || !slices.Equal(p.Order, tc.want) || !slices.Contains(p.Order, p.Category[1]) || p.UnmatchedLegend != "not in attrs.csv (1)" {
			t.Errorf("%s: order %v categories %v legend %q err %v; want order %v", tc.name, p.Order, p.Category, p.UnmatchedLegend, err, tc.want)
		}
	}
}

// TestJoinKeys checks --on: one name for both tables, IN=JOIN, and the
// forms without a name on a side.
func TestJoinKeys(t *testing.T) {
	for _, tc := range []struct {
		on, in, join string
		err          bool
	}{
		{"id", "id", "id", false},
		{"id=row", "id", "row", false},
		{" id = name ", "id", "name", false},
		{"=name", "", "", true},
		{"id=", "", "", true},
		{"", "", "", true},
	} {
		in, join, err := joinKeys(tc.on)
		if (err != nil) != tc.err || in != tc.in || join != tc.join {
			t.Errorf("%q: %q, %q, %v; want %q, %q, error %v", tc.on, in, join, err, tc.in, tc.join, tc.err)
		}
	}
}
