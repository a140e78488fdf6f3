package figure_test

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/figure"
)

// TestOptions: the defaults validate and are what the stage starts from;
// each bad value is refused with an OptionError naming its option, and the
// drawing functions refuse a bad size the same way.
func TestOptions(t *testing.T) {
	def := figure.DefaultOptions()
	if err := transforms.Validate(&def); err != nil {
		t.Fatalf("DefaultOptions: %v", err)
	}
	if got := (figure.Stage{}).NewOptions().(*figure.Options); !reflect.DeepEqual(*got, def) {
		t.Errorf("NewOptions %+v, want DefaultOptions %+v", *got, def)
	}
	for _, tc := range []struct {
		option string
		set    func(*figure.Options)
	}{
		{"width", func(o *figure.Options) { o.Width = -1 }},
		{"width", func(o *figure.Options) { o.Width = math.NaN() }},
		{"height", func(o *figure.Options) { o.Height = -0.5 }},
		{"height", func(o *figure.Options) { o.Height = math.Inf(1) }},
		{"color-scale", func(o *figure.Options) { o.ColorScale = "rainbow" }},
		{"color-scale", func(o *figure.Options) { o.ColorScale = "" }},
		{"palette", func(o *figure.Options) { o.Palette = "" }},
		{"format", func(o *figure.Options) { o.Format = "pdf" }},
		{"on-invalid", func(o *figure.Options) { o.OnInvalid = "" }},
		{"color", func(o *figure.Options) { o.Color, o.SoftLabels = "label", []string{"p_*"} }},
	} {
		o := figure.DefaultOptions()
		tc.set(&o)
		err := transforms.Validate(&o)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option || !errors.Is(err, transforms.ErrInvalidOption) {
			t.Errorf("%s: error %v, want an OptionError naming %s", tc.option, err, tc.option)
		}
	}
	p := &figure.Points{X: []float64{0, 1}, Y: []float64{1, 0}}
	var oe *transforms.OptionError
	if err := figure.Scatter(&bytes.Buffer{}, "svg", p, figure.Style{Width: -3}); !errors.As(err, &oe) || oe.Option != "width" {
		t.Errorf("Scatter of width -3: error %v, want an OptionError naming width", err)
	}
	if err := figure.HeatMap(&bytes.Buffer{}, "svg", []float64{0}, 1, nil, figure.Style{Height: -3}); !errors.As(err, &oe) || oe.Option != "height" {
		t.Errorf("HeatMap of height -3: error %v, want an OptionError naming height", err)
	}
}
