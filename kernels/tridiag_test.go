package kernels

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack/gonum"
)

// TestTridiagonalize compares the reduction with gonum's Dsytrd(Lower):
// the same algorithm, so d, e, τ and the reflectors agree to rounding;
// and checks bit-identity across thread counts.
func TestTridiagonalize(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 20))
	impl := gonum.Implementation{}
	for _, n := range []int{2, 3, 31, 32, 33, 65, 150, 300} {
		name := fmt.Sprintf("n=%d", n)
		a := randomSym(rng, n)
		ref := append([]float64(nil), a...)
		d0, e0, tau0 := make([]float64, n), make([]float64, n-1), make([]float64, n-1)
		work := make([]float64, 64*n)
		impl.Dsytrd(blas.Lower, n, ref, n, d0, e0, tau0, work, len(work))
		var bits []float64
		for _, th := range []int{1, 2, 5} {
			b := append([]float64(nil), a...)
			d, e, tau := make([]float64, n), make([]float64, n-1), make([]float64, n-1)
			if err := tridiagonalize(context.Background(), b, n, d, e, tau, th); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			// The entries of T are not perturbation-stable (the reduction is
			// backward stable, its output is not forward stable), so two
			// roundings (FMA or not, another summation order) can differ by
			// far more than ε; EigenSym's tests check the spectrum itself.
			tol := 1e-10 * float64(n)
			for i := range n {
				if math.Abs(d[i]-d0[i]) > tol {
					t.Fatalf("%s: d[%d] = %v, gonum %v", name, i, d[i], d0[i])
				}
			}
			for i := range n - 1 {
				if math.Abs(e[i]-e0[i]) > tol || math.Abs(tau[i]-tau0[i]) > tol {
					t.Fatalf("%s: e[%d], τ[%d] = %v, %v, gonum %v, %v", name, i, i, e[i], tau[i], e0[i], tau0[i])
				}
				for r := i + 2; r < n; r++ {
					if math.Abs(b[r*n+i]-ref[r*n+i]) > tol {
						t.Fatalf("%s: reflector %d entry %d = %v, gonum %v", name, i, r, b[r*n+i], ref[r*n+i])
					}
				}
			}
			got := append(append(append([]float64(nil), d...), e...), tau...)
			for i := range n {
				got = append(got, b[i*n:i*n+i+1]...)
			}
			if bits == nil {
				bits = got
				continue
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(bits[i]) {
					t.Fatalf("%s: threads=%d differs from threads=1 at %d", name, th, i)
				}
			}
		}
	}
}

// TestApplyTridiagQ: the blocked application of the reflectors equals
// forming Q with gonum's Dorgtr and multiplying, on sizes around the panel
// width, and gives the same bits for any thread count.
func TestApplyTridiagQ(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	impl := gonum.Implementation{}
	for _, n := range []int{1, 2, 3, 64, 65, 66, 130, 200} {
		name := fmt.Sprintf("n=%d", n)
		a := randomSym(rng, n)
		d, e, tau := make([]float64, n), make([]float64, max(n-1, 0)), make([]float64, max(n-1, 0))
		if err := tridiagonalize(context.Background(), a, n, d, e, tau, 2); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		z := make([]float64, n*n)
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		q := append([]float64(nil), a...)
		work := make([]float64, 64*n)
		impl.Dorgtr(blas.Lower, n, q, n, tau, work, len(work))
		want := make([]float64, n*n)
		for i := range n {
			for k := range n {
				for j := range n {
					want[i*n+j] += q[i*n+k] * z[k*n+j]
				}
			}
		}
		var first []float64
		for _, th := range []int{1, 2, 3} {
			got := append([]float64(nil), z...)
			if err := applyTridiagQ(context.Background(), a, n, tau, got, th); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-13*float64(n) {
					t.Fatalf("%s threads=%d: (Q·z)[%d] = %v, Dorgtr and multiply %v", name, th, i, got[i], want[i])
				}
			}
			if first == nil {
				first = got
			} else if !slicesEqualBits(first, got) {
				t.Fatalf("%s: threads=%d differs from threads=1", name, th)
			}
		}
	}
}

func slicesEqualBits(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

// TestDotAxpy: the selected kernel (FMA where the CPU has it) against the
// plain-Go loop, on lengths around its 16-element blocks and unaligned
// slices.
func TestDotAxpy(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 7))
	for _, n := range []int{0, 1, 3, 15, 16, 17, 31, 32, 33, 100, 257} {
		a, x, y := randomPoints(rng, 1, n+1)[1:], randomPoints(rng, 1, n+1)[1:], randomPoints(rng, 1, n+1)[1:]
		xr := rng.NormFloat64()
		y1, y2 := append([]float64(nil), y...), append([]float64(nil), y...)
		got := dotAxpy(a, x, y1, xr)
		want := dotAxpyGo(a, x, y2, xr)
		var bound float64
		for i := range a {
			bound += math.Abs(a[i] * x[i])
		}
		if math.Abs(got-want) > 4*float64(n+1)*0x1p-52*bound {
			t.Errorf("n=%d: dot = %v, plain Go %v", n, got, want)
		}
		for i := range y1 {
			if math.Abs(y1[i]-y2[i]) > 4*0x1p-52*(math.Abs(y[i])+math.Abs(a[i]*xr)) {
				t.Errorf("n=%d: y[%d] = %v, plain Go %v", n, i, y1[i], y2[i])
			}
		}
	}
}
