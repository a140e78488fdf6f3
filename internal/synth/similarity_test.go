package synth

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestIndefiniteSimilarity(t *testing.T) {
	const n, k = 120, 3
	s, classes := IndefiniteSimilarity(rand.New(rand.NewPCG(1, 2)), n, k, 0.3)
	again, _ := IndefiniteSimilarity(rand.New(rand.NewPCG(1, 2)), n, k, 0.3)
	counts := make([]int, k)
	for i := range n {
		counts[classes[i]]++
		for j := range n {
			if s[i*n+j] != s[j*n+i] {
				t.Fatalf("not symmetric at (%d, %d)", i, j)
			}
		}
	}
	for c, cnt := range counts {
		if cnt != n/k {
			t.Errorf("class %d has %d objects, want %d", c, cnt, n/k)
		}
	}
	for i := range s {
		if s[i] != again[i] {
			t.Fatal("same seed, different matrix")
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(n, s), false) {
		t.Fatal("eigendecomposition failed")
	}
	if v := eig.Values(nil); v[0] >= 0 {
		t.Errorf("smallest eigenvalue %v: the matrix is not indefinite", v[0])
	}
}
