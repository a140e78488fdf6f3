package tsne

import (
	"context"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/linear"
)

// mdsIters is the number of subspace iterations of the MDS initialisation;
// the start only needs the coarse layout, not converged eigenvectors.
const mdsIters = 100

// pcaInit projects x onto its top dims principal axes (linear.PCA: largest
// component of each axis positive) and scales so that axis 1 has standard
// deviation 1e-4. It returns nil if the data have no spread.
func pcaInit(x []float64, n, d, dims int) ([]float64, error) {
	xm := mat.NewDense(n, d, append([]float64(nil), x...))
	pca, err := linear.PCA(xm, dims)
	if err != nil {
		return nil, transforms.Errorf(ErrNumerical, "PCA initialisation: %v", err)
	}
	y := mat.NewDense(n, dims, nil)
	pca.Transform(y, xm)
	return scaleInit(y.RawMatrix().Data, n, dims), nil
}

// scaleInit centres y and scales it so that column 0 has standard deviation
// initStd; nil if that column is constant.
func scaleInit(y []float64, n, dims int) []float64 {
	center(y, n, dims)
	var ss float64
	for i := range n {
		ss += y[i*dims] * y[i*dims]
	}
	sd := math.Sqrt(ss / float64(n))
	if !(sd > 0) {
		return nil
	}
	f := initStd / sd
	for i := range y {
		y[i] *= f
	}
	return y
}

// mdsInit is classical MDS of the squared distances d2 (n×n): the top dims
// eigenvectors of B = −½·J·D²·J (J the centring matrix), each scaled by the
// square root of its eigenvalue (or of 1e-3 times the first one, if smaller,
// so that no axis starts flat), then scaled like the PCA start. The
// eigenvectors come from mdsIters subspace iterations on dims+2 vectors
// with a seeded fixed start and a Rayleigh–Ritz step; they pick the
// eigenvalues largest in magnitude, which for (near-)Euclidean distances
// are the largest ones. Signs: largest component of each axis positive.
func mdsInit(ctx context.Context, d2 []float64, n, dims, threads int) ([]float64, error) {
	m := min(dims+2, n)
	rng := rand.New(rand.NewPCG(1, 2))
	v := make([]float64, n*m) // column-major: vector c is v[c*n:(c+1)*n]
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	bv := make([]float64, n*m)
	applyB := func(dst, src []float64) error {
		return kernels.ParallelFor(ctx, n, threads, 64, func(lo, hi int) {
			for c := range m {
				s := src[c*n : (c+1)*n]
				for i := lo; i < hi; i++ {
					row := d2[i*n : (i+1)*n]
					var t float64
					for j, x := range row {
						t += x * s[j]
					}
					dst[c*n+i] = t
				}
			}
		})
	}
	// B·s = −½·J·D²·(J·s); the vectors are kept centred, so J·s = s.
	orth := func(v []float64) {
		for c := range m {
			vc := v[c*n : (c+1)*n]
			centerVec(vc)
			for e := range c {
				ve := v[e*n : (e+1)*n]
				dot := dotVec(vc, ve)
				for i := range vc {
					vc[i] -= dot * ve[i]
				}
			}
			nrm := math.Sqrt(dotVec(vc, vc))
			if nrm == 0 {
				continue
			}
			for i := range vc {
				vc[i] /= nrm
			}
		}
	}
	orth(v)
	for range mdsIters {
		if err := applyB(bv, v); err != nil {
			return nil, err
		}
		for i := range bv {
			bv[i] *= -0.5
		}
		v, bv = bv, v
		orth(v)
	}
	// Rayleigh–Ritz: H = Vᵀ·B·V, eigenvectors of H rotate V.
	if err := applyB(bv, v); err != nil {
		return nil, err
	}
	h := mat.NewSymDense(m, nil)
	for a := range m {
		ba := bv[a*n : (a+1)*n]
		centerVec(ba)
		for b := a; b < m; b++ {
			h.SetSym(a, b, -0.5*dotVec(v[b*n:(b+1)*n], ba))
		}
	}
	var es mat.EigenSym
	if !es.Factorize(h, true) {
		return nil, transforms.Errorf(ErrNumerical, "MDS initialisation: eigendecomposition failed")
	}
	vals := es.Values(nil) // ascending
	var ev mat.Dense
	es.VectorsTo(&ev)
	y := make([]float64, n*dims)
	top := vals[m-1]
	for c := range min(dims, m) {
		col := m - 1 - c
		lam := max(vals[col], 1e-3*top, 0)
		s := math.Sqrt(lam)
		axis := make([]float64, n)
		for i := range n {
			for e := range m {
				axis[i] += v[e*n+i] * ev.At(e, col)
			}
		}
		big := 0
		for i := range axis {
			if math.Abs(axis[i]) > math.Abs(axis[big]) {
				big = i
			}
		}
		if axis[big] < 0 {
			s = -s
		}
		for i := range n {
			y[i*dims+c] = s * axis[i]
		}
	}
	return scaleInit(y, n, dims), nil
}

func centerVec(v []float64) {
	var s float64
	for _, x := range v {
		s += x
	}
	s /= float64(len(v))
	for i := range v {
		v[i] -= s
	}
}

func dotVec(a, b []float64) float64 {
	var s float64
	for i, x := range a {
		s += x * b[i]
	}
	return s
}
