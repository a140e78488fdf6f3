package fisher

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// featureRecord is a feature table of 12 rows: id, x (informative), c
// (constant) and label (two classes).
func featureRecord(t *testing.T) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "x", Type: arrow.PrimitiveTypes.Float64},
		{Name: "c", Type: arrow.PrimitiveTypes.Float64}, {Name: "label", Type: arrow.BinaryTypes.String}}, nil))
	defer b.Release()
	for i := range 12 {
		b.Field(0).(*array.Int64Builder).Append(int64(100 + i))
		b.Field(1).(*array.Float64Builder).Append(float64(i) + 0.1*float64(i%3))
		b.Field(2).(*array.Float64Builder).Append(7)
		b.Field(3).(*array.StringBuilder).Append([]string{"lo", "hi"}[i/6])
	}
	rec := b.NewRecordBatch()
	t.Cleanup(rec.Release)
	return rec
}

func runStage(t *testing.T, in map[string]arrow.RecordBatch, set func(o *Options)) (*transforms.MemTable, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	o := DefaultOptions()
	if set != nil {
		set(&o)
	}
	tables := transforms.NewMemTables(in, "out")
	t.Cleanup(tables.Release)
	err := transforms.Run(context.Background(), Stage{}, &o, &transforms.Env{Tables: tables, Mem: mem})
	return tables.Out("out"), err
}

func TestStageFeatures(t *testing.T) {
	rec := featureRecord(t)
	// The default features leave out the id column with a warning, drop the
	// constant column with a warning, and the kernel is built on x alone.
	out, err := runStage(t, map[string]arrow.RecordBatch{"in": rec}, func(o *Options) {
		o.Label, o.Kernel, o.Sigma = "label", RBFKernel, 0.5
	})
	if err != nil {
		t.Fatal(err)
	}
	p := out.Provenance()
	if p.Kind != table.DistancePairs || out.NumRows() != 12*11 {
		t.Errorf("kind %q, %d rows; want distance_pairs, %d", p.Kind, out.NumRows(), 12*11)
	}
	warns := strings.Join(p.Warnings, "\n")
	if !strings.Contains(warns, `"id"`) || !strings.Contains(warns, `"c"`) {
		t.Errorf("warnings %q: want the id left out and the constant column dropped", warns)
	}
	if f, _ := p.Figures["features"].([]any); len(f) != 1 || f[0] != "x" {
		t.Errorf("features %v, want [x]", p.Figures["features"])
	}
	if g, _ := p.Figures["gamma"].(float64); !(g > 0) {
		t.Errorf("resolved gamma %v", p.Figures["gamma"])
	}
	if p.Params["standardize"] != true || p.Params["kernel"] != "rbf" {
		t.Errorf("params %v", p.Params)
	}

	// Square output: kind distance_square, the id column and one column per row.
	out, err = runStage(t, map[string]arrow.RecordBatch{"in": rec}, func(o *Options) {
		o.ID, o.Label, o.Kernel, o.Format, o.Sigma = "id", "label", LinearKernel, FormatSquare, 0.5
	})
	if err != nil {
		t.Fatal(err)
	}
	if k := out.Provenance().Kind; k != table.DistanceSquare || out.NumRows() != 12 || out.Schema.NumFields() != 13 || out.Schema.Field(1).Name != "100" {
		t.Errorf("square: kind %q, %d rows, %d columns (%s …)", k, out.NumRows(), out.Schema.NumFields(), out.Schema.Field(1).Name)
	}
}

func TestStageErrors(t *testing.T) {
	rec := featureRecord(t)
	sim := func() arrow.RecordBatch {
		b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
			{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "j", Type: arrow.PrimitiveTypes.Int64},
			{Name: "s", Type: arrow.PrimitiveTypes.Float64}}, nil))
		defer b.Release()
		b.Field(0).(*array.Int64Builder).Append(100)
		b.Field(1).(*array.Int64Builder).Append(100)
		b.Field(2).(*array.Float64Builder).Append(1)
		r := b.NewRecordBatch()
		t.Cleanup(r.Release)
		return r
	}()
	for _, tc := range []struct {
		name   string
		in     map[string]arrow.RecordBatch
		set    func(o *Options)
		option string
	}{
		{"no input", map[string]arrow.RecordBatch{}, nil, "similarity"},
		{"both inputs", map[string]arrow.RecordBatch{"in": rec, "similarity": rec}, nil, "similarity"},
		{"in without kernel", map[string]arrow.RecordBatch{"in": rec}, func(o *Options) { o.Label = "label" }, "kernel"},
		{"kernel with similarity", map[string]arrow.RecordBatch{"similarity": rec}, func(o *Options) { o.Kernel = LinearKernel }, "kernel"},
		{"labels with in", map[string]arrow.RecordBatch{"in": rec, "labels": rec}, func(o *Options) { o.Label, o.Kernel = "label", LinearKernel }, "labels"},
		{"long without labels", map[string]arrow.RecordBatch{"similarity": sim}, func(o *Options) { o.Label = "label" }, "labels"},
		{"keep", map[string]arrow.RecordBatch{"in": rec}, func(o *Options) { o.Keep = []string{"label"} }, "keep"},
		{"square with neighbors", map[string]arrow.RecordBatch{"in": rec}, func(o *Options) { o.Format, o.Neighbors = FormatSquare, 3 }, "format"},
	} {
		_, err := runStage(t, tc.in, tc.set)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option || !errors.Is(err, transforms.ErrInvalidOption) {
			t.Errorf("%s: error %v, want an option error on %q", tc.name, err, tc.option)
		}
	}
	// An order naming a class without rows: an input error.
	_, err := runStage(t, map[string]arrow.RecordBatch{"in": rec}, func(o *Options) {
		o.Label, o.Kernel, o.Order = "label", LinearKernel, []string{"lo", "hi", "mid"}
	})
	if err == nil || !transforms.IsInputError(err) {
		t.Errorf("order with an absent class: error %v", err)
	}
	if !slices.Contains(DefaultOptions().Rule.Values(), "left") {
		t.Error("rule values lack left")
	}
}

// TestStageLog: the run's log line names the figures the run has: the
// negative eigenvalues' share after a dense correction, the neighbour
// lists and the truncation error in the local mode, never a missing value
// ("<nil>").
func TestStageLog(t *testing.T) {
	rec := featureRecord(t)
	for _, tc := range []struct {
		name string
		set  func(o *Options)
		want string
	}{
		{"dense", func(o *Options) { o.Label, o.Kernel, o.Sigma = "label", RBFKernel, 0.5 }, "negative_eigenvalue_share=0"},
		{"local", func(o *Options) { o.Label, o.Kernel, o.Sigma, o.Neighbors = "label", RBFKernel, 0.5, 3 }, "parzen_neighbors=11 truncation_error_median="},
	} {
		var log bytes.Buffer
		o := DefaultOptions()
		tc.set(&o)
		tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
		env := &transforms.Env{Tables: tables, Log: slog.New(slog.NewTextHandler(&log, nil))}
		err := transforms.Run(context.Background(), Stage{}, &o, env)
		tables.Release()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		line := ""
		for _, l := range strings.Split(log.String(), "\n") {
			if strings.Contains(l, "msg=fisher") {
				line = l
			}
		}
		if !strings.Contains(line, tc.want) || strings.Contains(line, "<nil>") || !strings.Contains(line, "objects=12") {
			t.Errorf("%s: log line %q, want objects=12 and %s, and no <nil>", tc.name, line, tc.want)
		}
	}
}

// TestStageDenseMemory: on a feature table the N×N plan is checked before
// the kernel matrix is built, and the refusal points to neighbors; the
// local mode fits the same limit.
func TestStageDenseMemory(t *testing.T) {
	const n = 600
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "x", Type: arrow.PrimitiveTypes.Float64}, {Name: "y", Type: arrow.PrimitiveTypes.Float64},
		{Name: "label", Type: arrow.PrimitiveTypes.Int64}}, nil))
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Float64Builder).Append(float64(i%37) + 0.01*float64(i))
		b.Field(1).(*array.Float64Builder).Append(float64(i%11) - 0.02*float64(i))
		b.Field(2).(*array.Int64Builder).Append(int64(i % 3))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	const limit = 4 << 20 // the dense plan needs (T + 8)·N² doubles (52 MB), the kernel metric 2·N² (5.8 MB)
	for _, tc := range []struct {
		name      string
		neighbors int
		metric    Metric
		refused   bool
	}{{"dense", 0, MetricFisher, true}, {"dense kernel metric", 0, MetricKernel, true}, {"local", 20, MetricFisher, false}} {
		o := DefaultOptions()
		o.Label, o.Kernel, o.Neighbors, o.Metric = "label", RBFKernel, tc.neighbors, tc.metric
		tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": rec}, "out")
		var log bytes.Buffer
		env := &transforms.Env{Tables: tables, MemoryLimit: limit, Log: slog.New(slog.NewTextHandler(&log, nil))}
		err := transforms.Run(context.Background(), Stage{}, &o, env)
		tables.Release()
		switch {
		case tc.refused && (!errors.Is(err, transforms.ErrMemory) || !strings.Contains(err.Error(), "neighbors")):
			t.Errorf("%s: error %v, want a memory refusal that points to neighbors", tc.name, err)
		case tc.refused && strings.Contains(log.String(), "kernel matrix"):
			t.Errorf("%s: the kernel matrix was built before the refusal", tc.name)
		case !tc.refused && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
