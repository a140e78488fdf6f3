package triplets

import (
	"errors"
	"testing"
)

func TestValidate(t *testing.T) {
	const objects, aspects = 4, 2
	for _, tc := range []struct {
		name    string
		rows    [][4]int32 // i, j, k, aspect
		wantRow int
	}{
		{"empty", nil, -1},
		{"valid", [][4]int32{{0, 1, 2, 0}, {3, 2, 1, 1}}, -1},
		{"i = j", [][4]int32{{0, 1, 2, 0}, {1, 1, 2, 0}}, 1},
		{"j = k", [][4]int32{{0, 2, 2, 1}}, 0},
		{"i = k", [][4]int32{{0, 1, 2, 0}, {0, 1, 2, 1}, {3, 1, 3, 0}}, 2},
		{"object negative", [][4]int32{{-1, 1, 2, 0}}, 0},
		{"object too large", [][4]int32{{0, 1, 2, 0}, {0, 1, 4, 0}}, 1},
		{"aspect negative", [][4]int32{{0, 1, 2, -1}}, 0},
		{"aspect too large", [][4]int32{{0, 1, 2, 0}, {0, 1, 2, 2}}, 1},
	} {
		tab := new(Table)
		for _, r := range tc.rows {
			tab.Append(r[0], r[1], r[2], r[3])
		}
		row, err := tab.Validate(objects, aspects)
		if row != tc.wantRow || (err == nil) != (tc.wantRow < 0) || (err != nil && !errors.Is(err, ErrTriplet)) {
			t.Errorf("%s: Validate = %d, %v; want row %d", tc.name, row, err, tc.wantRow)
		}
	}
}

func TestTableReset(t *testing.T) {
	tab := new(Table)
	tab.Append(0, 1, 2, 0)
	tab.Append(1, 0, 2, 1)
	tab.Reset()
	if tab.Len() != 0 || cap(tab.I) < 2 {
		t.Errorf("Reset: len %d, cap %d; want 0, ≥ 2", tab.Len(), cap(tab.I))
	}
}

func TestValidatePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("ragged columns: no panic")
		}
	}()
	tab := &Table{I: []int32{0}, J: []int32{1}, K: []int32{2}}
	tab.Validate(3, 1)
}
