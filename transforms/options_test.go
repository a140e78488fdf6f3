package transforms

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/ordinate/ordinate/arrowio"
)

// color is a test enum.
type color int

func (color) Values() []string { return []string{"red", "blue"} }
func (c color) MarshalText() ([]byte, error) {
	return []byte(color(c).Values()[c]), nil
}
func (c *color) UnmarshalText(b []byte) error {
	for i, v := range c.Values() {
		if v == string(b) {
			*c = color(i)
			return nil
		}
	}
	return fmt.Errorf("unknown colour %q", b)
}

type testOptions struct {
	Columns
	Rate     float64   `opt:"learning-rate" help:"step size"`
	Steps    int       `opt:"steps" help:"iterations"`
	Seed     uint64    `opt:"seed" help:"random seed"`
	Exact    bool      `opt:"exact" help:"exact mode"`
	Name     string    `opt:"name" help:"a name"`
	Ks       []int     `opt:"k" help:"neighbourhood sizes"`
	Color    color     `opt:"color" help:"a colour"`
	internal int       // not declared
	Skipped  float64   // no tag: not declared
	Weights  []float64 `opt:"weights" help:"weights"`
}

func (o *testOptions) Validate() error { return nil }

func newTestOptions() *testOptions {
	return &testOptions{Columns: DefaultColumns(), Rate: 200, Steps: 1000, Seed: 1, Ks: []int{5, 10}, Color: 1}
}

func TestDeclare(t *testing.T) {
	decl := Declare(newTestOptions())
	var names []string
	for _, o := range decl {
		names = append(names, o.Name)
	}
	want := []string{"id", "features", "exclude", "label", "keep", "on-invalid", "learning-rate", "steps", "seed", "exact", "name", "k", "color", "weights"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("declared %v, want %v", names, want)
	}
	defaults := map[string]string{"learning-rate": "200", "steps": "1000", "seed": "1", "exact": "false", "k": "5,10", "color": "blue", "on-invalid": "error", "features": ""}
	for _, o := range decl {
		if d, ok := defaults[o.Name]; ok && o.Default != d {
			t.Errorf("%s: default %q, want %q", o.Name, o.Default, d)
		}
	}
	if o, _ := Lookup(newTestOptions(), "color"); !reflect.DeepEqual(o.Values, []string{"red", "blue"}) {
		t.Errorf("color values %v", o.Values)
	}
	if o, _ := Lookup(newTestOptions(), "on-invalid"); !reflect.DeepEqual(o.Values, []string{"error", "drop"}) {
		t.Errorf("on-invalid values %v", o.Values)
	}
}

func TestSetOptions(t *testing.T) {
	tests := []struct {
		name    string
		set     map[string]string
		check   func(o *testOptions) bool
		wantErr bool
	}{
		{"float", map[string]string{"learning-rate": "12.5"}, func(o *testOptions) bool { return o.Rate == 12.5 }, false},
		{"snake key", map[string]string{"learning_rate": "3"}, func(o *testOptions) bool { return o.Rate == 3 }, false},
		{"int", map[string]string{"steps": "7"}, func(o *testOptions) bool { return o.Steps == 7 }, false},
		{"bool", map[string]string{"exact": "true"}, func(o *testOptions) bool { return o.Exact }, false},
		{"list", map[string]string{"k": "1, 2,3"}, func(o *testOptions) bool { return reflect.DeepEqual(o.Ks, []int{1, 2, 3}) }, false},
		{"empty list is empty, not nil", map[string]string{"keep": ""}, func(o *testOptions) bool { return o.Keep != nil && len(o.Keep) == 0 }, false},
		{"string list", map[string]string{"features": "x*,age"}, func(o *testOptions) bool { return reflect.DeepEqual(o.Features, []string{"x*", "age"}) }, false},
		{"enum", map[string]string{"color": "red"}, func(o *testOptions) bool { return o.Color == 0 }, false},
		{"arrowio enum", map[string]string{"on-invalid": "drop"}, func(o *testOptions) bool { return o.OnInvalid == arrowio.InvalidDrop }, false},
		{"bad enum", map[string]string{"color": "green"}, nil, true},
		{"bad int", map[string]string{"steps": "many"}, nil, true},
		{"bad uint", map[string]string{"seed": "-1"}, nil, true},
		{"bad float list", map[string]string{"weights": "1,x"}, nil, true},
		{"unknown option", map[string]string{"nope": "1"}, nil, true},
	}
	for _, tc := range tests {
		o := newTestOptions()
		err := SetOptions(o, tc.set)
		if tc.wantErr {
			if err == nil {
				t.Errorf("%s: no error", tc.name)
				continue
			}
			var oe *OptionError
			if !errors.Is(err, ErrInvalidOption) || !errors.As(err, &oe) {
				t.Errorf("%s: error %v is not an *OptionError matching ErrInvalidOption", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !tc.check(o) {
			t.Errorf("%s: options after set: %+v", tc.name, o)
		}
	}
}

func TestParams(t *testing.T) {
	o := newTestOptions()
	o.Rate = math.NaN()
	p := Params(o)
	if _, ok := p["learning_rate"]; !ok || p["learning_rate"] != nil {
		t.Errorf("NaN learning_rate recorded as %v, want nil under a snake_case key", p["learning_rate"])
	}
	if p["color"] != "blue" || p["on_invalid"] != "error" {
		t.Errorf("enums recorded as %v and %v, want their text", p["color"], p["on_invalid"])
	}
	if p["features"] != nil {
		t.Errorf("unset list recorded as %v, want nil", p["features"])
	}
	if !reflect.DeepEqual(p["k"], []int{5, 10}) || p["steps"] != 1000 {
		t.Errorf("params %v", p)
	}
	for k := range p {
		for _, r := range k {
			if r == '-' || (r >= 'A' && r <= 'Z') {
				t.Errorf("key %q is not snake_case", k)
			}
		}
	}
	prov := &arrowio.Provenance{Params: p, Figures: map[string]any{"kl": math.Inf(1), "levels": []map[string]any{{"kl": math.NaN()}}}}
	if _, err := prov.JSON(); err != nil {
		t.Errorf("provenance with NaN and Inf: %v", err)
	}
}

func TestDeclarePanicsOnProgrammerError(t *testing.T) {
	type bad struct {
		M map[string]int `opt:"m"`
	}
	for _, tc := range []struct {
		name string
		v    any
	}{{"not a pointer", testOptions{}}, {"unsupported type", &bad{}}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			Declare(tc.v)
		}()
	}
}
