package fisher

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// nearDupKernel is the linear kernel of n points in 3-D around (off, off,
// off), every odd point a copy of the one before at distance ≈ sep, with
// random classes of k: near pairs of both kinds, same class and not.
func nearDupKernel(n, k int, sep, off float64, seed uint64) ([]float64, []int) {
	rng := rand.New(rand.NewPCG(seed, 9))
	const dim = 3
	x := make([]float64, n*dim)
	cls := make([]int, n)
	for i := range n {
		cls[i] = rng.IntN(k)
		for d := range dim {
			if i%2 == 1 {
				x[i*dim+d] = x[(i-1)*dim+d] + sep*rng.NormFloat64()
			} else {
				x[i*dim+d] = off + rng.NormFloat64()
			}
		}
	}
	s := linearGram(x, n, dim)
	return s, cls
}

// gemmCase is a PathSums input for the Gemm-form tests.
type gemmCase struct {
	name   string
	s      []float64
	cls    []int
	n, k   int
	sigma  float64
	T      int
	excl   bool
	rows   int  // rows per block (0: PathSums' own choice)
	redo   bool // pairs redone directly expected (near pairs, pure regions)
	logDom bool // log-domain fallbacks expected
}

func gemmCases(t *testing.T) []gemmCase {
	rbf, rbfCls := randomKernel(t, 37, 3, 0.05, 21)
	odd, oddCls := randomKernel(t, 53, 4, 0.05, 22)
	// Classes 3 and 4 with one member each, class 5 empty.
	one, oneCls := randomKernel(t, 41, 3, 0.05, 23)
	oneCls[0], oneCls[40] = 3, 4
	dup, dupCls := nearDupKernel(60, 3, 1e-6, 0, 24)
	far, farCls := nearDupKernel(40, 3, 1e-4, 10, 25)
	twin, twinCls := twinKernel(30, 3, 1e-3, 26)
	var cs []gemmCase
	for _, excl := range []bool{false, true} {
		cs = append(cs,
			gemmCase{"rbf n37 k3 T4 one block", rbf, rbfCls, 37, 3, 0.5, 4, excl, 0, false, false},
			gemmCase{"rbf n37 k3 T4 rows 7", rbf, rbfCls, 37, 3, 0.5, 4, excl, 7, false, false},
			gemmCase{"rbf n37 k3 T1 rows 6", rbf, rbfCls, 37, 3, 0.5, 1, excl, 6, false, false},
			gemmCase{"rbf n37 k3 T2 rows 12", rbf, rbfCls, 37, 3, 0.5, 2, excl, 12, false, false},
			gemmCase{"odd n53 k4 T5 rows 11", odd, oddCls, 53, 4, 0.3, 5, excl, 11, false, false},
			gemmCase{"one-member classes n41 k6 T3 rows 9", one, oneCls, 41, 6, 0.5, 3, excl, 9, false, false},
			gemmCase{"near duplicates n60 T10 rows 13", dup, dupCls, 60, 3, 0.5, 10, excl, 13, true, false},
			gemmCase{"near duplicates off 10 n40 T6 rows 8", far, farCls, 40, 3, 0.5, 6, excl, 8, true, false},
			gemmCase{"twins tiny sigma n30 T4 rows 8", twin, twinCls, 30, 3, 1e-3, 4, excl, 8, true, true},
		)
	}
	for q := range cs {
		if cs[q].excl {
			cs[q].name += " excl"
		}
	}
	return cs
}

// TestPathSumsGemm compares the Gemm form with the direct loop: every
// value within 1e-10 of the pair's path sum f0_ij + f0_ji + mid_ij.
func TestPathSumsGemm(t *testing.T) {
	for _, tc := range gemmCases(t) {
		n := tc.n
		p := PathParams{Sigma: tc.sigma, Steps: tc.T, ExcludeEndpoints: tc.excl, Threads: 2}
		rf0, rmid := make([]float64, n*n), make([]float64, n*n)
		rfb, err := pathSumsDirect(context.Background(), rf0, rmid, tc.s, n, tc.cls, tc.k, p)
		var last, total int64
		p.Progress = func(done, tot int64) {
			if done <= last {
				t.Errorf("%s: progress %d after %d", tc.name, done, last)
			}
			last, total = done, tot
		}
		if err != nil {
			t.Fatal(err)
		}
		f0, mid := make([]float64, n*n), make([]float64, n*n)
		fb, redone, err := pathSumsGemm(context.Background(), f0, mid, tc.s, n, tc.cls, tc.k, p, gemmOpts{rows: tc.rows})
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(n * (n - 1) / 2); last != want || total != want {
			t.Errorf("%s: final progress %d of %d, want %d of %d", tc.name, last, total, want, want)
		}
		if (redone > 0) != tc.redo {
			t.Errorf("%s: %d pairs redone directly, want any = %v", tc.name, redone, tc.redo)
		}
		// Far twins with σ = 1e-3: only the end points escape the log
		// domain and most pairs are redone; elsewhere most must not be.
		if 10*redone > int64(n*(n-1)/2) && !tc.logDom {
			t.Errorf("%s: %d of %d pairs redone directly: the Gemm values are hardly tested", tc.name, redone, n*(n-1)/2)
		}
		if (fb > 0) != tc.logDom || (rfb > 0) != tc.logDom {
			t.Errorf("%s: %d fallbacks (direct %d), want any = %v", tc.name, fb, rfb, tc.logDom)
		}
		var worst float64
		var same int64 // pairs equal to the direct loop's bits, redone ones at least
		for i := range n {
			if f0[i*n+i] != 0 || mid[i*n+i] != 0 {
				t.Errorf("%s: nonzero diagonal at %d", tc.name, i)
			}
			for j := i + 1; j < n; j++ {
				if f0[i*n+j] == rf0[i*n+j] && f0[j*n+i] == rf0[j*n+i] && mid[i*n+j] == rmid[i*n+j] {
					same++
				}
				L := rf0[i*n+j] + rf0[j*n+i] + rmid[i*n+j]
				for _, q := range []int{i*n + j, j*n + i} {
					d := max(math.Abs(f0[q]-rf0[q]), math.Abs(mid[q]-rmid[q]))
					if !(d <= 1e-10*L) && d != 0 {
						t.Errorf("%s: (%d,%d): f0 %v mid %v, direct %v %v", tc.name, q/n, q%n, f0[q], mid[q], rf0[q], rmid[q])
					}
					if L > 0 {
						worst = max(worst, d/L)
					}
				}
			}
		}
		if same < redone {
			t.Errorf("%s: %d pairs redone directly, only %d with the direct loop's bits", tc.name, redone, same)
		}
		t.Logf("%s: max |gemm − direct| / path sum = %.2g, %d pairs redone, %d fallbacks", tc.name, worst, redone, fb)
	}
}

// TestPathSumsGemmBits checks what must hold to the bit: any thread count,
// any width of the column chunks, and a Pairs-restricted run against the
// full one (0 elsewhere).
func TestPathSumsGemmBits(t *testing.T) {
	for _, tc := range gemmCases(t) {
		n := tc.n
		runCols := func(threads, cols int, pairs func(a, b int) bool) ([]float64, []float64, int64) {
			f0, mid := make([]float64, n*n), make([]float64, n*n)
			p := PathParams{Sigma: tc.sigma, Steps: tc.T, ExcludeEndpoints: tc.excl, Threads: threads, Pairs: pairs}
			fb, _, err := pathSumsGemm(context.Background(), f0, mid, tc.s, n, tc.cls, tc.k, p, gemmOpts{rows: tc.rows, cols: cols})
			if err != nil {
				t.Fatal(err)
			}
			return f0, mid, fb
		}
		run := func(threads int, pairs func(a, b int) bool) ([]float64, []float64, int64) {
			return runCols(threads, 0, pairs)
		}
		ref0, refm, reffb := run(1, nil)
		for _, v := range []struct{ threads, cols int }{{2, 0}, {3, 0}, {2, 1}, {1, 5}, {2, 16}} {
			f0, mid, fb := runCols(v.threads, v.cols, nil)
			for q := range f0 {
				if f0[q] != ref0[q] || mid[q] != refm[q] {
					t.Fatalf("%s: threads %d, chunks of %d columns differ from 1 thread, one chunk at (%d,%d)", tc.name, v.threads, v.cols, q/n, q%n)
				}
			}
			if fb != reffb {
				t.Errorf("%s: threads %d, chunks of %d: %d fallbacks, 1 thread %d", tc.name, v.threads, v.cols, fb, reffb)
			}
		}
		// A tile (rows [n/4, n/2) against [n/2, n)) and a scattered set.
		restrictions := map[string]func(a, b int) bool{
			"tile": func(a, b int) bool {
				a, b = min(a, b), max(a, b)
				return a >= n/4 && a < n/2 && b >= n/2
			},
			"diagonal tile": func(a, b int) bool {
				return a >= n/4 && b >= n/4 && a < 2*n/3 && b < 2*n/3
			},
			"scattered": func(a, b int) bool { return (a*7+b*3)%5 == 0 },
		}
		for name, pairs := range restrictions {
			f0, mid, _ := run(2, pairs)
			for i := range n {
				for j := range n {
					q := i*n + j
					want0, wantm := ref0[q], refm[q]
					if i == j || !pairs(i, j) {
						want0, wantm = 0, 0
					}
					if f0[q] != want0 || mid[q] != wantm {
						t.Fatalf("%s %s: (%d,%d) = %v %v, want %v %v", tc.name, name, i, j, f0[q], mid[q], want0, wantm)
					}
				}
			}
		}
	}
}

// TestPathSumsGemmCancel cancels after the first row block (from the
// progress callback): the run stops with ctx.Err() before the second.
func TestPathSumsGemmCancel(t *testing.T) {
	const n, k = 40, 3
	s, cls := randomKernel(t, n, k, 0.05, 27)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	p := PathParams{Sigma: 0.5, Steps: 4, Threads: 2, Progress: func(done, total int64) {
		calls++
		cancel()
	}}
	_, _, err := pathSumsGemm(ctx, make([]float64, n*n), make([]float64, n*n), s, n, cls, k, p, gemmOpts{rows: 6})
	if err != context.Canceled {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if calls != 1 {
		t.Errorf("%d progress calls after cancelling in the first, want 1", calls)
	}
}
