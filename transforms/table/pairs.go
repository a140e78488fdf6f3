package table

import (
	"fmt"
	"math"

	"github.com/ordinate/ordinate/arrowio"
)

// DistanceMatrix builds the n×n row-major matrix of a long distance table
// (columns i, j, distance as DESIGN.md describes; ids compared as text) over
// the ids of the given frame, in the frame's row order. A table with only
// the pairs i < j (--upper) is mirrored. Diagonal entries may be absent (they
// are 0). A missing pair, an unknown id, a negative distance, or two
// different values for one ordered pair are errors.
func DistanceMatrix(d *arrowio.Frame, ids *arrowio.Frame) ([]float64, error) {
	return pairMatrix(d, ids, true)
}

// SimilarityMatrix builds the n×n row-major matrix of a long similarity
// table (columns i, j, s) like DistanceMatrix, except that values may be
// negative and the diagonal s(i, i) must be given: kernel distances need it.
// Both directions of a pair may be given and differ; the caller symmetrises.
func SimilarityMatrix(d *arrowio.Frame, ids *arrowio.Frame) ([]float64, error) {
	return pairMatrix(d, ids, false)
}

func pairMatrix(d *arrowio.Frame, ids *arrowio.Frame, distances bool) ([]float64, error) {
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
	if distances {
		for r := range n {
			dist[r*n+r] = 0
		}
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
		if distances && v < 0 {
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
				Err: fmt.Errorf("%w: no value for the pair (%s, %s)", arrowio.ErrInvalidValue, ids.ID.ValueStr(k/n), ids.ID.ValueStr(k%n))}
		}
	}
	return dist, nil
}

// NeighborLists turns a long table of each row's nearest neighbours (the
// same number k of pairs for every id, as fisher --neighbors writes) into
// n×k index and distance lists over the ids of the given frame.
func NeighborLists(d *arrowio.Frame, ids *arrowio.Frame) (idx []int32, dist []float64, k int, err error) {
	n := ids.N
	if n == 0 || d.N%n != 0 {
		return nil, nil, 0, &arrowio.Error{File: d.Source.Path, Row: -1,
			Err: fmt.Errorf("%w: %d pairs for %d ids: neither all pairs nor the same number of neighbours per id", arrowio.ErrInvalidValue, d.N, n)}
	}
	k = d.N / n
	pos := make(map[string]int, n)
	for r := range n {
		pos[ids.ID.ValueStr(r)] = r
	}
	idx = make([]int32, n*k)
	dist = make([]float64, n*k)
	fill := make([]int, n)
	jcol := d.Keep[0]
	for r := range d.N {
		iv, jv := d.ID.ValueStr(r), jcol.ValueStr(r)
		a, okA := pos[iv]
		b, okB := pos[jv]
		switch {
		case !okA || !okB:
			id := iv
			if okA {
				id = jv
			}
			return nil, nil, 0, &arrowio.Error{File: d.Source.Path, Row: d.Rows[r], ID: id,
				Err: fmt.Errorf("%w: id is not a row of %s", arrowio.ErrInvalidValue, ids.Source.Path)}
		case a == b:
			return nil, nil, 0, &arrowio.Error{File: d.Source.Path, Row: d.Rows[r], ID: iv,
				Err: fmt.Errorf("%w: a row cannot be its own neighbour", arrowio.ErrInvalidValue)}
		case fill[a] == k:
			return nil, nil, 0, &arrowio.Error{File: d.Source.Path, Row: d.Rows[r], ID: iv,
				Err: fmt.Errorf("%w: id has more than %d neighbours; every id needs the same number", arrowio.ErrInvalidValue, k)}
		case d.X[r] < 0:
			return nil, nil, 0, &arrowio.Error{File: d.Source.Path, Column: d.FeatureNames[0], Row: d.Rows[r],
				Err: fmt.Errorf("%w: negative distance %g", arrowio.ErrInvalidValue, d.X[r])}
		}
		idx[a*k+fill[a]] = int32(b)
		dist[a*k+fill[a]] = d.X[r]
		fill[a]++
	}
	return idx, dist, k, nil
}
