package linear

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func randomMatrix(rng *rand.Rand, r, c int) *mat.Dense {
	a := mat.NewDense(r, c, nil)
	for i := range r {
		for j := range c {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	return a
}

func TestTransform(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := randomMatrix(rng, 7, 4)
	p := Projection{Origin: []float64{1, -2, 0.5, 3}, Axes: randomMatrix(rng, 4, 2)}
	want := mat.NewDense(7, 2, nil)
	for i := range 7 {
		for j := range 2 {
			var s float64
			for f := range 4 {
				s += (x.At(i, f) - p.Origin[f]) * p.Axes.At(f, j)
			}
			want.Set(i, j, s)
		}
	}
	for _, tc := range []struct {
		name string
		dst  *mat.Dense
	}{{"nil", nil}, {"empty", &mat.Dense{}}, {"sized", mat.NewDense(7, 2, nil)}} {
		got := p.Transform(tc.dst, x)
		if !mat.EqualApprox(got, want, 1e-12) {
			t.Errorf("%s dst: Transform = %v, want %v", tc.name, mat.Formatted(got), mat.Formatted(want))
		}
		if tc.dst != nil && got != tc.dst {
			t.Errorf("%s dst: Transform did not reuse dst", tc.name)
		}
	}
	if D, d := p.Dims(); D != 4 || d != 2 {
		t.Errorf("Dims = %d, %d", D, d)
	}
	for _, tc := range []struct {
		name string
		dst  *mat.Dense
		x    *mat.Dense
	}{{"wrong dst", mat.NewDense(7, 3, nil), x}, {"wrong x", nil, randomMatrix(rng, 7, 3)}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			p.Transform(tc.dst, tc.x)
		}()
	}
}

func TestOrient(t *testing.T) {
	s := 1 / math.Sqrt2
	for _, tc := range []struct {
		name string
		in   []float64
		dir  []float64 // nil: OrientByLargest
		want []float64
	}{
		{"largest negative", []float64{0.6, -0.8}, nil, []float64{-0.6, 0.8}},
		{"largest positive", []float64{0.6, 0.8}, nil, []float64{0.6, 0.8}},
		{"tie lowest index", []float64{-s, s}, nil, []float64{s, -s}},
		{"near tie by rounding", []float64{-0.7071067811865475, 0.7071067811865476}, nil, []float64{0.7071067811865475, -0.7071067811865476}},
		{"zero", []float64{0, 0}, nil, []float64{0, 0}},
		{"along", []float64{0.6, 0.8}, []float64{-1, 0}, []float64{-0.6, -0.8}},
		{"along keeps", []float64{0.6, -0.8}, []float64{1, 0}, []float64{0.6, -0.8}},
		{"orthogonal dir falls back", []float64{-0.6, 0}, []float64{0, 1}, []float64{0.6, 0}},
		{"zero dir falls back", []float64{0.6, -0.8}, []float64{0, 0}, []float64{-0.6, 0.8}},
	} {
		axes := mat.NewDense(len(tc.in), 2, nil)
		axes.SetCol(1, tc.in)
		if tc.dir == nil {
			OrientByLargest(axes, 1)
		} else {
			OrientAlong(axes, 1, tc.dir)
		}
		if got := mat.Col(nil, 1, axes); !equalSlices(got, tc.want, 0) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func equalSlices(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

// TestPrincipalAxesOrthogonal compares with the eigenvectors of the
// covariance matrix after removing span(q) with the projector I − QQᵀ
// (computed here with a QR factorisation, a different route from the SVD
// basis used by the function).
func TestPrincipalAxesOrthogonal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ n, D, m, d int }{{50, 5, 2, 2}, {40, 6, 1, 3}, {30, 4, 3, 1}, {20, 3, 0, 2}} {
		x := randomMatrix(rng, tc.n, tc.D)
		for j := range tc.D { // distinct variances
			for i := range tc.n {
				x.Set(i, j, x.At(i, j)*float64(j+1))
			}
		}
		var q *mat.Dense
		proj := mat.NewDense(tc.D, tc.D, nil)
		for i := range tc.D {
			proj.Set(i, i, 1)
		}
		if tc.m > 0 {
			q = randomMatrix(rng, tc.D, tc.m) // not orthonormal on purpose
			var qr mat.QR
			qr.Factorize(q)
			var qq mat.Dense
			qr.QTo(&qq)
			b := qq.Slice(0, tc.D, 0, tc.m)
			var bbt mat.Dense
			bbt.Mul(b, b.T())
			proj.Sub(proj, &bbt)
		}
		var xp mat.Dense
		xp.Mul(x, proj)
		cov := mat.NewSymDense(tc.D, nil)
		stat.CovarianceMatrix(cov, &xp, nil)
		var eig mat.EigenSym
		eig.Factorize(cov, true)
		vals := eig.Values(nil)
		var vecs mat.Dense
		eig.VectorsTo(&vecs)

		axes, vars, err := PrincipalAxesOrthogonal(x, q, tc.d)
		if err != nil {
			t.Fatal(err)
		}
		for j := range tc.d {
			if math.Abs(vars[j]-vals[tc.D-1-j]) > 1e-10*vals[tc.D-1] {
				t.Errorf("%+v: variance %d = %g, eigenvalue %g", tc, j, vars[j], vals[tc.D-1-j])
			}
			var c float64
			for i := range tc.D {
				c += axes.At(i, j) * vecs.At(i, tc.D-1-j)
			}
			if math.Abs(c) < 1-1e-9 {
				t.Errorf("%+v: axis %d has |cos| %.12f with the eigenvector", tc, j, math.Abs(c))
			}
			if q != nil {
				for l := range tc.m {
					var c float64
					for i := range tc.D {
						c += axes.At(i, j) * q.At(i, l)
					}
					if math.Abs(c) > 1e-12 {
						t.Errorf("%+v: axis %d not orthogonal to q column %d (%g)", tc, j, l, c)
					}
				}
			}
		}
	}
}
