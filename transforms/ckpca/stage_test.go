package ckpca

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
)

// stageRecord is n rows with features x1…x4 (x4 constant when constant is
// set) and control columns cx, cy on rows 3 and 17.
func stageRecord(mem memory.Allocator, n int, constant bool) arrow.RecordBatch {
	fields := []arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}
	for _, name := range []string{"x1", "x2", "x3", "x4"} {
		fields = append(fields, arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64})
	}
	fields = append(fields, arrow.Field{Name: "cx", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		arrow.Field{Name: "cy", Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.StringBuilder).Append("r" + string(rune('A'+i%26)) + string(rune('a'+i/26)))
		for j := range 4 {
			v := math.Sin(float64((i+1)*(j+2))) * math.Pow(0.8, float64(j))
			if constant && j == 3 {
				v = 2
			}
			b.Field(1 + j).(*array.Float64Builder).Append(v)
		}
		switch i {
		case 3:
			b.Field(5).(*array.Float64Builder).Append(0.4)
			b.Field(6).(*array.Float64Builder).Append(1.5)
		case 17:
			b.Field(5).(*array.Float64Builder).Append(1.2)
			b.Field(6).(*array.Float64Builder).Append(-0.1)
		default:
			b.Field(5).AppendNull()
			b.Field(6).AppendNull()
		}
	}
	return b.NewRecordBatch()
}

func runStage(t *testing.T, opts *Options, threads int, constant bool, want ...string) (*transforms.MemTables, *transforms.Env, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	rec := stageRecord(mem, 40, constant)
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, append([]string{"out"}, want...)...)
	t.Cleanup(func() { tables.Release(); rec.Release() })
	env := &transforms.Env{Tables: tables, Threads: threads, Mem: mem}
	err := transforms.Run(context.Background(), Stage{}, opts, env)
	return tables, env, err
}

func embedding(t *testing.T, m *transforms.MemTable) []float64 {
	t.Helper()
	var out []float64
	r := m.Records[0]
	e0 := r.Column(r.Schema().FieldIndices("emb_0")[0]).(*array.Float64)
	e1 := r.Column(r.Schema().FieldIndices("emb_1")[0]).(*array.Float64)
	for i := range int(r.NumRows()) {
		out = append(out, e0.Value(i), e1.Value(i))
	}
	return out
}

// TestStageDefaultPrimal: a library caller with default options on the
// linear kernel gets the primal path (an affine model), whether it takes
// them from NewOptions or from DefaultOptions.
func TestStageDefaultPrimal(t *testing.T) {
	def := Stage{}.NewOptions().(*Options)
	def.ID, def.Control, def.Scale = "id", []string{"cx", "cy"}, ScaleAuto
	lit := DefaultOptions()
	lit.ID, lit.Control, lit.Scale = "id", []string{"cx", "cy"}, ScaleAuto
	if lit.Path != PathAuto {
		t.Errorf("DefaultOptions: path %q, want auto", lit.Path)
	}
	for name, o := range map[string]*Options{"NewOptions": def, "DefaultOptions": &lit} {
		tables, env, err := runStage(t, o, 0, false, "model-out")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := env.Prov.Figures["path"]; got != "primal" {
			t.Errorf("%s: path %v, want primal", name, got)
		}
		// An affine model has one row per feature; a kernel model one per row.
		if got := tables.Out("model-out").NumRows(); got != 4 {
			t.Errorf("%s: model has %d rows, want 4 (affine, one per feature)", name, got)
		}
		emb := embedding(t, tables.Out("out"))
		if math.Abs(emb[3*2]-0.4) > 1e-8 || math.Abs(emb[17*2+1]+0.1) > 1e-8 {
			t.Errorf("%s: control rows at (%g, %g), (%g, %g)", name, emb[6], emb[7], emb[34], emb[35])
		}
	}
	// The dual path gives the same embedding through the n×n kernel.
	dual := *def
	dual.Path = PathDual
	t1, _, err := runStage(t, def, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	t2, env, err := runStage(t, &dual, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if env.Prov.Figures["path"] != "dual" {
		t.Errorf("path %v, want dual", env.Prov.Figures["path"])
	}
	a, b := embedding(t, t1.Out("out")), embedding(t, t2.Out("out"))
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-6 {
			t.Fatalf("value %d: primal %g, dual %g", i, a[i], b[i])
		}
	}
}

// TestStageThreadsAndGamma: the rbf kernel matrix is built with the run's
// threads, with the same result for any count, and the γ used is recorded.
func TestStageThreadsAndGamma(t *testing.T) {
	var embs [][]float64
	for _, threads := range []int{1, 3} {
		o := Stage{}.NewOptions().(*Options)
		o.ID, o.Control, o.Scale, o.Kernel = "id", []string{"cx", "cy"}, ScaleAuto, RBF
		tables, env, err := runStage(t, o, threads, false)
		if err != nil {
			t.Fatal(err)
		}
		if env.Prov.Params["threads"] != threads {
			t.Errorf("params threads %v, want %d", env.Prov.Params["threads"], threads)
		}
		g, ok := env.Prov.Figures["resolved_gamma"].(float64)
		if !ok || !(g > 0) {
			t.Errorf("resolved_gamma %v, want the median rule's γ > 0", env.Prov.Figures["resolved_gamma"])
		}
		embs = append(embs, embedding(t, tables.Out("out")))
	}
	if !slices.Equal(embs[0], embs[1]) {
		t.Error("1 and 3 threads give different embeddings")
	}
}

// TestStageConstantColumn: a constant feature is dropped with a warning.
func TestStageConstantColumn(t *testing.T) {
	o := Stage{}.NewOptions().(*Options)
	o.ID, o.Control, o.Scale = "id", []string{"cx", "cy"}, ScaleAuto
	_, env, err := runStage(t, o, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(env.Prov.Warnings, func(w string) bool { return strings.Contains(w, "x4") }) {
		t.Errorf("no warning about the constant x4: %q", env.Prov.Warnings)
	}
	if got := env.Prov.Figures["features"]; !slices.Equal(got.([]string), []string{"x1", "x2", "x3"}) {
		t.Errorf("features %v", got)
	}
}

// TestStageErrorKinds: option errors are of the shared kind.
func TestStageErrorKinds(t *testing.T) {
	o := Stage{}.NewOptions().(*Options)
	o.ID, o.Control = "id", []string{"cx", "cy"}
	o.Dims = 3
	if _, _, err := runStage(t, o, 0, false); !errors.Is(err, transforms.ErrInvalidOption) {
		t.Errorf("dims 3 with two control columns: %v, want an invalid option", err)
	}
	o.Dims, o.Path = 0, PathPrimal
	o.Kernel = RBF
	if err := transforms.Validate(o); !errors.Is(err, transforms.ErrInvalidOption) {
		t.Errorf("primal rbf: %v", err)
	}
}

// TestOptionsValidate: the defaults validate; an out-of-range value of
// each ranged option, a value outside an enum, and each rule that ties
// options together is refused with an *transforms.OptionError naming the
// option.
func TestOptionsValidate(t *testing.T) {
	d := DefaultOptions()
	if err := transforms.Validate(&d); err != nil {
		t.Fatalf("DefaultOptions: %v", err)
	}
	if n := (Stage{}).NewOptions().(*Options); !reflect.DeepEqual(*n, d) {
		t.Errorf("NewOptions %+v, DefaultOptions %+v", *n, d)
	}
	for _, tc := range []struct {
		option string
		set    func(*Options)
	}{
		{"dims", func(o *Options) { o.Dims = -1 }},
		{"gamma", func(o *Options) { o.Gamma = -0.5 }},
		{"gamma", func(o *Options) { o.Gamma = math.Inf(1) }},
		{"degree", func(o *Options) { o.Degree = 0 }},
		{"coef0", func(o *Options) { o.Coef0 = math.NaN() }},
		{"nu", func(o *Options) { o.Nu = -1 }},
		{"nu", func(o *Options) { o.Nu = math.Inf(1) }},
		{"budget", func(o *Options) { o.Budget = 0 }},
		{"budget", func(o *Options) { o.Budget = 1 }},
		{"soft", func(o *Options) { o.Soft = -1 }},
		{"landmarks", func(o *Options) { o.Landmarks = -1 }},
		{"kernel", func(o *Options) { o.Kernel = "" }},
		{"kernel", func(o *Options) { o.Kernel = "gauss" }},
		{"path", func(o *Options) { o.Path = "" }},
		{"scale", func(o *Options) { o.Scale = "" }},
		{"correction", func(o *Options) { o.Correction = "" }},
		{"soft", func(o *Options) { o.Soft, o.Scale = 1, ScaleAuto }},
		{"path", func(o *Options) { o.Path, o.Kernel = PathPrimal, RBF }},
		{"path", func(o *Options) { o.Path, o.Landmarks = PathDual, 10 }},
		{"landmarks", func(o *Options) { o.Kernel, o.Landmarks = Precomputed, 10 }},
	} {
		o := DefaultOptions()
		tc.set(&o)
		err := transforms.Validate(&o)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option {
			t.Errorf("%s: error %v, want an OptionError naming it", tc.option, err)
		}
	}
}

// TestEnumValues: every enum constant is one of its type's values.
func TestEnumValues(t *testing.T) {
	for _, ok := range []bool{
		transforms.EnumValid(Linear), transforms.EnumValid(RBF), transforms.EnumValid(Poly), transforms.EnumValid(Cosine), transforms.EnumValid(Precomputed),
		transforms.EnumValid(PathAuto), transforms.EnumValid(PathPrimal), transforms.EnumValid(PathDual),
		transforms.EnumValid(ScaleNone), transforms.EnumValid(ScaleAuto),
		transforms.EnumValid(CorrectNone), transforms.EnumValid(CorrectClip), transforms.EnumValid(CorrectFlip), transforms.EnumValid(CorrectShift),
	} {
		if !ok {
			t.Fatal("a constant is not among its type's values")
		}
	}
}
