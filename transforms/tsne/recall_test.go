package tsne

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// TestKNNRecallReported: with approximate neighbours the fit estimates
// their recall, records it in the provenance and logs every estimate; a
// join too narrow to reach the target (even widened) warns with the
// estimate; exact neighbours record none.
func TestKNNRecallReported(t *testing.T) {
	const n, d = 2500, 30
	rng := rand.New(rand.NewPCG(36, 1))
	fields := make([]arrow.Field, d)
	for j := range fields {
		fields[j] = arrow.Field{Name: fmt.Sprint("f", j), Type: arrow.PrimitiveTypes.Float64}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for range n { // an isotropic Gaussian: the hardest case for NN-descent
		for j := range d {
			b.Field(j).(*array.Float64Builder).Append(rng.NormFloat64())
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	for _, tc := range []struct {
		name   string
		knn    string
		cands  int
		warn   bool
		record bool
	}{
		{"approx, default join", "approx", 0, false, true},
		{"approx, join of 3", "approx", 3, true, true},
		{"exact", "exact", 0, false, false},
	} {
		tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
		o := Stage{}.NewOptions().(*Options)
		o.Method, o.MaxIter, o.Perplexity = BH, 5, 10
		o.KNN = kernels.KNNMethod(tc.knn)
		o.knnCandidates = tc.cands
		var log bytes.Buffer
		env := &transforms.Env{Tables: tables, Log: slog.New(slog.NewTextHandler(&log, nil))}
		if err := transforms.Run(context.Background(), Stage{}, o, env); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		figs := tables.Out("out").Provenance().Figures
		tables.Release()
		recall, ok := figs["knn_recall"].(float64)
		if ok != tc.record {
			t.Errorf("%s: knn_recall recorded: %v, want %v (%v)", tc.name, ok, tc.record, figs["knn_recall"])
		}
		if tc.record && !strings.Contains(log.String(), `msg="neighbour recall" estimate=`) {
			t.Errorf("%s: no recall estimate in the log:\n%s", tc.name, log.String())
		}
		warned := strings.Contains(log.String(), "level=WARN msg=\"approximate neighbours: estimated recall")
		if warned != tc.warn {
			t.Errorf("%s: warned %v, want %v; recall %v\n%s", tc.name, warned, tc.warn, recall, log.String())
		}
		if tc.record && !tc.warn && recall < DefaultKNNRecall {
			t.Errorf("%s: recall %v below the target without a warning", tc.name, recall)
		}
	}
}

// phaseStarts records each phase a fit starts, in order, with its total
// and the work added to it (phaseLog merges phases of one name).
type phaseStarts struct {
	mu     sync.Mutex
	phases []string
	added  []int64
	totals []int64
}

func (p *phaseStarts) Start(phase string, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phases, p.added, p.totals = append(p.phases, phase), append(p.added, 0), append(p.totals, total)
}
func (p *phaseStarts) Add(n int64) { p.mu.Lock(); p.added[len(p.added)-1] += n; p.mu.Unlock() }
func (p *phaseStarts) Finish()     {}

// TestKNNWideningProgress: a widened neighbour search is a progress phase
// of its own ("widening"), which receives rows, within its total, instead
// of sitting silent at the end of the planned "neighbours" bar.
func TestKNNWideningProgress(t *testing.T) {
	const n, d = 2500, 30
	rng := rand.New(rand.NewPCG(36, 2))
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	o := DefaultOptions()
	o.Method, o.MaxIter, o.Perplexity, o.KNN = BH, 5, 10, kernels.KNNApprox
	o.knnCandidates = 4 // far too narrow: both widenings run
	var log phaseStarts
	o.Reporter = &log
	if _, err := FromFeatures(context.Background(), x, n, d, o); err != nil {
		t.Fatal(err)
	}
	widenings := 0
	for q, ph := range log.phases {
		if ph != "widening" {
			continue
		}
		widenings++
		if log.added[q] <= 0 || log.added[q] > log.totals[q] {
			t.Errorf("widening %d: %d rows reported of a total of %d", widenings, log.added[q], log.totals[q])
		}
		if q == 0 || (log.phases[q-1] != "neighbours" && log.phases[q-1] != "widening") {
			t.Errorf("phases %v: a widening not after the neighbour search", log.phases)
		}
	}
	if widenings != 2 {
		t.Errorf("phases %v: %d widenings, want 2", log.phases, widenings)
	}
}
