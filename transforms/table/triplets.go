package table

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// ErrTriplet marks a malformed triplet (an invalid-data error).
var ErrTriplet = arrowio.NewSentinel(arrowio.ErrInvalidData, "bad triplet")

// TripletTable is a columnar set of triplets over object and aspect
// indices: triplet r is ⟨I[r], J[r], K[r]⟩ under aspect Aspect[r] (J is more
// similar to I than to K). All four columns have the same length. Package
// triplets calls it triplets.Table.
type TripletTable struct {
	I, J, K, Aspect []int32
}

// Len is the number of triplets.
func (t *TripletTable) Len() int { return len(t.I) }

// Append adds one triplet.
func (t *TripletTable) Append(i, j, k, aspect int32) {
	t.I = append(t.I, i)
	t.J = append(t.J, j)
	t.K = append(t.K, k)
	t.Aspect = append(t.Aspect, aspect)
}

// Reset empties the table, keeping its storage.
func (t *TripletTable) Reset() {
	t.I, t.J, t.K, t.Aspect = t.I[:0], t.J[:0], t.K[:0], t.Aspect[:0]
}

// Validate checks that every triplet names three distinct objects in
// [0, objects) and an aspect in [0, aspects). It returns the first bad row.
func (t *TripletTable) Validate(objects, aspects int) (row int, err error) {
	if len(t.J) != len(t.I) || len(t.K) != len(t.I) || len(t.Aspect) != len(t.I) {
		panic("table: TripletTable: columns of different lengths")
	}
	for r := range t.I {
		i, j, k, a := t.I[r], t.J[r], t.K[r], t.Aspect[r]
		switch {
		case i < 0 || j < 0 || k < 0 || int(i) >= objects || int(j) >= objects || int(k) >= objects:
			return r, fmt.Errorf("%w: object index out of range [0, %d)", ErrTriplet, objects)
		case a < 0 || int(a) >= aspects:
			return r, fmt.Errorf("%w: aspect index %d out of range [0, %d)", ErrTriplet, a, aspects)
		case i == j || j == k || i == k:
			return r, fmt.Errorf("%w: i, j and k must be three different objects (%d, %d, %d)", ErrTriplet, i, j, k)
		}
	}
	return -1, nil
}

// Indexer gives dense 0-based indices to values (ids, aspect names) in order
// of first appearance, comparing them as text so that an int64 id and the
// same number read from a CSV meet.
type Indexer struct {
	pos   map[string]int32
	Names []string // Names[k] is the text of index k
	Fixed bool     // when set, unknown values get −1 instead of a new index
}

// NewIndexer returns an empty indexer.
func NewIndexer() *Indexer { return &Indexer{pos: map[string]int32{}} }

// Index returns the index of row r of a, or −1 for a null (or an unknown
// value of a fixed indexer).
func (x *Indexer) Index(a arrow.Array, r int) int32 {
	if a.IsNull(r) {
		return -1
	}
	var key string
	switch v := a.(type) {
	case *array.String:
		key = v.Value(r)
	case *array.Int64:
		key = strconv.FormatInt(v.Value(r), 10)
	case *array.Int32:
		key = strconv.FormatInt(int64(v.Value(r)), 10)
	default:
		key = a.ValueStr(r)
	}
	if k, ok := x.pos[key]; ok {
		return k
	}
	if x.Fixed {
		return -1
	}
	return x.Add(strings.Clone(key)) // v.Value points into the Arrow buffer
}

// Add indexes a value given as text (an --objects id, say) and returns its
// index.
func (x *Indexer) Add(name string) int32 {
	if k, ok := x.pos[name]; ok {
		return k
	}
	k := int32(len(x.Names))
	x.pos[name] = k
	x.Names = append(x.Names, name)
	return k
}

// Len is the number of distinct values seen.
func (x *Indexer) Len() int { return len(x.Names) }

// TripletInput is a triplet table read into indices.
type TripletInput struct {
	Table   *TripletTable
	Objects *Indexer // object ids
	Aspects *Indexer // aspect names ("all" when the table has no aspect column)
	Train   []bool   // per triplet: split = "train"; nil without a split column
	Dropped int64
}

// TripletColumns names the columns of a triplet table; empty names take
// the defaults i, j, k, aspect, split. Aspect and split are optional. As an
// option it is the comma list "i,j,k" or "i,j,k,aspect".
type TripletColumns struct {
	I, J, K, Aspect, Split string
}

// DefaultTripletColumns are the column names triplets writes.
var DefaultTripletColumns = TripletColumns{I: "i", J: "j", K: "k", Aspect: "aspect"}

// MarshalText gives the names of i, j, k and (when set) aspect as a comma list.
func (c TripletColumns) MarshalText() ([]byte, error) {
	names := []string{c.I, c.J, c.K}
	if c.Aspect != "" {
		names = append(names, c.Aspect)
	}
	return []byte(strings.Join(names, ",")), nil
}

// UnmarshalText parses three or four names: i, j, k and (optional) aspect.
func (c *TripletColumns) UnmarshalText(b []byte) error {
	var names []string
	for _, p := range strings.Split(string(b), ",") {
		if p = strings.TrimSpace(p); p != "" {
			names = append(names, p)
		}
	}
	if len(names) < 3 || len(names) > 4 {
		return fmt.Errorf("%q: want three or four names (i, j, k and aspect)", string(b))
	}
	*c = TripletColumns{I: names[0], J: names[1], K: names[2], Split: c.Split}
	if len(names) == 4 {
		c.Aspect = names[3]
	}
	return nil
}

func (c TripletColumns) names() [5]string {
	out := [5]string{"i", "j", "k", "aspect", "split"}
	for n, v := range []string{c.I, c.J, c.K, c.Aspect, c.Split} {
		if v != "" {
			out[n] = v
		}
	}
	return out
}

// ReadTriplets reads a triplet table (columns i, j, k, and optional aspect
// and split, named by cols) from r. objects, when not nil, is the fixed set of known ids
// (from --objects); otherwise ids are indexed in order of first appearance.
// A null, an unknown id, or a triplet that repeats an object is an error
// naming the row, or, with InvalidDrop, dropped and counted.
func ReadTriplets(ctx context.Context, r arrowio.Reader, objects *Indexer, onInvalid arrowio.OnInvalid, cols TripletColumns) (*TripletInput, error) {
	if objects == nil {
		objects = NewIndexer()
	}
	in := &TripletInput{Table: &TripletTable{}, Objects: objects, Aspects: NewIndexer()}
	schema := r.Schema()
	names := cols.names()
	col := func(name string, required bool) (int, error) {
		idx := schema.FieldIndices(name)
		if len(idx) == 0 {
			if required {
				return -1, &arrowio.Error{File: r.Source().Path, Column: name, Row: -1,
					Err: fmt.Errorf("%w: a triplet table needs the columns %s, %s, %s (and may have %s, %s)",
						arrowio.ErrMissingColumn, names[0], names[1], names[2], names[3], names[4])}
			}
			return -1, nil
		}
		return idx[0], nil
	}
	var idx [5]int
	for c, name := range names {
		var err error
		if idx[c], err = col(name, c < 3); err != nil {
			return nil, err
		}
	}
	for r.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec := r.RecordBatch()
		file, first := r.Position()
		var split *array.String
		if idx[4] >= 0 {
			s, ok := rec.Column(idx[4]).(*array.String)
			if !ok {
				return nil, &arrowio.Error{File: file, Column: names[4], Row: -1, Err: fmt.Errorf("%w: the split column must be text (train or hidden)", arrowio.ErrColumnType)}
			}
			split = s
		}
		for row := range int(rec.NumRows()) {
			var ids [3]int32
			bad := ""
			badCol := ""
			for c := range 3 {
				a := rec.Column(idx[c])
				ids[c] = objects.Index(a, row)
				if ids[c] < 0 {
					badCol = schema.Field(idx[c]).Name
					if a.IsNull(row) {
						bad = "null id"
					} else {
						bad = fmt.Sprintf("id %s is not in the objects table", a.ValueStr(row))
					}
					break
				}
			}
			if bad == "" && (ids[0] == ids[1] || ids[1] == ids[2] || ids[0] == ids[2]) {
				bad, badCol = "i, j and k must be three different objects", names[0]
			}
			aspect := int32(0)
			if bad == "" {
				if idx[3] >= 0 {
					aspect = in.Aspects.Index(rec.Column(idx[3]), row)
					if aspect < 0 {
						bad, badCol = "null aspect", names[3]
					}
				} else if in.Aspects.Len() == 0 {
					in.Aspects.Add("all")
				}
			}
			if bad != "" {
				if onInvalid == arrowio.InvalidDrop {
					in.Dropped++
					continue
				}
				return nil, &arrowio.Error{File: file, Column: badCol, Row: first + int64(row), Err: fmt.Errorf("%w: %s", arrowio.ErrInvalidValue, bad)}
			}
			in.Table.Append(ids[0], ids[1], ids[2], aspect)
			if split != nil {
				in.Train = append(in.Train, !split.IsNull(row) && split.Value(row) == SplitTrain)
			}
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if in.Table.Len() == 0 {
		return nil, &arrowio.Error{File: r.Source().Path, Row: -1, Err: fmt.Errorf("%w: no triplets", arrowio.ErrEmpty)}
	}
	return in, nil
}

// Subset returns the triplets whose keep flag is set.
func Subset(t *TripletTable, keep []bool, want bool) *TripletTable {
	out := &TripletTable{}
	for r := range t.Len() {
		if keep[r] == want {
			out.Append(t.I[r], t.J[r], t.K[r], t.Aspect[r])
		}
	}
	return out
}

// TripletsSchema is the schema of a triplet table (kind Triplets) as the
// triplets stage writes it: i, j, k (object ids of type idType), aspect,
// and with a split the column split ("train" or "hidden").
func TripletsSchema(idType arrow.DataType, split bool) *arrow.Schema {
	fields := []arrow.Field{{Name: "i", Type: idType}, {Name: "j", Type: idType}, {Name: "k", Type: idType},
		{Name: "aspect", Type: arrow.BinaryTypes.String}}
	if split {
		fields = append(fields, arrow.Field{Name: "split", Type: arrow.BinaryTypes.String})
	}
	return arrow.NewSchema(fields, nil)
}

// Split labels of a triplet table's split column.
const (
	SplitTrain  = "train"
	SplitHidden = "hidden"
)

// TripletsRecord builds one batch of a triplet table of schema (from
// TripletsSchema) from t: object indices are rows of ids, aspect indices
// index aspects. With a split schema, train[r] says whether triplet r is
// train (all three objects observed) or hidden.
func TripletsRecord(mem memory.Allocator, schema *arrow.Schema, ids IDColumn, aspects []string, t *TripletTable, train []bool) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	split := schema.NumFields() == 5
	if split && len(train) != t.Len() {
		panic(fmt.Sprintf("table: TripletsRecord: %d split flags for %d triplets", len(train), t.Len()))
	}
	for r := range t.Len() {
		ids.Append(b.Field(0), int(t.I[r]))
		ids.Append(b.Field(1), int(t.J[r]))
		ids.Append(b.Field(2), int(t.K[r]))
		b.Field(3).(*array.StringBuilder).Append(aspects[t.Aspect[r]])
		if split {
			if train[r] {
				b.Field(4).(*array.StringBuilder).Append(SplitTrain)
			} else {
				b.Field(4).(*array.StringBuilder).Append(SplitHidden)
			}
		}
	}
	return b.NewRecordBatch()
}
