package nerv

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// Start selects where Fit places the points before optimising.
type Start string

const (
	// StartAuto is StartSample with the sparse methods above
	// SampleStartAbove rows, StartPCA otherwise.
	StartAuto Start = "auto"
	// StartPCA places the points at their first principal components.
	StartPCA Start = "pca"
	// StartSample fits a random sample of the rows first (with the same
	// options, so a large sample is itself started from a smaller one),
	// scales that map to the density the full map will have, and places
	// every other row at the mean position of its nearest sampled
	// neighbours; the full fit then runs the last perplexity only (sparse
	// methods).
	StartSample Start = "sample"
)

// Values lists the starts.
func (Start) Values() []string { return []string{"auto", "pca", "sample"} }

// SampleStartAbove is the size above which StartAuto starts the sparse
// methods from a sample, and sampleFraction the sample's share of the rows
// (BENCHMARKS.md, "NeRV from a sample"). From the PCA start the map must
// spread from the data's extent to an area of about N·s²/K, so the first
// iterations see thousands of points within reach of every point, which
// makes them costly at large N (BENCHMARKS.md, "NeRV (issue 5)": the 10⁵-
// and 10⁶-row rows of its first table); the sample's map, scaled, starts
// the full map at that area.
const (
	SampleStartAbove = 50_000
	sampleFraction   = 4
)

// StartSeed seeds the choice of the sample and the jitter of the placed
// rows (see KNNSeed for why the fit has a constant seed).
const StartSeed = 16

// sampleNeighbours is how many of a row's nearest sampled neighbours its
// start position averages.
const sampleNeighbours = 3

// fromSample reports whether Fit starts n rows from a sample.
func (o Options) fromSample(n int) bool {
	switch o.Start {
	case StartSample:
		return true
	case StartAuto:
		return o.Method.sparse() && n > SampleStartAbove && 3*o.Perplexity < float64(n/sampleFraction)
	}
	return false
}

// sampleRows picks m of n rows at random (StartSeed), in increasing order.
func sampleRows(n, m int) []int {
	rng := rand.New(rand.NewPCG(StartSeed, uint64(n)))
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	for i := range m {
		j := i + rng.IntN(n-i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	rows := make([]int, m)
	for i, r := range perm[:m] {
		rows[i] = int(r)
	}
	slices.Sort(rows)
	return rows
}

// prefixed reports a nested fit's phases under a prefix.
type prefixed struct {
	transforms.Progress
	prefix string
}

func (p prefixed) Start(phase string, total int64) { p.Progress.Start(p.prefix+phase, total) }

// sampleStart is a fitted sample of the rows, waiting for the full fit's
// neighbours and width to place the other rows (place). The sample is fitted
// before the full fit finds its neighbours, so that the full fit's lists
// and sparse input are not held while the samples run.
type sampleStart struct {
	rows  []int     // the sampled rows, increasing
	y     []float64 // their map
	width float64   // its output width
	// density is the mean number of other sampled points within one
	// width of a sampled point in the sample's map (meanWithin).
	density float64
	sizes   []int // Result.SampleRows of the full fit
	// scale is L-BFGS's inverse-Hessian scale at the end of the sample's
	// fit (lbfgs.Result.Scale), 0 when unknown.
	scale float64
}

// sampleOptions are the options of a sample start's own fit: o with the
// coarse scales' stopping rule (it only starts the full map), and
// StartAuto (an explicit StartSample samples once).
func (o Options) sampleOptions() Options {
	so := o
	so.Progress = nil
	so.Start = StartAuto
	so.MaxIter, so.Tol = o.stopping(0, 2)
	// The sample only starts the Gaussian levels of the full map; a t
	// level there would be undone by them.
	so.OutputKernel = KernelGaussian
	return so
}

// fitSample fits a random quarter of the rows with o, as a coarse scale
// (it only starts the full map), itself from a sample when it is large.
func fitSample(ctx context.Context, x []float64, n, d int, soft []float64, c int, o Options, rep transforms.Progress) (*sampleStart, error) {
	m := n / sampleFraction
	rows := sampleRows(n, m)
	xs := make([]float64, m*d)
	for a, i := range rows {
		copy(xs[a*d:(a+1)*d], x[i*d:(i+1)*d])
	}
	var ss []float64
	if soft != nil {
		ss = make([]float64, m*c)
		for a, i := range rows {
			copy(ss[a*c:(a+1)*c], soft[i*c:(i+1)*c])
		}
	}
	so := o.sampleOptions()
	so.Reporter = prefixed{rep, fmt.Sprintf("sample of %d rows: ", m)}
	rs, err := Fit(ctx, xs, m, d, ss, c, so)
	if err != nil {
		return nil, err
	}
	var g CellGrid
	density := meanWithin(&g, rs.Y, m, o.Dims, rs.Width)
	return &sampleStart{rows: rows, y: rs.Y, width: rs.Width, density: density, sizes: append([]int{m}, rs.SampleRows...), scale: rs.scale}, nil
}

// place returns the start of all n rows: the sample's map scaled by
// (n/m)^(1/dims)·width/sample width, so that a width holds as many points as
// in the sample's map, and every other row at the mean of its first
// sampleNeighbours sampled neighbours in idx (n×kn, nearest first), plus a
// jitter of a tenth of the width (placeFromSample); then the whole scaled
// to s.target points within one width (spreadTo).
func (s *sampleStart) place(ctx context.Context, n int, o Options, idx []int32, kn int, width float64, cls []int32) ([]float64, error) {
	f := math.Pow(float64(n)/float64(len(s.rows)), 1/float64(o.Dims)) * width / s.width
	y := make([]float64, n*o.Dims)
	if err := placeFromSample(ctx, y, n, o.Dims, s.rows, s.y, f, idx, kn, width/10, cls); err != nil {
		return nil, err
	}
	spreadTo(y, n, o.Dims, width, s.target(o.Perplexity))
	return y, nil
}

// target is the mean number of other points within one width that the
// full map's start is scaled to: the sample map's own density, or
// startDensity·K if that is more. The density maps converge to varies by
// two orders with the data at K = 32 (about 20 on diamonds, 85 on four
// clusters, 2,100 on fifty overlapping features at 10⁵ rows; a sample of
// a quarter of the rows settles near 26, 35 and 580), and a start far
// sparser than that spends its first iterations contracting a map whose
// grid is too large for its density (the cut-off's sums instead): on the
// overlapping features, 130 iterations and 20 such evaluations from
// startDensity·K, 80 and none from the sample's density (BENCHMARKS.md).
func (s *sampleStart) target(perplexity float64) float64 {
	return max(startDensity*perplexity, s.density)
}

// startDensity·K is the mean number of other points within one output width
// of a point that the start is scaled to. Converged four-cluster maps (cut-off,
// perplexities 15 and 32) had 0.5K to 0.6K at 5,000 rows and 0.9K at 20,000;
// a sample's map that stopped early (the sample fit only runs coarse
// iterations) can be three times denser, which puts the full map back in
// the dense regime the sample start exists to avoid.
const startDensity = 0.75

// spreadProbes is how many rows, evenly spaced, spreadTo counts around.
const spreadProbes = 2000

// spreadTo scales y about its centroid until the mean number of other
// points within r of a point is within 10 % of target (at most four
// rounds; the count falls as the scale to the power dims where the map's
// shape is uniform at that scale).
func spreadTo(y []float64, n, dims int, r, target float64) {
	centroid := make([]float64, dims)
	for i := range n {
		for q := range dims {
			centroid[q] += y[i*dims+q] / float64(n)
		}
	}
	var g CellGrid
	for range 4 {
		c := meanWithin(&g, y, n, dims, r)
		if c <= 0 || math.Abs(c-target) <= 0.1*target {
			return
		}
		f := math.Pow(c/target, 1/float64(dims))
		for i := range n {
			for q := range dims {
				y[i*dims+q] = centroid[q] + f*(y[i*dims+q]-centroid[q])
			}
		}
	}
}

// meanWithin returns the mean number of other points within r of a point,
// over spreadProbes rows evenly spaced (all rows when fewer), or −1 when
// the grid cannot be built (non-finite coordinates).
func meanWithin(g *CellGrid, y []float64, n, dims int, r float64) float64 {
	if !g.Build(y, n, dims, r) {
		return -1
	}
	var runs [][2]int32
	var tot, probes int
	for i := 0; i < n; i += max(1, n/spreadProbes) {
		probes++
		p := y[i*dims : (i+1)*dims]
		runs = g.AppendRuns(runs[:0], p, r)
		for _, run := range runs {
			for j := run[0]; j < run[1]; j++ {
				if kernels.EmbedSqDist(p, g.Pos[int(j)*dims:int(j+1)*dims]) <= r*r {
					tot++
				}
			}
		}
	}
	return float64(tot-probes) / float64(probes)
}

// placeFromSample sets y (n×dims) from the sample's map ys (the rows of
// rows, increasing) scaled by f, the other rows placed as sampleStart.place
// says, with a jitter of standard deviation sd per coordinate. With cls
// (each row's class, −1 unlabelled; nil for none) a labelled row goes to
// the mean of its nearest placed neighbours of its own class when its list
// has one: ClassNeRV's map separates the classes that overlap in the
// input, and a row placed between two classes' regions (the mean of
// neighbours from both) is a bridge that joins them into one island of
// the grid (gridstress.go) until the optimiser pulls it home.
func placeFromSample(ctx context.Context, y []float64, n, dims int, rows []int, ys []float64, f float64, idx []int32, kn int, sd float64, cls []int32) error {
	m := len(rows)
	placed := make([]bool, n)
	centroid := make([]float64, dims)
	for a, i := range rows {
		for q := range dims {
			v := f * ys[a*dims+q]
			y[i*dims+q] = v
			centroid[q] += v / float64(m)
		}
		placed[i] = true
	}
	// Each pass places from the rows placed before it, so the result
	// does not depend on the order of rows within a pass.
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var now []int
		for _, i := range pendingOf(placed, n) {
			want := int32(-1)
			if cls != nil {
				want = cls[i]
			}
			if meanOfPlaced(y[i*dims:(i+1)*dims], y, dims, idx[i*kn:(i+1)*kn], placed, cls, want) {
				now = append(now, i)
			}
		}
		if len(now) == 0 {
			break
		}
		for _, i := range now {
			placed[i] = true
		}
	}
	for i := range n {
		if !placed[i] {
			copy(y[i*dims:(i+1)*dims], centroid)
		}
	}
	jitter(y, n, dims, rows, sd)
	return nil
}

// pendingOf lists the rows not yet placed.
func pendingOf(placed []bool, n int) []int {
	var p []int
	for i := range n {
		if !placed[i] {
			p = append(p, i)
		}
	}
	return p
}

// meanOfPlaced sets dst to the mean position of the first sampleNeighbours
// placed rows of nb and reports whether there was one. With want ≥ 0 it
// takes those of class want (cls) if nb has any placed.
func meanOfPlaced(dst, y []float64, dims int, nb []int32, placed []bool, cls []int32, want int32) bool {
	if want >= 0 {
		same := false
		for _, j := range nb {
			if placed[j] && cls[j] == want {
				same = true
				break
			}
		}
		if !same {
			want = -1
		}
	}
	clear(dst)
	cnt := 0
	for _, j := range nb {
		if !placed[j] || (want >= 0 && cls[j] != want) {
			continue
		}
		for q := range dims {
			dst[q] += y[int(j)*dims+q]
		}
		if cnt++; cnt == sampleNeighbours {
			break
		}
	}
	for q := range dst {
		dst[q] /= float64(max(cnt, 1))
	}
	return cnt > 0
}

// jitter moves every row not in the sample (rows, increasing) by a Gaussian
// of standard deviation sd per coordinate, seeded by StartSeed and the row,
// so that rows placed at the same mean do not coincide.
func jitter(y []float64, n, dims int, rows []int, sd float64) {
	r := 0
	for i := range n {
		if r < len(rows) && rows[r] == i {
			r++
			continue
		}
		rng := rand.New(rand.NewPCG(StartSeed, uint64(i)))
		for q := range dims {
			y[i*dims+q] += sd * rng.NormFloat64()
		}
	}
}

// fullScale returns the first-step scale of L-BFGS for the full map of n
// rows and output width s from the sample's last scale: the stress is a
// mean over rows and its curvature in y goes as 1/s², so the inverse
// Hessian's scale goes as n·s². 0 (a unit first step) when unknown.
func (s *sampleStart) fullScale(n int, width float64) float64 {
	if !(s.scale > 0) || !(s.width > 0) {
		return 0
	}
	r := width / s.width
	return s.scale * float64(n) / float64(len(s.rows)) * r * r
}

// placeClasses returns each row's dominant class (−1 unlabelled) for the
// class-aware placement of the sample start, or nil without labels or
// with α = 0 (NeRV's map does not separate classes).
func placeClasses(soft []float64, n, c int, alpha float64) []int32 {
	if alpha == 0 {
		return nil
	}
	return dominantClasses(soft, n, c)
}
