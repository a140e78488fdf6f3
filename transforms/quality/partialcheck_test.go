package quality

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// prow is one row of a partial-sums table.
type prow struct {
	lo, hi int64
	part   string
	index  int64
	value  int64
}

// partRows returns the rows of a partial's table.
func partRows(p *Partial) []prow {
	rec := PartialRecord(memory.DefaultAllocator, p)
	defer rec.Release()
	lo, hi := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Int64)
	part, index, value := rec.Column(2).(*array.String), rec.Column(3).(*array.Int64), rec.Column(4).(*array.Int64)
	out := make([]prow, rec.NumRows())
	for i := range out {
		out[i] = prow{lo.Value(i), hi.Value(i), part.Value(i), index.Value(i), value.Value(i)}
	}
	return out
}

// readRows reads rows as a partial table.
func readRows(rows []prow) ([]*Partial, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, PartialSchema())
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.lo)
		b.Field(1).(*array.Int64Builder).Append(r.hi)
		b.Field(2).(*array.StringBuilder).Append(r.part)
		b.Field(3).(*array.Int64Builder).Append(r.index)
		b.Field(4).(*array.Int64Builder).Append(r.value)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	rd := arrowio.NewRecordsReader("parts.parquet", PartialSchema(), []arrow.RecordBatch{rec})
	defer rd.Release()
	return ReadPartials(context.Background(), rd)
}

// edit returns rows with f applied to every row of part (at index, or at
// every index when index < 0).
func edit(rows []prow, part string, index int64, f func(int64) int64) []prow {
	out := make([]prow, len(rows))
	copy(out, rows)
	for i, r := range out {
		if r.part == part && (index < 0 || r.index == index) {
			out[i].value = f(r.value)
		}
	}
	return out
}

func set(v int64) func(int64) int64 { return func(int64) int64 { return v } }

// sparseHistogram returns a co-ranking histogram that is consistent for q
// points among n with few counts: C(r) = q·r at ranks r₁ < r₂ < … = n−1,
// each as far from the last as the lower bound q(2r−n+1) allows.
func sparseHistogram(n, q int64) []rankCount {
	h := []rankCount{{0, q}}
	r := (n + 1) / 2
	var prev int64
	for {
		h = append(h, rankCount{int(r), q * (r - prev)})
		if r == n-1 {
			return h
		}
		prev, r = r, min((r+n+1)/2, n-1)
	}
}

// craftedRows is the table of a block [lo, hi) of a partial claiming n
// points, k, two classes and the given penalties, consistent otherwise.
func craftedRows(n, lo, hi, k, tPen int64) []prow {
	q := hi - lo
	rows := []prow{}
	add := func(part string, i, v int64) { rows = append(rows, prow{lo, hi, part, i, v}) }
	add(partFormat, 0, partialFormat)
	add(partN, 0, n)
	add(partDistances, 0, 0)
	add(partOrdinal, 0, 0)
	add(partFingerprint, 0, 42)
	add(partK, 0, k)
	add(partClass, 0, 0)
	add(partClass, 1, 1)
	for _, p := range []string{partTPenalty, partCPenalty} {
		add(p, 0, tPen)
	}
	for _, p := range []string{partTInter, partCIntra, partHitEmbedding, partHitInput, partSameEmbedding, partSameInput} {
		add(p, 0, 0)
	}
	add(partNNEmbedding, 0, 0)
	add(partNNInput, 0, 0)
	for _, e := range sparseHistogram(n, q) {
		add(partMaxRank, int64(e.rank), e.count)
	}
	return rows
}

// TestPartialsImpossibleSums: the hostile partials of issue 35 — sums no
// block can add up to, merged before with exit 0, a negative centre order
// that panicked, a small table claiming 2³¹−1 points that was killed for
// memory — are refused with ErrPartial, naming what is wrong, without
// allocating from the claims; the untouched tables still merge.
func TestPartialsImpossibleSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 3))
	const n = 40
	x, y, cl := normalPoints(rng, n, 3), normalPoints(rng, n, 2), randomClasses(rng, n, 3)
	part := func(b Block) []prow {
		p, err := EvaluatePartial(context.Background(), x, 3, y, 2, cl, Options{Ks: []int{3, 7}, Ordinal: true, Block: b})
		if err != nil {
			t.Fatal(err)
		}
		return partRows(p)
	}
	b0, b1 := part(Block{0, 2}), part(Block{1, 2}) // 20 points each
	both := func(rows []prow) []prow { return append(append([]prow{}, rows...), b1...) }
	if _, err := readRows(both(b0)); err != nil {
		t.Fatalf("untouched partials: %v", err)
	}
	nan := int64(math.Float64bits(math.NaN()))
	for _, tc := range []struct {
		name string
		rows []prow
		want string
	}{
		{"a hit count above the block's points", edit(b0, partHitEmbedding, 0, set(20+7)), "hit_embedding[0] = 27, out of range [0, 20]"},
		{"a negative hit count", edit(b0, partHitInput, 1, set(-1)), "hit_input[1] = -1"},
		{"same-class neighbours above k per point", edit(b0, partSameInput, 0, set(20*3+1)), "same_input[0] = 61"},
		{"1-NN votes above the points", edit(b0, partNNInput, 0, set(21)), "nn_input = 21"},
		{"a negative penalty", edit(b0, partTPenalty, 0, set(-5)), "t_penalty[0] = -5"},
		{"a penalty above the worst", edit(b0, partCPenalty, 1, set(20*pointPenaltyMax(n, 7)+1)), "c_penalty[1]"},
		{"a class part above its whole", edit(b0, partTInter, 0, func(int64) int64 { return math.MaxInt64 }), "t_inter[0]"},
		{"a penalty of 2⁶³−1", edit(b0, partTPenalty, 0, set(math.MaxInt64)), "t_penalty[0]"},
		{"a Spearman of 5", edit(b0, partSpearman, 0, set(int64(math.Float64bits(5)))), "ordinal_spearman = 5"},
		{"a Spearman of NaN", edit(b0, partSpearman, 0, set(nan)), "ordinal_spearman is NaN"},
		{"a centre Spearman of −Inf", edit(b0, partCenterRho, 0, set(int64(math.Float64bits(math.Inf(-1))))), "center_spearman = -Inf"},
		{"a centre order of 99", edit(b0, partCenterOrder, 0, set(99)), "center_order[0] = 99"},
		{"a negative centre order", edit(b0, partCenterOrder, 1, set(-3)), "center_order[1] = -3"},
		{"a centre order twice", edit(b0, partCenterOrder, 1, func(int64) int64 { return 0 }), "once each"},
		{"discordant pairs unlike the order", edit(b0, partDiscordant, 0, func(v int64) int64 { return (v + 1) % 4 }), "pairs out of class order"},
		{"a co-ranking count too high", edit(b0, partMaxRank, 1, func(v int64) int64 { return v + 1 }), "co-ranking"},
		{"a co-ranking count moved", edit(b0, partMaxRank, 1, set(0)), "co-ranking"},
		{"a co-ranking rank beyond N", append(both(b0), prow{0, 20, partMaxRank, n + 5, 1}), "max_rank index 45"},
		{"N claimed 2³¹−1", edit(b0, partN, 0, set(math.MaxInt32)), "co-ranking"},
		{"N claimed 2⁶²", edit(b0, partN, 0, set(1<<62)), "N = 4611686018427387904"},
		{"a k above N−2", edit(b0, partK, 1, set(n-1)), "k = 39"},
		{"a class value of 2⁴⁰", edit(b0, partClass, 2, set(1<<40)), "class values"},
		{"an unknown part", append(both(b0), prow{0, 20, "t_penalty_extra", 0, 1}), `unknown part "t_penalty_extra"`},
		{"ordinal metrics in a later block", append(both(b0), prow{20, 40, partSpearman, 0, 0}), "belongs only in the block at point 0"},
		{"a block beyond N", edit(b0, partN, 0, set(10)), "points [0, 20) of 10"},
		{"a sample as large as N", append(both(b0), prow{0, 20, partSample, 0, n}, prow{0, 20, partSeed, 0, 1}), "a sample of 40 of 40"},
		{"a seed without a sample", append(both(b0), prow{0, 20, partSeed, 0, 1}), "seed does not belong"},
	} {
		rows := tc.rows
		if len(rows) == len(b0) {
			rows = both(rows)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		parts, err := readRows(rows)
		if err == nil {
			_, err = Merge(parts...)
		}
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrPartial) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrPartial with %q", tc.name, err, tc.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("%s: allocated %d bytes", tc.name, grew)
		}
	}

	// Sums that are each possible for a block of 2³¹−1 points but whose
	// total wraps around 2⁶³: refused when merging, before any metric.
	const huge = math.MaxInt32
	k := int64(huge / 3)
	big := int64(math.MaxInt64 - 10)
	a, b := craftedRows(huge, 0, huge/2, k, big), craftedRows(huge, huge/2, huge, k, big)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	parts, err := readRows(append(a, b...))
	if err != nil {
		t.Fatalf("consistent blocks of 2³¹−1 points: %v", err)
	}
	_, err = Merge(parts...)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrPartial) || !strings.Contains(err.Error(), "t_penalty[0] overflows") {
		t.Errorf("wrapping total: error %v, want ErrPartial naming t_penalty[0]", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("wrapping total: allocated %d bytes", grew)
	}
}

// TestMergeLargeClaimsNoMemory: a consistent partial of many points, with a
// co-ranking histogram of a few counts, merges in memory that does not
// grow with its N (the histogram travels and merges as its counts).
func TestMergeLargeClaimsNoMemory(t *testing.T) {
	const n = 1 << 22
	rows := craftedRows(n, 0, n, 5, 0)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	parts, err := readRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Merge(parts...)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("merging a partial of %d points allocated %d bytes", n, grew)
	}
	if v, _ := rep.Value(MetricTrustworthiness, 5, SubsetAll); v != 1 {
		t.Errorf("T(5) = %v, want 1 (no penalty)", v)
	}
	if v, _ := rep.Value(MetricRNX, 5, SubsetAll); !(v >= -1 && v <= 1) {
		t.Errorf("R_NX(5) = %v", v)
	}
	_ = fmt.Sprint()
}
