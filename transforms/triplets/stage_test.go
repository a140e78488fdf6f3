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
	opts := triplets.Stage{}.NewOptions().(*triplets.StageOptions)
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
		set  func(o *triplets.StageOptions)
		want []string // roles wanted besides "out"
		err  string
		kind error
	}{
		{"split-out without split", func(o *triplets.StageOptions) {}, []string{"split-out"}, `option "split-out": needs split-objects`, transforms.ErrInvalidOption},
		{"bad fraction", func(o *triplets.StageOptions) { o.SplitObjects = 1 }, nil, `option "split-objects"`, transforms.ErrInvalidOption},
		{"no aspects", func(o *triplets.StageOptions) { o.Aspects = []string{"z*"} }, nil, "selects no column", transforms.ErrInvalidOption},
		{"duplicate ids", func(o *triplets.StageOptions) { o.ID = "legs" }, nil, "duplicate id", transforms.ErrInvalidData},
	} {
		tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, append([]string{"out"}, tc.want...)...)
		opts := triplets.Stage{}.NewOptions().(*triplets.StageOptions)
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
