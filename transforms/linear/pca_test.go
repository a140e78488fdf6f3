package linear

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// TestPCAMatchesStatPC compares with gonum's stat.PC on random anisotropic
// data, up to the sign of each axis.
func TestPCAMatchesStatPC(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ n, D, d int }{{100, 5, 3}, {30, 8, 8}, {6, 10, 4}, {200, 2, 1}} {
		x := randomMatrix(rng, tc.n, tc.D)
		mix := randomMatrix(rng, tc.D, tc.D)
		var y mat.Dense
		y.Mul(x, mix)
		res, err := PCA(&y, tc.d)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		var pc stat.PC
		if !pc.PrincipalComponents(&y, nil) {
			t.Fatalf("%+v: stat.PC failed", tc)
		}
		var vecs mat.Dense
		pc.VectorsTo(&vecs)
		vars := pc.VarsTo(nil)
		var total float64
		for _, v := range vars {
			total += v
		}
		for j := range tc.d {
			if math.Abs(res.Variances[j]-vars[j]) > 1e-10*vars[0] {
				t.Errorf("%+v: variance %d = %g, stat.PC %g", tc, j, res.Variances[j], vars[j])
			}
			if math.Abs(res.VarianceRatio[j]-vars[j]/total) > 1e-12 {
				t.Errorf("%+v: ratio %d = %g, want %g", tc, j, res.VarianceRatio[j], vars[j]/total)
			}
			var c float64
			for i := range tc.D {
				c += res.Axes.At(i, j) * vecs.At(i, j)
			}
			if math.Abs(c) < 1-1e-9 {
				t.Errorf("%+v: axis %d has |cos| %.12f with stat.PC", tc, j, math.Abs(c))
			}
		}
		for j := range tc.D {
			if m := stat.Mean(mat.Col(nil, j, &y), nil); math.Abs(res.Origin[j]-m) > 1e-12 {
				t.Errorf("%+v: origin %d = %g, mean %g", tc, j, res.Origin[j], m)
			}
		}
		checkSignsLargest(t, "PCA", res.Axes, 0)
	}
}

// checkSignsLargest checks that axes from `from` on have their largest
// component positive.
func checkSignsLargest(t *testing.T, name string, axes *mat.Dense, from int) {
	t.Helper()
	D, d := axes.Dims()
	for j := from; j < d; j++ {
		best := 0
		for i := range D {
			if math.Abs(axes.At(i, j)) > math.Abs(axes.At(best, j))*(1+1e-9) {
				best = i
			}
		}
		if axes.At(best, j) <= 0 {
			t.Errorf("%s: axis %d has largest component %g ≤ 0", name, j+1, axes.At(best, j))
		}
	}
}

// TestPCAHand2D checks a 2-D case against the closed form of a symmetric
// 2×2 eigenproblem: covariance [[a b] [b c]] has eigenvalues
// (a+c)/2 ± √(((a−c)/2)² + b²) and the first axis at angle ½·atan2(2b, a−c).
func TestPCAHand2D(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{
		3, 3,
		-3, -3,
		1, -1,
		-1, 1,
	})
	// Means 0; covariance = XᵀX/3 = [[20/3, 16/3], [16/3, 20/3]].
	a, b, c := 20.0/3, 16.0/3, 20.0/3
	l1 := (a+c)/2 + math.Sqrt((a-c)*(a-c)/4+b*b)
	l2 := (a+c)/2 - math.Sqrt((a-c)*(a-c)/4+b*b)
	th := math.Atan2(2*b, a-c) / 2
	res, err := PCA(x, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{math.Cos(th), math.Sin(th)} // (1, 1)/√2: largest-first tie → positive
	if got := mat.Col(nil, 0, res.Axes); !equalSlices(got, want, 1e-12) {
		t.Errorf("axis 1 = %v, want %v", got, want)
	}
	// Axis 2 ∝ (1, −1)/√2: the tie between |components| goes to index 0.
	if got := mat.Col(nil, 1, res.Axes); !equalSlices(got, []float64{math.Sqrt2 / 2, -math.Sqrt2 / 2}, 1e-12) {
		t.Errorf("axis 2 = %v, want (0.7071, −0.7071)", got)
	}
	if !equalSlices(res.Variances, []float64{l1, l2}, 1e-12) {
		t.Errorf("variances %v, want %v", res.Variances, []float64{l1, l2})
	}
	if !equalSlices(res.VarianceRatio, []float64{l1 / (a + c), l2 / (a + c)}, 1e-12) {
		t.Errorf("ratios %v", res.VarianceRatio)
	}
}

// TestPCAMoreAxesThanRows asks for more axes than n allows: the extra axes
// have zero variance and the frame stays orthonormal.
func TestPCAMoreAxesThanRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x := randomMatrix(rng, 3, 6)
	res, err := PCA(x, 5)
	if err != nil {
		t.Fatal(err)
	}
	var gram mat.Dense
	gram.Mul(res.Axes.T(), res.Axes)
	id := mat.NewDense(5, 5, nil)
	for i := range 5 {
		id.Set(i, i, 1)
	}
	if !mat.EqualApprox(&gram, id, 1e-12) {
		t.Errorf("axes not orthonormal: %v", mat.Formatted(&gram))
	}
	for j := 2; j < 5; j++ { // centred 3 rows have rank 2
		if res.Variances[j] > 1e-20 {
			t.Errorf("variance %d = %g, want 0", j, res.Variances[j])
		}
		var s float64
		for i := range 3 {
			var p float64
			for f := range 6 {
				p += (x.At(i, f) - res.Origin[f]) * res.Axes.At(f, j)
			}
			s += p * p
		}
		if s > 1e-20 {
			t.Errorf("axis %d: projected sum of squares %g, want 0", j, s)
		}
	}
}

func TestPCAErrors(t *testing.T) {
	nan := mat.NewDense(3, 2, []float64{1, 2, 3, math.NaN(), 5, 6})
	for _, tc := range []struct {
		name string
		x    *mat.Dense
		d    int
		want error
	}{
		{"empty", &mat.Dense{}, 1, ErrNoData},
		{"one row", mat.NewDense(1, 2, []float64{1, 2}), 1, ErrTooFewRows},
		{"d 0", mat.NewDense(3, 2, nil), 0, ErrDims},
		{"d > D", mat.NewDense(3, 2, nil), 3, ErrDims},
		{"NaN", nan, 1, ErrNonFinite},
	} {
		_, err := PCA(tc.x, tc.d)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
		var oe *transforms.OptionError
		if errors.Is(tc.want, ErrDims) && (!errors.As(err, &oe) || oe.Option != "dims") {
			t.Errorf("%s: error %v, want an option error naming dims", tc.name, err)
		}
	}
	_, err := PCA(nan, 1)
	var ie *arrowio.Error
	if !errors.As(err, &ie) || ie.Matrix != "x" || ie.Row != 1 || ie.Column != "1" {
		t.Errorf("NaN: error %v, want an *arrowio.Error at row 1, column 1 of x", err)
	} else if msg := err.Error(); !strings.Contains(msg, "row 1, column 1 of x") {
		t.Errorf("NaN: message %q does not name the position", msg)
	}
	// Zero total variance gives ratio 0, not NaN.
	res, err := PCA(mat.NewDense(3, 2, []float64{1, 1, 1, 1, 1, 1}), 1)
	if err != nil || res.VarianceRatio[0] != 0 {
		t.Errorf("constant data: ratio %v, error %v", res.VarianceRatio, err)
	}
}
