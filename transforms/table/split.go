package table

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// SplitSchema is the schema of a split table (kind Split): per aspect and
// object, whether the object was observed (its triplets may be train) or
// hidden: columns aspect, id (of type idType), observed.
func SplitSchema(idType arrow.DataType) *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{{Name: "aspect", Type: arrow.BinaryTypes.String}, {Name: "id", Type: idType},
		{Name: "observed", Type: arrow.FixedWidthTypes.Boolean}}, nil)
}

// SplitRecord builds the split table of schema (from SplitSchema):
// observed[t][i] says whether object i (row i of ids) is observed under
// aspect t (named aspects[t]). Rows go aspect by aspect, objects in order.
func SplitRecord(mem memory.Allocator, schema *arrow.Schema, ids IDColumn, aspects []string, observed [][]bool) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for t, name := range aspects {
		for i, obs := range observed[t] {
			b.Field(0).(*array.StringBuilder).Append(name)
			ids.Append(b.Field(1), i)
			b.Field(2).(*array.BooleanBuilder).Append(obs)
		}
	}
	return b.NewRecordBatch()
}

// SplitSelection selects the columns of a split table for ReadSplit.
func SplitSelection() arrowio.Selection {
	return arrowio.Selection{ID: "id", NoFeatures: true, Keep: []string{"aspect", "observed"}}
}

// SplitTable is a split table read back: per aspect, the observed state of
// each object id (ids compared as text).
type SplitTable struct {
	Aspects  *Indexer
	Observed []map[string]bool // Observed[t][id]
}

// ReadSplit reads a split table from a frame read with SplitSelection.
func ReadSplit(f *arrowio.Frame) (*SplitTable, error) {
	var asp arrow.Array
	var obs *array.Boolean
	for c, kf := range f.KeepFields {
		switch kf.Name {
		case "aspect":
			asp = f.Keep[c]
		case "observed":
			b, ok := f.Keep[c].(*array.Boolean)
			if !ok {
				return nil, &arrowio.Error{File: f.Source.Path, Column: "observed", Row: -1, Err: fmt.Errorf("%w: want a boolean column", arrowio.ErrColumnType)}
			}
			obs = b
		}
	}
	if asp == nil || obs == nil {
		return nil, &arrowio.Error{File: f.Source.Path, Row: -1, Err: fmt.Errorf("%w: a split table needs the columns aspect, id, observed", arrowio.ErrMissingColumn)}
	}
	s := &SplitTable{Aspects: NewIndexer()}
	for r := range f.N {
		t := s.Aspects.Index(asp, r)
		if t < 0 || obs.IsNull(r) {
			return nil, &arrowio.Error{File: f.Source.Path, Row: f.Rows[r], Err: fmt.Errorf("%w: null aspect or observed", arrowio.ErrInvalidValue)}
		}
		if int(t) == len(s.Observed) {
			s.Observed = append(s.Observed, map[string]bool{})
		}
		s.Observed[t][f.ID.ValueStr(r)] = obs.Value(r)
	}
	return s, nil
}
