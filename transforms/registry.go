package transforms

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ordinate/ordinate/arrowio"
)

// Categories of stages, in the order of a pipeline, which hosts list them
// in (alphabetical, too).
const (
	CategoryData    = "data"    // make the tables other stages fit on
	CategoryMethods = "methods" // fit an embedding or a distance matrix
	CategoryModels  = "models"  // use a fitted model
	CategoryResults = "results" // measure and show outputs
)

var categoryOrder = []string{CategoryData, CategoryMethods, CategoryModels, CategoryResults}

// registry holds the stages and model kinds the method packages register
// when they are imported (package all imports every one). It is written
// only by init functions and tests, and read by hosts.
var registry struct {
	mu     sync.RWMutex
	stages []registered
	models []ModelKind
}

// registered is a stage under its name. Info is never called under the
// registry's lock: a stage's Info may read the registry (apply lists the
// model kinds).
type registered struct {
	name  string
	stage Stage
}

// Register adds a stage to the library's registry, under its Info().Name.
// Method packages call it from init; import package
// github.com/ordinate/ordinate/transforms/all to register every stage. It
// panics when the name is taken or the stage's options do not declare
// (a programmer error).
func Register(s Stage) {
	info := s.Info()
	if info.Name == "" {
		panic(fmt.Sprintf("transforms: Register: stage %T has no name", s))
	}
	Declare(s.NewOptions()) // panics on a bad declaration
	registry.mu.Lock()
	defer registry.mu.Unlock()
	for _, t := range registry.stages {
		if t.name == info.Name {
			panic(fmt.Sprintf("transforms: Register: stage %q registered twice", info.Name))
		}
	}
	registry.stages = append(registry.stages, registered{info.Name, s})
}

// Stages returns the registered stages in the order hosts list them: by
// category (data, methods, models, results), then by name.
func Stages() []Stage {
	registry.mu.RLock()
	out := make([]Stage, len(registry.stages))
	for i, r := range registry.stages {
		out[i] = r.stage
	}
	registry.mu.RUnlock()
	rank := func(c string) int {
		if i := slices.Index(categoryOrder, c); i >= 0 {
			return i
		}
		return len(categoryOrder)
	}
	slices.SortStableFunc(out, func(a, b Stage) int {
		ia, ib := a.Info(), b.Info()
		if d := rank(ia.Category) - rank(ib.Category); d != 0 {
			return d
		}
		return strings.Compare(ia.Name, ib.Name)
	})
	return out
}

// LookupStage returns the registered stage of that name.
func LookupStage(name string) (Stage, bool) {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	for _, r := range registry.stages {
		if r.name == name {
			return r.stage, true
		}
	}
	return nil, false
}

// ModelKind is a kind of fitted model: how a model file of that kind is
// read. Each method package registers the kinds it writes, and apply
// reads any registered kind.
type ModelKind struct {
	// Kind is the header's kind ("affine", "kernel", "placement").
	Kind string
	// Stage, if set, limits the kind to the models that stage wrote
	// (placement maps are read by the method that fitted them); "" for a
	// kind any stage writes.
	Stage string
	// Doc says in a line what the model is and how it places rows.
	Doc string
	// Load reads the body of a model with header h from r (the header is
	// checked: format and version). Errors wrap ErrModel.
	Load func(r arrowio.Reader, h ModelHeader) (Model, error)
}

// RegisterModel adds a model kind to the registry. It panics when the
// kind (for its stage) is registered already: a programmer error.
func RegisterModel(k ModelKind) {
	if k.Kind == "" || k.Load == nil {
		panic("transforms: RegisterModel: a kind needs a name and a Load")
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	for _, m := range registry.models {
		if m.Kind == k.Kind && m.Stage == k.Stage {
			panic(fmt.Sprintf("transforms: RegisterModel: kind %q (stage %q) registered twice", k.Kind, k.Stage))
		}
	}
	registry.models = append(registry.models, k)
}

// ModelKinds returns the registered model kinds, by kind and stage.
func ModelKinds() []ModelKind {
	registry.mu.RLock()
	out := slices.Clone(registry.models)
	registry.mu.RUnlock()
	slices.SortFunc(out, func(a, b ModelKind) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Stage, b.Stage)
	})
	return out
}

// lookupModel returns the registered kind of a model header: the kind
// for the header's stage, else the kind for any stage.
func lookupModel(kind, stage string) (ModelKind, bool) {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	var any ModelKind
	found := false
	for _, m := range registry.models {
		switch {
		case m.Kind == kind && m.Stage == stage:
			return m, true
		case m.Kind == kind && m.Stage == "":
			any, found = m, true
		}
	}
	return any, found
}
