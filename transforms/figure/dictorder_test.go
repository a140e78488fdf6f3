package figure

import (
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestDictionaryOrder: a colour column that is an ordered dictionary (a
// pandas ordered Categorical) gives the order of the levels and the
// ordinal palette; an unordered one does not.
func TestDictionaryOrder(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dictArray := func(ordered bool) arrow.Array {
		dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String, Ordered: ordered}
		values, _, err := array.FromJSON(mem, arrow.BinaryTypes.String, strings.NewReader(`["Fair","Good","Very Good","Premium","Ideal"]`))
		if err != nil {
			t.Fatal(err)
		}
		defer values.Release()
		idx, _, err := array.FromJSON(mem, arrow.PrimitiveTypes.Int8, strings.NewReader(`[4, 1, null, 3, 1]`)) // no Fair nor Very Good
		if err != nil {
			t.Fatal(err)
		}
		defer idx.Release()
		return array.NewDictionaryArray(dt, idx, values)
	}
	for _, tc := range []struct {
		name    string
		ordered bool
		levels  []string
		ordinal bool
	}{
		{"ordered", true, []string{"Good", "Premium", "Ideal", "(null)"}, true},
		{"unordered", false, []string{"Ideal", "Good", "(null)", "Premium"}, false},
	} {
		a := dictArray(tc.ordered)
		schema := arrow.NewSchema([]arrow.Field{{Name: "cut", Type: a.DataType(), Nullable: true}}, nil)
		s := Spec{Color: "cut"}.WithProvenance(schema, nil)
		p := &Points{}
		p.X = make([]float64, a.Len())
		if err := colourColumn(p, a, s); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		a.Release()
		if !slices.Equal(p.Order, tc.levels) || p.Ordinal != tc.ordinal || s.Ordinal != tc.ordinal {
			t.Errorf("%s: order %v ordinal %v (spec %v), want %v %v", tc.name, p.Order, p.Ordinal, s.Ordinal, tc.levels, tc.ordinal)
		}
	}
}
