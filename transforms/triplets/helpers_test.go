package triplets

import (
	"context"
	"fmt"
	"math/rand/v2"
)

// brute lists every triplet by a quadruple loop in generation order: the
// definition, independent of the value-group machinery.
func brute(codes Codes, pairs Pairs) *Table {
	out := new(Table)
	for a, row := range codes {
		n := int32(len(row))
		for i := range n {
			for j := range n {
				for k := range n {
					if i == j || i == k || j == k || (pairs == Unordered && j < i) {
						continue
					}
					ci, cj, ck := row[i], row[j], row[k]
					if ci == Missing || cj == Missing || ck == Missing {
						continue
					}
					if ci == cj && cj != ck {
						out.Append(i, j, k, int32(a))
					}
				}
			}
		}
	}
	return out
}

// randomCodes draws aspects × objects codes in [−1, values), −1 with
// probability pMissing.
func randomCodes(rng *rand.Rand, aspects, objects, values int, pMissing float64) Codes {
	c := make(Codes, aspects)
	for t := range c {
		c[t] = make([]int32, objects)
		for i := range c[t] {
			if rng.Float64() < pMissing {
				c[t][i] = Missing
			} else {
				c[t][i] = int32(rng.IntN(values)) * 7 // non-dense codes on purpose
			}
		}
	}
	return c
}

// collect generates all triplets into one table, checking the batch sizes.
func collect(codes Codes, pairs Pairs, batch int) (*Table, error) {
	out := newTable(int(sum(Count(codes, pairs))))
	short := false
	err := Generate(context.Background(), codes, pairs, batch, func(t *Table) error {
		if t.Len() < 1 || t.Len() > batch || short {
			return fmt.Errorf("batch of %d triplets (batch %d, earlier short batch %v)", t.Len(), batch, short)
		}
		short = t.Len() < batch
		out.I = append(out.I, t.I...)
		out.J = append(out.J, t.J...)
		out.K = append(out.K, t.K...)
		out.Aspect = append(out.Aspect, t.Aspect...)
		return nil
	})
	return out, err
}

// diff returns the first row where a and b differ, or "" when equal.
func diff(a, b *Table) string {
	if a.Len() != b.Len() {
		return fmt.Sprintf("%d triplets, want %d", a.Len(), b.Len())
	}
	for r := range a.I {
		if a.I[r] != b.I[r] || a.J[r] != b.J[r] || a.K[r] != b.K[r] || a.Aspect[r] != b.Aspect[r] {
			return fmt.Sprintf("row %d: got <%d,%d,%d>_%d, want <%d,%d,%d>_%d", r,
				a.I[r], a.J[r], a.K[r], a.Aspect[r], b.I[r], b.J[r], b.K[r], b.Aspect[r])
		}
	}
	return ""
}

func perAspect(t *Table, aspects int) []int64 {
	c := make([]int64, aspects)
	for _, a := range t.Aspect {
		c[a]++
	}
	return c
}
