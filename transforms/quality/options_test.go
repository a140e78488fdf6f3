package quality_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/quality"
)

// TestOptions: the defaults validate and are what the stage starts from;
// each bad value is refused with an OptionError naming its option.
func TestOptions(t *testing.T) {
	def := quality.DefaultOptions()
	if err := transforms.Validate(&def); err != nil {
		t.Fatalf("DefaultOptions: %v", err)
	}
	if got := (quality.Stage{}).NewOptions().(*quality.Options); !reflect.DeepEqual(*got, def) {
		t.Errorf("NewOptions %+v, want DefaultOptions %+v", *got, def)
	}
	for _, tc := range []struct {
		option string
		set    func(*quality.Options)
	}{
		{"k", func(o *quality.Options) { o.Ks = []int{5, 0} }},
		{"k", func(o *quality.Options) { o.Ks = []int{-3} }},
		{"k", func(o *quality.Options) { o.Ks = nil }},
		{"standardize", func(o *quality.Options) { o.Standardize = "" }},
		{"standardize", func(o *quality.Options) { o.Standardize = "yes" }},
		{"on-invalid", func(o *quality.Options) { o.OnInvalid = "skip" }},
		{"keep", func(o *quality.Options) { o.Keep = []string{"label"} }},
		{"emb", func(o *quality.Options) { o.Emb = nil }},
	} {
		o := quality.DefaultOptions()
		tc.set(&o)
		err := transforms.Validate(&o)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option || !errors.Is(err, transforms.ErrInvalidOption) {
			t.Errorf("%s: %+v: error %v, want an OptionError naming %s", tc.option, o, err, tc.option)
		}
	}
	for _, s := range []string{"auto", "true", "false"} {
		o := quality.DefaultOptions()
		if err := transforms.SetOptions(&o, map[string]string{"standardize": s}); err != nil || string(o.Standardize) != s {
			t.Errorf("standardize %s: %v, %q", s, err, o.Standardize)
		}
	}
}
