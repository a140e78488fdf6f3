package score

import (
	"context"
	"encoding/csv"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/ordinate/ordinate/transforms/triplets"
)

// BenchmarkSGD reports triplet updates per second per core for one epoch of
// a planted model (N = 200, 8 aspects, 50,000 triplets per aspect).
func BenchmarkSGD(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	truth := planted(rng, 200, 2, []float64{1, 1, 0.5, 0.5, 0, 0, 1, 0})
	train := sample(rng, truth, 30, 50000)
	for _, c := range []struct {
		name    string
		threads int
		det     bool
	}{{"deterministic", 1, true}, {"rounds-1", 1, false}, {"rounds-2", 2, false}} {
		b.Run(c.name, func(b *testing.B) {
			o := DefaultOptions()
			o.Seed, o.MaxIter, o.FixedIter, o.Threads, o.Deterministic = 0, 5, true, c.threads, c.det
			var updates int64
			start := time.Now()
			for b.Loop() {
				_, st, err := Fit(context.Background(), train, 200, 8, o)
				if err != nil {
					b.Fatal(err)
				}
				updates += st.Updates
			}
			sec := time.Since(start).Seconds()
			b.ReportMetric(float64(updates)/sec/float64(c.threads), "updates/s/core")
		})
	}
}

// houseVoteTriplets generates the unordered HouseVote triplets: for each
// vote column t, ⟨i, j, k⟩ₜ whenever i < j agree on t and k differs.
func houseVoteTriplets(tb testing.TB) (*triplets.Table, int, int) {
	f, err := os.Open("../../testdata/house-votes-84/house-votes-84-complete.csv")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	rows = rows[1:]
	const first = 2 // row_id, party, then 16 votes
	n, a := len(rows), len(rows[0])-first
	tab := &triplets.Table{}
	for t := range a {
		for i := range n {
			for j := i + 1; j < n; j++ {
				if rows[i][first+t] != rows[j][first+t] {
					continue
				}
				for k := range n {
					if rows[k][first+t] != rows[i][first+t] {
						tab.Append(int32(i), int32(j), int32(k), int32(t))
					}
				}
			}
		}
	}
	return tab, n, a
}

// BenchmarkHouseVote fits all 23,517,385 HouseVote triplets to convergence
// (defaults, all cores). Set ORDINATE_BENCH_HUGE=1 to run it.
func BenchmarkHouseVote(b *testing.B) {
	if os.Getenv("ORDINATE_BENCH_HUGE") != "1" {
		b.Skip("ORDINATE_BENCH_HUGE=1 runs it: fitting all 23.5 million HouseVote triplets takes minutes")
	}
	tab, n, a := houseVoteTriplets(b)
	if tab.Len() != 23517385 {
		b.Fatalf("%d triplets, want 23,517,385", tab.Len())
	}
	b.Logf("%d triplets generated", tab.Len())
	for b.Loop() {
		start := time.Now()
		last := start
		progress := func(e int, ll float64) {
			now := time.Now()
			b.Logf("epoch %d meanLL %.5f %.2fs", e, ll, now.Sub(last).Seconds())
			last = now
		}
		o := DefaultOptions()
		o.Progress = progress
		m, st, err := Fit(context.Background(), tab, n, a, o)
		if err != nil {
			b.Fatal(err)
		}
		sec := time.Since(start).Seconds()
		_, acc := m.Accuracy(tab)
		b.ReportMetric(sec, "s/fit")
		b.ReportMetric(float64(st.Epochs), "epochs")
		b.ReportMetric(float64(st.Updates)/sec/float64(runtime.GOMAXPROCS(0)), "updates/s/core")
		b.ReportMetric(acc, "accuracy")
		b.Logf("epochs %d converged %v meanLL %.4f accuracy %.4f delta %.2f", st.Epochs, st.Converged, st.MeanLL[len(st.MeanLL)-1], acc, m.Delta)
	}
}
