package nerv

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/ordinate/ordinate/transforms/placement"

	"github.com/ordinate/ordinate/kernels"
)

// nervFixture is a reference set of three Gaussian clusters: features x
// (n×d) and a map y that keeps their first dims coordinates, so input and
// output distances are on the same scale, as after NeRV's PCA start.
type nervFixture struct {
	ref     placement.Reference
	x       []float64
	d       int
	cluster []int
	centres [3][]float64
}

func newNeRVFixture(n, dims int, seed uint64) *nervFixture {
	const d = 4
	rng := rand.New(rand.NewPCG(seed, 13))
	f := &nervFixture{x: make([]float64, n*d), d: d, cluster: make([]int, n)}
	for c := range f.centres {
		f.centres[c] = make([]float64, d)
	}
	f.centres[1][0], f.centres[2][1] = 12, 12
	if dims == 1 {
		f.centres[2][0], f.centres[2][1] = 24, 0
	}
	y := make([]float64, n*dims)
	for i := range n {
		c := i % 3
		f.cluster[i] = c
		for a := range d {
			f.x[i*d+a] = f.centres[c][a] + rng.NormFloat64()
		}
		copy(y[i*dims:(i+1)*dims], f.x[i*d:])
	}
	f.ref = placement.Reference{Y: y, N: n, Dims: dims}
	return f
}

// neighbours returns the k reference rows nearest to z, ascending (ties by
// index), with squared distances.
func (f *nervFixture) neighbours(z []float64, k int) ([]int32, []float64) {
	type pd struct {
		j  int32
		d2 float64
	}
	all := make([]pd, f.ref.N)
	for j := range all {
		all[j] = pd{int32(j), kernels.EmbedSqDist(z, f.x[j*f.d:(j+1)*f.d])}
	}
	slices.SortFunc(all, func(a, b pd) int { return cmp.Or(cmp.Compare(a.d2, b.d2), cmp.Compare(a.j, b.j)) })
	nbr, d2 := make([]int32, k), make([]float64, k)
	for q := range k {
		nbr[q], d2[q] = all[q].j, all[q].d2
	}
	return nbr, d2
}

// soft returns one-hot (hard) or blurred (soft) label weights per cluster.
func (f *nervFixture) soft(hard bool) []float64 {
	w := make([]float64, f.ref.N*3)
	for i, c := range f.cluster {
		switch {
		case i%17 == 0:
			w[i*3] = math.NaN() // some unlabelled reference rows
		case hard:
			w[i*3+c] = 1
		default:
			w[i*3+c] = 0.6
			w[i*3+(c+1)%3] = 0.3
			w[i*3+(c+2)%3] = 0.1
		}
	}
	return w
}

// globalScale is the mean calibrated σ of some reference rows, as a fit's
// global output scale would be.
func (f *nervFixture) globalScale(k float64) float64 {
	var sum float64
	for i := range 30 {
		_, d2 := f.neighbours(f.x[i*f.d:(i+1)*f.d], int(3*k)+1)
		prec, err := kernels.PerplexityRow(nil, d2[1:], -1, k, 0)
		if err != nil {
			panic(err)
		}
		sum += 1 / math.Sqrt(2*prec)
	}
	return sum / 30
}

// fullStress is ζ and its gradient at y summed over all N reference points
// without cutoff or index, straight from the formulas, for the row set up
// in s.
func fullStress(p *Placer, s *PlaceScratch, y []float64) (float64, []float64) {
	n, dims := p.ref.N, p.ref.Dims
	a := make([]float64, n)
	amin := math.Inf(1)
	for j := range n {
		a[j] = kernels.EmbedSqDist(y, p.ref.Row(int32(j))) / (2 * s.s * s.s)
		amin = min(amin, a[j])
	}
	var z float64
	for j := range n {
		z += math.Exp(amin - a[j])
	}
	beta, lbeta := make([]float64, n), make([]float64, n)
	for j := range lbeta {
		lbeta[j] = s.lf
	}
	for q, j := range s.nbr {
		beta[j], lbeta[j] = s.beta[q], s.lb[q]
	}
	g := make([]float64, n)
	var zeta, gsum float64
	for j := range n {
		logb := amin - a[j] - math.Log(z)
		b := math.Exp(logb)
		lam := p.tradeoff(s, int32(j))
		zeta += lam*(beta[j]*(lbeta[j]-logb)+b-beta[j]) + (1-lam)*(b*(logb-lbeta[j])+beta[j]-b)
		g[j] = lam*(b-beta[j]) + (1-lam)*b*(logb-lbeta[j])
		gsum += g[j]
	}
	grad := make([]float64, dims)
	for j := range n {
		b := math.Exp(amin - a[j] - math.Log(z))
		c := b*gsum - g[j]
		for k := range dims {
			grad[k] += c * (y[k] - p.ref.Y[j*dims+k]) / (s.s * s.s)
		}
	}
	return zeta, grad
}

func relErr(got, want []float64) float64 {
	var num, den float64
	for k := range got {
		num += (got[k] - want[k]) * (got[k] - want[k])
		den += want[k] * want[k]
	}
	return math.Sqrt(num / den)
}

// nervCases are the label and scale settings the numerical tests run.
var nervCases = []struct {
	name   string
	labels string // "", "hard" or "soft"
	global bool
	alpha  float64
}{
	{"unlabelled, transfer", "", false, 0.5},
	{"unlabelled, global", "", true, 0.5},
	{"hard labels, transfer", "hard", false, 0.7},
	{"hard labels, global", "hard", true, 0.7},
	{"soft labels, transfer", "soft", false, 0.7},
	{"soft labels, global", "soft", true, 1},
}

// setupCase builds the placer of a case on f and a labelled row.
func setupCase(t *testing.T, f *nervFixture, labels string, global bool, alpha float64) (*Placer, []float64) {
	t.Helper()
	o := PlaceOptions{Perplexity: 10, Alpha: alpha, Gamma: 0.4}
	if global {
		o.Scale = f.globalScale(o.Perplexity)
	}
	var soft, row []float64
	switch labels {
	case "hard":
		soft, row = f.soft(true), []float64{0, 1, 0}
	case "soft":
		soft, row = f.soft(false), []float64{0.2, 0.5, 0.3}
	}
	p, err := NewPlacer(f.ref, soft, 3, o)
	if err != nil {
		t.Fatal(err)
	}
	return p, row
}

// TestNeRVStress checks the row stress with cutoff and index against the
// full sum over all reference points, and its gradient against central
// finite differences, at the start, near it and far from any point.
func TestNeRVStress(t *testing.T) {
	for _, dims := range []int{2, 1, 3} {
		f := newNeRVFixture(600, dims, 1)
		for _, tc := range nervCases {
			name := fmt.Sprintf("%s, dims %d", tc.name, dims)
			p, row := setupCase(t, f, tc.labels, tc.global, tc.alpha)
			z := []float64{6, 3, 0.5, -0.5} // between clusters 0 and 1
			nbr, d2 := f.neighbours(z, p.Neighbors())
			var s PlaceScratch
			if err := p.setup(nbr, d2, row, &s); err != nil {
				t.Fatal(err)
			}
			y0 := make([]float64, dims)
			placement.MedianInit(y0, p.ref, nbr[:p.o.InitNeighbors], nil)
			rng := rand.New(rand.NewPCG(uint64(dims), 2))
			for q := range 6 {
				y := slices.Clone(y0)
				for k := range y {
					y[k] += float64(q) * s.s * rng.NormFloat64()
				}
				if q == 5 {
					y[0] = 60 // far outside the map
				}
				g := make([]float64, dims)
				zeta := p.eval(&s, y, g)
				wz, wg := fullStress(p, &s, y)
				if e := math.Abs(zeta-wz) / math.Abs(wz); !(e <= 1e-12) {
					t.Errorf("%s, point %d: stress %.15g, full sum %.15g (rel. error %.2g)", name, q, zeta, wz, e)
				}
				if e := relErr(g, wg); !(e <= 1e-12) {
					t.Errorf("%s, point %d: gradient %v, full sum %v (rel. error %.2g)", name, q, g, wg, e)
				}
				h := 1e-5 * s.s
				fd := make([]float64, dims)
				for k := range y {
					yp, ym := slices.Clone(y), slices.Clone(y)
					yp[k] += h
					ym[k] -= h
					fd[k] = (p.eval(&s, yp, nil) - p.eval(&s, ym, nil)) / (2 * h)
				}
				if e := relErr(g, fd); !(e <= 1e-6) {
					t.Errorf("%s, point %d: gradient %v, finite differences %v (rel. error %.2g)", name, q, g, fd, e)
				}
			}
		}
	}
}

// TestNeRVEvalAllocs checks that a stress evaluation allocates nothing
// once the row's scratch has grown, also when it gathers again.
func TestNeRVEvalAllocs(t *testing.T) {
	f := newNeRVFixture(600, 2, 1)
	p, row := setupCase(t, f, "soft", false, 0.5)
	nbr, d2 := f.neighbours([]float64{6, 3, 0, 0}, p.Neighbors())
	var s PlaceScratch
	if err := p.setup(nbr, d2, row, &s); err != nil {
		t.Fatal(err)
	}
	ys := [][]float64{{0, 0}, {12, 0}, {6, 0}}
	g := make([]float64, 2)
	for _, y := range ys {
		p.eval(&s, y, g)
	}
	k := 0
	if a := testing.AllocsPerRun(20, func() {
		p.eval(&s, ys[k%3], g) // far apart: every call gathers
		k++
	}); a != 0 {
		t.Errorf("%g allocations per evaluation", a)
	}
}

// TestNeRVPlace checks placement itself: the stress falls from the median
// start, and rows drawn from a cluster land among that cluster's
// reference points.
func TestNeRVPlace(t *testing.T) {
	f := newNeRVFixture(900, 2, 3)
	rng := rand.New(rand.NewPCG(4, 5))
	for _, tc := range nervCases {
		p, row := setupCase(t, f, tc.labels, tc.global, tc.alpha)
		var s PlaceScratch
		for r := range 30 {
			c := r % 3
			z := make([]float64, f.d)
			for a := range z {
				z[a] = f.centres[c][a] + rng.NormFloat64()
			}
			nbr, d2 := f.neighbours(z, p.Neighbors())
			var lab []float64
			if row != nil {
				lab = make([]float64, 3)
				lab[c] = 1
			}
			dst := make([]float64, 2)
			stress, err := p.Place(dst, nbr, d2, lab, &s)
			if err != nil {
				t.Fatalf("%s, row %d: %v", tc.name, r, err)
			}
			if err := p.setup(nbr, d2, lab, &s); err != nil {
				t.Fatal(err)
			}
			y0 := make([]float64, 2)
			placement.MedianInit(y0, p.ref, nbr[:p.o.InitNeighbors], nil)
			if start := p.eval(&s, y0, nil); !(stress <= start) {
				t.Errorf("%s, row %d: stress %g after placement, %g at the start", tc.name, r, stress, start)
			}
			j, _ := p.idx.nearest(dst)
			if got := f.cluster[j]; got != c {
				t.Errorf("%s, row %d from cluster %d: placed at %v, nearest reference point %d is in cluster %d", tc.name, r, c, dst, j, got)
			}
		}
	}
}

// TestNeRVLabels checks the class term: a row between clusters 0 and 1
// (input neighbours in both), placed with α = 1 and the label of one of
// them, ends nearer that cluster's centre than the unsupervised placement
// (α = 0) does, on both sides.
func TestNeRVLabels(t *testing.T) {
	f := newNeRVFixture(900, 2, 6)
	z := []float64{6, 0, 0, 0}
	soft := f.soft(true)
	place := func(alpha float64, lab []float64) []float64 {
		p, err := NewPlacer(f.ref, soft, 3, PlaceOptions{Perplexity: 15, Alpha: alpha, Gamma: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		nbr, d2 := f.neighbours(z, p.Neighbors())
		var in [3]int
		for _, j := range nbr[:p.kin] {
			in[f.cluster[j]]++
		}
		if in[0] < 10 || in[1] < 10 {
			t.Fatalf("input neighbours per cluster %v: want both clusters", in)
		}
		dst := make([]float64, 2)
		if _, err := p.Place(dst, nbr, d2, lab, &PlaceScratch{}); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	free := place(0, []float64{1, 0, 0})
	for c := range 2 {
		lab := make([]float64, 3)
		lab[c] = 1
		sup := place(1, lab)
		centre := f.centres[c][:2]
		if dSup, dFree := kernels.EmbedSqDist(sup, centre), kernels.EmbedSqDist(free, centre); !(dSup < dFree) {
			t.Errorf("label %d: placed at %v with α = 1, %v with α = 0: squared distances %g and %g to the class centre", c, sup, free, dSup, dFree)
		}
	}
}

// TestNeRVDeterminism places the same rows on one goroutine in order and
// on four goroutines in a shuffled order, each with its own reused
// scratch: the positions and stresses must be the same bits.
func TestNeRVDeterminism(t *testing.T) {
	f := newNeRVFixture(600, 2, 7)
	p, _ := setupCase(t, f, "soft", false, 0.5)
	const rows = 120
	rng := rand.New(rand.NewPCG(8, 9))
	nbrs, d2s, labs := make([][]int32, rows), make([][]float64, rows), make([][]float64, rows)
	for r := range rows {
		z := make([]float64, f.d)
		for a := range z {
			z[a] = 14*rng.Float64() - 1
		}
		nbrs[r], d2s[r] = f.neighbours(z, p.Neighbors())
		if r%2 == 0 {
			labs[r] = []float64{0.5, 0.25, 0.25}
		}
	}
	run := func(order []int, workers int) ([]float64, []float64) {
		pos, st := make([]float64, rows*2), make([]float64, rows)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				var s PlaceScratch
				for q := w; q < len(order); q += workers {
					r := order[q]
					var err error
					st[r], err = p.Place(pos[r*2:r*2+2], nbrs[r], d2s[r], labs[r], &s)
					if err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		return pos, st
	}
	order := make([]int, rows)
	for r := range order {
		order[r] = r
	}
	pos1, st1 := run(order, 1)
	rng.Shuffle(rows, func(a, b int) { order[a], order[b] = order[b], order[a] })
	pos4, st4 := run(order, 4)
	for r := range rows {
		if pos1[2*r] != pos4[2*r] || pos1[2*r+1] != pos4[2*r+1] || st1[r] != st4[r] {
			t.Errorf("row %d: %v (stress %v) in order on one goroutine, %v (%v) shuffled on four", r, pos1[2*r:2*r+2], st1[r], pos4[2*r:2*r+2], st4[r])
		}
	}
}

// TestNeRVOptions checks the option errors and defaults.
func TestNeRVOptions(t *testing.T) {
	f := newNeRVFixture(30, 2, 1)
	for _, tc := range []struct {
		name string
		o    PlaceOptions
		soft []float64
		ok   bool
	}{
		{"defaults", PlaceOptions{Perplexity: 5, Alpha: 0.5, Gamma: 0.5}, nil, true},
		{"perplexity as large as N", PlaceOptions{Perplexity: 30}, nil, false},
		{"perplexity below 1", PlaceOptions{Perplexity: 0.5}, nil, false},
		{"alpha above 1", PlaceOptions{Perplexity: 5, Alpha: 2}, nil, false},
		{"negative gamma", PlaceOptions{Perplexity: 5, Gamma: -1}, nil, false},
		{"negative scale", PlaceOptions{Perplexity: 5, Scale: -1}, nil, false},
		{"negative iterations", PlaceOptions{Perplexity: 5, MaxIter: -1}, nil, false},
		{"short labels", PlaceOptions{Perplexity: 5}, make([]float64, 10), false},
	} {
		p, err := NewPlacer(f.ref, tc.soft, 3, tc.o)
		if (err == nil) != tc.ok {
			t.Errorf("%s: error %v, want ok = %v", tc.name, err, tc.ok)
			continue
		}
		if err != nil {
			continue
		}
		if o := p.Options(); o.MaxIter != DefaultPlaceMaxIter || o.Tol != DefaultPlaceTol || o.InitNeighbors != DefaultPlaceInitNeighbors {
			t.Errorf("%s: options %+v, want the defaults filled in", tc.name, o)
		}
		if got, want := p.Neighbors(), 25; got != want { // max(min(30, 15), 25)
			t.Errorf("%s: Neighbors() = %d, want %d", tc.name, got, want)
		}
	}
}

// TestNeRVFewNeighbours places rows from fewer neighbours than Neighbors()
// (as from a distance table with missing reference rows) and rejects too
// few for the perplexity or a bad distance.
func TestNeRVFewNeighbours(t *testing.T) {
	f := newNeRVFixture(300, 2, 2)
	p, _ := setupCase(t, f, "", false, 0)
	nbr, d2 := f.neighbours([]float64{0.5, 0.5, 0, 0}, p.Neighbors())
	dst := make([]float64, 2)
	var s PlaceScratch
	if _, err := p.Place(dst, nbr[:12], d2[:12], nil, &s); err != nil {
		t.Errorf("12 neighbours for perplexity 10: %v", err)
	}
	if _, err := p.Place(dst, nbr[:10], d2[:10], nil, &s); err == nil {
		t.Errorf("10 neighbours for perplexity 10: no error")
	}
	bad := slices.Clone(d2)
	bad[3] = math.NaN()
	if _, err := p.Place(dst, nbr, bad, nil, &s); err == nil {
		t.Errorf("a NaN distance: no error")
	}
	// Duplicates: more than K reference rows at distance 0.
	zero := make([]float64, len(d2))
	if _, err := p.Place(dst, nbr, zero, nil, &s); err != nil || math.IsNaN(dst[0]) {
		t.Errorf("all distances 0: %v at %v", err, dst)
	}
}

// fullStressT is ζ of the row set up in s under the t kernel, summed over
// all N reference points straight from the formulas.
func fullStressT(p *Placer, s *PlaceScratch, y []float64) float64 {
	n := p.ref.N
	w := make([]float64, n)
	var z float64
	for j := range n {
		w[j] = 1 / (1 + kernels.EmbedSqDist(y, p.ref.Row(int32(j)))/(2*s.s*s.s))
		z += w[j]
	}
	beta, lbeta := make([]float64, n), make([]float64, n)
	for j := range lbeta {
		lbeta[j] = s.lf
	}
	for q, j := range s.nbr {
		beta[j], lbeta[j] = s.beta[q], s.lb[q]
	}
	var zeta float64
	for j := range n {
		b := w[j] / z
		logb := math.Log(b)
		lam := p.tradeoff(s, int32(j))
		zeta += lam*(beta[j]*(lbeta[j]-logb)+b-beta[j]) + (1-lam)*(b*(logb-lbeta[j])+beta[j]-b)
	}
	return zeta
}

// TestNeRVStressT checks the row stress under the t kernel against the
// plain sum over every reference point, and its gradient against central
// differences, near the start and far from any point.
func TestNeRVStressT(t *testing.T) {
	for _, dims := range []int{2, 1} {
		f := newNeRVFixture(600, dims, 1)
		for _, tc := range nervCases {
			if !tc.global {
				continue // the t kernel takes one global width
			}
			name := fmt.Sprintf("%s, dims %d", tc.name, dims)
			o := PlaceOptions{Perplexity: 10, Alpha: tc.alpha, Gamma: 0.4, Scale: f.globalScale(10), Kernel: KernelT}
			var soft, row []float64
			switch tc.labels {
			case "hard":
				soft, row = f.soft(true), []float64{0, 1, 0}
			case "soft":
				soft, row = f.soft(false), []float64{0.2, 0.5, 0.3}
			}
			p, err := NewPlacer(f.ref, soft, 3, o)
			if err != nil {
				t.Fatal(err)
			}
			z := []float64{6, 3, 0.5, -0.5}
			nbr, d2 := f.neighbours(z, p.Neighbors())
			var s PlaceScratch
			if err := p.setup(nbr, d2, row, &s); err != nil {
				t.Fatal(err)
			}
			y0 := make([]float64, dims)
			placement.MedianInit(y0, p.ref, nbr[:p.o.InitNeighbors], nil)
			for q, off := range []float64{0, 2, 60} {
				y := slices.Clone(y0)
				y[0] += off
				g := make([]float64, dims)
				zeta := p.eval(&s, y, g)
				if wz := fullStressT(p, &s, y); math.Abs(zeta-wz) > 1e-12*math.Abs(wz) {
					t.Errorf("%s, point %d: stress %.15g, full sum %.15g", name, q, zeta, wz)
				}
				h := 1e-5 * s.s
				fd := make([]float64, dims)
				for k := range y {
					yp, ym := slices.Clone(y), slices.Clone(y)
					yp[k] += h
					ym[k] -= h
					fd[k] = (fullStressT(p, &s, yp) - fullStressT(p, &s, ym)) / (2 * h)
				}
				// 1e-5: far from the map the stress is flat to 1e-9.
				if e := relErr(g, fd); !(e <= 1e-5) {
					t.Errorf("%s, point %d: gradient %v, finite differences %v (rel. error %.2g)", name, q, g, fd, e)
				}
			}
		}
	}
}
