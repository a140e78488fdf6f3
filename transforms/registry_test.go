package transforms

import (
	"context"
	"slices"
	"testing"
	"time"
)

// listingStage is a stage whose Info reads the registry, as apply's does
// (it lists the model kinds it reads).
type listingStage struct {
	name, category string
}

func (s listingStage) Info() Info {
	var kinds []string
	for _, k := range ModelKinds() {
		kinds = append(kinds, k.Kind)
	}
	_, _ = LookupStage("test-registry-a")
	return Info{Name: s.name, Category: s.category, Summary: "a test stage",
		Inputs: []Role{{Name: "model", Models: kinds}}}
}

func (listingStage) NewOptions() Options { return &struct{}{} }

func (listingStage) Run(context.Context, *Env, Options) error { return nil }

// Registering stages whose Info reads the registry neither deadlocks nor
// loses a stage; Stages orders them by category then name; LookupStage
// finds them; a second stage of the same name is a programmer error.
func TestRegistry(t *testing.T) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		Register(listingStage{"test-registry-b", CategoryResults})
		Register(listingStage{"test-registry-a", CategoryResults})
		Register(listingStage{"test-registry-c", CategoryData})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Register deadlocked on a stage whose Info reads the registry")
	}
	var names []string
	for _, s := range Stages() {
		names = append(names, s.Info().Name)
	}
	c, a, b := slices.Index(names, "test-registry-c"), slices.Index(names, "test-registry-a"), slices.Index(names, "test-registry-b")
	if c < 0 || a < 0 || b < 0 || !(c < a && a < b) {
		t.Errorf("stages %v: want test-registry-c (data) before test-registry-a before test-registry-b (results)", names)
	}
	if s, ok := LookupStage("test-registry-b"); !ok || s.Info().Name != "test-registry-b" {
		t.Errorf("LookupStage(test-registry-b) = %v, %v", s, ok)
	}
	if _, ok := LookupStage("nope"); ok {
		t.Error("LookupStage(nope) found a stage")
	}
	defer func() {
		if recover() == nil {
			t.Error("a second stage named test-registry-a registered without a panic")
		}
	}()
	Register(listingStage{"test-registry-a", CategoryMethods})
}

// Describe lists every registered stage with its options and roles.
func TestDescribe(t *testing.T) {
	Register(listingStage{"test-describe", CategoryMethods})
	d := Describe("v")
	if d.SchemaVersion != DescriptionVersion || d.Tool != "ordinate" || d.Version != "v" {
		t.Errorf("header: %d %q %q", d.SchemaVersion, d.Tool, d.Version)
	}
	if len(d.Stages) != len(Stages()) {
		t.Errorf("described %d stages, registered %d", len(d.Stages), len(Stages()))
	}
	i := slices.IndexFunc(d.Stages, func(s StageDescription) bool { return s.Name == "test-describe" })
	if i < 0 || d.Stages[i].Category != CategoryMethods || len(d.Stages[i].Inputs) != 1 || d.Stages[i].Inputs[0].Name != "model" {
		t.Errorf("test-describe described as %+v", d.Stages)
	}
	o := DescribeOption(Declare(newTestOptions())[6])
	if o.Name != "learning-rate" || o.Key != "learning_rate" || o.Type != "float" || o.Default != 200.0 || o.Usage != o.Help {
		t.Errorf("learning-rate described as %+v", o)
	}
}
