package fisher

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ordinate/ordinate/internal/synth"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

func TestFit(t *testing.T) {
	ctx := context.Background()
	const n = 40
	base, classes := synth.IndefiniteSimilarity(rand.New(rand.NewPCG(3, 4)), n, 2, 0.2)
	fresh := func() []float64 { return append([]float64(nil), base...) }
	opts := func(set func(o *Options)) Options {
		o := DefaultOptions()
		if set != nil {
			set(&o)
		}
		return o
	}

	// An asymmetric matrix is symmetrised with a warning; the result equals
	// that of the symmetrised input.
	asym := fresh()
	asym[1] += 0.1
	sym := fresh()
	sym[1] += 0.05
	sym[n] += 0.05
	a, err := Fit(ctx, asym, n, classes, 2, opts(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Fit(ctx, sym, n, classes, 2, opts(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], "not symmetric") || len(b.Warnings) != 0 {
		t.Errorf("warnings: asymmetric %v, symmetric %v", a.Warnings, b.Warnings)
	}
	for k := range a.Dist {
		if a.Dist[k] != b.Dist[k] {
			t.Fatalf("entry %d: %v after symmetrising, %v given symmetric", k, a.Dist[k], b.Dist[k])
		}
	}
	if share := a.Figures["negative_eigenvalue_share"].(float64); !(share > 0 && share < 1) {
		t.Errorf("negative eigenvalue share %v: the synthetic matrix is indefinite", share)
	}
	for key := range a.Figures {
		if strings.ToLower(key) != key || strings.Contains(key, "-") {
			t.Errorf("figure key %q is not snake_case", key)
		}
	}
	// σ from perplexity scales with sigma-scale.
	one, err := Fit(ctx, fresh(), n, classes, 2, opts(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	two, err := Fit(ctx, fresh(), n, classes, 2, opts(func(o *Options) { o.SigmaScale = 2 }), nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(two.Sigma-2*one.Sigma) > 1e-12*one.Sigma {
		t.Errorf("σ with scale 2 = %v, want 2 × %v", two.Sigma, one.Sigma)
	}
	// The kernel metric is √d² of the corrected kernel.
	k, err := Fit(ctx, fresh(), n, classes, 2, opts(func(o *Options) { o.Metric, o.Neighbors = MetricKernel, 3 }), nil)
	if err != nil {
		t.Fatal(err)
	}
	if k.K != 3 || len(k.Idx) != 3*n {
		t.Errorf("kernel metric with 3 neighbours: K %d, %d indices", k.K, len(k.Idx))
	}
	for _, tc := range []struct {
		name   string
		set    func(o *Options)
		option string
	}{
		{"perplexity", func(o *Options) { o.Perplexity = 39 }, "perplexity"},
		{"steps", func(o *Options) { o.Steps = -1 }, "steps"},
		{"neighbors", func(o *Options) { o.Neighbors = n }, "neighbors"},
		{"square and upper", func(o *Options) { o.Format, o.Upper = FormatSquare, true }, "upper"},
	} {
		_, err := Fit(ctx, fresh(), n, classes, 2, opts(tc.set), nil)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option || !errors.Is(err, transforms.ErrInvalidOption) {
			t.Errorf("%s: error %v, want an option error on %q", tc.name, err, tc.option)
		}
	}
	nan := fresh()
	nan[5] = math.NaN()
	if _, err := Fit(ctx, nan, n, classes, 2, opts(nil), nil); !errors.Is(err, transforms.ErrInvalidData) {
		t.Errorf("NaN in the matrix: error %v, want invalid data", err)
	}
}

func TestEnums(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		ok          bool
	}{
		{"correction", "flip", true}, {"correction", "square", false},
		{"rule", "left", true}, {"rule", "simpson", false},
		{"metric", "kernel", true}, {"metric", "cosine", false},
		{"format", "square", true}, {"format", "wide", false},
		{"kernel", "rbf", true}, {"kernel", "none", true}, {"kernel", "poly", false},
	} {
		o := DefaultOptions()
		err := transforms.SetOptions(&o, map[string]string{tc.name: tc.value})
		if (err == nil) != tc.ok || err != nil && (!strings.Contains(err.Error(), tc.value) || !errors.Is(err, transforms.ErrInvalidOption)) {
			t.Errorf("%s %q: error %v", tc.name, tc.value, err)
		}
		if opt, _ := transforms.Lookup(&o, tc.name); tc.ok && opt.String() != tc.value {
			t.Errorf("%s: set %q, reads back %q", tc.name, tc.value, opt.String())
		}
	}
	o := DefaultOptions()
	p := transforms.Params(&o)
	if p["correction"] != "clip" || p["rule"] != "trapezoid" || p["metric"] != "fisher" || p["format"] != "long" || p["standardize"] != true || p["kernel"] != "none" {
		t.Errorf("default params %v", p)
	}
}

// TestSparseCorrection checks the sparse mode's correction without a dense
// eigendecomposition: none needed for a kernel of features or a positive
// semi-definite similarity, a diagonal shift by |λ_min| for shift, a warning
// for none, and an option error naming correction for clip and flip.
func TestSparseCorrection(t *testing.T) {
	ctx := context.Background()
	const n = 60
	base, _ := synth.IndefiniteSimilarity(rand.New(rand.NewPCG(5, 6)), n, 3, 0.3)
	if _, err := kernels.SymmetrizeContext(ctx, base, n, 0); err != nil {
		t.Fatal(err)
	}
	psd := append([]float64(nil), base...)
	if _, err := kernels.CorrectSpectrum(psd, psd, n, kernels.Clip); err != nil {
		t.Fatal(err)
	}
	minEig := func(s []float64) float64 {
		ex, err := kernels.ExtremeEigenvalues(ctx, s, n, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		return ex.Min
	}
	lmin := minEig(base)
	if lmin >= 0 {
		t.Fatal("test matrix is not indefinite")
	}
	for _, tc := range []struct {
		name    string
		s       []float64
		corr    Correction
		kernel  Kernel
		applied string
		errOpt  string
	}{
		{"kernel of features", base, CorrectClip, RBFKernel, "none (a rbf kernel matrix is positive semi-definite)", ""},
		{"psd clip", psd, CorrectClip, NoKernel, "none (positive semi-definite)", ""},
		{"psd flip", psd, CorrectFlip, NoKernel, "none (positive semi-definite)", ""},
		{"indefinite shift", base, CorrectShift, NoKernel, "shift", ""},
		{"indefinite none", base, CorrectNone, NoKernel, "none", ""},
		{"indefinite clip", base, CorrectClip, NoKernel, "", "correction"},
		{"indefinite flip", base, CorrectFlip, NoKernel, "", "correction"},
	} {
		s := append([]float64(nil), tc.s...)
		o := DefaultOptions()
		o.Correction, o.Kernel, o.Neighbors = tc.corr, tc.kernel, 5
		res := &FitResult{Figures: map[string]any{}}
		err := sparseCorrection(ctx, res, s, n, o, nil)
		if tc.errOpt != "" {
			var oe *transforms.OptionError
			if !errors.As(err, &oe) || oe.Option != tc.errOpt || !strings.Contains(err.Error(), "shift") {
				t.Errorf("%s: err = %v, want an option error on %s that points to shift", tc.name, err, tc.errOpt)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.Figures["correction_applied"] != tc.applied {
			t.Errorf("%s: applied %v, want %q", tc.name, res.Figures["correction_applied"], tc.applied)
		}
		switch tc.corr {
		case CorrectShift:
			if m := minEig(s); m < -1e-9 || m > 1e-6 {
				t.Errorf("%s: smallest eigenvalue after the shift %v, want ≈ 0 (before %v)", tc.name, m, lmin)
			}
		case CorrectNone:
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "indefinite") {
				t.Errorf("%s: warnings %v", tc.name, res.Warnings)
			}
		}
		if tc.corr != CorrectShift {
			for q := range s {
				if s[q] != tc.s[q] {
					t.Fatalf("%s: the matrix changed at %d", tc.name, q)
				}
			}
		}
	}
}
