package transforms

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ordinate/ordinate/arrowio"
)

func labelFrame(l *arrowio.Labels) *arrowio.Frame {
	n := len(l.Num) + len(l.Str)
	rows := make([]int64, n)
	for i := range rows {
		rows[i] = int64(10 + i)
	}
	return &arrowio.Frame{Source: arrowio.Source{Path: "t.csv"}, N: n, Label: l, Rows: rows}
}

func TestClasses(t *testing.T) {
	num := &arrowio.Labels{Name: "y", Numeric: true, Num: []float64{3, 1, 2, 1, 10, 2.5}}
	text := &arrowio.Labels{Name: "grade", Str: []string{"mid", "low", "high", "low"}}
	for _, tc := range []struct {
		name    string
		l       *arrowio.Labels
		order   []string
		ordinal bool
		names   string // want, comma-joined
		index   []int
		err     error
		text    string // in the error message
	}{
		{"numeric ascending", num, nil, true, "1,2,2.5,3,10", []int{3, 0, 1, 0, 4, 2}, nil, ""},
		{"numeric explicit order", num, []string{"10", "3", "2.5", "2", "1.0"}, true, "10,3,2.5,2,1", []int{1, 4, 3, 4, 0, 2}, nil, ""},
		{"text needs an order", text, nil, true, "", nil, ErrTextOrder, `option "order"`},
		{"text with order", text, []string{"low", "mid", "high"}, true, "low,mid,high", []int{1, 0, 2, 0}, nil, ""},
		{"text nominal sorts bytes", text, nil, false, "high,low,mid", []int{2, 1, 0, 1}, nil, ""},
		{"order lacks a label", text, []string{"low", "high"}, true, "", nil, ErrClassOrder, `row 10`},
		{"order has an empty class", text, []string{"low", "mid", "high", "top"}, true, "", nil, ErrClassOrder, `"top"`},
		{"order repeats", text, []string{"low", "mid", "low"}, true, "", nil, ErrClassOrder, "twice"},
		{"order not numeric", num, []string{"a"}, true, "", nil, ErrClassOrder, "not a number"},
		{"one class", &arrowio.Labels{Name: "y", Numeric: true, Num: []float64{4, 4}}, nil, true, "", nil, ErrFewClasses, "at least 2"},
	} {
		f := labelFrame(tc.l)
		var c *Classes
		var err error
		if tc.ordinal {
			c, err = OrdinalClasses(f, tc.order)
		} else {
			c, err = NominalClasses(f, tc.order)
		}
		if tc.err != nil {
			if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("%s: error %v, want %v containing %q", tc.name, err, tc.err, tc.text)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := strings.Join(c.Names, ","); got != tc.names {
			t.Errorf("%s: classes %s, want %s", tc.name, got, tc.names)
		}
		for i, k := range tc.index {
			if c.Index[i] != k {
				t.Errorf("%s: row %d in class %d, want %d", tc.name, i, c.Index[i], k)
			}
		}
		total := 0
		for _, n := range c.Counts {
			total += n
		}
		if total != f.N {
			t.Errorf("%s: counts %v do not sum to %d", tc.name, c.Counts, f.N)
		}
	}
	if _, err := OrdinalClasses(&arrowio.Frame{}, nil); !errors.Is(err, ErrNoLabel) {
		t.Errorf("no label: %v", err)
	}
}

func TestFormatLabel(t *testing.T) {
	for v, want := range map[float64]string{1: "1", -3: "-3", 2.5: "2.5", 1e20: "1e+20", 0.1: "0.1"} {
		if got := FormatLabel(v); got != want {
			t.Errorf("FormatLabel(%v) = %q, want %q", v, got, want)
		}
	}
}

// distinct returns the distinct labels of l (in order of first
// appearance) as labels of their own, and the rows of each.
func distinct(l *arrowio.Labels) (*arrowio.Labels, []int64) {
	d := &arrowio.Labels{Name: l.Name, Numeric: l.Numeric, Unsigned: l.Unsigned, Order: l.Order}
	if l.Int != nil {
		d.Int = []int64{}
	}
	seen := map[string]int{}
	var counts []int64
	for i := range max(len(l.Str), len(l.Num)) {
		t := l.Text(i)
		k, ok := seen[t]
		if !ok {
			k = len(counts)
			seen[t] = k
			counts = append(counts, 0)
			if l.Numeric {
				d.Num = append(d.Num, l.Num[i])
				if l.Int != nil {
					d.Int = append(d.Int, l.Int[i])
				}
			} else {
				d.Str = append(d.Str, l.Str[i])
			}
		}
		counts[k]++
	}
	return d, counts
}

// TestValueClassesMatchRows: classes of the distinct label values order
// and count as the classes of the rows do, for every label type, with and
// without an order, ordinal or not; the errors match too.
func TestValueClassesMatchRows(t *testing.T) {
	ints := &arrowio.Labels{Name: "y", Numeric: true, Int: []int64{10, -3, 2, 10, 2}, Num: []float64{10, -3, 2, 10, 2}}
	big := uint64(1<<64 - 1)
	uints := &arrowio.Labels{Name: "y", Numeric: true, Unsigned: true, Int: []int64{int64(big), 2, 2}, Num: []float64{float64(big), 2, 2}}
	floats := &arrowio.Labels{Name: "y", Numeric: true, Num: []float64{0.25, -0.5, 0.25, 1e300}}
	text := &arrowio.Labels{Name: "y", Str: []string{"mid", "low", "high", "low"}}
	dict := &arrowio.Labels{Name: "y", Str: []string{"mid", "low", "high", "low"}, Order: []string{"low", "unused", "mid", "high"}}
	for _, tc := range []struct {
		name    string
		l       *arrowio.Labels
		order   []string
		ordinal bool
		err     error
	}{
		{"ints", ints, nil, true, nil},
		{"ints ordered", ints, []string{"10", "2", "-3"}, true, nil},
		{"uints", uints, nil, false, nil},
		{"floats", floats, nil, true, nil},
		{"text nominal", text, nil, false, nil},
		{"text ordinal", text, nil, true, ErrTextOrder},
		{"text ordered", text, []string{"low", "mid", "high"}, true, nil},
		{"text order misses a class", text, []string{"low", "mid"}, false, ErrClassOrder},
		{"order names a class without rows", text, []string{"low", "mid", "high", "top"}, false, ErrClassOrder},
		{"dictionary", dict, nil, true, nil},
		{"one class", &arrowio.Labels{Name: "y", Str: []string{"a", "a"}}, nil, false, ErrFewClasses},
	} {
		rows, rowErr := classes(&arrowio.Frame{Label: tc.l}, tc.order)
		if tc.ordinal && rowErr == nil {
			rows, rowErr = OrdinalClasses(&arrowio.Frame{Label: tc.l}, tc.order)
		}
		d, counts := distinct(tc.l)
		got, of, err := ValueClasses(d, counts, tc.order, tc.ordinal, "p.parquet")
		if tc.err != nil {
			if !errors.Is(err, tc.err) || !errors.Is(rowErr, tc.err) {
				t.Errorf("%s: %v (rows: %v), want %v", tc.name, err, rowErr, tc.err)
			}
			continue
		}
		if err != nil || rowErr != nil {
			t.Fatalf("%s: %v (rows: %v)", tc.name, err, rowErr)
		}
		if !slices.Equal(got.Names, rows.Names) || !slices.Equal(got.Counts, rows.Counts) {
			t.Errorf("%s: classes %v %v, rows give %v %v", tc.name, got.Names, got.Counts, rows.Names, rows.Counts)
		}
		for k := range counts {
			if got.Names[of[k]] != d.Text(k) {
				t.Errorf("%s: value %s in class %s", tc.name, d.Text(k), got.Names[of[k]])
			}
		}
	}
}
