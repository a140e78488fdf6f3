package table

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

func frameOf(t *testing.T, rec arrow.RecordBatch, sel arrowio.Selection) *arrowio.Frame {
	t.Helper()
	r := arrowio.NewRecordsReader("memory", nil, []arrow.RecordBatch{rec})
	defer r.Release()
	f, err := arrowio.ReadFrame(context.Background(), r, sel)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Release)
	return f
}

func TestMapsRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	ids := []string{"a", "b", "c"}
	maps := [][]float64{{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9, 10, 11}}
	rec := MapsRecord(mem, []string{"x", "y"}, ids, maps, 2)
	defer rec.Release()
	if !rec.Schema().Equal(MapsSchema(2)) || rec.NumRows() != 6 {
		t.Fatalf("maps record %v, %d rows", rec.Schema(), rec.NumRows())
	}
	m, err := ReadMaps(frameOf(t, rec, MapsSelection()))
	if err != nil {
		t.Fatal(err)
	}
	if m.Dims != 2 || strings.Join(m.Aspects.Names, ",") != "x,y" || strings.Join(m.Objects.Names, ",") != "a,b,c" || m.Maps[1][5] != 11 {
		t.Errorf("read back %+v", m)
	}
	// A map that misses an object is an error.
	b := array.NewRecordBuilder(mem, MapsSchema(1))
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"x", "x", "y"}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "b", "a"}, nil)
	b.Field(2).(*array.Float64Builder).AppendValues([]float64{1, 2, 3}, nil)
	bad := b.NewRecordBatch()
	defer bad.Release()
	if _, err := ReadMaps(frameOf(t, bad, MapsSelection())); err == nil || !strings.Contains(err.Error(), `map "y" has no row for object "b"`) {
		t.Errorf("missing object: %v", err)
	}
}

func TestAspectsSphereSplit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	rec := AspectsRecord(mem, []string{"x", "y"}, []float64{0.25, 0.75}, []float64{1, 0, 0, 0, 0, 1}, 3)
	defer rec.Release()
	a, err := ReadAspects(frameOf(t, rec, AspectsSelection()))
	if err != nil {
		t.Fatal(err)
	}
	if a.K1 != 3 || a.Delta[1] != 0.75 || a.Poles[5] != 1 || a.Names[0] != "x" {
		t.Errorf("aspects %+v", a)
	}
	sph := SphereRecord(mem, []string{"a", "b"}, []float64{1, 0, 0, 1}, 2)
	defer sph.Release()
	if f := frameOf(t, sph, SphereSelection()); f.N != 2 || f.D != 2 || f.X[3] != 1 {
		t.Errorf("sphere frame %d×%d %v", f.N, f.D, f.X)
	}

	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{7, 8}, nil)
	idArr := ib.NewArray()
	ib.Release()
	defer idArr.Release()
	ids := NewIDColumn(idArr)
	split := SplitRecord(mem, SplitSchema(ids.Type()), ids, []string{"x", "y"}, [][]bool{{true, false}, {false, true}})
	defer split.Release()
	s, err := ReadSplit(frameOf(t, split, SplitSelection()))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Observed[0]["7"] || s.Observed[0]["8"] || s.Observed[1]["7"] || !s.Observed[1]["8"] {
		t.Errorf("split %+v", s.Observed)
	}

	tt := &TripletTable{}
	tt.Append(0, 1, 0, 1)
	trip := TripletsRecord(mem, TripletsSchema(ids.Type(), true), ids, []string{"x", "y"}, tt, []bool{false})
	defer trip.Release()
	if trip.Column(0).ValueStr(0) != "7" || trip.Column(1).ValueStr(0) != "8" || trip.Column(3).ValueStr(0) != "y" || trip.Column(4).ValueStr(0) != SplitHidden {
		t.Errorf("triplet record %v", trip)
	}
}

func TestTripletColumnsText(t *testing.T) {
	var c TripletColumns
	if err := c.UnmarshalText([]byte("a, b,c")); err != nil || c.I != "a" || c.J != "b" || c.K != "c" || c.Aspect != "" {
		t.Errorf("three names: %+v, %v", c, err)
	}
	if err := c.UnmarshalText([]byte("a,b")); err == nil {
		t.Error("two names accepted")
	}
	if b, _ := DefaultTripletColumns.MarshalText(); string(b) != "i,j,k,aspect" {
		t.Errorf("default %q", b)
	}
}
