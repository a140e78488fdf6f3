package nerv

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ordinate/ordinate/internal/synth"
	"github.com/ordinate/ordinate/kernels"
)

// TestNearest: the monitor's selection against a full sort by (distance,
// index), ties and the row itself included.
func TestNearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name   string
		n, k   int
		levels int // distinct values, for ties; 0: continuous
	}{
		{"continuous", 500, 10, 0},
		{"many ties", 500, 10, 7},
		{"k = n − 1", 11, 10, 3},
		{"k = 1", 50, 1, 0},
	} {
		dist := make([]float64, tc.n)
		for j := range dist {
			dist[j] = rng.Float64()
			if tc.levels > 0 {
				dist[j] = float64(rng.IntN(tc.levels))
			}
		}
		self := tc.n / 2
		dist[self] = 0
		want := make([]int32, 0, tc.n)
		for j := range tc.n {
			if j != self {
				want = append(want, int32(j))
			}
		}
		slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(dist[a], dist[b]) })
		got := make([]int32, tc.k)
		nearest(got, dist, self)
		if !slices.Equal(got, want[:tc.k]) {
			t.Errorf("%s: nearest = %v, want %v", tc.name, got, want[:tc.k])
		}
	}
}

// TestPlurality: the plurality class of the neighbours, ties to the class
// of the nearer neighbour, unlabelled neighbours not voting.
func TestPlurality(t *testing.T) {
	cls := []int32{0, 1, 2, -1, 1, 0, 2, 2}
	for _, tc := range []struct {
		name string
		near []int32
		want int32
	}{
		{"majority", []int32{0, 1, 4, 2}, 1},
		{"tie to the nearer", []int32{5, 1, 0, 4}, 0},
		{"tie to the nearer, other order", []int32{4, 0, 1, 5}, 1},
		{"unlabelled do not vote", []int32{3, 3, 3, 2}, 2},
		{"three classes", []int32{2, 0, 6, 1, 7}, 2},
	} {
		for c := int32(0); c < 3; c++ {
			want := 0.0
			if c == tc.want {
				want = 1
			}
			if got := plurality(tc.near, cls, c); got != want {
				t.Errorf("%s: plurality for class %d = %v, want %v", tc.name, c, got, want)
			}
		}
	}
}

// TestMonitorScore: a 2-D input mapped to itself preserves every
// neighbourhood at both scales (Preserved and SamplePreserved 1), and the
// accuracies are the leave-one-out 10-NN plurality accuracies computed from
// kernels.KNN's lists, among all rows and within the sample; a map that
// swaps the points at random preserves about k/n of them.
func TestMonitorScore(t *testing.T) {
	ctx := context.Background()
	const per, c, k = 100, 4, 12
	x3, soft := synth.FourClusters(rand.New(rand.NewPCG(5, 6)), per)
	n := 4 * per
	x := make([]float64, 2*n)
	for i := range n {
		x[2*i], x[2*i+1] = x3[3*i], x3[3*i+1]
	}
	idx := make([]int32, n*k)
	if err := kernels.KNN(ctx, idx, nil, x, n, 2, k, 1); err != nil {
		t.Fatal(err)
	}
	cls := dominantClasses(soft, n, c)
	// loo is the 10-NN plurality accuracy of the rows (every n/rows-th)
	// among themselves.
	loo := func(rows int) float64 {
		xs := make([]float64, 2*rows)
		for s := range rows {
			copy(xs[2*s:2*s+2], x[2*(s*n/rows):])
		}
		nb := make([]int32, rows*monitorK)
		if err := kernels.KNN(ctx, nb, nil, xs, rows, 2, monitorK, 1); err != nil {
			t.Fatal(err)
		}
		acc := 0.0
		for s := range rows {
			near := make([]int32, monitorK)
			for a, j := range nb[s*monitorK : (s+1)*monitorK] {
				near[a] = int32(int(j) * n / rows)
			}
			acc += plurality(near, cls, cls[s*n/rows])
		}
		return acc / float64(rows)
	}
	all := 0.0
	for i := range n {
		all += plurality(idx[i*k:i*k+monitorK], cls, cls[i])
	}
	all /= float64(n)
	for _, tc := range []struct {
		rows, threads int
	}{{n, 1}, {n, 2}, {100, 2}} {
		m, err := newNeighbourMonitor(ctx, x, 2, idx, n, k, soft, c, 2, tc.rows, tc.threads, 0)
		if err != nil {
			t.Fatal(err)
		}
		q, err := m.score(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		wantAll := all
		if tc.rows < n {
			wantAll = 0
			for s := range tc.rows {
				i := s * n / tc.rows
				wantAll += plurality(idx[i*k:i*k+monitorK], cls, cls[i])
			}
			wantAll /= float64(tc.rows)
		}
		if q.Preserved != 1 || q.SamplePreserved != 1 || math.Abs(q.Accuracy-wantAll) > 1e-12 || math.Abs(q.SampleAccuracy-loo(tc.rows)) > 1e-12 {
			t.Errorf("%d rows, %d threads: identity map: %+v; want preserved 1 and 1, accuracies %v and %v", tc.rows, tc.threads, q, wantAll, loo(tc.rows))
		}
	}
	perm := rand.New(rand.NewPCG(7, 8)).Perm(n)
	shuffled := make([]float64, 2*n)
	for i, j := range perm {
		shuffled[2*i], shuffled[2*i+1] = x[2*j], x[2*j+1]
	}
	m, err := newNeighbourMonitor(ctx, x, 2, idx, n, k, nil, 0, 2, 200, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	q, err := m.score(ctx, shuffled)
	if err != nil {
		t.Fatal(err)
	}
	if exp := float64(monitorK) / float64(n-1); q.Preserved > 5*exp || q.SamplePreserved > 0.5 || !math.IsNaN(q.Accuracy) || !math.IsNaN(q.SampleAccuracy) {
		t.Errorf("shuffled map: %+v; want preserved near chance %v, accuracies NaN (no labels)", q, exp)
	}
}

// TestMonitorConverged: checks every monitorEvery iterations; the first
// check never stops; a later one stops when no score moved by more than
// the tolerance since span checks before (the first span checks never
// stop); tolerance 0 never stops.
func TestMonitorConverged(t *testing.T) {
	ctx := context.Background()
	const n, k = 300, 10
	rng := rand.New(rand.NewPCG(9, 10))
	x := make([]float64, 2*n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	idx := make([]int32, n*k)
	if err := kernels.KNN(ctx, idx, nil, x, n, 2, k, 1); err != nil {
		t.Fatal(err)
	}
	moved := append([]float64(nil), x...)
	for i := range moved {
		moved[i] += 0.3 * rng.NormFloat64()
	}
	for _, tc := range []struct {
		name  string
		tol   float64
		span  int
		maps  [][]float64 // the maps at iterations 10, 20, …
		stops int         // the iteration that stops, 0: none
	}{
		{"same map", 1e-9, 0, [][]float64{x, x, x}, 20},
		{"moved, then still", 1e-9, 0, [][]float64{x, moved, moved}, 30},
		{"moved, loose tolerance", 1, 0, [][]float64{x, moved, moved}, 20},
		{"tolerance 0", 0, 0, [][]float64{x, x, x}, 0},
		{"span 2, same map", 1e-9, 2, [][]float64{x, x, x, x}, 30},
		{"span 2, moved, then still", 1e-9, 2, [][]float64{x, moved, moved, moved}, 40},
		{"span 2, moved back", 1e-9, 2, [][]float64{x, moved, x, x}, 30},
		{"span 2, still, then moved", 1e-9, 2, [][]float64{x, x, moved, moved, moved}, 50},
	} {
		m, err := newNeighbourMonitor(ctx, x, 2, idx, n, k, nil, 0, 2, n, 1, tc.tol)
		if err != nil {
			t.Fatal(err)
		}
		m.span = tc.span
		stops, last := 0, monitorEvery*len(tc.maps)
		for it := 1; it <= last && stops == 0; it++ {
			if m.converged(ctx, it, tc.maps[(it-1)/monitorEvery]) {
				stops = it
			}
		}
		wantChecks := tc.stops / monitorEvery
		if tc.stops == 0 {
			wantChecks = len(tc.maps)
		}
		if stops != tc.stops || m.last.Checks != wantChecks {
			t.Errorf("%s: stopped at %d after %d checks, want %d", tc.name, stops, m.last.Checks, tc.stops)
		}
	}
}

// TestFitMonitor: a sparse fit's last level stops at the monitor's second
// check (iteration 20) under a loose tolerance, with the status and the
// final map's Quality; tolerance 0 leaves the stress rule in charge; the
// exact method has no monitor.
func TestFitMonitor(t *testing.T) {
	ctx := context.Background()
	const per, c = 150, 6
	n := 4 * per
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(1, 2)), per)
	hard, _ := hardOf(soft, n, c)
	for _, tc := range []struct {
		name   string
		method Method
		tol    float64
		status string // "" : any but StatusNeighbours
	}{
		{"loose tolerance", Grid, 1, StatusNeighbours},
		{"off", Grid, 0, ""},
		{"exact method", Exact, 1, ""},
	} {
		o := DefaultOptions()
		o.Perplexity, o.Threads, o.Method, o.NeighbourTol = 15, 2, tc.method, tc.tol
		r, err := Fit(ctx, x, n, 3, hard, c, o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		last := r.Levels[len(r.Levels)-1]
		q := r.Quality
		t.Logf("%s: %s after %d iterations, quality %+v", tc.name, last.Status, last.Iterations, q)
		switch {
		case tc.method == Exact:
			if q != nil || last.Status == StatusNeighbours {
				t.Errorf("%s: quality %+v, status %q; want none", tc.name, q, last.Status)
			}
		case tc.status != "":
			if last.Status != tc.status || last.Iterations != 2*monitorEvery || q == nil || q.Checks != 2 {
				t.Errorf("%s: %q after %d iterations, quality %+v; want %q after %d, 2 checks", tc.name, last.Status, last.Iterations, q, tc.status, 2*monitorEvery)
			}
		default:
			if last.Status == StatusNeighbours || q == nil || q.Checks != last.Iterations/monitorEvery {
				t.Errorf("%s: %q after %d iterations, quality %+v", tc.name, last.Status, last.Iterations, q)
			}
		}
		if q != nil && (!(q.Preserved > 0.3 && q.Preserved <= 1) || !(q.Accuracy > 0.5 && q.Accuracy <= 1) || q.Rows != n || q.K != monitorK) {
			t.Errorf("%s: quality %+v out of range", tc.name, q)
		}
	}
}
