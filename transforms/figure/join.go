package figure

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// A maps table (SCORE, OE) holds no attribute or label to colour by, and an
// embedding may lack the one wanted: plot --join T --on ID colours by a
// column of another table T, matched on the id column.

// joinKeys splits --on: "id" names the id column of both tables, "a=b" the
// column a of the drawn table and b of the joined one. A joined id "row"
// that the joined table lacks means its row numbers (from 0), the ids that
// stages give rows when they are given no id column.
func joinKeys(on string) (in, join string, err error) {
	in, join, ok := strings.Cut(on, "=")
	if !ok {
		join = in
	}
	in, join = strings.TrimSpace(in), strings.TrimSpace(join)
	if in == "" || join == "" {
		return "", "", transforms.Optionf("on", "%q: want the id column ID, or IN=JOIN for columns named differently", on)
	}
	return in, join, nil
}

// joinColour reads column col of the stage's input "join", matched on its
// id column joinID against the ids of f, and adds it to f's kept columns
// (null where no row matches), for PointsOf to colour by. It returns the
// rows of f that no row of the joined table matched, and its path.
func joinColour(ctx context.Context, env *transforms.Env, f *arrowio.Frame, col, joinID string) ([]bool, string, error) {
	r, err := env.Open(ctx, "join")
	if err != nil {
		return nil, "", err
	}
	defer r.Release()
	path := r.Source().Path
	if !r.Schema().HasField(col) {
		return nil, "", transforms.Optionf("color", "%s has no column %q to colour by (it has %s)", path, col, fieldNames(r.Schema()))
	}
	sel := arrowio.Selection{ID: joinID, NoFeatures: true, Keep: []string{col}}
	if joinID == "row" && !r.Schema().HasField("row") {
		sel.ID = "" // its row numbers
	} else if !r.Schema().HasField(joinID) {
		return nil, "", transforms.Optionf("on", "%s has no id column %q (it has %s)", path, joinID, fieldNames(r.Schema()))
	}
	j, err := env.ReadFrom(ctx, "join", r, sel)
	if err != nil {
		return nil, "", err
	}
	defer j.Release()
	row := make(map[string]int, j.N)
	for i := range j.N {
		id := valueString(j.ID, i)
		if _, dup := row[id]; dup {
			return nil, "", fmt.Errorf("%w: %s: id %q appears twice in column %q: the join needs one row per id",
				transforms.ErrInvalidData, path, arrowio.ClipValue(id), j.IDName)
		}
		row[id] = i
	}
	idx := make([]int, f.N)
	unmatched := make([]bool, f.N)
	for i := range f.N {
		k, ok := row[valueString(f.ID, i)]
		if !ok {
			k, unmatched[i] = -1, true
		}
		idx[i] = k
	}
	a, err := takeRows(env.Mem, j.Keep[0], idx)
	if err != nil {
		return nil, "", fmt.Errorf("%s: column %q: %w", path, col, err)
	}
	f.KeepFields = append(f.KeepFields, arrow.Field{Name: col, Type: a.DataType(), Nullable: true})
	f.Keep = append(f.Keep, a) // released with f
	return unmatched, path, nil
}

// takeRows returns the values of a at idx (null at -1), dictionaries
// decoded.
func takeRows(mem memory.Allocator, a arrow.Array, idx []int) (arrow.Array, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	typ := a.DataType()
	if d, ok := typ.(*arrow.DictionaryType); ok {
		typ = d.ValueType
	}
	b := array.NewBuilder(mem, typ)
	defer b.Release()
	for _, i := range idx {
		if i < 0 || a.IsNull(i) {
			b.AppendNull()
			continue
		}
		if err := b.AppendValueFromString(valueString(a, i)); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

func fieldNames(s *arrow.Schema) string {
	names := make([]string, 0, s.NumFields())
	for _, f := range s.Fields() {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// markUnmatched marks the unmatched rows of p (coloured from a joined
// table) grey: the categories' order is that of the matched rows (or
// order, when given), and the legend names the joined table.
func markUnmatched(p *Points, unmatched []bool, order []string, joined string) error {
	k := 0
	for _, u := range unmatched {
		if u {
			k++
		}
	}
	if k == len(unmatched) {
		return fmt.Errorf("%w: no row of %s matches an id of the drawn table", transforms.ErrInvalidData, joined)
	}
	if p.Category != nil {
		var matched []string
		for i, c := range p.Category {
			if !unmatched[i] {
				matched = append(matched, c)
			}
		}
		if order == nil {
			p.Order = sortedLevels(matched)
		} else {
			// Drop the level only unmatched rows have (their null).
			p.Order = slices.DeleteFunc(slices.Clone(p.Order), func(l string) bool {
				return !slices.Contains(order, l) && !slices.Contains(matched, l)
			})
		}
		for i := range p.Category {
			if unmatched[i] {
				p.Category[i] = matched[0] // a level of the legend; drawn grey
			}
		}
	}
	if k > 0 {
		p.Unmatched = unmatched
		p.UnmatchedLegend = fmt.Sprintf("not in %s (%d)", filepath.Base(joined), k)
	}
	return nil
}
