package moments

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// Moments are the statistics of rows of D features in K classes.
type Moments struct {
	D, K  int
	Count []int64 // rows per class
	// Shift is subtracted from every row before its mean is taken: Mean
	// holds the means of x − Shift (Means gives them plus Shift). Add
	// takes the first row it sees, so the sums run over deviations of the
	// data's own size, whatever its offset; nil is no shift.
	Shift    []float64
	Mean     []float64 // K×D class means of x − Shift (0 for a class without rows)
	M2       []float64 // K×D×D class co-moments Σ (x − μ)(x − μ)ᵀ
	Min, Max []float64 // per feature over all rows; +Inf and −Inf without rows

	scratch addScratch // Add's buffers, reused from batch to batch
}

// addScratch holds Add's per-batch buffers.
type addScratch struct {
	rows  [][]int   // per class, the batch's rows in it
	xc    []float64 // a block of a class's rows, centred in place
	corr  []float64 // the block mean's correction
	batch *Moments  // a class's statistics in the batch
}

// ErrShape reports statistics of other dimensions than the ones they merge
// with.
var ErrShape = transforms.NewSentinel(transforms.ErrInvalidData, "statistics of another shape")

// New returns empty statistics of D features in K classes.
func New(D, K int) *Moments {
	if D < 1 || K < 1 {
		panic(fmt.Sprintf("moments: New(%d, %d): want D, K ≥ 1", D, K))
	}
	m := &Moments{D: D, K: K, Count: make([]int64, K), Mean: make([]float64, K*D), M2: make([]float64, K*D*D),
		Min: make([]float64, D), Max: make([]float64, D)}
	for j := range D {
		m.Min[j], m.Max[j] = math.Inf(1), math.Inf(-1)
	}
	return m
}

// Rows is the number of rows of all classes.
func (m *Moments) Rows() int64 {
	var n int64
	for _, c := range m.Count {
		n += c
	}
	return n
}

// Add adds the n rows of the row-major n×D x, row i in class classes[i]
// (classes nil: every row in class 0), on up to threads goroutines. Each
// class's rows of the batch, in blocks of addBlock rows, are centred on
// their own mean and their co-moments summed by Gemm, then merged in. Classes out of range and
// wrong sizes panic (the caller's classes come from a checked label); the
// only error is ctx.Err().
func (m *Moments) Add(ctx context.Context, x []float64, n int, classes []int, threads int) error {
	D := m.D
	if len(x) != n*D || (classes != nil && len(classes) != n) {
		panic(fmt.Sprintf("moments: Add: %d values and %d classes for %d rows of %d features", len(x), len(classes), n, D))
	}
	sc := &m.scratch
	if sc.batch == nil {
		sc.batch = New(D, 1)
	}
	if m.Shift == nil && n > 0 && m.Rows() == 0 {
		m.Shift = slices.Clone(x[:D])
	}
	sc.batch.Shift = m.Shift
	if classes == nil {
		// One class: the batch is its rows, no gather.
		return m.addClass(ctx, 0, x, nil, n, threads)
	}
	if len(sc.rows) < m.K {
		sc.rows = append(sc.rows, make([][]int, m.K-len(sc.rows))...)
	}
	rows := sc.rows[:m.K]
	for c := range rows {
		rows[c] = rows[c][:0]
	}
	for i, c := range classes[:n] {
		rows[c] = append(rows[c], i)
	}
	for c, idx := range rows {
		if len(idx) == 0 {
			continue
		}
		if err := m.addClass(ctx, c, x, idx, len(idx), threads); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// addBlock is the rows addClass centres and multiplies at a time: 4,096
// rows of 32 features are 1 MiB, so a block's gather, range, mean,
// centring and product read it from L2, where whole batches went to memory
// five times (BenchmarkAdd: 28–30 ms a batch of 65,536 × 32 before, 18–20
// ms now; blocks of 1,024 and 256 rows took 21 and 23–26 ms).
const addBlock = 4096

// addClass merges into class c the statistics of the nc rows idx of x
// (idx nil: the first nc rows), block by block: each block's range, mean,
// and co-moments of its rows centred on that mean (Gemm), merged in.
func (m *Moments) addClass(ctx context.Context, c int, x []float64, idx []int, nc, threads int) error {
	D := m.D
	sc := &m.scratch
	b := sc.batch
	if cap(sc.xc) < addBlock*D {
		sc.xc, sc.corr = make([]float64, addBlock*D), make([]float64, D)
	}
	lo, hi, mu := m.Min, m.Max, b.Mean[:D]
	shift := m.Shift
	if shift == nil {
		shift = make([]float64, D)
	}
	shift = shift[:len(mu)]
	for start := 0; start < nc; start += addBlock {
		nb := min(addBlock, nc-start)
		xc := sc.xc[:nb*D]
		clear(mu)
		for r := range nb {
			i := start + r
			if idx != nil {
				i = idx[i]
			}
			// Plain comparisons: the rows hold no NaN (the readers refuse
			// them), and min and max would pay for NaN's rules.
			row := xc[r*D : (r+1)*D][:len(mu)]
			for j, v := range x[i*D : (i+1)*D][:len(mu)] {
				if v < lo[j] {
					lo[j] = v
				}
				if v > hi[j] {
					hi[j] = v
				}
				v -= shift[j]
				row[j] = v
				mu[j] += v
			}
		}
		for j := range mu {
			mu[j] /= float64(nb)
		}
		// The sum's rounding grows with the values' offset from the
		// shift, which the merges pass on through the differences of
		// means; the mean of the deviations corrects it, to the rounding
		// of the spread.
		corr := sc.corr[:D]
		clear(corr)
		for r := range nb {
			for j, v := range xc[r*D : (r+1)*D][:len(mu)] {
				corr[j] += v - mu[j]
			}
		}
		for j := range mu {
			mu[j] += corr[j] / float64(nb)
		}
		for r := range nb {
			row := xc[r*D : (r+1)*D][:len(mu)]
			for j := range row {
				row[j] -= mu[j]
			}
		}
		if err := kernels.Gemm(ctx, threads, true, false, D, D, nb, 1, xc, D, xc, D, 0, b.M2, D); err != nil {
			return err
		}
		symmetrize(b.M2, D)
		b.Count[0] = int64(nb)
		m.mergeClass(c, b, 0)
	}
	return nil
}

// symmetrize copies the upper triangle of the D×D a onto the lower one:
// Gemm's two triangles of XᵀX are summed in the same order and agree, but
// stating it keeps the matrix exactly symmetric whatever the kernel.
func symmetrize(a []float64, D int) {
	for i := range D {
		for j := i + 1; j < D; j++ {
			a[j*D+i] = a[i*D+j]
		}
	}
}

// Merge adds o's rows to m. Statistics of another D or K are an error
// wrapping ErrShape.
func (m *Moments) Merge(o *Moments) error {
	if o.D != m.D || o.K != m.K {
		return fmt.Errorf("%w: %d features in %d classes, merged into %d in %d", ErrShape, o.D, o.K, m.D, m.K)
	}
	for c := range m.K {
		m.mergeClass(c, o, c)
	}
	for j := range m.D {
		m.Min[j], m.Max[j] = min(m.Min[j], o.Min[j]), max(m.Max[j], o.Max[j])
	}
	return nil
}

// mergeClass merges class oc of o into class c of m (Chan, Golub and
// LeVeque's pairwise update).
func (m *Moments) mergeClass(c int, o *Moments, oc int) {
	D := m.D
	nb := o.Count[oc]
	if nb == 0 {
		return
	}
	if m.Shift == nil && o.Shift != nil && m.Rows() == 0 {
		m.Shift = slices.Clone(o.Shift)
	}
	na := m.Count[c]
	ma, mb := m.Mean[c*D:(c+1)*D], o.Mean[oc*D:(oc+1)*D]
	sa, sb := m.M2[c*D*D:(c+1)*D*D], o.M2[oc*D*D:(oc+1)*D*D]
	// o's means on m's shift: the shifts' difference is exact when they
	// are within a factor 2 (Sterbenz), as shifts of the same data are.
	delta := make([]float64, D)
	for j := range D {
		delta[j] = (mb[j] + (o.shiftOf(j) - m.shiftOf(j))) - ma[j]
	}
	if na == 0 {
		for j := range D {
			ma[j] += delta[j]
		}
		copy(sa, sb)
		m.Count[c] = nb
		return
	}
	n := float64(na + nb)
	w := float64(na) * float64(nb) / n
	for i := range D {
		for j := range D {
			sa[i*D+j] += sb[i*D+j] + delta[i]*delta[j]*w
		}
	}
	f := float64(nb) / n
	for j := range D {
		ma[j] += delta[j] * f
	}
	m.Count[c] = na + nb
}

// Pooled returns the statistics of all rows, whatever their class: their
// count, mean (D, of x itself: Shift added) and co-moments (D×D), merged
// class by class.
func (m *Moments) Pooled() (n int64, mean, m2 []float64) {
	p := m.pooled()
	return p.Count[0], p.Means(), p.M2
}

// pooled merges the classes into one, on m's shift.
func (m *Moments) pooled() *Moments {
	p := New(m.D, 1)
	p.Shift = slices.Clone(m.Shift)
	for c := range m.K {
		p.mergeClass(0, m, c)
	}
	return p
}

// shiftOf is feature j's shift (0 without one).
func (m *Moments) shiftOf(j int) float64 {
	if m.Shift == nil {
		return 0
	}
	return m.Shift[j]
}

// Means returns the K×D class means of x (Mean plus Shift; 0 for a class
// without rows).
func (m *Moments) Means() []float64 {
	out := slices.Clone(m.Mean)
	for c := range m.K {
		if m.Count[c] == 0 {
			continue
		}
		for j := range m.D {
			out[c*m.D+j] += m.shiftOf(j)
		}
	}
	return out
}

// Grow adds empty classes up to k in all (k ≤ K leaves m as it is): a
// stream meets its classes as their rows come.
func (m *Moments) Grow(k int) {
	for m.K < k {
		m.Count = append(m.Count, 0)
		m.Mean = append(m.Mean, make([]float64, m.D)...)
		m.M2 = append(m.M2, make([]float64, m.D*m.D)...)
		m.K++
	}
}

// Reorder returns the statistics with class c of the result made of the
// classes s of m with from[s] == c: from maps every class of m to one of k
// classes (two classes of m may merge into one, in m's order).
func (m *Moments) Reorder(from []int, k int) *Moments {
	if len(from) != m.K {
		panic(fmt.Sprintf("moments: Reorder: %d targets for %d classes", len(from), m.K))
	}
	out := New(m.D, k)
	out.Shift = slices.Clone(m.Shift)
	for s, c := range from {
		out.mergeClass(c, m, s)
	}
	copy(out.Min, m.Min)
	copy(out.Max, m.Max)
	return out
}
