package lsp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randX(rng *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	return x
}

// TestLinear checks interpolation and minimum norm against the closed form
// P = X_cpᵀ(X_cp X_cpᵀ)⁻¹Y for independent control rows.
func TestLinear(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, D, m int
	}{
		{"m < D", 30, 8, 4},
		{"m = D", 30, 5, 5},
	} {
		rng := rand.New(rand.NewPCG(uint64(tc.D), uint64(tc.m)))
		x := randX(rng, tc.n, tc.D)
		rows := rng.Perm(tc.n)[:tc.m]
		y := make([]float64, tc.m*2)
		for k := range y {
			y[k] = rng.NormFloat64()
		}
		p, err := Linear(x, rows, y, 2)
		if err != nil {
			t.Fatal(err)
		}
		xc := mat.NewDense(tc.m, tc.D, nil)
		for k, r := range rows {
			xc.SetRow(k, x.RawRowView(r))
		}
		var g, gi, xg, want mat.Dense
		g.Mul(xc, xc.T())
		if err := gi.Inverse(&g); err != nil {
			t.Fatal(err)
		}
		xg.Mul(xc.T(), &gi)
		want.Mul(&xg, mat.NewDense(tc.m, 2, y))
		var diff mat.Dense
		diff.Sub(p, &want)
		if d := mat.Norm(&diff, math.Inf(1)); d > 1e-10 {
			t.Errorf("%s: P differs from the closed form by %g", tc.name, d)
		}
		var fit mat.Dense
		fit.Mul(xc, p)
		for k := range tc.m {
			for s := range 2 {
				if math.Abs(fit.At(k, s)-y[k*2+s]) > 1e-10 {
					t.Errorf("%s: control %d dim %d: %g, target %g", tc.name, k, s, fit.At(k, s), y[k*2+s])
				}
			}
		}
	}
}

// TestLaplacianDense compares the CG solution with a dense solve of the
// normal equations.
func TestLaplacianDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	const n, D, k, m = 60, 3, 6, 5
	x := randX(rng, n, D)
	rows := rng.Perm(n)[:m]
	y := make([]float64, m*2)
	for q := range y {
		y[q] = rng.NormFloat64()
	}
	o := DefaultOptions()
	o.Neighbors, o.Tol = k, 1e-13
	got, err := Laplacian(context.Background(), x, rows, y, 2, o)
	if err != nil {
		t.Fatal(err)
	}
	// Build A densely through the operator (columns of A are A·e_j).
	sys := buildForTest(t, x, rows, k)
	a := mat.NewDense(n+m, n, nil)
	col := make([]float64, n+m)
	unit := make([]float64, n)
	for j := range n {
		clear(unit)
		unit[j] = 1
		sys.apply(col, unit)
		a.SetCol(j, col)
	}
	for s := range 2 {
		b := mat.NewVecDense(n+m, nil)
		for c := range m {
			b.SetVec(n+c, y[c*2+s])
		}
		var ata mat.Dense
		ata.Mul(a.T(), a)
		var atb, e mat.VecDense
		atb.MulVec(a.T(), b)
		if err := e.SolveVec(&ata, &atb); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if math.Abs(got[i*2+s]-e.AtVec(i)) > 1e-8 {
				t.Fatalf("dim %d row %d: CG %.10g, dense %.10g", s, i, got[i*2+s], e.AtVec(i))
			}
		}
	}
}

func buildForTest(t *testing.T, x *mat.Dense, rows []int, k int) *laplacian {
	n, D := x.Dims()
	// The neighbour lists come from a brute-force search independent of
	// kernels.KNN; the weights from the same constructor as Laplacian's.
	idx := make([]int32, n*k)
	d2 := make([]float64, n*k)
	if err := knnForTest(x, idx, d2, n, D, k); err != nil {
		t.Fatal(err)
	}
	return newLaplacian(idx, d2, n, k, rows)
}

// knnForTest is a brute-force k-NN (ties by index), independent of kernels.KNN.
func knnForTest(x *mat.Dense, idx []int32, d2 []float64, n, D, k int) error {
	for i := range n {
		type nb struct {
			d float64
			j int
		}
		var all []nb
		for j := range n {
			if j == i {
				continue
			}
			var s float64
			for c := range D {
				v := x.At(i, c) - x.At(j, c)
				s += v * v
			}
			all = append(all, nb{s, j})
		}
		for a := range k {
			best := a
			for b := a + 1; b < len(all); b++ {
				if all[b].d < all[best].d || (all[b].d == all[best].d && all[b].j < all[best].j) {
					best = b
				}
			}
			all[a], all[best] = all[best], all[a]
			idx[i*k+a], d2[i*k+a] = int32(all[a].j), all[a].d
		}
	}
	return nil
}

func TestLaplacianUnanchoredComponent(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	x := randX(rng, 40, 2)
	for i := 20; i < 40; i++ { // a second cluster far away
		x.Set(i, 0, x.At(i, 0)+1000)
	}
	o := DefaultOptions()
	o.Neighbors = 5
	_, err := Laplacian(context.Background(), x, []int{0, 1, 2}, []float64{0, 0, 1, 1, 2, 2}, 2, o)
	if !errors.Is(err, ErrControl) {
		t.Errorf("unanchored cluster: error %v, want ErrControl", err)
	}
}
