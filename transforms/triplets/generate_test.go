package triplets

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
)

func TestGenerateBrute(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name                     string
		aspects, objects, values int
		pMissing                 float64
	}{
		{"no objects", 2, 0, 3, 0},
		{"one value", 2, 6, 1, 0},
		{"binary", 3, 10, 2, 0},
		{"binary missing", 3, 11, 2, 0.3},
		{"many values missing", 4, 14, 5, 0.15},
		{"dominant value", 1, 9, 1, 0.2},
	} {
		codes := randomCodes(rng, tc.aspects, tc.objects, tc.values, tc.pMissing)
		if tc.name == "dominant value" {
			codes[0][4] = 3 // one odd object: few triplets, many (i, j)
		}
		for _, pairs := range []Pairs{Ordered, Unordered} {
			want := brute(codes, pairs)
			for _, batch := range []int{1, 2, 7, 64, want.Len(), want.Len() + 1, 1 << 40} {
				if batch < 1 {
					continue
				}
				got, err := collect(codes, pairs, batch)
				if err != nil {
					t.Errorf("%s, %v, batch %d: %v", tc.name, pairs, batch, err)
					continue
				}
				if d := diff(got, want); d != "" {
					t.Errorf("%s, %v, batch %d: %s", tc.name, pairs, batch, d)
				}
			}
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	codes := Codes{{0, 0, 1, 1, 2}, {0, 1, 0, 1, 0}}
	total := int64(0)
	for _, c := range Count(codes, Ordered) {
		total += c
	}
	errStop := errors.New("stop")
	for _, tc := range []struct {
		name  string
		ctx   func() (context.Context, context.CancelFunc)
		fail  int  // emit fails (or cancels) on this call (1-based); 0 never
		stop  bool // cancel the context instead of failing
		want  error
		calls int
	}{
		{"ok", ctxBackground, 0, false, nil, int(total+2) / 3},
		{"emit error", ctxBackground, 2, false, errStop, 2},
		{"cancelled", ctxCancelled, 0, false, context.Canceled, 0},
		{"cancelled while running", ctxBackground, 3, true, context.Canceled, 3},
	} {
		ctx, cancel := tc.ctx()
		calls := 0
		err := Generate(ctx, codes, Ordered, 3, func(*Table) error {
			calls++
			switch {
			case calls == tc.fail && tc.stop:
				cancel()
			case calls == tc.fail:
				return errStop
			}
			return nil
		})
		cancel()
		if !errors.Is(err, tc.want) || calls != tc.calls {
			t.Errorf("%s: err %v after %d calls, want %v after %d", tc.name, err, calls, tc.want, tc.calls)
		}
	}
}

func ctxBackground() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

func ctxCancelled() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx, cancel
}

// BenchmarkGenerateHouseVote streams all 23,517,385 unordered HouseVote
// triplets through a no-op emit.
func BenchmarkGenerateHouseVote(b *testing.B) {
	codes := loadHouseVote(b)
	var total int64
	for _, c := range Count(codes, Unordered) {
		total += c
	}
	b.ResetTimer()
	for b.Loop() {
		var n int64
		err := Generate(context.Background(), codes, Unordered, 1<<16, func(t *Table) error {
			n += int64(t.Len())
			return nil
		})
		if err != nil || n != total {
			b.Fatalf("err %v, %d triplets, want %d", err, n, total)
		}
	}
	b.ReportMetric(float64(total)*float64(b.N)/b.Elapsed().Seconds(), "triplets/s")
}
