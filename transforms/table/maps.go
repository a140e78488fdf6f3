package table

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// float64Fields returns non-null float64 fields prefix0 … prefix{n−1}.
func float64Fields(prefix string, n int) []arrow.Field {
	fields := make([]arrow.Field, n)
	for j := range fields {
		fields[j] = arrow.Field{Name: fmt.Sprintf("%s%d", prefix, j), Type: arrow.PrimitiveTypes.Float64}
	}
	return fields
}

// MapsSchema is the schema of a maps table (kind Maps; SCORE, t-STE, SOE):
// aspect, id (text), emb_0 … emb_{d−1}, one row per aspect and object.
func MapsSchema(d int) *arrow.Schema {
	fields := append([]arrow.Field{{Name: "aspect", Type: arrow.BinaryTypes.String}, {Name: "id", Type: arrow.BinaryTypes.String}},
		float64Fields("emb_", d)...)
	return arrow.NewSchema(fields, nil)
}

// MapsRecord builds a maps table: maps[t] is the len(ids)×d row-major map
// of aspect aspects[t]. Rows go aspect by aspect, objects in order.
func MapsRecord(mem memory.Allocator, aspects, ids []string, maps [][]float64, d int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, MapsSchema(d))
	defer b.Release()
	for t, name := range aspects {
		if len(maps[t]) != len(ids)*d {
			panic(fmt.Sprintf("table: MapsRecord: map %d has %d values for %d objects × %d dims", t, len(maps[t]), len(ids), d))
		}
		for i, id := range ids {
			b.Field(0).(*array.StringBuilder).Append(name)
			b.Field(1).(*array.StringBuilder).Append(id)
			for j := range d {
				b.Field(2 + j).(*array.Float64Builder).Append(maps[t][i*d+j])
			}
		}
	}
	return b.NewRecordBatch()
}

// MapsSelection selects the columns of a maps table for ReadMaps.
func MapsSelection() arrowio.Selection {
	return arrowio.Selection{ID: "id", Features: []string{"emb_*"}, Keep: []string{"aspect"}}
}

// MapsTable is a maps table read back into per-aspect maps over one set of
// objects.
type MapsTable struct {
	Objects *Indexer    // object ids, fixed after reading
	Aspects *Indexer    // aspect names
	Maps    [][]float64 // Maps[t] is Objects.Len()×Dims, row-major
	Dims    int
}

// ReadMaps reads a maps table from a frame read with MapsSelection. Every
// aspect must place every object exactly once.
func ReadMaps(f *arrowio.Frame) (*MapsTable, error) {
	m := &MapsTable{Objects: NewIndexer(), Aspects: NewIndexer(), Dims: f.D}
	obj, asp := make([]int32, f.N), make([]int32, f.N)
	for r := range f.N {
		obj[r], asp[r] = m.Objects.Index(f.ID, r), m.Aspects.Index(f.Keep[0], r)
		if asp[r] < 0 {
			return nil, &arrowio.Error{File: f.Source.Path, Column: "aspect", Row: f.Rows[r], Err: fmt.Errorf("%w: null aspect", arrowio.ErrInvalidValue)}
		}
	}
	n, d := m.Objects.Len(), m.Dims
	m.Maps = make([][]float64, m.Aspects.Len())
	seen := make([][]bool, len(m.Maps))
	for a := range m.Maps {
		m.Maps[a], seen[a] = make([]float64, n*d), make([]bool, n)
	}
	for r := range f.N {
		a, i := asp[r], obj[r]
		if seen[a][i] {
			return nil, &arrowio.Error{File: f.Source.Path, Row: f.Rows[r], ID: m.Objects.Names[i],
				Err: fmt.Errorf("%w: object appears twice in map %q", arrowio.ErrInvalidValue, m.Aspects.Names[a])}
		}
		seen[a][i] = true
		copy(m.Maps[a][int(i)*d:(int(i)+1)*d], f.X[r*d:(r+1)*d])
	}
	for a := range seen {
		for i, ok := range seen[a] {
			if !ok {
				return nil, &arrowio.Error{File: f.Source.Path, Row: -1, Err: fmt.Errorf("%w: map %q has no row for object %q",
					arrowio.ErrInvalidValue, m.Aspects.Names[a], m.Objects.Names[i])}
			}
		}
	}
	m.Objects.Fixed = true
	return m, nil
}

// AspectsSchema is the schema of SCORE's aspects table (kind Aspects):
// aspect, delta, pole_0 … pole_{k1−1} (the pole on S^K ⊂ R^{K+1}, k1 = K+1).
func AspectsSchema(k1 int) *arrow.Schema {
	fields := append([]arrow.Field{{Name: "aspect", Type: arrow.BinaryTypes.String}, {Name: "delta", Type: arrow.PrimitiveTypes.Float64}},
		float64Fields("pole_", k1)...)
	return arrow.NewSchema(fields, nil)
}

// AspectsRecord builds an aspects table: aspect names[t] has weight
// delta[t] and pole poles[t*k1 : (t+1)*k1].
func AspectsRecord(mem memory.Allocator, names []string, delta, poles []float64, k1 int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, AspectsSchema(k1))
	defer b.Release()
	for t, name := range names {
		b.Field(0).(*array.StringBuilder).Append(name)
		b.Field(1).(*array.Float64Builder).Append(delta[t])
		for j := range k1 {
			b.Field(2 + j).(*array.Float64Builder).Append(poles[t*k1+j])
		}
	}
	return b.NewRecordBatch()
}

// AspectsSelection selects the columns of an aspects table: the aspect as
// id, delta and the pole as features (delta first).
func AspectsSelection() arrowio.Selection {
	return arrowio.Selection{ID: "aspect", Features: []string{"delta", "pole_*"}, Keep: []string{}}
}

// AspectsTable is an aspects table read back.
type AspectsTable struct {
	Names []string
	Delta []float64
	Poles []float64 // len(Names)×K1
	K1    int
}

// ReadAspects reads an aspects table from a frame read with AspectsSelection.
func ReadAspects(f *arrowio.Frame) (*AspectsTable, error) {
	if f.D < 2 || f.FeatureNames[0] != "delta" {
		return nil, &arrowio.Error{File: f.Source.Path, Row: -1, Err: fmt.Errorf("%w: an aspects table needs the columns aspect, delta, pole_*", arrowio.ErrMissingColumn)}
	}
	a := &AspectsTable{K1: f.D - 1}
	for r := range f.N {
		a.Names = append(a.Names, f.ID.ValueStr(r))
		a.Delta = append(a.Delta, f.X[r*f.D])
		a.Poles = append(a.Poles, f.X[r*f.D+1:(r+1)*f.D]...)
	}
	return a, nil
}

// SphereSchema is the schema of SCORE's sphere table (kind Sphere): the
// objects' coordinates on S^K ⊂ R^{K+1}: id (text), y_0 … y_{k1−1}.
func SphereSchema(k1 int) *arrow.Schema {
	fields := append([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}, float64Fields("y_", k1)...)
	return arrow.NewSchema(fields, nil)
}

// SphereRecord builds a sphere table: object ids[i] sits at y[i*k1 : (i+1)*k1].
func SphereRecord(mem memory.Allocator, ids []string, y []float64, k1 int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, SphereSchema(k1))
	defer b.Release()
	for i, id := range ids {
		b.Field(0).(*array.StringBuilder).Append(id)
		for j := range k1 {
			b.Field(1 + j).(*array.Float64Builder).Append(y[i*k1+j])
		}
	}
	return b.NewRecordBatch()
}

// SphereSelection selects the columns of a sphere table: id and y_*.
func SphereSelection() arrowio.Selection {
	return arrowio.Selection{ID: "id", Features: []string{"y_*"}, Keep: []string{}}
}
