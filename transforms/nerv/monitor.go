package nerv

import (
	"context"
	"math"

	"github.com/ordinate/ordinate/kernels"
)

// Neighbourhood monitor: the last level of a sparse fit is judged on what
// the map is for, not only on its stress. Every monitorEvery iterations
// the monitor scores a fixed sample of rows (every n/monitorRows-th row,
// so the same rows at every check and for every thread count) at two
// scales, each by two scores:
//
//   - among all rows: Preserved, the share of each sampled row's
//     monitorK input neighbours (the first monitorK of its sparse list)
//     among its monitorK nearest rows in the map, a rank measure between
//     trustworthiness and continuity; and Accuracy, with labels, the share
//     of labelled sampled rows whose map neighbours' plurality class (ties
//     to the nearer) is their own dominant class;
//   - among the sampled rows only (SamplePreserved, SampleAccuracy): the
//     same with the neighbours found within the sample, in the input and
//     in the map, as scripts/nervbh/score.py scores maps. These see the
//     map's coarse organisation, n/monitorRows times coarser: at 10⁶ rows
//     the local scores had settled (accuracy 0.994) after 30 iterations
//     past the exaggeration while the sample's 10-NN accuracy in the map
//     was 0.77 against the input's 0.86 (class fragments still merging).
//
// The level stops when none of the four moved by more than
// Options.NeighbourTol since the previous check (the t level: since the
// check before it, tMonitorSpan): the stress keeps falling
// long after the neighbourhoods stopped moving (on diamonds, 150 → 492
// iterations lowered the stress 3.80 → 3.70 with T(10) 0.9726 → 0.9729).
// The accuracies of 1,000 rows move by 0.002 to 0.008 between checks of a
// converged map, as rows on class boundaries flip, so the tolerance is not
// finer than that.

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
	// Accuracy is NaN without labels, and so is SampleAccuracy.
	Accuracy        float64
	SamplePreserved float64
	SampleAccuracy  float64
	// Checks is the number of scores taken in the last level.
	Checks int
}

// moved returns the largest change of a score from q to r (NaN scores, the
// accuracies without labels, do not count).
func (q Quality) moved(r Quality) float64 {
	d := 0.0
	for _, p := range [4][2]float64{{q.Preserved, r.Preserved}, {q.Accuracy, r.Accuracy}, {q.SamplePreserved, r.SamplePreserved}, {q.SampleAccuracy, r.SampleAccuracy}} {
		if !math.IsNaN(p[0]) && !math.IsNaN(p[1]) {
			d = max(d, math.Abs(p[0]-p[1]))
		}
	}
	return d
}

// neighbourMonitor holds the sample and its input neighbours.
type neighbourMonitor struct {
	rows     []int
	in       []int32 // rows × monitorK input neighbours among all rows
	inSample []int32 // rows × monitorK input neighbours within the sample (sample positions)
	cls      []int32 // every point's dominant class, −1 unlabelled; nil without labels
	n, dims  int
	threads  int
	dist     [][]float64 // per worker, n squared distances
	ys       []float64   // the sample's map coordinates
	// Per sampled row: preserved shares and correct (0/1, NaN unlabelled),
	// among all rows and within the sample.
	hits, correct, hitsS, correctS []float64
	last                           Quality
	tol                            float64
	// span is how many checks back a score is compared with (1 unless
	// set; the t level's is tMonitorSpan), and prev the scores of the
	// last span + 1 checks, oldest first.
	span int
	prev []Quality
}

// newNeighbourMonitor samples rows of x (n×d, the input) and idx (n×k
// sparse lists, nearest first) for a map of dims coordinates; soft (n×c)
// may be nil. It returns nil if the lists are shorter than monitorK or n
// is too small to sample.
func newNeighbourMonitor(ctx context.Context, x []float64, d int, idx []int32, n, k int, soft []float64, c, dims, rows, threads int, tol float64) (*neighbourMonitor, error) {
	rows = min(rows, n)
	if k < monitorK || rows <= 2*monitorK {
		return nil, nil
	}
	m := &neighbourMonitor{n: n, dims: dims, threads: threads, tol: tol}
	m.rows = make([]int, rows)
	m.in = make([]int32, rows*monitorK)
	xs := make([]float64, rows*d)
	for s := range rows {
		i := s * n / rows
		m.rows[s] = i
		copy(m.in[s*monitorK:(s+1)*monitorK], idx[i*k:i*k+monitorK])
		copy(xs[s*d:(s+1)*d], x[i*d:(i+1)*d])
	}
	m.inSample = make([]int32, rows*monitorK)
	if err := kernels.KNN(ctx, m.inSample, nil, xs, rows, d, monitorK, threads); err != nil {
		return nil, err
	}
	m.cls = dominantClasses(soft, n, c)
	m.hits, m.correct = make([]float64, rows), make([]float64, rows)
	m.hitsS, m.correctS = make([]float64, rows), make([]float64, rows)
	m.ys = make([]float64, rows*dims)
	m.dist = make([][]float64, kernels.Workers(rows, threads, 1))
	nan := math.NaN()
	m.last = Quality{Rows: rows, K: monitorK, Preserved: nan, Accuracy: nan, SamplePreserved: nan, SampleAccuracy: nan}
	return m, nil
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

// score returns the sample's scores for the map y (Checks unset).
func (m *neighbourMonitor) score(ctx context.Context, y []float64) (Quality, error) {
	rows := len(m.rows)
	for s, i := range m.rows {
		copy(m.ys[s*m.dims:(s+1)*m.dims], y[i*m.dims:(i+1)*m.dims])
	}
	err := kernels.ParallelForWorker(ctx, rows, m.threads, 1, func(w, lo, hi int) {
		if m.dist[w] == nil {
			m.dist[w] = make([]float64, m.n)
		}
		var near [monitorK]int32
		for s := lo; s < hi; s++ {
			i := m.rows[s]
			kernels.SqDistRow(m.dist[w], y, m.dims, i)
			nearest(near[:], m.dist[w], i)
			m.hits[s], m.correct[s] = m.judge(near[:], m.in[s*monitorK:(s+1)*monitorK], i, nil)
			kernels.SqDistRow(m.dist[w][:rows], m.ys, m.dims, s)
			nearest(near[:], m.dist[w][:rows], s)
			m.hitsS[s], m.correctS[s] = m.judge(near[:], m.inSample[s*monitorK:(s+1)*monitorK], i, m.rows)
		}
	})
	if err != nil {
		return Quality{}, err
	}
	q := m.last
	q.Preserved, q.Accuracy = mean(m.hits), mean(m.correct)
	q.SamplePreserved, q.SampleAccuracy = mean(m.hitsS), mean(m.correctS)
	return q, nil
}

// judge returns the share of in among the map neighbours near and whether
// the plurality class of near is row i's (NaN when unlabelled or without
// labels); with rows, near and in are sample positions.
func (m *neighbourMonitor) judge(near, in []int32, i int, rows []int) (hits, correct float64) {
	kept := 0
	for _, j := range near {
		for _, v := range in {
			if v == j {
				kept++
				break
			}
		}
	}
	correct = math.NaN()
	if m.cls != nil && m.cls[i] >= 0 {
		if rows != nil {
			var mapped [monitorK]int32
			for a, j := range near {
				mapped[a] = int32(rows[j])
			}
			near = mapped[:len(near)]
		}
		correct = plurality(near, m.cls, m.cls[i])
	}
	return float64(kept) / float64(len(near)), correct
}

// mean returns the mean of the non-NaN values of v, NaN if there are none.
func mean(v []float64) float64 {
	var sum float64
	cnt := 0
	for _, x := range v {
		if !math.IsNaN(x) {
			sum += x
			cnt++
		}
	}
	if cnt == 0 {
		return math.NaN()
	}
	return sum / float64(cnt)
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
// whether no score moved by more than tol since the previous check. It
// keeps the last score for Result.Quality.
func (m *neighbourMonitor) converged(ctx context.Context, iter int, y []float64) bool {
	if iter%monitorEvery != 0 {
		return false
	}
	q, err := m.score(ctx, y)
	if err != nil {
		return false // cancelled: the optimiser returns ctx.Err()
	}
	q.Checks = m.last.Checks + 1
	m.last = q
	span := max(1, m.span)
	m.prev = append(m.prev, q)
	if len(m.prev) <= span {
		return false
	}
	m.prev = m.prev[len(m.prev)-span-1:]
	return m.tol > 0 && q.moved(m.prev[0]) <= m.tol
}

// DefaultNeighbourTol is Options.NeighbourTol's default.
const DefaultNeighbourTol = 0.005

// lastMonitor returns the monitor of the last level of a sparse fit, or nil.
func lastMonitor(ctx context.Context, lv levelStress, last bool, x []float64, n, d int, soft []float64, c int, o Options) (*neighbourMonitor, error) {
	sl, ok := lv.(*sparseLevels)
	if !ok || !last {
		return nil, nil
	}
	return newNeighbourMonitor(ctx, x, d, sl.idx, n, sl.kn, soft, c, o.Dims, monitorRows, o.Threads, o.NeighbourTol)
}

// final returns the Quality of the final map y.
func (m *neighbourMonitor) final(ctx context.Context, y []float64) (*Quality, error) {
	q, err := m.score(ctx, y)
	if err != nil {
		return nil, err
	}
	return &q, nil
}
