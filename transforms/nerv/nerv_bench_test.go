package nerv

import (
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ordinate/ordinate/internal/synth"
	"github.com/ordinate/ordinate/transforms/quality"
)

// BenchmarkFitFourClusters is the speed target: ClassNeRV (hard
// labels, α = 1) on the paper's 800-point four-cluster set, multiscale,
// perplexity 32.
func BenchmarkFitFourClusters(b *testing.B) {
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(1, 2)), 200)
	const n, c = 800, 6
	hard, _ := hardOf(soft, n, c)
	o := DefaultOptions()
	o.Method, o.Alpha = Exact, 1
	for b.Loop() {
		r, err := Fit(context.Background(), x, n, 3, hard, c, o)
		if err != nil {
			b.Fatal(err)
		}
		reportFit(b, r)
	}
}

// BenchmarkFitBH is a whole Barnes–Hut SoftClassNeRV run (soft labels,
// multiscale 78 → 32) on the four-cluster data at N = 5,000.
func BenchmarkFitBH(b *testing.B) {
	x, soft := synth.FourClusters(rand.New(rand.NewPCG(1, 2)), 1250)
	const n, c = 5000, 6
	o := DefaultOptions()
	o.Method, o.OutputScale = BarnesHut, Global
	for b.Loop() {
		r, err := Fit(context.Background(), x, n, 3, soft, c, o)
		if err != nil {
			b.Fatal(err)
		}
		reportFit(b, r)
	}
}

// BenchmarkStoppingRule measures the stopping rule of doc.go against the
// previous one (every level to MaxIter 500 / Tol 1e-5, LegacyStopping) for
// ClassNeRV (hard labels, α = 1), exact, multiscale, perplexity 32, on
// generators the tests do not use and on real sets from testdata: time per
// fit, L-BFGS iterations (total, of the coarse levels, of the last level),
// the final stress, and T(10), C(10) and 10-NN class accuracy in the
// embedding (transforms/quality). Run it with -benchtime=1x.
func BenchmarkStoppingRule(b *testing.B) {
	for _, ds := range stoppingSets(b) {
		for _, rule := range []struct {
			name string
			set  func(*Options)
		}{
			{"rule=legacy", func(o *Options) { *o = o.LegacyStopping() }},
			{"rule=default", func(*Options) {}},
		} {
			b.Run(ds.name+"/"+rule.name, func(b *testing.B) {
				o := DefaultOptions()
				o.Method, o.Alpha = Exact, 1
				rule.set(&o)
				soft := oneHot(ds.cls)
				c := len(soft) / ds.n
				var r *Result
				for b.Loop() {
					var err error
					if r, err = Fit(context.Background(), ds.x, ds.n, ds.d, soft, c, o); err != nil {
						b.Fatal(err)
					}
				}
				reportFit(b, r)
				var coarse int
				for _, l := range r.Levels[:len(r.Levels)-1] {
					coarse += l.Iterations
				}
				b.ReportMetric(float64(coarse), "iter-coarse")
				b.ReportMetric(float64(r.Levels[len(r.Levels)-1].Iterations), "iter-last")
				rep, err := quality.Evaluate(context.Background(), ds.x, ds.d, r.Y, o.Dims, ds.cls, quality.Options{Ks: []int{10}})
				if err != nil {
					b.Fatal(err)
				}
				for _, m := range []struct{ metric, subset, unit string }{
					{quality.MetricTrustworthiness, quality.SubsetAll, "T10"},
					{quality.MetricContinuity, quality.SubsetAll, "C10"},
					{quality.MetricKNNAccuracy, quality.SubsetEmbedding, "knnacc10"},
				} {
					v, _ := rep.Value(m.metric, 10, m.subset)
					b.ReportMetric(v, m.unit)
				}
			})
		}
	}
}

// stoppingSet is a labelled data set for BenchmarkStoppingRule.
type stoppingSet struct {
	name string
	x    []float64 // n×d row-major
	n, d int
	cls  []int // class indices 0 … c−1
}

// stoppingSets returns the generated sets (800 points each, seeded) and
// the real ones from testdata (standardised; car subsampled to 800 rows).
func stoppingSets(tb testing.TB) []stoppingSet {
	const n = 800
	rng := rand.New(rand.NewPCG(15, 3))
	sets := []stoppingSet{
		genBlobs("blobs-sd1", rng, n, 10, []float64{1, 1, 1, 1}, false),
		genBlobs("blobs-sd2.5", rng, n, 10, []float64{2.5, 2.5, 2.5, 2.5}, false),
		genBlobs("blobs-mixed", rng, n, 10, []float64{0.5, 1, 2, 4}, false),
		genBlobs("blobs-aniso", rng, n, 10, []float64{1, 1, 1, 1}, true),
		genMoons("moons10d", rng, n, 10, 0.1),
		genCircles("circles10d", rng, n, 10, 0.05),
		genCube("cube3d", rng, n),
		genSwissRoll("swissroll", rng, n),
		genSwissRoll("swissroll-b", rng, n), // a second draw: one roll is close to the iteration caps
	}
	for _, f := range []struct {
		name, path string
		label      int // label column, from the end if negative
		skip       int // leading columns that are not features
		max        int
	}{
		{"newthyroid", "ordinal/newthyroid.csv", -1, 0, 0},
		{"car-800", "ordinal/car.csv", -1, 0, n},
		{"house-votes", "house-votes-84/house-votes-84-complete.csv", 1, 2, 0},
		{"zoo", "zoo/zoo.csv", -1, 1, 0},
	} {
		sets = append(sets, readSet(tb, f.name, f.path, f.label, f.skip, f.max))
	}
	return sets
}

// genBlobs draws len(sd) Gaussian clusters of the given standard deviations
// around centres uniform in [−10, 10]^d (as scikit-learn's make_blobs);
// aniso multiplies every point by one random d×d matrix with entries
// N(0, 1)/√d, which stretches and shears the clusters.
func genBlobs(name string, rng *rand.Rand, n, d int, sd []float64, aniso bool) stoppingSet {
	k := len(sd)
	centres := make([]float64, k*d)
	for i := range centres {
		centres[i] = 20*rng.Float64() - 10
	}
	s := stoppingSet{name: name, x: make([]float64, n*d), n: n, d: d, cls: make([]int, n)}
	for i := range n {
		c := i % k
		s.cls[i] = c
		for j := range d {
			s.x[i*d+j] = centres[c*d+j] + sd[c]*rng.NormFloat64()
		}
	}
	if aniso {
		a := make([]float64, d*d)
		for i := range a {
			a[i] = rng.NormFloat64() / math.Sqrt(float64(d))
		}
		row := make([]float64, d)
		for i := range n {
			p := s.x[i*d : (i+1)*d]
			for j := range d {
				row[j] = 0
				for l := range d {
					row[j] += a[j*d+l] * p[l]
				}
			}
			copy(p, row)
		}
	}
	return s
}

// genMoons draws scikit-learn's two interleaved half circles in the plane,
// rotated into d dimensions by a random orthonormal basis, with isotropic
// noise of the given standard deviation in all d dimensions.
func genMoons(name string, rng *rand.Rand, n, d int, noise float64) stoppingSet {
	s := stoppingSet{name: name, x: make([]float64, n*d), n: n, d: d, cls: make([]int, n)}
	p2 := make([]float64, n*2)
	for i := range n {
		t := math.Pi * rng.Float64()
		if i%2 == 0 {
			p2[2*i], p2[2*i+1] = math.Cos(t), math.Sin(t)
		} else {
			p2[2*i], p2[2*i+1] = 1-math.Cos(t), 0.5-math.Sin(t)
			s.cls[i] = 1
		}
	}
	embed2(rng, s, p2, noise)
	return s
}

// genCircles draws two concentric circles (radii 1 and 0.5) in the plane,
// embedded in d dimensions as genMoons.
func genCircles(name string, rng *rand.Rand, n, d int, noise float64) stoppingSet {
	s := stoppingSet{name: name, x: make([]float64, n*d), n: n, d: d, cls: make([]int, n)}
	p2 := make([]float64, n*2)
	for i := range n {
		t := 2 * math.Pi * rng.Float64()
		r := 1.0
		if i%2 == 1 {
			r, s.cls[i] = 0.5, 1
		}
		p2[2*i], p2[2*i+1] = r*math.Cos(t), r*math.Sin(t)
	}
	embed2(rng, s, p2, noise)
	return s
}

// embed2 writes the planar points p2 into s.x along two random orthonormal
// directions of s.d dimensions and adds N(0, noise²) to every coordinate.
func embed2(rng *rand.Rand, s stoppingSet, p2 []float64, noise float64) {
	d := s.d
	u, v := make([]float64, d), make([]float64, d)
	for j := range d {
		u[j], v[j] = rng.NormFloat64(), rng.NormFloat64()
	}
	normalise := func(w []float64) {
		var ss float64
		for _, a := range w {
			ss += a * a
		}
		for j := range w {
			w[j] /= math.Sqrt(ss)
		}
	}
	normalise(u)
	var uv float64
	for j := range d {
		uv += u[j] * v[j]
	}
	for j := range d {
		v[j] -= uv * u[j]
	}
	normalise(v)
	for i := range s.n {
		for j := range d {
			s.x[i*d+j] = p2[2*i]*u[j] + p2[2*i+1]*v[j] + noise*rng.NormFloat64()
		}
	}
}

// genCube draws points uniform in the unit cube of 3-D, labelled by the
// quadrant of their first two coordinates (4 classes that touch).
func genCube(name string, rng *rand.Rand, n int) stoppingSet {
	s := stoppingSet{name: name, x: make([]float64, n*3), n: n, d: 3, cls: make([]int, n)}
	for i := range n {
		for j := range 3 {
			s.x[i*3+j] = rng.Float64()
		}
		if s.x[i*3] > 0.5 {
			s.cls[i]++
		}
		if s.x[i*3+1] > 0.5 {
			s.cls[i] += 2
		}
	}
	return s
}

// genSwissRoll draws scikit-learn's Swiss roll (t uniform in
// [1.5π, 4.5π], height uniform in [0, 21], noise 0.05), labelled by the
// quarter of t (4 classes along the roll).
func genSwissRoll(name string, rng *rand.Rand, n int) stoppingSet {
	s := stoppingSet{name: name, x: make([]float64, n*3), n: n, d: 3, cls: make([]int, n)}
	for i := range n {
		u := rng.Float64()
		t := 1.5 * math.Pi * (1 + 2*u)
		s.x[i*3] = t*math.Cos(t) + 0.05*rng.NormFloat64()
		s.x[i*3+1] = 21*rng.Float64() + 0.05*rng.NormFloat64()
		s.x[i*3+2] = t*math.Sin(t) + 0.05*rng.NormFloat64()
		s.cls[i] = min(int(4*u), 3)
	}
	return s
}

// readSet reads a CSV of testdata: the columns after the first skip (but
// the label) are numeric features or y/n votes (1/0), standardised; the
// label column's distinct values become classes. At most max rows (0: all)
// are kept, every ⌈rows/max⌉-th one.
func readSet(tb testing.TB, name, path string, label, skip, max int) stoppingSet {
	f, err := os.Open(filepath.Join("..", "..", "testdata", path))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	recs = recs[1:]
	if max > 0 && len(recs) > max {
		step := float64(len(recs)) / float64(max)
		var keep [][]string
		for i := range max {
			keep = append(keep, recs[int(float64(i)*step)])
		}
		recs = keep
	}
	cols := len(recs[0])
	if label < 0 {
		label += cols
	}
	s := stoppingSet{name: name, n: len(recs), cls: make([]int, len(recs))}
	classes := map[string]int{}
	for i, r := range recs {
		c, ok := classes[r[label]]
		if !ok {
			c = len(classes)
			classes[r[label]] = c
		}
		s.cls[i] = c
		for j := skip; j < cols; j++ {
			if j == label {
				continue
			}
			var v float64
			switch r[j] {
			case "y":
				v = 1
			case "n":
				v = 0
			default:
				if v, err = strconv.ParseFloat(r[j], 64); err != nil {
					tb.Fatalf("%s row %d column %d: %v", path, i, j, err)
				}
			}
			s.x = append(s.x, v)
		}
	}
	s.d = len(s.x) / s.n
	standardise(s.x, s.n, s.d)
	return s
}

// standardise scales every column of x to mean 0 and standard deviation 1
// (constant columns to 0).
func standardise(x []float64, n, d int) {
	for j := range d {
		var m, ss float64
		for i := range n {
			m += x[i*d+j]
		}
		m /= float64(n)
		for i := range n {
			ss += (x[i*d+j] - m) * (x[i*d+j] - m)
		}
		sd := math.Sqrt(ss / float64(n))
		for i := range n {
			if sd > 0 {
				x[i*d+j] = (x[i*d+j] - m) / sd
			} else {
				x[i*d+j] = 0
			}
		}
	}
}

// oneHot turns class indices into one-hot rows.
func oneHot(cls []int) []float64 {
	c := 0
	for _, k := range cls {
		c = max(c, k+1)
	}
	out := make([]float64, len(cls)*c)
	for i, k := range cls {
		out[i*c+k] = 1
	}
	return out
}

// reportFit reports a fit's total iterations and final stress.
func reportFit(b *testing.B, r *Result) {
	var iters int
	for _, l := range r.Levels {
		iters += l.Iterations
	}
	b.ReportMetric(float64(iters), "iterations")
	b.ReportMetric(r.Stress, "stress")
	its := ""
	for _, l := range r.Levels {
		its += fmt.Sprintf(" %d", l.Iterations)
	}
	b.Logf("iterations per level:%s", its)
}
