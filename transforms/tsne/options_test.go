package tsne

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/ordinate/ordinate/transforms"
)

func TestDefaultOptionsValidate(t *testing.T) {
	o := DefaultOptions()
	if err := transforms.Validate(&o); err != nil {
		t.Fatalf("DefaultOptions: %v", err)
	}
	if s := (Stage{}).NewOptions().(*Options); !reflect.DeepEqual(*s, o) {
		t.Errorf("NewOptions %+v, want DefaultOptions %+v", *s, o)
	}
	if o.Interp != DefaultInterpSettings() {
		t.Errorf("Interp %+v, want DefaultInterpSettings", o.Interp)
	}
}

// Every ranged option, enum and cross-field rule refuses a bad value with
// an *transforms.OptionError naming the option.
func TestValidateRefuses(t *testing.T) {
	for _, c := range []struct {
		option string
		set    func(o *Options)
		want   error // besides ErrInvalidOption; nil if none
	}{
		{"dims", func(o *Options) { o.Dims = 0 }, nil},
		{"perplexity", func(o *Options) { o.Perplexity = 0.99 }, nil},
		{"perplexity", func(o *Options) { o.Perplexity = math.Inf(1) }, nil},
		{"method", func(o *Options) { o.Method = "" }, nil},
		{"method", func(o *Options) { o.Method = "tree" }, nil},
		{"knn", func(o *Options) { o.KNN = "" }, nil},
		{"theta", func(o *Options) { o.Theta = -0.1 }, nil},
		{"theta", func(o *Options) { o.Theta = math.NaN() }, nil},
		{"max-iter", func(o *Options) { o.MaxIter = 0 }, nil},
		{"learning-rate", func(o *Options) { o.LearningRate = -1 }, nil},
		{"early-exaggeration", func(o *Options) { o.EarlyExaggeration = 0 }, nil},
		{"init", func(o *Options) { o.Init = "" }, nil},
		{"ExaggerationIters", func(o *Options) { o.ExaggerationIters = -1 }, nil},
		{"Momentum", func(o *Options) { o.Momentum = 1 }, nil},
		{"FinalMomentum", func(o *Options) { o.FinalMomentum = -0.1 }, nil},
		{"Interp.NodesPerInterval", func(o *Options) { o.Interp.NodesPerInterval = MaxNodesPerInterval + 1 }, nil},
		{"Interp.NodesPerInterval", func(o *Options) { o.Interp.NodesPerInterval = 0 }, nil},
		{"Interp.MinIntervals", func(o *Options) { o.Interp.MinIntervals = 0 }, nil},
		{"Interp.IntervalWidth", func(o *Options) { o.Interp.IntervalWidth = 0 }, nil},
		{"Interp.MaxIntervals", func(o *Options) { o.Interp.MaxIntervals = 0 }, nil},
		{"Interp.MaxIntervals", func(o *Options) { o.Interp.MinIntervals, o.Interp.MaxIntervals = 60, 40 }, nil},
		{"method", func(o *Options) { o.Method, o.Dims = BH, 4 }, ErrMethod},
		{"method", func(o *Options) { o.Method, o.Dims = Interp, 3 }, ErrMethod},
	} {
		o := DefaultOptions()
		c.set(&o)
		err := transforms.Validate(&o)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != c.option || !errors.Is(err, transforms.ErrInvalidOption) ||
			c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want an OptionError naming it", c.option, err)
		}
	}
	// The bounds themselves are valid.
	for name, set := range map[string]func(o *Options){
		"perplexity 1":           func(o *Options) { o.Perplexity = 1 },
		"theta 0":                func(o *Options) { o.Theta = 0 },
		"learning-rate 0":        func(o *Options) { o.LearningRate = 0 },
		"ExaggerationIters 0":    func(o *Options) { o.ExaggerationIters = 0 },
		"Momentum 0":             func(o *Options) { o.Momentum = 0 },
		"nodes at the maximum":   func(o *Options) { o.Interp.NodesPerInterval = MaxNodesPerInterval },
		"bh 3-D":                 func(o *Options) { o.Method, o.Dims = BH, 3 },
		"exact 5-D":              func(o *Options) { o.Method, o.Dims = Exact, 5 },
		"auto 5-D":               func(o *Options) { o.Dims = 5 },
		"max-iter 1":             func(o *Options) { o.MaxIter = 1 },
		"min intervals = max":    func(o *Options) { o.Interp.MinIntervals = o.Interp.MaxIntervals },
		"early-exaggeration 0.5": func(o *Options) { o.EarlyExaggeration = 0.5 },
	} {
		o := DefaultOptions()
		set(&o)
		if err := transforms.Validate(&o); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// max-iter is the option's name; iterations still sets it.
func TestMaxIterAlias(t *testing.T) {
	o := DefaultOptions()
	if err := transforms.SetOptions(&o, map[string]string{"iterations": "300"}); err != nil || o.MaxIter != 300 {
		t.Fatalf("iterations=300: MaxIter %d, error %v", o.MaxIter, err)
	}
	opt, ok := transforms.Lookup(&o, "max-iter")
	if !ok || opt.Key() != "max_iter" {
		t.Fatalf("max-iter: %+v, %v", opt, ok)
	}
	if _, ok := transforms.Params(&o)["max_iter"]; !ok {
		t.Errorf("params %v lack max_iter", transforms.Params(&o))
	}
}
