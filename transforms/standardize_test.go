package transforms

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func TestFitScaling(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, d := 50, 4
	x := make([]float64, n*d)
	for i := range n {
		for j := range d {
			x[i*d+j] = rng.NormFloat64()*float64(j+1) + float64(10*j)
		}
		x[i*d+2] = 7 // constant column
	}
	names := []string{"a", "b", "c", "d"}
	s, warns := FitScaling(x, n, d, names, true)
	if strings.Join(s.Names, ",") != "a,b,d" || len(warns) != 1 || !strings.Contains(warns[0], `"c"`) {
		t.Fatalf("kept %v with warnings %v, want a,b,d and a warning naming c", s.Names, warns)
	}
	col := make([]float64, n)
	for k, j := range s.Cols {
		for i := range n {
			col[i] = x[i*d+j]
		}
		mean, std := stat.MeanStdDev(col, nil) // sample std, N−1
		if math.Abs(s.Mean[k]-mean) > 1e-12 || math.Abs(s.Scale[k]-std) > 1e-12 {
			t.Errorf("column %s: mean %v std %v, want %v %v", names[j], s.Mean[k], s.Scale[k], mean, std)
		}
	}
	z := s.Apply(nil, x, n, d)
	for k := range s.Cols {
		for i := range n {
			col[i] = z[i*len(s.Cols)+k]
		}
		mean, std := stat.MeanStdDev(col, nil)
		if math.Abs(mean) > 1e-12 || math.Abs(std-1) > 1e-12 {
			t.Errorf("standardised column %d: mean %v std %v", k, mean, std)
		}
	}

	// Without standardisation the constant column is dropped all the same.
	off, warns := FitScaling(x, n, d, names, false)
	if strings.Join(off.Names, ",") != "a,b,d" || len(warns) != 1 || off.Mean[1] != 0 || off.Scale[1] != 1 {
		t.Errorf("standardize=false: %+v, %v", off, warns)
	}
	raw := off.Select(nil, x, n, d)
	if raw[0] != x[0] || raw[2] != x[3] || raw[3] != x[4] {
		t.Errorf("Select: %v from %v", raw[:4], x[:5])
	}
}
