package transforms

import (
	"fmt"
	"math"

	"github.com/ordinate/ordinate/arrowio"
)

// DistanceMatrix builds the n×n row-major matrix of a long distance table
// (columns i, j, distance as DESIGN.md describes; ids compared as text) over
// the ids of the given frame, in the frame's row order. A table with only
// the pairs i < j (--upper) is mirrored. Diagonal entries may be absent (they
// are 0). A missing pair, an unknown id, or two different values for one
// pair are errors.
func DistanceMatrix(d *arrowio.Frame, ids *arrowio.Frame) ([]float64, error) {
	n := ids.N
	pos := make(map[string]int, n)
	for r := range n {
		pos[ids.ID.ValueStr(r)] = r
	}
	if len(d.KeepFields) != 1 || d.D != 1 {
		panic("transforms: DistanceMatrix wants a frame with id i, feature distance and kept column j")
	}
	dist := make([]float64, n*n)
	given := make([]bool, n*n)
	for k := range dist {
		dist[k] = math.NaN()
	}
	for r := range n {
		dist[r*n+r] = 0
	}
	jcol := d.Keep[0]
	for r := range d.N {
		iv, jv := d.ID.ValueStr(r), jcol.ValueStr(r)
		a, okA := pos[iv]
		b, okB := pos[jv]
		if !okA || !okB {
			id, col := iv, d.IDName
			if okA {
				id, col = jv, d.KeepFields[0].Name
			}
			return nil, &arrowio.Error{File: d.Source.Path, Column: col, Row: d.Rows[r], ID: id,
				Err: fmt.Errorf("%w: id is not a row of %s", arrowio.ErrInvalidValue, ids.Source.Path)}
		}
		v := d.X[r]
		if v < 0 {
			return nil, &arrowio.Error{File: d.Source.Path, Column: d.FeatureNames[0], Row: d.Rows[r],
				Err: fmt.Errorf("%w: negative distance %g", arrowio.ErrInvalidValue, v)}
		}
		k := a*n + b
		if given[k] && dist[k] != v {
			return nil, &arrowio.Error{File: d.Source.Path, Column: d.FeatureNames[0], Row: d.Rows[r],
				Err: fmt.Errorf("%w: pair (%s, %s) given twice with different distances", arrowio.ErrInvalidValue, iv, jv)}
		}
		dist[k], given[k] = v, true
		// The mirror is only a default: an ordered table may give both
		// directions, and they may differ.
		if m := b*n + a; !given[m] {
			dist[m] = v
		}
	}
	for k, v := range dist {
		if math.IsNaN(v) {
			return nil, &arrowio.Error{File: d.Source.Path, Row: -1,
				Err: fmt.Errorf("%w: no distance for the pair (%s, %s)", arrowio.ErrInvalidValue, ids.ID.ValueStr(k/n), ids.ID.ValueStr(k%n))}
		}
	}
	return dist, nil
}
