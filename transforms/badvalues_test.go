package transforms

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// Columns of large but representable values get a finite mean and scale
// (computed on x / max|x|); a column whose standard deviation exceeds the
// largest float64 is left +Inf and CheckScaling names it; ordinary columns
// are computed exactly as before (bit for bit).
func TestFitScalingLargeValues(t *testing.T) {
	const n, d = 6, 3
	x := make([]float64, n*d)
	for i := range n {
		s := float64(1 - 2*(i%2))
		x[i*d+0] = s * 1e308         // large: sums and squares overflow
		x[i*d+1] = s * 1.7e308       // n = 6: std = 1.7e308·√(6/5) > MaxFloat64
		x[i*d+2] = float64(i) * 0.37 // ordinary
	}
	s, _ := FitScaling(x, n, d, []string{"big", "huge", "plain"}, true)
	if m, sc := s.Mean[0], s.Scale[0]; m != 0 || math.Abs(sc/(1e308*math.Sqrt(6.0/5))-1) > 1e-14 {
		t.Errorf("big: mean %g scale %g, want 0 and %g", m, sc, 1e308*math.Sqrt(6.0/5))
	}
	if !math.IsInf(s.Scale[1], 1) {
		t.Errorf("huge: scale %g, want +Inf", s.Scale[1])
	}
	// plain: the original arithmetic.
	var mean, ss float64
	for i := range n {
		mean += x[i*d+2]
	}
	mean /= n
	for i := range n {
		dv := x[i*d+2] - mean
		ss += dv * dv
	}
	if s.Mean[2] != mean || s.Scale[2] != math.Sqrt(ss/(n-1)) {
		t.Errorf("plain: mean %v scale %v, want %v %v", s.Mean[2], s.Scale[2], mean, math.Sqrt(ss/(n-1)))
	}
	var de *DataError
	if err := s.CheckScaling(); !errors.As(err, &de) || de.Column != "huge" || !errors.Is(err, ErrInvalidData) {
		t.Errorf("CheckScaling: %v, want a data error naming huge", err)
	}
	// Standardised, the big column is finite even where x − mean overflows.
	s.Scale[1] = 1
	z := s.Apply(nil, x, n, d)
	for p, v := range z {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("z[%d] = %v", p, v)
		}
	}
	if got := standardized(1.7e308, -1e308, 1e308); math.Abs(got-2.7) > 1e-12 {
		t.Errorf("standardized across the overflow: %v, want 2.7", got)
	}
	// Tiny values (squares underflow) get a scale too.
	tiny := []float64{1e-320, 2e-320, 3e-320}
	ts, _ := FitScaling(tiny, 3, 1, []string{"tiny"}, true)
	if err := ts.CheckScaling(); err != nil || !(ts.Scale[0] > 0) {
		t.Errorf("tiny: scale %v, %v", ts.Scale, err)
	}
}

func testFrame(ids []string, path string) *arrowio.Frame {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(ids, nil)
	f := &arrowio.Frame{Source: arrowio.Source{Path: path}, N: len(ids), IDName: "key", ID: b.NewArray()}
	for i := range ids {
		f.Rows = append(f.Rows, int64(i))
	}
	return f
}

func TestCheckUniqueIDs(t *testing.T) {
	f := testFrame([]string{"a", "b", "c", "b"}, "t.csv")
	defer f.Release()
	err := CheckUniqueIDs(f)
	var de *DataError
	if !errors.As(err, &de) || de.Column != "key" || de.Row != 3 || de.ID != "b" || !strings.Contains(err.Error(), "also row 1") || !errors.Is(err, ErrInvalidData) {
		t.Errorf("got %v", err)
	}
	g := testFrame([]string{"a", "b"}, "t.csv")
	defer g.Release()
	if err := CheckUniqueIDs(g); err != nil {
		t.Error(err)
	}
}

func TestCheckRange(t *testing.T) {
	f := testFrame([]string{"p", "q", "r"}, "t.csv")
	defer f.Release()
	names := []string{"u", "v"}
	if err := CheckRange(f, names, []float64{1, 1e70, 2, -1e70, 3, 0}); err != nil {
		t.Errorf("range 2e70 with 3×2: %v", err)
	}
	err := CheckRange(f, names, []float64{1, 1e100, 2, -1e100, 3, 0})
	var de *DataError
	if !errors.As(err, &de) || de.Column != "v" || de.Row != 0 || de.ID != "p" || !errors.Is(err, ErrInvalidData) {
		t.Errorf("range 2e100: %v, want a data error naming v, row 0", err)
	}
	if err := CheckRange(f, names, []float64{1, 0, math.NaN(), 0, 3, 0}); !errors.As(err, &de) || de.Column != "u" || de.Row != 1 {
		t.Errorf("NaN: %v", err)
	}
}

// Placing a row whose coordinate overflows is refused, naming the row.
func TestCheckEmbedding(t *testing.T) {
	f := testFrame([]string{"p", "q"}, "t.csv")
	defer f.Release()
	if err := CheckEmbedding(f, []float64{1, 2, 3, 4}, 2); err != nil {
		t.Error(err)
	}
	var de *DataError
	if err := CheckEmbedding(f, []float64{1, 2, math.Inf(1), 4}, 2); !errors.As(err, &de) || de.Row != 1 || de.ID != "q" || de.Column != "emb_0" {
		t.Errorf("got %v", err)
	}
}
