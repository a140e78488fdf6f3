package bvp

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// orcaSets are the six ORCA data sets of the BVP paper (Table I).
var orcaSets = []string{"contact-lenses", "pasture", "squash-stored", "newthyroid", "car", "bondrate"}

// loadOrdinal reads testdata/ordinal/<name>.csv (columns x1..xD,label with
// label 1..K in order), z-scores each column with its mean and sample
// standard deviation (N−1), drops constant columns, and returns the data,
// the 0-based classes and K.
func loadOrdinal(t testing.TB, name string) (*mat.Dense, []int, int) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "ordinal", name+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(recs) < 2 || recs[0][len(recs[0])-1] != "label" {
		t.Fatalf("%s: want a header x1..xD,label and rows", name)
	}
	n, D := len(recs)-1, len(recs[0])-1
	raw := make([][]float64, D)
	classes := make([]int, n)
	k := 0
	for i, rec := range recs[1:] {
		for j := range D {
			v, err := strconv.ParseFloat(rec[j], 64)
			if err != nil {
				t.Fatalf("%s: row %d, column %d: %v", name, i+1, j, err)
			}
			raw[j] = append(raw[j], v)
		}
		label, err := strconv.Atoi(rec[D])
		if err != nil || label < 1 {
			t.Fatalf("%s: row %d: bad label %q", name, i+1, rec[D])
		}
		classes[i] = label - 1
		k = max(k, label)
	}
	var cols [][]float64
	for _, col := range raw {
		if slices.Min(col) == slices.Max(col) {
			continue // constant: no scale
		}
		var mean, ss float64
		for _, v := range col {
			mean += v
		}
		mean /= float64(n)
		for _, v := range col {
			ss += (v - mean) * (v - mean)
		}
		sd := math.Sqrt(ss / float64(n-1))
		z := make([]float64, n)
		for i, v := range col {
			z[i] = (v - mean) / sd
		}
		cols = append(cols, z)
	}
	x := mat.NewDense(n, len(cols), nil)
	for j, col := range cols {
		x.SetCol(j, col)
	}
	return x, classes, k
}

// largestAngle returns the largest principal angle between the column spans
// of the orthonormal D×d matrices q1 and q2: acos of the smallest singular
// value of q1ᵀq2.
func largestAngle(q1, q2 mat.Matrix) float64 {
	var m mat.Dense
	m.Mul(q1.T(), q2)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDNone) {
		panic("SVD failed")
	}
	sv := svd.Values(nil)
	return math.Acos(math.Min(1, sv[len(sv)-1]))
}

// testCenters computes the class means directly, for independent checks.
func testCenters(x *mat.Dense, classes []int, k int) [][]float64 {
	_, D := x.Dims()
	c := make([][]float64, k)
	cnt := make([]float64, k)
	for i := range c {
		c[i] = make([]float64, D)
	}
	for i, cl := range classes {
		for j := range D {
			c[cl][j] += x.At(i, j)
		}
		cnt[cl]++
	}
	for i := range c {
		for j := range c[i] {
			c[i][j] /= cnt[i]
		}
	}
	return c
}

// bigG is the objective of Eq. 1 for the frame q (D×d): the sum over
// adjacent classes of the squared distance between their projected centres.
func bigG(centers [][]float64, q mat.Matrix) float64 {
	_, d := q.Dims()
	var g float64
	for k := 1; k < len(centers); k++ {
		for j := range d {
			var p float64
			for i := range centers[k] {
				p += (centers[k][i] - centers[k-1][i]) * q.At(i, j)
			}
			g += p * p
		}
	}
	return g
}

// spearman is Spearman's ρ between the class order 0..k−1 and the values
// (assumed distinct).
func spearman(values []float64) float64 {
	k := len(values)
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmpFloat(values[a], values[b]) })
	var d2 float64
	for rank, i := range idx {
		d := float64(rank - i)
		d2 += d * d
	}
	return 1 - 6*d2/float64(k*(k*k-1))
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// projectedCenters returns the position of each class centre along axis j.
func projectedCenters(centers [][]float64, axes mat.Matrix, j int) []float64 {
	p := make([]float64, len(centers))
	for k, c := range centers {
		for i, v := range c {
			p[k] += v * axes.At(i, j)
		}
	}
	return p
}
