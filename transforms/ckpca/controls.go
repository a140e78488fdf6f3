package ckpca

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// ControlTableRole is the input role of a table of control points: the id
// column (as the input's --id) and one coordinate column per output
// dimension. ckpca and lsp both read it.
const ControlTableRole = "control-table"

// ControlTableInput is the role's declaration, shared by ckpca and lsp.
var ControlTableInput = transforms.Role{Name: ControlTableRole,
	Help: "table of control points: the id column and one coordinate column per output dimension (control names them; default: every numeric column)"}

// ControlSelection returns the selection of the input table of a
// control-point stage: cols, with the control columns passed through (so
// that ControlFromColumns can read them) unless the control points come
// from a control table. When cols keeps nothing explicitly, the label
// column is kept as well.
func ControlSelection(cols transforms.Columns, control []string, fromTable bool) arrowio.Selection {
	sel := cols.Selection()
	if fromTable || len(control) == 0 {
		return sel
	}
	var keep []string
	if cols.Keep == nil && sel.Label != "" {
		keep = append(keep, sel.Label)
	}
	sel.Keep = append(append(keep, cols.Keep...), control...)
	return sel
}

// ReadControl returns the control points of the stage's input frame f:
// from the control table (role ControlTableRole, matched by id) when the
// host gave one, otherwise from the columns named control. It resolves the
// output dimension: dims when not 0, which must then agree with the control
// points; otherwise one per control column (2 without control points).
func ReadControl(ctx context.Context, env *transforms.Env, f *arrowio.Frame, id string, control []string, dims int) (Control, int, error) {
	var ctrl Control
	switch {
	case env.Has(ControlTableRole):
		if id == "" {
			return ctrl, 0, transforms.Optionf("id", "%s needs id to match its rows to the input's", ControlTableRole)
		}
		tf, err := env.ReadFrame(ctx, ControlTableRole, arrowio.Selection{ID: id, Features: control, Keep: []string{}})
		if err != nil {
			return ctrl, 0, err
		}
		defer tf.Release()
		if dims != 0 && dims != tf.D {
			return ctrl, 0, transforms.Optionf("dims", "%d but the control table has %d coordinate columns", dims, tf.D)
		}
		ctrl, err = ControlFromTable(f, tf)
		return ctrl, tf.D, err
	case len(control) > 0:
		if dims != 0 && dims != len(control) {
			return ctrl, 0, transforms.Optionf("dims", "%d but control names %d columns: one control column per output dimension", dims, len(control))
		}
		ctrl, err := ControlFromColumns(f, control)
		return ctrl, len(control), err
	}
	if dims == 0 {
		dims = 2
	}
	return ctrl, dims, nil
}

// ControlFromColumns reads the control targets from the frame's pass-through
// columns named names: a row whose values are all null is not a control
// row; a row with some but not all of them null, or a NaN/Inf target, is an
// error naming the row and column.
func ControlFromColumns(f *arrowio.Frame, names []string) (Control, error) {
	var ctrl Control
	cols := make([]arrow.Array, len(names))
	for k, name := range names {
		for j, fl := range f.KeepFields {
			if fl.Name == name {
				cols[k] = f.Keep[j]
			}
		}
		if cols[k] == nil {
			return ctrl, transforms.Errorf(ErrControl, "column %q not found in %s", name, f.Source.Path)
		}
	}
	vals := make([]float64, len(names))
	for i := range f.N {
		nulls := 0
		for k, a := range cols {
			v, ok, err := floatAt(a, i)
			if err != nil {
				return ctrl, transforms.Errorf(ErrControl, "column %q: %w", names[k], err)
			}
			if !ok {
				nulls++
				continue
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return ctrl, &transforms.DataError{File: f.Source.Path, Column: names[k], Row: f.Rows[i], ID: idString(f, i),
					Err: fmt.Errorf("%w: control target %v", arrowio.ErrInvalidValue, v)}
			}
			vals[k] = v
		}
		switch nulls {
		case len(names):
		case 0:
			ctrl.Rows = append(ctrl.Rows, i)
			ctrl.Targets = append(ctrl.Targets, vals...)
		default:
			return ctrl, &transforms.DataError{File: f.Source.Path, Column: names[0], Row: f.Rows[i], ID: idString(f, i),
				Err: fmt.Errorf("%w: %d of the %d control columns are null: a control row needs all of %v", arrowio.ErrInvalidValue, nulls, len(names), names)}
		}
	}
	return ctrl, nil
}

// ControlFromTable matches the rows of a control table (ids and d
// coordinate columns, as a frame whose features are the coordinates) to
// the rows of f by id.
func ControlFromTable(f, table *arrowio.Frame) (Control, error) {
	var ctrl Control
	pos := make(map[string]int, f.N)
	for i := range f.N {
		pos[f.ID.ValueStr(i)] = i
	}
	seen := make(map[int]bool)
	for r := range table.N {
		id := table.ID.ValueStr(r)
		i, ok := pos[id]
		if !ok {
			return ctrl, &transforms.DataError{File: table.Source.Path, Column: table.IDName, Row: table.Rows[r], ID: id,
				Err: fmt.Errorf("%w: id %s is not in the input table", arrowio.ErrInvalidValue, id)}
		}
		if seen[i] {
			return ctrl, &transforms.DataError{File: table.Source.Path, Column: table.IDName, Row: table.Rows[r], ID: id,
				Err: fmt.Errorf("%w: id %s appears twice", arrowio.ErrInvalidValue, id)}
		}
		seen[i] = true
		ctrl.Rows = append(ctrl.Rows, i)
		ctrl.Targets = append(ctrl.Targets, table.X[r*table.D:(r+1)*table.D]...)
	}
	return ctrl, nil
}

func idString(f *arrowio.Frame, i int) string {
	if f.ID == nil {
		return ""
	}
	return f.ID.ValueStr(i)
}

// floatAt returns element i of an integer or float array and whether it is
// valid; other types are an error.
func floatAt(a arrow.Array, i int) (float64, bool, error) {
	if a.IsNull(i) {
		return 0, false, nil
	}
	switch c := a.(type) {
	case *array.Float64:
		return c.Value(i), true, nil
	case *array.Float32:
		return float64(c.Value(i)), true, nil
	case *array.Int64:
		return float64(c.Value(i)), true, nil
	case *array.Int32:
		return float64(c.Value(i)), true, nil
	case *array.Int16:
		return float64(c.Value(i)), true, nil
	case *array.Int8:
		return float64(c.Value(i)), true, nil
	case *array.Uint64:
		return float64(c.Value(i)), true, nil
	case *array.Uint32:
		return float64(c.Value(i)), true, nil
	case *array.Uint16:
		return float64(c.Value(i)), true, nil
	case *array.Uint8:
		return float64(c.Value(i)), true, nil
	}
	return 0, false, fmt.Errorf("type %s is not numeric", a.DataType())
}
