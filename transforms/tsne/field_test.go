package tsne

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/placement"
)

// fieldTestMap returns n points in dims dimensions drawn from c Gaussian
// blobs of standard deviation 3 whose centres are about 20 apart: the
// spread and spacing of a fitted t-SNE map of a few thousand points.
func fieldTestMap(n, dims, c int, seed uint64) placement.Reference {
	rng := rand.New(rand.NewPCG(seed, 13))
	cent := make([]float64, c*dims)
	for i := range cent {
		cent[i] = 12 * rng.NormFloat64()
	}
	y := make([]float64, n*dims)
	for i := range n {
		l := i % c
		for a := range dims {
			y[i*dims+a] = cent[l*dims+a] + 3*rng.NormFloat64()
		}
	}
	return placement.Reference{Y: y, N: n, Dims: dims}
}

// fieldBrute is Z and R straight from their definitions.
func fieldBrute(ref placement.Reference, y []float64) (float64, []float64) {
	var z float64
	r := make([]float64, ref.Dims)
	for k := range ref.N {
		yk := ref.Row(int32(k))
		d2 := 0.0
		for a := range ref.Dims {
			d2 += (y[a] - yk[a]) * (y[a] - yk[a])
		}
		w := 1 / (1 + d2)
		z += w
		for a := range ref.Dims {
			r[a] += w * w * (y[a] - yk[a])
		}
	}
	return z, r
}

// fieldQueries returns near points close to reference points (jittered by
// 0.5) and far points uniform in the map's bounding box widened by pad on
// each side.
func fieldQueries(ref placement.Reference, near, far int, pad float64, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 17))
	lo, hi := make([]float64, ref.Dims), make([]float64, ref.Dims)
	for a := range ref.Dims {
		lo[a], hi[a] = math.Inf(1), math.Inf(-1)
		for k := range ref.N {
			lo[a], hi[a] = min(lo[a], ref.Y[k*ref.Dims+a]), max(hi[a], ref.Y[k*ref.Dims+a])
		}
	}
	var q [][]float64
	for range near {
		y := slices.Clone(ref.Row(int32(rng.IntN(ref.N))))
		for a := range y {
			y[a] += 0.5 * rng.NormFloat64()
		}
		q = append(q, y)
	}
	for range far {
		y := make([]float64, ref.Dims)
		for a := range y {
			y[a] = lo[a] - pad + rng.Float64()*(hi[a]-lo[a]+2*pad)
		}
		q = append(q, y)
	}
	return q
}

func TestRepulsionFieldExact(t *testing.T) {
	for _, dims := range []int{1, 2, 3} {
		ref := fieldTestMap(300, dims, 3, uint64(dims))
		f, err := NewRepulsionField(context.Background(), ref, FieldOptions{}, 2)
		if err != nil {
			t.Fatalf("dims %d: %v", dims, err)
		}
		r := make([]float64, dims)
		for i, y := range fieldQueries(ref, 20, 20, 5, 1) {
			z := f.EvalExact(y, r)
			zb, rb := fieldBrute(ref, y)
			if math.Abs(z-zb) > 1e-12*zb {
				t.Errorf("dims %d, query %d: Z = %v, want %v", dims, i, z, zb)
			}
			for a := range dims {
				if math.Abs(r[a]-rb[a]) > 1e-12*zb {
					t.Errorf("dims %d, query %d: R[%d] = %v, want %v", dims, i, a, r[a], rb[a])
				}
			}
			// ∇Z = −2R, by central differences.
			const step = 1e-5
			for a := range dims {
				yp, ym := slices.Clone(y), slices.Clone(y)
				yp[a] += step
				ym[a] -= step
				dz := (f.EvalExact(yp, make([]float64, dims)) - f.EvalExact(ym, make([]float64, dims))) / (2 * step)
				if math.Abs(dz+2*r[a]) > 1e-6*zb {
					t.Errorf("dims %d, query %d: ∂Z/∂y[%d] = %v, want −2R = %v", dims, i, a, dz, -2*r[a])
				}
			}
			if dims == 3 {
				rr := make([]float64, dims)
				if zz := f.Eval(y, rr); zz != z || !slices.Equal(rr, r) {
					t.Errorf("dims 3, query %d: Eval differs from EvalExact", i)
				}
			}
		}
	}
}

// Interpolation error at the default spacing h = 0.5, measured on these
// maps (N = 2000 in 5 blobs, 1000 queries): relative error of Z at most
// 1.7e-3 (Dims 1) and 2.8e-3 (Dims 2), error of R at most 3.9e-3·Z and
// 4.9e-3·Z (the error of the repulsive force R/Z), and 5 % of |R| where
// |R| ≥ 0.05·Z. The tolerances leave a margin of about 1.5.
func TestRepulsionFieldAccuracy(t *testing.T) {
	cases := []struct {
		dims               int
		zTol, rzTol, rrTol float64
	}{
		{1, 2.5e-3, 6e-3, 0.06},
		{2, 4e-3, 7.5e-3, 0.075},
	}
	for _, c := range cases {
		ref := fieldTestMap(2000, c.dims, 5, 7)
		f, err := NewRepulsionField(context.Background(), ref, FieldOptions{}, 2)
		if err != nil {
			t.Fatalf("dims %d: %v", c.dims, err)
		}
		r, re := make([]float64, c.dims), make([]float64, c.dims)
		var maxZ, maxRZ, maxRR float64
		for i, y := range fieldQueries(ref, 500, 500, 3, 2) {
			z, ze := f.Eval(y, r), f.EvalExact(y, re)
			var dr, nr float64
			for a := range c.dims {
				dr += (r[a] - re[a]) * (r[a] - re[a])
				nr += re[a] * re[a]
			}
			dr, nr = math.Sqrt(dr), math.Sqrt(nr)
			ez, erz := math.Abs(z-ze)/ze, dr/ze
			maxZ, maxRZ = max(maxZ, ez), max(maxRZ, erz)
			if ez > c.zTol || erz > c.rzTol {
				t.Errorf("dims %d, query %d at %v: relative error of Z %.2e (tolerance %.0e), |ΔR|/Z %.2e (tolerance %.0e)",
					c.dims, i, y, ez, c.zTol, erz, c.rzTol)
			}
			if nr >= 0.05*ze {
				maxRR = max(maxRR, dr/nr)
				if dr > c.rrTol*nr {
					t.Errorf("dims %d, query %d at %v: relative error of R %.2e, tolerance %.0e", c.dims, i, y, dr/nr, c.rrTol)
				}
			}
		}
		t.Logf("dims %d: max relative error of Z %.2e, |ΔR|/Z %.2e, |ΔR|/|R| (|R| ≥ 0.05·Z) %.2e", c.dims, maxZ, maxRZ, maxRR)
	}
}

func TestRepulsionFieldOutside(t *testing.T) {
	for _, dims := range []int{1, 2} {
		ref := fieldTestMap(200, dims, 3, 3)
		f, err := NewRepulsionField(context.Background(), ref, FieldOptions{Margin: 1}, 1)
		if err != nil {
			t.Fatalf("dims %d: %v", dims, err)
		}
		r, re := make([]float64, dims), make([]float64, dims)
		for i, y := range fieldQueries(ref, 0, 50, 200, 4) {
			inside := true
			for a := range dims {
				u := (y[a] - f.lo[a]) * f.invH[a]
				inside = inside && u >= 1 && u < float64(f.n[a]-2)
			}
			if inside {
				continue
			}
			if z, ze := f.Eval(y, r), f.EvalExact(y, re); z != ze || !slices.Equal(r, re) {
				t.Errorf("dims %d, query %d at %v outside the grid: Eval = %v %v, want EvalExact = %v %v", dims, i, y, z, r, ze, re)
			}
		}
		for _, v := range []float64{math.Inf(1), math.NaN()} {
			y := make([]float64, dims)
			y[0] = v
			if z := f.Eval(y, r); !math.IsNaN(z) && z != 0 {
				t.Errorf("dims %d: Eval at %v = %v, want the exact sum (0 or NaN)", dims, y, z)
			}
		}
	}
}

func TestRepulsionFieldThreads(t *testing.T) {
	for _, dims := range []int{1, 2} {
		ref := fieldTestMap(500, dims, 4, 5)
		var tables [][]float64
		for _, threads := range []int{1, 2, 3} {
			f, err := NewRepulsionField(context.Background(), ref, FieldOptions{}, threads)
			if err != nil {
				t.Fatalf("dims %d, threads %d: %v", dims, threads, err)
			}
			tables = append(tables, f.table)
		}
		for i := 1; i < len(tables); i++ {
			if !slices.Equal(tables[0], tables[i]) {
				t.Errorf("dims %d: table with %d threads differs from 1 thread", dims, i+1)
			}
		}
	}
}

func TestRepulsionFieldGrid(t *testing.T) {
	ref := fieldTestMap(100, 2, 2, 6)
	for _, c := range []struct {
		o       FieldOptions
		spacing float64 // want, 0: larger than o.Spacing (capped)
	}{
		{FieldOptions{}, DefaultFieldSpacing},
		{FieldOptions{Spacing: 0.3}, 0.3},
		{FieldOptions{Spacing: 0.3, MaxNodes: 20}, 0},
	} {
		f, err := NewRepulsionField(context.Background(), ref, c.o, 1)
		if err != nil {
			t.Fatalf("%+v: %v", c.o, err)
		}
		nodes, h := f.Grid()
		for a := range 2 {
			switch {
			case c.spacing > 0 && h[a] != c.spacing:
				t.Errorf("%+v: spacing %v, want %v", c.o, h[a], c.spacing)
			case c.spacing == 0 && (nodes[a] != 20 || h[a] <= c.o.Spacing):
				t.Errorf("%+v: %d nodes of spacing %v, want 20 nodes wider than %v", c.o, nodes[a], h[a], c.o.Spacing)
			}
		}
	}
	f, err := NewRepulsionField(context.Background(), ref, FieldOptions{Exact: true}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if nodes, _ := f.Grid(); nodes != [2]int{} {
		t.Errorf("Exact: grid %v, want none", nodes)
	}
}

func TestRepulsionFieldErrors(t *testing.T) {
	ref := fieldTestMap(50, 2, 2, 8)
	for _, o := range []FieldOptions{
		{Spacing: -1},
		{Spacing: math.NaN()},
		{Spacing: math.Inf(1)},
		{Margin: -1},
		{MaxNodes: -1},
	} {
		if _, err := NewRepulsionField(context.Background(), ref, o, 1); !errors.Is(err, ErrField) {
			t.Errorf("%+v: err = %v, want ErrField", o, err)
		}
	}
	bad := placement.Reference{Y: slices.Clone(ref.Y), N: ref.N, Dims: 2}
	bad.Y[3] = math.NaN()
	if _, err := NewRepulsionField(context.Background(), bad, FieldOptions{}, 1); !errors.Is(err, ErrField) {
		t.Errorf("NaN in the map: err = %v, want ErrField", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewRepulsionField(ctx, ref, FieldOptions{}, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

// TestRepulsionFieldHostileGrid: grid settings from a tampered model file
// never panic or allocate without bound. A spacing of 1e-300 made more
// cells than an int holds (a negative count: makeslice panicked); 1e-9 with
// 100,000 nodes per axis planned a 240 GB table; a margin near the
// largest float made the grid infinite. Each is refused with ErrField, or
// (spacing alone) capped at MaxNodes; a grid that fits the settings but not
// the run's memory is a MemoryError.
func TestRepulsionFieldHostileGrid(t *testing.T) {
	ref := fieldTestMap(50, 2, 2, 8)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		o    FieldOptions
		dims int
	}{
		{"spacing 1e-300", FieldOptions{Spacing: 1e-300}, 2},
		{"spacing 1e-300, 1-D", FieldOptions{Spacing: 1e-300}, 1},
		{"spacing 5e-324", FieldOptions{Spacing: 5e-324}, 2},
	} {
		r := ref
		if c.dims == 1 {
			r = fieldTestMap(50, 1, 2, 8)
		}
		f, err := NewRepulsionField(ctx, r, c.o, 1)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if nodes, _ := f.Grid(); nodes[0] != DefaultFieldMaxNodes {
			t.Errorf("%s: %v nodes, want the cap %d", c.name, nodes, DefaultFieldMaxNodes)
		}
	}
	for _, c := range []struct {
		name string
		o    FieldOptions
	}{
		{"spacing 1e-9, 100000 nodes", FieldOptions{Spacing: 1e-9, MaxNodes: 100_000}},
		{"max nodes 2^40", FieldOptions{MaxNodes: 1 << 40}},
		{"margin 1e308", FieldOptions{Margin: 1e308}},
	} {
		if _, err := NewRepulsionField(ctx, ref, c.o, 1); !errors.Is(err, ErrField) {
			t.Errorf("%s: err = %v, want ErrField", c.name, err)
		}
	}
	small := transforms.WithMemoryLimit(ctx, 100<<20)
	_, err := NewRepulsionField(small, ref, FieldOptions{Spacing: 1e-3, MaxNodes: MaxFieldNodes}, 1)
	var me *transforms.MemoryError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "8192×8192") {
		t.Errorf("a grid of %d² nodes under 100 MiB: err = %v, want a MemoryError naming the grid", MaxFieldNodes, err)
	}
}

// The tabulated node values against exact sums at the nodes. fill2 leaves
// only pairs at least fieldNear spacings apart to the spread (source-side
// interpolated) sum; measured maximum relative error of Z and |ΔR|/Z:
// 1.9e-4 and 1.3e-4 at the default spacing (the interpolation of Eval adds
// up to 2.8e-3, TestRepulsionFieldAccuracy), 4.1e-4 and 2.1e-4 at spacing
// 1, 4.9e-5 and 7.3e-5 at 0.25, 5.2e-4 and 2.5e-4 on a capped grid of
// unequal spacings; duplicates sit within fieldNear of every node they
// reach, so they are exact. The tolerances leave a margin of about 1.5.
func TestRepulsionFieldNodes(t *testing.T) {
	for _, c := range []struct {
		name       string
		ref        placement.Reference
		o          FieldOptions
		zTol, rTol float64
	}{
		{"2000 points, default spacing", fieldTestMap(2000, 2, 5, 7), FieldOptions{}, 3e-4, 2e-4},
		{"2000 points, spacing 1", fieldTestMap(2000, 2, 5, 7), FieldOptions{Spacing: 1}, 6e-4, 3.5e-4},
		{"2000 points, spacing 0.25", fieldTestMap(2000, 2, 5, 7), FieldOptions{Spacing: 0.25}, 1e-4, 1.1e-4},
		{"3000 points, 60 nodes per axis", fieldTestMap(3000, 2, 8, 9), FieldOptions{MaxNodes: 60, Margin: 1}, 8e-4, 4e-4},
		{"duplicates", placement.Reference{Y: []float64{0, 0, 0, 0, 1, 2, 1, 2, 1, 2, -3, 4}, N: 6, Dims: 2}, FieldOptions{}, 1e-12, 1e-12},
	} {
		f, err := NewRepulsionField(context.Background(), c.ref, c.o, 2)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var maxZ, maxR float64
		y, r := make([]float64, 2), make([]float64, 2)
		for i1 := range f.n[1] {
			for i0 := range f.n[0] {
				y[0], y[1] = f.lo[0]+float64(i0)*f.h[0], f.lo[1]+float64(i1)*f.h[1]
				z := f.EvalExact(y, r)
				v := f.table[3*(i1*f.n[0]+i0):]
				maxZ = max(maxZ, math.Abs(v[0]-z)/z)
				maxR = max(maxR, math.Hypot(v[1]-r[0], v[2]-r[1])/z)
			}
		}
		t.Logf("%s: %v nodes of spacing %.3g: max relative error of Z %.2e, |ΔR|/Z %.2e", c.name, f.n, f.h, maxZ, maxR)
		if maxZ > c.zTol || maxR > c.rTol {
			t.Errorf("%s: node values: max relative error of Z %.2e (tolerance %.1e), |ΔR|/Z %.2e (tolerance %.1e)",
				c.name, maxZ, c.zTol, maxR, c.rTol)
		}
	}
}
