package nerv

import (
	"context"
	"math"

	"github.com/ordinate/ordinate/kernels"
)

// Neighbourhood monitor: the last level of a sparse fit is judged on what
// the map is for, not only on its stress. Every monitorEvery iterations
// the monitor scores a fixed sample of rows (every n/MonitorRows-th row,
// so the same rows at every check and for every thread count) against the
// map's monitorK exact nearest neighbours:
//
//   - Preserved: the share of each row's monitorK input neighbours (the
//     first monitorK of its sparse list) among its monitorK map neighbours,
//     a rank measure between trustworthiness and continuity;
//   - Accuracy: with labels, the share of labelled rows whose map
//     neighbours' plurality class (by summed soft labels, ties to the
//     nearer) is their own dominant class.
//
// The level stops when Preserved moved by no more than Options.NeighbourTol
// since the previous check: the stress keeps falling long after the
// neighbourhoods stopped moving (on diamonds, 150 → 492 iterations lowered
// the stress 3.80 → 3.70 with T(10) 0.9726 → 0.9729). Accuracy does not
// judge: on 1,000 rows it moves by 0.002 to 0.008 between checks of a
// converged map, as rows on class boundaries flip (diamonds, iterations 60
// to 120), where Preserved moves by 0.0002 to 0.0015.

// StatusNeighbours is Level.Status of a last level that the monitor ended.
const StatusNeighbours = "neighbourhoods converged"

// monitorK is the neighbourhood size the monitor scores.
const monitorK = 10

// monitorEvery is the iterations between checks.
const monitorEvery = 10

// monitorRows is the monitor's sample: the scores' standard errors are
// about 0.3/√1000 ≈ 0.01 as estimates of the whole map's, but a change
// between checks of the same rows is far finer.
const monitorRows = 1000

// Quality is the monitor's last score of a fit (Result.Quality).
type Quality struct {
	Rows      int // the sample
	K         int
	Preserved float64
	// Accuracy is NaN without labels.
	Accuracy float64
	// Checks is the number of scores taken in the last level.
	Checks int
}

// neighbourMonitor holds the sample and its input neighbours.
type neighbourMonitor struct {
	rows    []int
	in      []int32 // rows × monitorK input neighbours
	cls     []int32 // every point's dominant class, −1 unlabelled; nil without labels
	n, dims int
	threads int
	dist    [][]float64 // per worker, n squared distances
	hits    []float64   // per sample row: preserved share, then correct (0/1, NaN unlabelled)
	correct []float64
	last    Quality
	tol     float64
}

// newNeighbourMonitor samples rows of idx (n×k sparse lists, nearest first)
// for a map of dims coordinates; soft (n×c) may be nil. It returns nil if
// the lists are shorter than monitorK or n is too small to sample.
func newNeighbourMonitor(idx []int32, n, k int, soft []float64, c, dims, rows, threads int, tol float64) *neighbourMonitor {
	if k < monitorK || n <= 2*monitorK || rows <= 0 {
		return nil
	}
	rows = min(rows, n)
	m := &neighbourMonitor{n: n, dims: dims, threads: threads, tol: tol}
	m.rows = make([]int, rows)
	m.in = make([]int32, rows*monitorK)
	for s := range rows {
		i := s * n / rows
		m.rows[s] = i
		copy(m.in[s*monitorK:(s+1)*monitorK], idx[i*k:i*k+monitorK])
	}
	m.cls = dominantClasses(soft, n, c)
	m.hits = make([]float64, rows)
	m.correct = make([]float64, rows)
	m.dist = make([][]float64, kernels.Workers(rows, threads, 1))
	m.last = Quality{Rows: rows, K: monitorK, Preserved: math.NaN(), Accuracy: math.NaN()}
	return m
}

// dominantClasses returns each row's dominantClass, or nil for nil soft.
func dominantClasses(soft []float64, n, c int) []int32 {
	if soft == nil {
		return nil
	}
	cls := make([]int32, n)
	for i := range n {
		cls[i] = dominantClass(soft[i*c : (i+1)*c])
	}
	return cls
}

// dominantClass returns the largest entry's class (the first of ties), or
// −1 for an unlabelled (NaN) row.
func dominantClass(row []float64) int32 {
	best := int32(-1)
	for k, v := range row {
		if math.IsNaN(v) {
			return -1
		}
		if best < 0 || v > row[best] {
			best = int32(k)
		}
	}
	return best
}

// score returns the sample's Preserved and Accuracy for the map y.
func (m *neighbourMonitor) score(ctx context.Context, y []float64) (preserved, accuracy float64, err error) {
	err = kernels.ParallelForWorker(ctx, len(m.rows), m.threads, 1, func(w, lo, hi int) {
		if m.dist[w] == nil {
			m.dist[w] = make([]float64, m.n)
		}
		var near [monitorK]int32
		for s := lo; s < hi; s++ {
			i := m.rows[s]
			kernels.SqDistRow(m.dist[w], y, m.dims, i)
			nearest(near[:], m.dist[w], i)
			in := m.in[s*monitorK : (s+1)*monitorK]
			kept := 0
			for _, j := range near {
				for _, v := range in {
					if v == j {
						kept++
						break
					}
				}
			}
			m.hits[s] = float64(kept) / monitorK
			m.correct[s] = math.NaN()
			if m.cls != nil && m.cls[i] >= 0 {
				m.correct[s] = plurality(near[:], m.cls, m.cls[i])
			}
		}
	})
	if err != nil {
		return 0, 0, err
	}
	var sp, sa float64
	labelled := 0
	for s := range m.rows {
		sp += m.hits[s]
		if !math.IsNaN(m.correct[s]) {
			sa += m.correct[s]
			labelled++
		}
	}
	preserved, accuracy = sp/float64(len(m.rows)), math.NaN()
	if labelled > 0 {
		accuracy = sa / float64(labelled)
	}
	return preserved, accuracy, nil
}

// nearest fills near with the indices of the len(near) smallest entries of
// dist other than self, nearest first (ties by index).
func nearest(near []int32, dist []float64, self int) {
	k := len(near)
	var dk [monitorK]float64
	d := dk[:k]
	filled := 0
	for j, v := range dist {
		if j == self || (filled == k && v >= d[k-1]) {
			continue
		}
		p := min(filled, k-1)
		for p > 0 && d[p-1] > v {
			if p < k {
				d[p], near[p] = d[p-1], near[p-1]
			}
			p--
		}
		d[p], near[p] = v, int32(j)
		filled = min(filled+1, k)
	}
}

// plurality reports 1 if the plurality class of the neighbours near (ties
// to the class of the nearer neighbour) is want, else 0. Unlabelled
// neighbours do not vote.
func plurality(near []int32, cls []int32, want int32) float64 {
	best, bestVotes := int32(-1), 0
	for a, j := range near {
		c := cls[j]
		if c < 0 {
			continue
		}
		v := 0
		for _, l := range near[a:] {
			if cls[l] == c {
				v++
			}
		}
		// Counting from a's position on, the first neighbour of each class
		// sees all of its votes; a later class needs strictly more.
		if v > bestVotes {
			best, bestVotes = c, v
		}
	}
	if best == want {
		return 1
	}
	return 0
}

// converged scores y at every monitorEvery-th iteration and reports
// whether Preserved moved by no more than tol since the previous check.
// It keeps the last score for Result.Quality.
func (m *neighbourMonitor) converged(ctx context.Context, iter int, y []float64) bool {
	if iter%monitorEvery != 0 {
		return false
	}
	p, a, err := m.score(ctx, y)
	if err != nil {
		return false // cancelled: the optimiser returns ctx.Err()
	}
	prev := m.last
	m.last.Preserved, m.last.Accuracy = p, a
	m.last.Checks++
	if prev.Checks == 0 || !(m.tol > 0) {
		return false
	}
	moved := math.Abs(p - prev.Preserved)
	if !math.IsNaN(a) {
		moved = max(moved, math.Abs(a-prev.Accuracy))
	}
	return moved <= m.tol
}

// DefaultNeighbourTol is Options.NeighbourTol's default.
const DefaultNeighbourTol = 0.005

// lastMonitor returns the monitor of the last level of a sparse fit, or nil.
func lastMonitor(lv levelStress, last bool, n int, soft []float64, c int, o Options) *neighbourMonitor {
	sl, ok := lv.(*sparseLevels)
	if !ok || !last {
		return nil
	}
	return newNeighbourMonitor(sl.idx, n, sl.kn, soft, c, o.Dims, monitorRows, o.Threads, o.NeighbourTol)
}

// final returns the Quality of the final map y: the last check's if it
// scored y, else a new score.
func (m *neighbourMonitor) final(ctx context.Context, y []float64) (*Quality, error) {
	p, a, err := m.score(ctx, y)
	if err != nil {
		return nil, err
	}
	q := m.last
	q.Preserved, q.Accuracy = p, a
	return &q, nil
}
