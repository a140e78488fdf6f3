package transforms

import (
	"fmt"

	"github.com/ordinate/ordinate/arrowio"
)

// Align matches the rows of an embedding frame to the rows of an input frame
// by id (compared as text, so an int64 id matches the same number in a CSV).
// It returns, for every embedding row, the index of its input row, and the
// number of input rows that have no embedding row. Duplicate ids and
// embedding ids missing from the input are errors.
func Align(emb, in *arrowio.Frame) (inIndex []int, unmatched int, err error) {
	pos, i, _, dup := idPositions(in)
	if dup {
		return nil, 0, &arrowio.Error{File: in.Source.Path, Column: in.IDName, Row: in.Rows[i], ID: in.ID.ValueStr(i),
			Err: fmt.Errorf("%w: duplicate id; ids must be unique to match rows", arrowio.ErrInvalidValue)}
	}
	inIndex = make([]int, emb.N)
	seen := make([]bool, in.N)
	for i := range emb.N {
		id := emb.ID.ValueStr(i)
		j, ok := pos[id]
		if !ok {
			return nil, 0, &arrowio.Error{File: emb.Source.Path, Column: emb.IDName, Row: emb.Rows[i], ID: id,
				Err: fmt.Errorf("%w: id not found in the input table %s", arrowio.ErrInvalidValue, in.Source.Path)}
		}
		if seen[j] {
			return nil, 0, &arrowio.Error{File: emb.Source.Path, Column: emb.IDName, Row: emb.Rows[i], ID: id,
				Err: fmt.Errorf("%w: duplicate id in the embedding", arrowio.ErrInvalidValue)}
		}
		seen[j] = true
		inIndex[i] = j
	}
	return inIndex, in.N - emb.N, nil
}
