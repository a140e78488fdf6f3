package nerv

import (
	"context"
	"math"

	"github.com/ordinate/ordinate/kernels"
)

// Soft labels on the grid (GridStress). SoftClassNeRV's community
// λ_ij = Σ_c min(ω_ic, ω_jc) does not split by groups, but a minimum does
// by thresholds: min(a, b) = ∫₀¹ 1[a ≥ t]·1[b ≥ t] dt. With every ω_ic
// rounded to r_ic/L (L = SoftLevels; r_ic is ⌊L·ω_ic⌋ or one more, by
// largest remainders, so that a row's levels sum to L, roundRow),
//
//	λ̂_ij = Σ_c min(r_ic, r_jc)/L = Σ_m w_m 1[i ∈ M_m] 1[j ∈ M_m],
//
// over channels m = (c, v): the rows with r_ic ≥ v, of weight (v − v')/L,
// v running through the levels of class c that some row has (v' the one
// before, or 0). A row belongs to the channels of its levels, about L in
// all; one-hot rows make one channel per class of weight 1, ClassNeRV's
// fields. So a labelled row's S_Λ is B + α Σ_{m ∋ i} w_m Φ_m (Φ_m the
// field of channel m's unit charges), and in pass 2 a labelled source
// reads the base field and, per channel it is in, α·w_m times the field
// of its members' c0S (and the A pair).
//
// The rounding touches the pairs the grid sums; the K listed pairs of
// every row are exact: the grid's as-if-outside term of a listed pair is
// t⁰(Λ̂) and the exact correction subtracts t⁰(Λ), so gridRow adds
// t⁰(Λ) − t⁰(Λ̂) = b ΔΛ (2 + ℓ − log b) with ΔΛ = α(λ_ij − λ̂_ij), and its
// derivative in log b, b ΔΛ (1 + ℓ − log b), to the pair's d_q. Far pairs
// carry |λ − λ̂| < c/L (TestGridSoftChannels), and λ̂ ≤ 1 with λ̂_ii = 1,
// as for λ (rounding each weight on its own would let a row of thirds sum
// to 9/8 at L = 8, and Λ̂ pass 1 at α = 1). On 2,000 rows of the four
// clusters' soft labels at L = 8, |λ − λ̂| was 0.003 on average and 0.075
// at the 99th percentile; on TestGridSoftRounding's random soft labels
// the stress is off by about 3e-5 relative and the gradient by 6e-3.
// Labels already on the 1/L lattice are exact (TestGridStressAgainstBH's
// "lattice" cases).

// DefaultGridSoftLevels is GridStress's default SoftLevels.
const DefaultGridSoftLevels = 8

// gridSoft holds the channels of soft labels.
type gridSoft struct {
	level   []uint8   // r_ic, ⌊L·ω_ic⌋ or one more (roundRow), n×c (labelled rows)
	self    []float64 // λ̂_ii = Σ_c r_ic/L
	weight  []float64 // w_m
	point   []int32   // the memberships: point and channel
	channel []int32
	order   gridOrder // the memberships by channel, then tile
	levels  int
	start   []int32 // per (class, level): some row has it, then its channel or −1
}

func (g *GridStress) softLevels() int {
	switch {
	case g.SoftLevels == 0:
		return DefaultGridSoftLevels
	case g.SoftLevels < 1 || g.SoftLevels > math.MaxUint8:
		panic("nerv: GridStress.SoftLevels out of [1, 255]")
	}
	return g.SoftLevels
}

// setChannels rounds the labelled rows' soft labels to L levels and lists
// the channels and their members (see the top of the file).
func (g *GridStress) setChannels(in *SparseInput) {
	g.soft.set(in, g.softLevels())
}

// set rounds the labelled rows' soft labels of in to levels levels and
// lists the channels and their members (see the top of the file); one-hot
// rows give one channel per class.
func (cs *gridSoft) set(in *SparseInput, levels int) {
	n, c := in.N, in.C
	cs.levels = levels
	cs.level = kernels.Grow(cs.level, n*c)
	cs.self = kernels.Grow(cs.self, n)
	// used[cl·(L+1) + v]: some row has level v of class cl; then the
	// channel id of (cl, v), −1 if none starts there.
	cs.start = kernels.Grow(cs.start, c*(levels+1))
	used := cs.start[:c*(levels+1)]
	clear(used)
	for i := range n {
		cs.self[i] = 0
		if !in.labelled(i) {
			continue
		}
		lev := cs.level[i*c : (i+1)*c]
		sum := roundRow(lev, in.Soft[i*c:(i+1)*c], levels)
		for cl, r := range lev {
			used[cl*(levels+1)+int(r)] = 1
		}
		cs.self[i] = float64(sum) / float64(levels)
	}
	cs.weight = cs.weight[:0]
	for cl := range c {
		prev := 0
		for v := 1; v <= levels; v++ {
			k := cl*(levels+1) + v
			if used[k] == 0 {
				used[k] = -1
				continue
			}
			used[k] = int32(len(cs.weight))
			cs.weight = append(cs.weight, float64(v-prev)/float64(levels))
			prev = v
		}
	}
	cs.point, cs.channel = cs.point[:0], cs.channel[:0]
	for i := range n {
		if !in.labelled(i) {
			continue
		}
		for cl := range c {
			r := int(cs.level[i*c+cl])
			for v := 1; v <= r; v++ {
				if m := used[cl*(levels+1)+v]; m >= 0 {
					cs.point = append(cs.point, int32(i))
					cs.channel = append(cs.channel, m)
				}
			}
		}
	}
}

// roundRow sets dst to the levels of the soft-label row w (L = levels):
// ⌊L·w_c⌋, plus one for the largest remainders (the first class among
// equal ones) until they sum to round(L·Σw), L for a normalised row, so
// that λ̂_ii = 1 and λ̂ ≤ 1 as λ is. It returns the sum.
func roundRow(dst []uint8, w []float64, levels int) int {
	l := float64(levels)
	var sum int
	var total float64
	for k, v := range w {
		r := min(max(int(math.Floor(v*l)), 0), levels)
		dst[k] = uint8(r)
		sum += r
		total += v
	}
	target := min(max(int(math.Round(total*l)), 0), levels*len(w))
	for ; sum < target; sum++ {
		best, rem := -1, math.Inf(-1)
		for k, v := range w {
			if int(dst[k]) < levels && v*l-float64(dst[k]) > rem {
				best, rem = k, v*l-float64(dst[k])
			}
		}
		if best < 0 {
			break
		}
		dst[best]++
	}
	return sum
}

// lamHat returns λ̂_ij of two labelled rows.
func (s *gridSoft) lamHat(i, j, c int) float64 {
	return levelsCommunity(s.level[i*c:(i+1)*c], s.level[j*c:(j+1)*c], s.levels)
}

// levelsCommunity is λ̂ of two rows' rounded levels a and b.
func levelsCommunity(a, b []uint8, levels int) float64 {
	var sum int
	for k, r := range a {
		sum += int(min(r, b[k]))
	}
	return float64(sum) / float64(levels)
}

// softListed returns what a listed pair of two labelled rows adds to the
// row's stress and to its d_q for the rounding of its Λ̂ in the grid's
// sums (see the top of the file): lam is the exact Λ_ij, b and logb the
// pair's output probability, lf = ℓ.
func (e *gridEval) softListed(i, j int, lam, b, logb, lf float64) (ds, dg float64) {
	p := e.p
	hat := p.tauOut + p.alpha*e.g.soft.lamHat(i, j, e.in.C)
	c := b * (lam - hat)
	return c * (2 + lf - logb), c * (1 + lf - logb)
}

// channels1 adds to every labelled grid row's S_Λ slots α w_m times the
// field of each of its channels (pass 1).
func (e *gridEval) channels1(ctx context.Context) error {
	g, p := e.g, e.p
	st, m := e.stride(), 2+2*p.dims
	for q := range g.nGrid {
		clear(g.pt[q*st+m : (q+1)*st])
	}
	ord := &g.soft.order
	buf := e.buf(gQ)
	for ch := range ord.groups {
		lo, hi := e.groupRange(ord, ch)
		if lo == hi {
			continue
		}
		e.selectGroup(ord, ch)
		if err := e.spread(ctx, ord, [][]float64{buf}, ch, ch+1, func(_ int, c []float64) { c[0] = 1 }); err != nil {
			return err
		}
		if err := e.convolve1(ctx, []gridTerm{{1, buf}}); err != nil {
			return err
		}
		if err := e.gatherChannel(ctx, lo, hi, p.alpha*g.soft.weight[ch]); err != nil {
			return err
		}
	}
	return nil
}

// gatherChannel adds w times the field Φ (Φ0, ΦA) and its gradient to the
// S_Λ slots of the records of the memberships [lo, hi) of one channel
// (each point at most once).
func (e *gridEval) gatherChannel(ctx context.Context, lo, hi int, w float64) error {
	g, p := e.g, e.p
	dims, st := p.dims, e.stride()
	phi0, phiA := e.buf(gPhi0), e.buf(gPhiA)
	ord := &g.soft.order
	return kernels.ParallelForWorker(ctx, hi-lo, e.threads, gridPointGrain, func(wk, a, b int) {
		sc := &g.work[wk]
		var v [2 + 2*2]float64
		for q := lo + a; q < lo+b; q++ {
			i := int(ord.order[q])
			sp := e.windows(sc, i)
			v0, vA, d0, dA := e.gather2(sc, phi0, phiA, &sp)
			e.store(v[:], v0, vA, d0, dA)
			r := int(g.pos[i])
			rec := g.pt[r*st+2+2*dims : (r+1)*st]
			for k := range rec {
				rec[k] += w * v[k]
			}
		}
	})
}

// channels2 adds to grad, for every channel, α w_m times the gradient of
// the field of its members' coefficients c0S (and c_AS) at its members
// (pass 2).
func (e *gridEval) channels2(ctx context.Context) error {
	g, p := e.g, e.p
	ord := &g.soft.order
	d0, da := e.buf(gD0), e.buf(gDA)
	for ch := range ord.groups {
		lo, hi := e.groupRange(ord, ch)
		if lo == hi {
			continue
		}
		e.selectGroup(ord, ch)
		err := e.spread(ctx, ord, [][]float64{d0, da}, ch, ch+1, func(q int, c []float64) {
			r := g.pos[ord.order[q]]
			c[0], c[1] = g.coef[4*r+1], g.coef[4*r+3]
		})
		if err != nil {
			return err
		}
		w := p.alpha * g.soft.weight[ch]
		if err := e.convolve2(ctx, []gridTerm{{w, d0}}, []gridTerm{{w, da}}); err != nil {
			return err
		}
		if err := e.gatherF(ctx, ord, lo, hi); err != nil {
			return err
		}
	}
	return nil
}
