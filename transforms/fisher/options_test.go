package fisher

import (
	"errors"
	"math"
	"testing"

	"github.com/ordinate/ordinate/transforms"
)

// TestOptionsValidate checks that DefaultOptions validates, and that
// transforms.Validate refuses a value out of each option's range, an
// enum's zero value, and the combinations Options.Validate rules out, with
// an *transforms.OptionError naming the option.
func TestOptionsValidate(t *testing.T) {
	o := DefaultOptions()
	if err := transforms.Validate(&o); err != nil {
		t.Fatalf("DefaultOptions: %v", err)
	}
	for _, tc := range []struct {
		name   string
		set    func(o *Options)
		option string
	}{
		{"gamma -1", func(o *Options) { o.Gamma = -1 }, "gamma"},
		{"gamma NaN", func(o *Options) { o.Gamma = math.NaN() }, "gamma"},
		{"sigma -1", func(o *Options) { o.Sigma = -1 }, "sigma"},
		{"sigma +Inf", func(o *Options) { o.Sigma = math.Inf(1) }, "sigma"},
		{"perplexity 0.5", func(o *Options) { o.Perplexity = 0.5 }, "perplexity"},
		{"perplexity 0", func(o *Options) { o.Perplexity = 0 }, "perplexity"},
		{"sigma-scale 0", func(o *Options) { o.SigmaScale = 0 }, "sigma-scale"},
		{"steps 0", func(o *Options) { o.Steps = 0 }, "steps"},
		{"neighbors -1", func(o *Options) { o.Neighbors = -1 }, "neighbors"},
		{"kernel zero value", func(o *Options) { o.Kernel = "" }, "kernel"},
		{"correction zero value", func(o *Options) { o.Correction = "" }, "correction"},
		{"rule unknown", func(o *Options) { o.Rule = "simpson" }, "rule"},
		{"metric zero value", func(o *Options) { o.Metric = "" }, "metric"},
		{"format zero value", func(o *Options) { o.Format = "" }, "format"},
		{"keep", func(o *Options) { o.Keep = []string{} }, "keep"},
		{"square and upper", func(o *Options) { o.Format, o.Upper = FormatSquare, true }, "upper"},
		{"square and neighbors", func(o *Options) { o.Format, o.Neighbors = FormatSquare, 3 }, "format"},
		{"tile out of range", func(o *Options) { o.Tile = Tile{I: 2, J: 0, Count: 2} }, "tile"},
		{"tile without count", func(o *Options) { o.Tile = Tile{I: 1} }, "tile"},
	} {
		o := DefaultOptions()
		tc.set(&o)
		err := transforms.Validate(&o)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option || !errors.Is(err, transforms.ErrInvalidOption) {
			t.Errorf("%s: error %v, want an option error on %q", tc.name, err, tc.option)
		}
	}
	// The values that mean "automatic" are in range.
	o = DefaultOptions()
	o.Sigma, o.Gamma, o.Neighbors = 0, 0, 0
	if err := transforms.Validate(&o); err != nil {
		t.Errorf("sigma, gamma and neighbors 0: %v", err)
	}
}
