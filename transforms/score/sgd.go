package score

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/ordinate/ordinate/transforms/triplets"
)

const (
	blockSize = 1024 // triplets per scheduling block and per cancellation check
	// fullShuffleMax is the largest triplet count whose visiting order is
	// reshuffled completely every epoch; larger sets are shuffled once and
	// then visited in a fresh random order of blocks each epoch.
	fullShuffleMax = 1 << 22
	seedStream     = 0x53434f5245 // "SCORE": second PCG word of every stream
)

// fitter holds the state of one run.
type fitter struct {
	tab     *triplets.Table
	n, a, d int
	o       Options
	y, x    []float64 // n×d, a×d
	delta   []float64 // a
	prI     []float64 // κ/(occurrences of object i), 0 if κ = 0
	prT     []float64 // κ/(triplets of aspect t)
	// order holds the triplets in visiting order: packed (i, j, k, t)
	// when they fit in 64 bits (see pack), else row numbers of tab.
	order  []uint64
	packed bool
	shift  uint // bits per object index in a packed triplet
	single bool
}

func newFitter(tab *triplets.Table, n, a int, o Options) *fitter {
	d := o.Dims + 1
	f := &fitter{tab: tab, n: n, a: a, d: d, o: o, single: o.SingleMap,
		y: make([]float64, n*d), x: make([]float64, a*d), delta: make([]float64, a)}
	rng := rand.New(rand.NewPCG(o.Seed, seedStream))
	initSphere(rng, f.y, d)
	initSphere(rng, f.x, d)
	for t := range f.delta {
		f.delta[t] = initDelta
	}
	if o.Kappa > 0 {
		f.priorWeights()
	}
	f.order = make([]uint64, tab.Len())
	f.shift = uint(bitLen(n - 1))
	f.packed = 3*f.shift+uint(bitLen(a-1)) <= 64
	for r := range f.order {
		if f.packed {
			f.order[r] = f.pack(r)
		} else {
			f.order[r] = uint64(r)
		}
	}
	return f
}

// initSphere fills rows of z with points uniform on the unit sphere
// (normalised Gaussians).
func initSphere(rng *rand.Rand, z []float64, d int) {
	v := make([]float64, d)
	for r := 0; r < len(z)/d; r++ {
		var nn float64
		for nn == 0 {
			for m := range v {
				v[m] = rng.NormFloat64()
			}
			nn = dot(v, v)
		}
		s := 1 / math.Sqrt(nn)
		for m := range v {
			z[r*d+m] = v[m] * s
		}
	}
}

// priorWeights splits the vMF prior terms over the triplets: a parameter
// that occurs c times gets κμᵀz/c per occurrence, so one epoch's gradient
// sum is the full gradient of Eq. 7.
func (f *fitter) priorWeights() {
	f.prI = make([]float64, f.n)
	f.prT = make([]float64, f.a)
	for r := range f.tab.I {
		f.prI[f.tab.I[r]]++
		f.prI[f.tab.J[r]]++
		f.prI[f.tab.K[r]]++
		f.prT[f.aspect(r)]++
	}
	for _, c := range [][]float64{f.prI, f.prT} {
		for i, v := range c {
			if v > 0 {
				c[i] = f.o.Kappa / v
			}
		}
	}
}

func bitLen(v int) int {
	b := 0
	for ; v > 0; v >>= 1 {
		b++
	}
	return max(b, 1)
}

// pack stores triplet r as i | j<<s | k<<2s | t<<3s, s = f.shift, so that
// an epoch streams through one array instead of gathering from four.
func (f *fitter) pack(r int) uint64 {
	s := f.shift
	return uint64(f.tab.I[r]) | uint64(f.tab.J[r])<<s | uint64(f.tab.K[r])<<(2*s) | uint64(f.aspect(r))<<(3*s)
}

// triplet decodes entry v of f.order.
func (f *fitter) triplet(v uint64) (i, j, k, t int) {
	if f.packed {
		s := f.shift
		m := uint64(1)<<s - 1
		return int(v & m), int(v >> s & m), int(v >> (2 * s) & m), int(v >> (3 * s))
	}
	r := int(v)
	return int(f.tab.I[r]), int(f.tab.J[r]), int(f.tab.K[r]), f.aspect(r)
}

func (f *fitter) aspect(r int) int {
	if f.single {
		return 0
	}
	return int(f.tab.Aspect[r])
}

// run does the epochs.
func (f *fitter) run(ctx context.Context) (Stats, error) {
	var st Stats
	rng := rand.New(rand.NewPCG(f.o.Seed^0x9e3779b97f4a7c15, seedStream))
	nb := (len(f.order) + blockSize - 1) / blockSize
	blocks := make([]int32, nb)
	for b := range blocks {
		blocks[b] = int32(b)
	}
	shuffle64(rng, f.order)
	workers := min(f.o.Threads, nb)
	if f.o.Deterministic {
		workers = 1
	}
	reps := make([]replica, workers)
	if workers > 1 {
		for w := range reps {
			reps[w].y = make([]float64, len(f.y))
			reps[w].x = make([]float64, len(f.x))
		}
	}
	prev := math.NaN()
	for e := 0; e < f.o.MaxIter; e++ {
		if e > 0 && len(f.order) <= fullShuffleMax {
			shuffle64(rng, f.order)
		}
		shuffleBlocks(rng, blocks)
		sum, err := f.epoch(ctx, blocks, int64(e)*int64(len(f.order)), reps)
		if err != nil {
			return st, err
		}
		st.Updates += int64(len(f.order))
		mean := sum / float64(len(f.order))
		st.Epochs++
		st.MeanLL = append(st.MeanLL, mean)
		if f.o.Progress != nil {
			f.o.Progress(e+1, mean)
		}
		if !f.o.FixedIter && math.Abs(mean-prev) < f.o.Tol {
			st.Converged = true
			break
		}
		prev = mean
	}
	return st, nil
}

// rate is the learning rate after done updates: ε/(1 + Decay·3·done/N),
// 3·done/N being the mean number of updates an object has had. It is
// constant within a block, so the schedule does not depend on Threads.
func (f *fitter) rate(done int64) float64 {
	return f.o.LearningRate / (1 + f.o.Decay*3*float64(done)/float64(f.n))
}

func shuffle64(rng *rand.Rand, p []uint64) {
	rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
}

func shuffleBlocks(rng *rand.Rand, p []int32) {
	rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
}

// acc accumulates one worker's share of an epoch.
type acc struct {
	sum       float64   // Σ ln l
	resp, cnt []float64 // per aspect: Σ δσᵗ/l (responsibility of the aspect view), triplets
}

// replica is one worker's private copy of yᵢ and xₜ.
type replica struct {
	y, x []float64
	acc
}

// roundBlocks is the number of blocks each worker does between merges.
const roundBlocks = 8

// epoch runs one pass and returns the sum of ln l over the triplets. With
// one worker it updates f directly in stream order. With W > 1 it goes in
// rounds: each worker applies roundBlocks consecutive blocks of the order
// to its private replica, then the replicas' changes are summed into the
// shared parameters (rows renormalised) and copied back (see the package
// doc). δₜ is fixed during the epoch and then set to the mean
// responsibility of the aspect view.
func (f *fitter) epoch(ctx context.Context, blocks []int32, done int64, reps []replica) (float64, error) {
	for w := range reps {
		reps[w].acc = acc{resp: make([]float64, f.a), cnt: make([]float64, f.a)}
	}
	if len(reps) == 1 {
		if err := f.worker(ctx, f.y, f.x, blocks, done, &reps[0].acc); err != nil {
			return 0, err
		}
	} else if err := f.rounds(ctx, blocks, done, reps); err != nil {
		return 0, err
	}
	var s float64
	for w := range reps {
		s += reps[w].sum
	}
	for t := range f.delta {
		var r, c float64
		for w := range reps {
			r += reps[w].resp[t]
			c += reps[w].cnt[t]
		}
		if c > 0 {
			f.delta[t] = min(max(r/c, 0), 1)
		}
	}
	return s, nil
}

// rounds runs the epoch's blocks on len(reps) workers with merges.
func (f *fitter) rounds(ctx context.Context, blocks []int32, done int64, reps []replica) error {
	nw := len(reps)
	errs := make([]error, nw)
	var wg sync.WaitGroup
	step := nw * roundBlocks
	for lo := 0; lo < len(blocks); lo += step {
		for w := range reps {
			copy(reps[w].y, f.y)
			copy(reps[w].x, f.x)
		}
		for w := range reps {
			b0 := min(lo+w*roundBlocks, len(blocks))
			b1 := min(b0+roundBlocks, len(blocks))
			if b0 == b1 {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[w] = f.worker(ctx, reps[w].y, reps[w].x, blocks[b0:b1], done+int64(b0)*blockSize, &reps[w].acc)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		merge(f.y, reps, func(r *replica) []float64 { return r.y }, f.d)
		merge(f.x, reps, func(r *replica) []float64 { return r.x }, f.d)
	}
	return nil
}

// merge adds every replica's change to base and renormalises the rows.
func merge(base []float64, reps []replica, get func(*replica) []float64, d int) {
	for w := range reps {
		z := get(&reps[w])
		for q := range base {
			z[q] -= base[q]
		}
	}
	for w := range reps {
		z := get(&reps[w])
		for q := range base {
			base[q] += z[q]
		}
	}
	normalizeRows(base, d)
}

// worker does the SGD steps of Algorithm 1 for the triplets of its blocks
// on y and x. done is the number of updates before its first block in the
// stream order, which sets the learning rate (see rate).
func (f *fitter) worker(ctx context.Context, y, x []float64, blocks []int32, done int64, ac *acc) error {
	d := f.d
	w := newWork(d)
	var pr *prior
	if f.prI != nil {
		pr = &prior{mu: f.o.Mu}
	}
	alpha := f.o.Alpha
	for _, b := range blocks {
		if err := ctx.Err(); err != nil {
			return err
		}
		lo := int(b) * blockSize
		hi := min(lo+blockSize, len(f.order))
		eps := f.rate(done)
		done += blockSize
		for _, v := range f.order[lo:hi] {
			i, j, k, t := f.triplet(v)
			yi, yj, yk, xt := y[i*d:(i+1)*d], y[j*d:(j+1)*d], y[k*d:(k+1)*d], x[t*d:(t+1)*d]
			dl := f.delta[t] // not written during an epoch
			if pr != nil {
				pr.ci, pr.cj, pr.ck, pr.cx = f.prI[i], f.prI[j], f.prI[k], f.prT[t]
			}
			// All gradients at the old parameters (Algorithm 1, line 7),
			// then the retractions (line 9).
			lnl, _, _ := evalTriplet(yi, yj, yk, xt, dl, alpha, pr, w)
			ac.sum += lnl
			ac.resp[t] += w.resp
			ac.cnt[t]++
			retract(yi, w.gi, eps)
			retract(yj, w.gj, eps)
			retract(yk, w.gk, eps)
			retract(xt, w.gx, eps)
		}
	}
	return nil
}

// model copies the parameters out, repeating the single aspect when the
// fit pooled all triplets.
func (f *fitter) model(aspects int) *Model {
	d := f.d
	m := &Model{Y: make([]float64, f.n*d), X: make([]float64, aspects*d), Delta: make([]float64, aspects), Dims: f.o.Dims}
	copy(m.Y, f.y)
	for t := range aspects {
		src := t
		if f.single {
			src = 0
		}
		for c := range d {
			m.X[t*d+c] = f.x[src*d+c]
		}
		m.Delta[t] = f.delta[src]
	}
	return m
}

func normalizeRows(z []float64, d int) {
	for r := 0; r < len(z); r += d {
		row := z[r : r+d]
		s := 1 / math.Sqrt(dot(row, row))
		for c := range row {
			row[c] *= s
		}
	}
}
