package triplets

import (
	"context"
	"fmt"
	"slices"
)

// Generate streams every triplet of codes to emit, in generation order:
// by aspect, then i, then j, then k, each ascending (see the package
// documentation). Each call of emit receives between 1 and batch triplets;
// only the last call may receive fewer than batch. The same Table is reused
// between calls, so emit must not keep it or its columns after returning
// (copy what it needs). Memory is O(batch + objects), whatever the number of
// triplets.
//
// Generate returns the first error of emit unchanged, or ctx.Err() when the
// context is cancelled (checked before every call of emit). It panics if
// batch < 1 or codes is malformed (see Codes).
func Generate(ctx context.Context, codes Codes, pairs Pairs, batch int, emit func(*Table) error) error {
	if batch < 1 {
		panic(fmt.Sprintf("triplets: batch %d < 1", batch))
	}
	codes.check()
	pairs.check()
	var total int64
	for _, c := range Count(codes, pairs) {
		total += c
	}
	// A huge batch must not allocate more than the triplets need.
	w := &writer{ctx: ctx, batch: batch, emit: emit, t: *newTable(int(min(int64(batch), total)))}
	var comp []int32
	for a, row := range codes {
		if err := ctx.Err(); err != nil {
			return err
		}
		g := newGroups(row, pairs)
		cur := int32(-1) // group whose complement is in comp
		for _, i := range g.present {
			if g.partners(i) == 0 || g.others(i) == 0 {
				continue
			}
			if d := g.group[i]; d != cur {
				comp, cur = g.complement(comp[:0], d), d
			}
			before, after := g.js(i)
			for _, js := range [2][]int32{before, after} {
				for _, j := range js {
					if err := w.run(i, j, int32(a), comp); err != nil {
						return err
					}
				}
			}
		}
	}
	return w.flush()
}

// writer fills a batch table and hands it to emit when full.
type writer struct {
	ctx   context.Context
	batch int
	emit  func(*Table) error
	t     Table
}

// run appends the triplets ⟨i, j, k⟩ₐ for every k in ks.
func (w *writer) run(i, j, a int32, ks []int32) error {
	for len(ks) > 0 {
		n := min(len(ks), w.batch-len(w.t.K))
		w.t.K = append(w.t.K, ks[:n]...)
		w.t.I = fill(w.t.I, i, n)
		w.t.J = fill(w.t.J, j, n)
		w.t.Aspect = fill(w.t.Aspect, a, n)
		ks = ks[n:]
		if len(w.t.K) == w.batch {
			if err := w.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *writer) flush() error {
	if w.t.Len() == 0 {
		return nil
	}
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if err := w.emit(&w.t); err != nil {
		return err
	}
	w.t.Reset()
	return nil
}

// fill appends n copies of v to s.
func fill(s []int32, v int32, n int) []int32 {
	m := len(s)
	s = slices.Grow(s, n)[:m+n]
	for x := m; x < len(s); x++ {
		s[x] = v
	}
	return s
}
