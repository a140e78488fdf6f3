package score

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/transforms/triplets"
)

// procrustesIters is the number of generalised-Procrustes rounds in Maps.
const procrustesIters = 10

// Objects is the number of objects N.
func (m *Model) Objects() int { return len(m.Y) / (m.Dims + 1) }

// Aspects is the number of aspects A.
func (m *Model) Aspects() int { return len(m.Delta) }

// Distance returns dᵗᵢⱼ = ‖(I − xₜxₜᵀ)(yⱼ − yᵢ)‖, the plain (not squared)
// distance of objects i and j in aspect t's map.
func (m *Model) Distance(t, i, j int) float64 {
	d := m.Dims + 1
	x, yi, yj := m.X[t*d:(t+1)*d], m.Y[i*d:(i+1)*d], m.Y[j*d:(j+1)*d]
	var xa float64
	for c := range x {
		xa += x[c] * (yj[c] - yi[c])
	}
	var s float64
	for c := range x {
		p := yj[c] - yi[c] - xa*x[c]
		s += p * p
	}
	return math.Sqrt(s)
}

// Prob returns lᵗᵢⱼₖ (Eq. 6), the model probability of ⟨i, j, k⟩ₜ.
func (m *Model) Prob(alpha float64, t, i, j, k int) float64 {
	d := m.Dims + 1
	row := func(z []float64, r int) []float64 { return z[r*d : (r+1)*d] }
	st := 1 / (1 + math.Exp(-alpha*(m.Distance(t, j, k)-m.Distance(t, i, j))))
	yj := row(m.Y, j)
	s := 1 / (1 + math.Exp(-alpha*(dot(yj, row(m.Y, i))-dot(yj, row(m.Y, k)))))
	return m.Delta[t]*st + (1-m.Delta[t])*s
}

// Accuracy returns the triplet preservation accuracy of Eq. 10: per aspect,
// the fraction of its triplets with dᵗᵢⱼ < dᵗⱼₖ (ties count as violated),
// NaN for aspects without triplets, and the mean over aspects that have
// triplets. Aspects of tab index the model's aspects.
func (m *Model) Accuracy(tab *triplets.Table) (perAspect []float64, mean float64) {
	a := m.Aspects()
	ok := make([]float64, a)
	cnt := make([]float64, a)
	for r := range tab.I {
		t := int(tab.Aspect[r])
		i, j, k := int(tab.I[r]), int(tab.J[r]), int(tab.K[r])
		cnt[t]++
		if m.Distance(t, i, j) < m.Distance(t, j, k) {
			ok[t]++
		}
	}
	perAspect = make([]float64, a)
	var n float64
	for t := range a {
		if cnt[t] == 0 {
			perAspect[t] = math.NaN()
			continue
		}
		perAspect[t] = ok[t] / cnt[t]
		mean += perAspect[t]
		n++
	}
	if n > 0 {
		mean /= n
	}
	return perAspect, mean
}

// Basis returns an orthonormal basis of the tangent plane at xₜ as the
// columns of a (K+1)×K row-major matrix, before alignment: the Householder
// reflection that maps xₜ to ±e_K, restricted to its first K columns.
func (m *Model) basis(t int) []float64 {
	d := m.Dims + 1
	x := m.X[t*d : (t+1)*d]
	v := make([]float64, d)
	copy(v, x)
	s := 1.0
	if x[d-1] < 0 {
		s = -1
	}
	v[d-1] += s
	vv := dot(v, v)
	e := make([]float64, d*m.Dims)
	for r := range d {
		for c := range m.Dims {
			h := -2 * v[r] * v[c] / vv
			if r == c {
				h++
			}
			e[r*m.Dims+c] = h
		}
	}
	return e
}

// Maps returns, per aspect t, the N×K row-major coordinates of the objects
// in aspect t's map: yᵢ projected onto the tangent plane at xₜ and written
// in an orthonormal basis of it, with the pole at the origin. Distances in
// map t are dᵗ. Each aspect's basis is rotated (or reflected) about its pole
// so that the maps agree as closely as possible: generalised orthogonal
// Procrustes to the mean map (see the package doc).
func (m *Model) Maps() [][]float64 {
	n, a, k, d := m.Objects(), m.Aspects(), m.Dims, m.Dims+1
	maps := make([][]float64, a)
	for t := range a {
		e := m.basis(t)
		c := make([]float64, n*k)
		for i := range n {
			y := m.Y[i*d : (i+1)*d]
			for q := range k {
				var s float64
				for r := range d {
					s += y[r] * e[r*k+q]
				}
				c[i*k+q] = s
			}
		}
		maps[t] = c
	}
	alignMaps(maps, n, k)
	return maps
}

// alignMaps rotates each n×k map in place (an orthogonal k×k transform on
// the right) to minimise its Frobenius distance to the mean of all maps,
// starting from map 0 as the reference.
func alignMaps(maps [][]float64, n, k int) {
	if len(maps) < 2 {
		return
	}
	ref := mat.NewDense(n, k, nil)
	ref.Copy(mat.NewDense(n, k, append([]float64(nil), maps[0]...)))
	var cross, rot, tmp mat.Dense
	var svd mat.SVD
	var u, v mat.Dense
	prev := math.Inf(1)
	for range procrustesIters {
		var resid float64
		for _, c := range maps {
			cm := mat.NewDense(n, k, c)
			cross.Mul(cm.T(), ref)
			if !svd.Factorize(&cross, mat.SVDFull) {
				continue
			}
			svd.UTo(&u)
			svd.VTo(&v)
			rot.Mul(&u, v.T())
			tmp.Mul(cm, &rot)
			copy(c, tmp.RawMatrix().Data)
		}
		mean := make([]float64, n*k)
		for _, c := range maps {
			for q, v := range c {
				mean[q] += v / float64(len(maps))
			}
		}
		for _, c := range maps {
			for q, v := range c {
				resid += (v - mean[q]) * (v - mean[q])
			}
		}
		ref = mat.NewDense(n, k, mean)
		if prev-resid <= 1e-12*(1+resid) {
			break
		}
		prev = resid
	}
}
