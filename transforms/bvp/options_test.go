package bvp

import (
	"errors"
	"math"
	"testing"

	"github.com/ordinate/ordinate/transforms"
)

// TestOptionsValidate: the defaults validate, and transforms.Validate
// refuses a value out of range of each ranged option (and an unknown
// solver) with an *transforms.OptionError naming it.
func TestOptionsValidate(t *testing.T) {
	o := DefaultOptions()
	if err := transforms.Validate(&o); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		option string
		set    func(o *Options)
	}{
		{"dims", func(o *Options) { o.Dims = 0 }},
		{"solver", func(o *Options) { o.Solver = "qr" }},
		{"solver", func(o *Options) { o.Solver = "" }},
		{"max-iter", func(o *Options) { o.MaxIter = 0 }},
		{"tol", func(o *Options) { o.Tol = 0 }},
		{"tol", func(o *Options) { o.Tol = math.Inf(1) }},
		{"step0", func(o *Options) { o.Step0 = -0.1 }},
		{"step0", func(o *Options) { o.Step0 = math.NaN() }},
		{"on-invalid", func(o *Options) { o.OnInvalid = "" }},
	} {
		o := DefaultOptions()
		tc.set(&o)
		err := transforms.Validate(&o)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option || !errors.Is(err, transforms.ErrInvalidOption) {
			t.Errorf("%s: error %v, want an option error naming it", tc.option, err)
		}
	}
}
