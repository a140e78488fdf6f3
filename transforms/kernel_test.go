package transforms

import (
	"math"
	"testing"
)

func TestKernelMatrix(t *testing.T) {
	x := []float64{0, 0, 1, 0, 0, 2} // three points in 2-D
	lin, g := KernelMatrix(x, 3, 2, "linear", 0)
	want := []float64{0, 0, 0, 0, 1, 0, 0, 0, 4}
	for k := range want {
		if lin[k] != want[k] || g != 0 {
			t.Fatalf("linear kernel %v (γ %v), want %v", lin, g, want)
		}
	}
	// Squared distances between distinct rows: 1, 4, 5; the median 4 gives γ = 1/4.
	rbf, g := KernelMatrix(x, 3, 2, "rbf", 0)
	if g != 0.25 {
		t.Errorf("default γ = %v, want 0.25", g)
	}
	for i, d2 := range map[[2]int]float64{{0, 1}: 1, {0, 2}: 4, {1, 2}: 5, {1, 1}: 0} {
		if got, w := rbf[i[0]*3+i[1]], math.Exp(-0.25*d2); math.Abs(got-w) > 1e-15 || rbf[i[1]*3+i[0]] != got {
			t.Errorf("rbf[%v] = %v, want %v (and symmetric)", i, got, w)
		}
	}
	if _, g := KernelMatrix(x, 3, 2, "rbf", 2); g != 2 {
		t.Errorf("given γ changed to %v", g)
	}
}
