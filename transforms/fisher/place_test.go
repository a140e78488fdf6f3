package fisher

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/ordinate/ordinate/kernels"
)

// TestPlaceDistances: a new row's distances are the Fisher path lengths by
// the definition (refFOver on the Gram matrix of the fitted rows and the
// new one) with the Parzen sums over {j} ∪ N_L(q) ∪ N_L(j), fitted rows
// only, to its K nearest fitted rows; and placing rows in two halves gives
// the bits of placing them together.
func TestPlaceDistances(t *testing.T) {
	const n, m, dim, k, K, L, T = 80, 12, 4, 3, 7, 10, 5
	x, cls := mixtureRows(n+m, dim, k, 21)
	xq := x[n*dim:]
	x = x[:n*dim]
	cls = cls[:n]
	for _, kind := range LocalKernels {
		for _, rule := range []Rule{Trapezoid, Left} {
			for _, excl := range []bool{false, true} {
				name := fmt.Sprintf("%s %s excl=%v", kind, rule, excl)
				kern, err := kernels.Kernel{Kind: kind}.Resolve(x, n, dim)
				if err != nil {
					t.Fatal(err)
				}
				lc, _, err := NewLocal(context.Background(), x, n, dim, kern, cls, k, L, 1, kernels.KNNExact, kernels.NNDescentSettings{})
				if err != nil {
					t.Fatal(err)
				}
				sigma := map[string]float64{"rbf": 0.3, "linear": 1.0, "cosine": 0.25}[kind]
				p := PathParams{Sigma: sigma, Steps: T, ExcludeEndpoints: excl, Threads: 2}
				idx, dist, err := PlaceDistances(context.Background(), lc, xq, m, K, rule, p)
				if err != nil {
					t.Fatal(err)
				}
				all := append(append([]float64(nil), x...), xq...)
				s := gram(t, kern, all, n+m, dim)
				N := n + m
				d2 := func(a, b int) float64 { return max(0, s[a*N+a]+s[b*N+b]-2*s[a*N+b]) }
				// nearest returns the fitted rows by kernel distance from a, a itself left out.
				nearest := func(a int) []int {
					rows := make([]int, 0, n)
					for l := range n {
						if l != a {
							rows = append(rows, l)
						}
					}
					slices.SortStableFunc(rows, func(u, v int) int { return cmpFloat(d2(a, u), d2(a, v)) })
					return rows
				}
				in := make([]bool, N)
				var worst, scale float64
				for r := range m {
					q := n + r
					near := nearest(q)
					for c := range K {
						j := int(idx[r*K+c])
						if j != near[c] {
							t.Fatalf("%s: row %d's neighbour %d is %d, want %d", name, r, c, j, near[c])
						}
						clear(in)
						for _, l := range near[:L] {
							in[l] = true
						}
						for _, l := range nearest(j)[:L] {
							in[l] = true
						}
						in[j] = !excl
						var f0, f1, mid float64
						for st := 0; st <= T; st++ {
							f := refFOver(s, N, append(append([]int(nil), cls...), make([]int, m)...), k, sigma, float64(st)/T, q, j, in)
							switch st {
							case 0:
								f0 = f
							case T:
								f1 = f
							default:
								mid += f
							}
						}
						want := (f0 + mid) / (sigma * sigma * T)
						if rule == Trapezoid {
							want = (0.5*f0 + 0.5*f1 + mid) / (sigma * sigma * T)
						}
						worst = max(worst, math.Abs(dist[r*K+c]-want))
						scale = max(scale, want)
					}
				}
				if !(scale > 0) || worst > 1e-9*scale {
					t.Errorf("%s: max |placed − definition| = %.3g (scale %.3g)", name, worst, scale)
				}
				// Halves placed apart give the same bits.
				h := m / 2
				i1, d1, err := PlaceDistances(context.Background(), lc, xq[:h*dim], h, K, rule, p)
				if err != nil {
					t.Fatal(err)
				}
				p.Threads = 1
				i2, d2s, err := PlaceDistances(context.Background(), lc, xq[h*dim:], m-h, K, rule, p)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(append(i1, i2...), idx) || !slices.Equal(append(d1, d2s...), dist) {
					t.Errorf("%s: halves placed apart differ from the whole", name)
				}
			}
		}
	}
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
