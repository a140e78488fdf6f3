package score

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/triplets"
)

// planted draws a SCORE model with the given δₜ: objects uniform on S^K,
// poles spread by drawing them uniform too.
func planted(rng *rand.Rand, n, dims int, deltas []float64) *Model {
	d := dims + 1
	m := &Model{Y: make([]float64, n*d), X: make([]float64, len(deltas)*d), Delta: deltas, Dims: dims}
	for i := range n {
		copy(m.Y[i*d:], randUnit(rng, d))
	}
	for t := range deltas {
		copy(m.X[t*d:], randUnit(rng, d))
	}
	return m
}

// sample draws per aspect `per` triplets from the model's own probabilities
// (the generative process of Section 4.1 with α): a random {i, k}, a random
// j, the mixture coin, then ⟨i, j, k⟩ₜ or ⟨k, j, i⟩ₜ.
func sample(rng *rand.Rand, m *Model, alpha float64, per int) *triplets.Table {
	n := m.Objects()
	tab := &triplets.Table{}
	for t := range m.Aspects() {
		for range per {
			i, j, k := rng.IntN(n), rng.IntN(n), rng.IntN(n)
			if i == j || j == k || i == k {
				continue
			}
			p := m.Prob(alpha, t, i, j, k)
			if rng.Float64() < p {
				tab.Append(int32(i), int32(j), int32(k), int32(t))
			} else {
				tab.Append(int32(k), int32(j), int32(i), int32(t))
			}
		}
	}
	return tab
}

// truthAccuracy is the fraction of tab's (i, j, k, t), read as unordered
// questions, on which fit and truth order dᵗᵢⱼ vs dᵗⱼₖ the same way, per
// aspect averaged: held-out accuracy against noise-free labels.
func truthAccuracy(fit, truth *Model, tab *triplets.Table) float64 {
	a := truth.Aspects()
	ok, cnt := make([]float64, a), make([]float64, a)
	for r := range tab.I {
		t, i, j, k := int(tab.Aspect[r]), int(tab.I[r]), int(tab.J[r]), int(tab.K[r])
		cnt[t]++
		if (fit.Distance(t, i, j) < fit.Distance(t, j, k)) == (truth.Distance(t, i, j) < truth.Distance(t, j, k)) {
			ok[t]++
		}
	}
	var s float64
	for t := range a {
		s += ok[t] / cnt[t]
	}
	return s / float64(a)
}

func TestPlantedRecovery(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	truth := planted(rng, 40, 2, []float64{1, 1, 1, 1})
	train := sample(rng, truth, 30, 6000)
	test := sample(rng, truth, 30, 2000)
	ctx := context.Background()
	multi, st, err := Fit(ctx, train, 40, 4, opts(func(o *Options) { o.Seed, o.Deterministic = 1, true }))
	if err != nil {
		t.Fatal(err)
	}
	single, _, err := Fit(ctx, train, 40, 4, opts(func(o *Options) { o.Seed, o.SingleMap, o.Deterministic = 1, true, true }))
	if err != nil {
		t.Fatal(err)
	}
	am, as := truthAccuracy(multi, truth, test), truthAccuracy(single, truth, test)
	_, lm := multi.Accuracy(test)
	_, ls := single.Accuracy(test)
	_, lt := truth.Accuracy(test)
	t.Logf("epochs %d converged %v LL %.4f; vs truth: multi %.3f single %.3f; on sampled labels: multi %.3f single %.3f truth %.3f; delta %v",
		st.Epochs, st.Converged, st.MeanLL[len(st.MeanLL)-1], am, as, lm, ls, lt, multi.Delta)
	if am < 0.9 {
		t.Errorf("multiple maps: held-out accuracy vs planted %.3f < 0.9", am)
	}
	if am < as+0.05 {
		t.Errorf("multiple maps %.3f do not beat single map %.3f by 0.05", am, as)
	}
}

func TestDeltaTowardOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	// Aspects 0, 1 aspect-specific (δ = 1); aspects 2, 3 global (δ = 0).
	truth := planted(rng, 40, 2, []float64{1, 1, 0, 0})
	train := sample(rng, truth, 30, 6000)
	m, _, err := Fit(context.Background(), train, 40, 4, opts(func(o *Options) { o.Seed, o.Deterministic = 2, true }))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("delta %.3f", m.Delta)
	for t0 := range 2 {
		if m.Delta[t0] < 0.6 {
			t.Errorf("aspect %d (planted δ = 1): δ = %.3f < 0.6", t0, m.Delta[t0])
		}
		for t1 := 2; t1 < 4; t1++ {
			if m.Delta[t0] < m.Delta[t1]+0.3 {
				t.Errorf("aspect %d (planted δ = 1): δ = %.3f not above aspect %d (planted δ = 0): %.3f", t0, m.Delta[t0], t1, m.Delta[t1])
			}
		}
	}
}

func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func TestDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	truth := planted(rng, 30, 2, []float64{1, 0.5, 0})
	train := sample(rng, truth, 30, 1500)
	fit := func(threads int, det bool, seed uint64) (*Model, Stats) {
		m, st, err := Fit(context.Background(), train, 30, 3, opts(func(o *Options) {
			o.Seed, o.Deterministic, o.Threads, o.MaxIter, o.Kappa = seed, det, threads, 20, 0.5
		}))
		if err != nil {
			t.Fatal(err)
		}
		return m, st
	}
	ref, rst := fit(1, true, 7)
	for _, threads := range []int{1, 2, 4} {
		m, st := fit(threads, true, 7)
		if !sameBits(m.Y, ref.Y) || !sameBits(m.X, ref.X) || !sameBits(m.Delta, ref.Delta) || !sameBits(st.MeanLL, rst.MeanLL) {
			t.Errorf("Deterministic, Threads %d: results differ from Threads 1", threads)
		}
	}
	other, _ := fit(1, true, 8)
	if sameBits(other.Y, ref.Y) {
		t.Errorf("seeds 7 and 8 gave identical Y")
	}
	// The parallel mode: reproducible for the same Threads, different from
	// the single stream, unit rows (and, under -race, checked for races).
	m, st := fit(2, false, 7)
	m2, _ := fit(2, false, 7)
	if !sameBits(m.Y, m2.Y) || !sameBits(m.X, m2.X) {
		t.Errorf("parallel mode, Threads 2: two runs differ")
	}
	if sameBits(m.Y, ref.Y) {
		t.Errorf("parallel mode, Threads 2: identical to the single stream (no merging?)")
	}
	if st.Epochs == 0 || st.Updates != int64(st.Epochs*train.Len()) {
		t.Errorf("parallel: %d epochs, %d updates for %d triplets", st.Epochs, st.Updates, train.Len())
	}
	for i := range m.Objects() {
		y := m.Y[i*3 : i*3+3]
		if math.Abs(dot(y, y)-1) > 1e-12 {
			t.Errorf("parallel: |y_%d|² = %v", i, dot(y, y))
		}
	}
}

// opts returns DefaultOptions changed by set.
func opts(set func(o *Options)) Options {
	o := DefaultOptions()
	set(&o)
	return o
}

func TestValidation(t *testing.T) {
	good := &triplets.Table{}
	good.Append(0, 1, 2, 0)
	good.Append(2, 1, 0, 1)
	def := DefaultOptions()
	cases := []struct {
		name    string
		tab     *triplets.Table
		n, a    int
		o       Options
		want    error
		wantRow int
	}{
		{"empty", &triplets.Table{}, 3, 1, def, ErrNoTriplets, -1},
		{"nil", nil, 3, 1, def, ErrNoTriplets, -1},
		{"object out of range", good, 2, 2, def, ErrTriplet, -1},
		{"aspect out of range", good, 3, 1, def, ErrTriplet, 1},
		{"mu length", good, 3, 2, opts(func(o *Options) { o.Mu = []float64{0, 1} }), ErrMu, -1},
		{"mu zero", good, 3, 2, opts(func(o *Options) { o.Mu = []float64{0, 0, 0} }), ErrMu, -1},
	}
	for _, c := range cases {
		_, _, err := Fit(context.Background(), c.tab, c.n, c.a, c.o)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
			continue
		}
		var te *TripletError
		if c.wantRow >= 0 && (!errors.As(err, &te) || te.Row != int64(c.wantRow)) {
			t.Errorf("%s: error %v, want a *TripletError at row %d", c.name, err, c.wantRow)
		}
	}
	bad := &triplets.Table{}
	bad.Append(0, 1, 2, 0)
	bad.Append(1, 1, 2, 0)
	var te *TripletError
	if _, _, err := Fit(context.Background(), bad, 3, 1, def); !errors.As(err, &te) || te.Row != 1 || !errors.Is(err, triplets.ErrTriplet) {
		t.Errorf("i = j: error %v, want *TripletError at row 1 wrapping triplets.ErrTriplet", err)
	}
}

// TestOptionRanges: the defaults validate, and Fit (through
// transforms.Validate) refuses an out-of-range value of each ranged option,
// zero included where zero used to mean the default, with an
// *OptionError naming the option.
func TestOptionRanges(t *testing.T) {
	def := DefaultOptions()
	if err := transforms.Validate(&def); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	good := &triplets.Table{}
	good.Append(0, 1, 2, 0)
	for _, c := range []struct {
		option string
		set    func(o *Options)
		also   error // a sentinel the error wraps besides ErrInvalidOption
	}{
		{"dims", func(o *Options) { o.Dims = 0 }, nil},
		{"dims", func(o *Options) { o.Dims = -1 }, nil},
		{"alpha", func(o *Options) { o.Alpha = 0 }, nil},
		{"alpha", func(o *Options) { o.Alpha = -30 }, nil},
		{"alpha", func(o *Options) { o.Alpha = math.NaN() }, nil},
		{"learning-rate", func(o *Options) { o.LearningRate = 0 }, nil},
		{"learning-rate", func(o *Options) { o.LearningRate = -0.1 }, nil},
		{"kappa", func(o *Options) { o.Kappa = -1 }, nil},
		{"kappa", func(o *Options) { o.Kappa = math.Inf(1) }, nil},
		{"max-iter", func(o *Options) { o.MaxIter = 0 }, nil},
		{"tol", func(o *Options) { o.Tol = 0 }, nil},
		{"tol", func(o *Options) { o.Tol = -1 }, nil},
		{"Decay", func(o *Options) { o.Decay = -1 }, nil},
		{"on-invalid", func(o *Options) { o.OnInvalid = "" }, nil},
		{"Mu", func(o *Options) { o.Mu = []float64{0, 1} }, ErrMu},
		{"Mu", func(o *Options) { o.Mu = []float64{0, math.NaN(), 1} }, ErrMu},
	} {
		o := opts(c.set)
		err := transforms.Validate(&o)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != c.option || !errors.Is(err, transforms.ErrInvalidOption) ||
			(c.also != nil && !errors.Is(err, c.also)) {
			t.Errorf("%s: Validate: %v, want an *OptionError naming it", c.option, err)
		}
		if _, _, ferr := Fit(context.Background(), good, 3, 1, o); ferr == nil || ferr.Error() != err.Error() {
			t.Errorf("%s: Fit: %v, want %v", c.option, ferr, err)
		}
	}
	// Zero is no longer "the default": the zero Options are refused.
	if _, _, err := Fit(context.Background(), good, 3, 1, Options{}); !errors.Is(err, transforms.ErrInvalidOption) {
		t.Errorf("zero Options: error %v, want an option error", err)
	}
}

func TestCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	truth := planted(rng, 20, 2, []float64{1})
	train := sample(rng, truth, 30, 2000)
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, st, err := Fit(ctx, train, 20, 1, opts(func(o *Options) {
		o.Seed, o.FixedIter = 0, true
		o.Progress = func(int, float64) {
			calls++
			if calls == 3 {
				cancel()
			}
		}
	}))
	if !errors.Is(err, context.Canceled) || st.Epochs != 3 {
		t.Errorf("cancel after epoch 3: error %v, %d epochs", err, st.Epochs)
	}
}

func TestSingleMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	truth := planted(rng, 20, 2, []float64{1, 1, 1})
	train := sample(rng, truth, 30, 500)
	m, _, err := Fit(context.Background(), train, 20, 3, opts(func(o *Options) { o.Seed, o.SingleMap, o.MaxIter = 0, true, 5 }))
	if err != nil {
		t.Fatal(err)
	}
	for tt := 1; tt < 3; tt++ {
		if !sameBits(m.X[tt*3:tt*3+3], m.X[:3]) || m.Delta[tt] != m.Delta[0] {
			t.Errorf("single map: aspect %d pole/δ differ from aspect 0", tt)
		}
	}
}

// TestPackedOrder: the packed visiting order and the row-number fallback
// (used when indices do not fit in 64 bits) must give bit-identical fits.
func TestPackedOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	truth := planted(rng, 25, 2, []float64{1, 0.5, 0})
	train := sample(rng, truth, 30, 800)
	o := opts(func(o *Options) { o.Seed, o.MaxIter, o.Deterministic = 3, 5, true })
	if err := transforms.Validate(&o); err != nil {
		t.Fatal(err)
	}
	o.Threads, o.Mu = runtime.GOMAXPROCS(0), unitMu(nil, o.Dims)
	fits := make([]*Model, 2)
	for c, packed := range []bool{true, false} {
		f := newFitter(train, 25, 3, o)
		if !f.packed {
			t.Fatal("25 objects, 3 aspects: not packed")
		}
		if !packed {
			f.packed = false
			for r := range f.order {
				f.order[r] = uint64(r)
			}
		}
		if _, err := f.run(context.Background()); err != nil {
			t.Fatal(err)
		}
		fits[c] = f.model(3)
	}
	if !sameBits(fits[0].Y, fits[1].Y) || !sameBits(fits[0].X, fits[1].X) {
		t.Errorf("packed and row-number orders give different fits")
	}
}

// TestPriorPull: a strong vMF prior must pull objects and poles towards μ.
func TestPriorPull(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	truth := planted(rng, 20, 2, []float64{1, 1})
	train := sample(rng, truth, 30, 1000)
	mu := []float64{1, 0, 0}
	for _, c := range []struct {
		kappa   float64
		wantMin float64
		wantMax float64
	}{{0, -1, 0.9}, {1e5, 0.99, 1}} {
		m, _, err := Fit(context.Background(), train, 20, 2, opts(func(o *Options) { o.Kappa, o.Mu, o.Seed, o.Deterministic = c.kappa, mu, 4, true }))
		if err != nil {
			t.Fatal(err)
		}
		var s float64
		for i := range 20 {
			s += m.Y[i*3] / 20
		}
		if s < c.wantMin || s > c.wantMax {
			t.Errorf("κ = %g: mean μᵀyᵢ = %.3f, want in [%g, %g]", c.kappa, s, c.wantMin, c.wantMax)
		}
	}
}
