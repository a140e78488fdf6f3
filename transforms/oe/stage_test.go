package oe_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/oe"
)

// phase is one Start … Finish seen by recorder.
type phase struct {
	name     string
	total    int64
	added    int64
	adds     int
	finished bool
}

// recorder is a transforms.Progress that keeps every phase.
type recorder struct {
	mu     sync.Mutex
	phases []phase
	stray  int // Adds outside a phase, Finishes without a Start
}

func (r *recorder) open() *phase {
	if n := len(r.phases); n > 0 && !r.phases[n-1].finished {
		return &r.phases[n-1]
	}
	return nil
}

func (r *recorder) Start(name string, total int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.open(); p != nil {
		p.finished = true
		r.stray++ // Start without Finishing the previous phase
	}
	r.phases = append(r.phases, phase{name: name, total: total})
}

func (r *recorder) Add(n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.open()
	if p == nil {
		r.stray++
		return
	}
	p.added += n
	p.adds++
}

func (r *recorder) Finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.open()
	if p == nil {
		r.stray++
		return
	}
	p.finished = true
}

// tripletRecord returns T random triplets on n objects in each of the
// aspects "a0", "a1", ….
func tripletRecord(n, T, aspects int) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "j", Type: arrow.PrimitiveTypes.Int64},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "aspect", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	rng := rand.New(rand.NewPCG(3, 4))
	for a := range aspects {
		for range T {
			p := rng.Perm(n)
			b.Field(0).(*array.Int64Builder).Append(int64(p[0]))
			b.Field(1).(*array.Int64Builder).Append(int64(p[1]))
			b.Field(2).(*array.Int64Builder).Append(int64(p[2]))
			b.Field(3).(*array.StringBuilder).Append(fmt.Sprintf("a%d", a))
		}
	}
	return b.NewRecordBatch()
}

// ints reads an iterations figure: a number for one map, a list by aspect.
func ints(t *testing.T, v any) []int64 {
	t.Helper()
	switch v := v.(type) {
	case float64:
		return []int64{int64(v)}
	case int:
		return []int64{int64(v)}
	case []int:
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return out
	case []any:
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = ints(t, x)[0]
		}
		return out
	}
	t.Fatalf("iterations figure %v (%T): want a number or a list", v, v)
	return nil
}

// TestStageProgress checks that the stages report one phase per map with
// --max-iter as its total and one Add per L-BFGS iteration, summing to the
// iterations in the figures.
func TestStageProgress(t *testing.T) {
	rec := tripletRecord(30, 400, 3)
	defer rec.Release()
	for _, tc := range []struct {
		name      string
		stage     transforms.Stage
		perAspect bool
		maxIter   int
	}{
		{"tste", oe.TSTEStage{}, false, 12},
		{"tste per aspect", oe.TSTEStage{}, true, 12},
		{"soe", oe.SOEStage{}, false, 1000},
		{"soe per aspect", oe.SOEStage{}, true, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.stage.NewOptions()
			var so *oe.Options
			switch o := opts.(type) {
			case *oe.TSTEOptions:
				so = &o.Options
			case *oe.SOEOptions:
				so = &o.Options
			}
			so.PerAspect, so.MaxIter = tc.perAspect, tc.maxIter
			tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
			defer tables.Release()
			var r recorder
			if err := transforms.Run(context.Background(), tc.stage, opts, &transforms.Env{Tables: tables, Progress: &r}); err != nil {
				t.Fatal(err)
			}
			iters := ints(t, tables.Out("out").Provenance().Figures["iterations"])
			want := []string{"optimising"}
			if tc.perAspect {
				want = []string{"optimising aspect 1/3", "optimising aspect 2/3", "optimising aspect 3/3"}
			}
			if r.stray != 0 {
				t.Errorf("%d Adds or Finishes outside a phase, or phases not finished", r.stray)
			}
			var opt []phase // the optimising phases; reading and writing have their own
			for _, p := range r.phases {
				if strings.HasPrefix(p.name, "optimising") {
					opt = append(opt, p)
				}
			}
			if len(opt) != len(want) || len(iters) != len(want) {
				t.Fatalf("%d optimising phases, %d iteration figures; want %d: %+v", len(opt), len(iters), len(want), r.phases)
			}
			for i, p := range opt {
				if p.name != want[i] || p.total != int64(tc.maxIter) || !p.finished {
					t.Errorf("phase %d: %q total %d finished %v; want %q total %d finished", i, p.name, p.total, p.finished, want[i], tc.maxIter)
				}
				if p.added != iters[i] || int64(p.adds) != iters[i] || iters[i] < 1 || iters[i] > p.total {
					t.Errorf("phase %q: Adds sum to %d in %d calls; figures say %d iterations (total %d)", p.name, p.added, p.adds, iters[i], p.total)
				}
			}
		})
	}
}
