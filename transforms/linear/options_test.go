package linear

import (
	"errors"
	"math"
	"testing"

	"github.com/ordinate/ordinate/transforms"
)

// TestOptionsValidate: the defaults validate, and transforms.Validate
// refuses a value out of range of each ranged option with an
// *transforms.OptionError naming it.
func TestOptionsValidate(t *testing.T) {
	p, l := DefaultPCAOptions(), DefaultLDAOptions()
	if err := transforms.Validate(&p); err != nil {
		t.Fatalf("PCA defaults: %v", err)
	}
	if err := transforms.Validate(&l); err != nil {
		t.Fatalf("LDA defaults: %v", err)
	}
	for _, tc := range []struct {
		option string
		opts   transforms.Options
	}{
		{"dims", func() *PCAOptions { o := DefaultPCAOptions(); o.Dims = 0; return &o }()},
		{"on-invalid", func() *PCAOptions { o := DefaultPCAOptions(); o.OnInvalid = ""; return &o }()},
		{"dims", func() *LDAOptions { o := DefaultLDAOptions(); o.Dims = -1; return &o }()},
		{"shrinkage", func() *LDAOptions { o := DefaultLDAOptions(); o.Shrinkage = -1e-9; return &o }()},
		{"shrinkage", func() *LDAOptions { o := DefaultLDAOptions(); o.Shrinkage = math.Inf(1); return &o }()},
		{"shrinkage", func() *LDAOptions { o := DefaultLDAOptions(); o.Shrinkage = math.NaN(); return &o }()},
	} {
		err := transforms.Validate(tc.opts)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option || !errors.Is(err, transforms.ErrInvalidOption) {
			t.Errorf("%T %s: error %v, want an option error naming it", tc.opts, tc.option, err)
		}
	}
}
