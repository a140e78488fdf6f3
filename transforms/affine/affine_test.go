package affine

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// TestAffineTransform checks the fused one-pass transform against the
// definition y = ((x − mean) ⊘ scale − origin)·Axes evaluated step by step.
func TestAffineTransform(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name string
		n, D int
		d    int
	}{{"2d", 17, 5, 2}, {"2d, one feature", 3, 1, 2}, {"1d", 4, 3, 1}, {"3d", 6, 7, 3}, {"square", 9, 4, 4},
		{"2d, blocks of columns", 2*columnBlock + 77, 6, 2}, {"3d, blocks of columns", columnBlock + 1, 4, 3}, {"no rows", 0, 3, 2}} {
		s := &transforms.Scaling{}
		origin := make([]float64, tc.D)
		for f := range tc.D {
			s.Names = append(s.Names, string(rune('a'+f)))
			s.Cols = append(s.Cols, f)
			s.Mean = append(s.Mean, rng.NormFloat64()*3)
			s.Scale = append(s.Scale, 0.5+rng.Float64())
			origin[f] = rng.NormFloat64()
		}
		axes := mat.NewDense(tc.D, tc.d, nil)
		for f := range tc.D {
			for j := range tc.d {
				axes.Set(f, j, rng.NormFloat64())
			}
		}
		m := New("test", s, "", true, origin, axes, nil)
		x := make([]float64, tc.n*tc.D)
		for i := range x {
			x[i] = rng.NormFloat64() * 10
		}
		got := make([]float64, tc.n*tc.d)
		if err := m.Transform(ctx, got, x, tc.n, 0); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		// The general loop, the same operations in the same order: the
		// two-dimensional path must give its bits.
		for i := range tc.n {
			for j := range tc.d {
				g := -m.b[j]
				for f := range tc.D {
					g += x[i*tc.D+f] * m.w[f*tc.d+j]
				}
				if got[i*tc.d+j] != g {
					t.Fatalf("%s: y[%d,%d] = %v, the general loop gives %v", tc.name, i, j, got[i*tc.d+j], g)
				}
			}
		}
		// Columns (longer than n, as a batch's may be): the same bits.
		cols := make([][]float64, tc.D)
		for f := range cols {
			cols[f] = make([]float64, tc.n+3)
			for i := range tc.n {
				cols[f][i] = x[i*tc.D+f]
			}
		}
		byCols := make([]float64, tc.n*tc.d)
		if err := m.TransformColumns(ctx, byCols, cols, tc.n, 0); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for k := range byCols {
			if byCols[k] != got[k] {
				t.Fatalf("%s: TransformColumns y[%d,%d] = %v, Transform %v", tc.name, k/tc.d, k%tc.d, byCols[k], got[k])
			}
		}
		for i := range tc.n {
			for j := range tc.d {
				var want float64
				for f := range tc.D {
					want += ((x[i*tc.D+f]-s.Mean[f])/s.Scale[f] - origin[f]) * axes.At(f, j)
				}
				if g := got[i*tc.d+j]; math.Abs(g-want) > 1e-10*math.Max(1, math.Abs(want)) {
					t.Errorf("%s: y[%d,%d] = %v, want %v", tc.name, i, j, g, want)
				}
			}
		}
	}
}

// testModel is a 2-D affine model of three features, as bvp writes one.
func testModel() *Model {
	s := &transforms.Scaling{Names: []string{"x1", "x2", "x3"}, Cols: []int{0, 1, 2}, Mean: []float64{1, 2, 3}, Scale: []float64{0.5, 2, 4}}
	axes := mat.NewDense(3, 2, []float64{0.6, 0, 0, 1, 0.8, 0})
	return New("bvp", s, "", true, []float64{0.1, -0.2, 0.3}, axes, map[string]any{"solver": "svd"})
}

// transform is m's transform of the n rows of x.
func transform(t *testing.T, m transforms.Model, x []float64, n int) []float64 {
	t.Helper()
	y := make([]float64, n*m.Header().Dims)
	if err := m.Transform(context.Background(), y, x, n, 0); err != nil {
		t.Fatal(err)
	}
	return y
}

// TestModelRoundTrip writes an affine model, reads it back (with the
// kind this package registers) and wants the same header, provenance and
// bits.
func TestModelRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.parquet")
	m := testModel()
	if err := transforms.WriteModelFile(ctx, path, m, &arrowio.Provenance{Tool: "ordinate", Stage: m.Header().Stage, Seed: 9}); err != nil {
		t.Fatal(err)
	}
	got, prov, err := transforms.ReadModelFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got.(*Model); !ok {
		t.Fatalf("loaded a %T, want *affine.Model", got)
	}
	if prov == nil || prov.Seed != 9 || prov.Stage != "bvp" {
		t.Errorf("provenance not kept: %+v", prov)
	}
	h := got.Header()
	if h.Kind != Kind || h.Stage != "bvp" || h.Dims != 2 || h.Version != transforms.ModelVersion || !h.Standardized || h.Params["solver"] != "svd" {
		t.Errorf("header = %+v", h)
	}
	x := []float64{1, 2, 3, 4, 5, 6, -1, 0, 1e3}
	want := transform(t, m, x, 3)
	have := transform(t, got, x, 3)
	for i := range want {
		if want[i] != have[i] {
			t.Errorf("loaded model gives y[%d] = %v, saved model %v", i, have[i], want[i])
		}
	}
}

// A model with a non-finite value is refused (Check, and WriteModel) and
// never written; nothing is left behind.
func TestWriteModelRefusesNonFinite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for name, spoil := range map[string]func(m *Model){
		"scale":  func(m *Model) { m.Scale[1] = math.Inf(1) },
		"mean":   func(m *Model) { m.Mean[0] = math.NaN() },
		"origin": func(m *Model) { m.Origin[2] = math.NaN() },
		"axis":   func(m *Model) { m.Axes.Set(2, 1, math.Inf(-1)) },
	} {
		m := testModel()
		spoil(m)
		if err := m.Check(); !errors.Is(err, transforms.ErrInvalidData) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: Check: %v, want a data error naming the column", name, err)
		}
		path := filepath.Join(dir, name+".parquet")
		err := transforms.WriteModelFile(ctx, path, m, &arrowio.Provenance{Tool: "ordinate", Stage: m.Header().Stage, Seed: 9})
		if !errors.Is(err, transforms.ErrInvalidData) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want a data error naming the column", name, err)
		}
		if _, serr := os.Stat(path); serr == nil {
			t.Errorf("%s: the model was written", name)
		}
	}
	if err := testModel().Check(); err != nil {
		t.Errorf("a sound model: %v", err)
	}
}
