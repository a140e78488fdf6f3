package triplets_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/triplets"
)

// TestStageMemory runs the stage with a checked allocator: every Arrow
// buffer it makes is freed with its outputs.
func TestStageMemory(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	rec := animals()
	defer rec.Release()
	tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out", "split-out")
	opts := triplets.Stage{}.NewOptions().(*triplets.Options)
	opts.SplitObjects = 0.5
	if err := transforms.Run(context.Background(), triplets.Stage{}, opts, &transforms.Env{Tables: tables, Mem: mem}); err != nil {
		t.Fatal(err)
	}
	if n := tables.Out("out").NumRows(); n != 60 {
		t.Errorf("%d ordered triplets, want 60", n)
	}
	tables.Release()
	mem.AssertSize(t, 0)
}

func TestStageErrors(t *testing.T) {
	rec := animals()
	defer rec.Release()
	for _, tc := range []struct {
		name string
		set  func(o *triplets.Options)
		want []string // roles wanted besides "out"
		err  string
		kind error
	}{
		{"split-out without split", func(o *triplets.Options) {}, []string{"split-out"}, `option "split-out": needs split-objects`, transforms.ErrInvalidOption},
		{"bad fraction", func(o *triplets.Options) { o.SplitObjects = 1 }, nil, `option "split-objects"`, transforms.ErrInvalidOption},
		{"no aspects", func(o *triplets.Options) { o.Aspects = []string{"z*"} }, nil, "selects no column", transforms.ErrInvalidOption},
		{"duplicate ids", func(o *triplets.Options) { o.ID = "legs" }, nil, "duplicate id", transforms.ErrInvalidData},
	} {
		tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, append([]string{"out"}, tc.want...)...)
		opts := triplets.Stage{}.NewOptions().(*triplets.Options)
		tc.set(opts)
		err := transforms.Run(context.Background(), triplets.Stage{}, opts, &transforms.Env{Tables: tables})
		if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, tc.kind) {
			t.Errorf("%s: error %v, want one containing %q of kind %v", tc.name, err, tc.err, tc.kind)
		}
		if len(tables.Outputs()) != 0 {
			t.Errorf("%s: outputs %v written", tc.name, tables.Outputs())
		}
		tables.Release()
	}
}

// TestOptionRanges: the defaults validate, and transforms.Validate refuses
// an out-of-range or unknown value of each ranged or enum option with an
// *OptionError naming it.
func TestOptionRanges(t *testing.T) {
	o := triplets.DefaultOptions()
	if err := transforms.Validate(&o); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		name string
		set  func(o *triplets.Options)
	}{
		{"per-aspect", func(o *triplets.Options) { o.PerAspect = -1 }},
		{"split-objects", func(o *triplets.Options) { o.SplitObjects = -0.1 }},
		{"split-objects", func(o *triplets.Options) { o.SplitObjects = 1 }},
		{"pairs", func(o *triplets.Options) { o.Pairs = "" }},
		{"pairs", func(o *triplets.Options) { o.Pairs = "both" }},
	} {
		o := triplets.DefaultOptions()
		tc.set(&o)
		err := transforms.Validate(&o)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.name || !errors.Is(err, transforms.ErrInvalidOption) {
			t.Errorf("%s: error %v, want an *OptionError naming it", tc.name, err)
		}
	}
}
