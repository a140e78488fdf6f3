package figure

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms"
)

// groupsTable is a table (label, grp) with one row per label.
func groupsTable(labels, groups []string) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{{Name: "label", Type: arrow.BinaryTypes.String}, {Name: "grp", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for k := range labels {
		b.Field(0).(*array.StringBuilder).Append(labels[k])
		b.Field(1).(*array.StringBuilder).Append(groups[k])
	}
	return b.NewRecordBatch()
}

// TestStageJoin runs the plot stage with input "join": the points coloured
// by the joined column, the rows without a match counted in a warning and
// the legend, and no leak of the joined column.
func TestStageJoin(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	emb := embTable(t, 30, 2, []string{"a", "b", "c"}, false, fitProv("r1"))
	defer emb.Release()
	for _, tc := range []struct {
		name      string
		join      arrow.RecordBatch
		legend    []string
		unmatched int
	}{
		{"every row matched", groupsTable([]string{"a", "b", "c"}, []string{"x", "y", "x"}), []string{">x<", ">y<"}, 0},
		{"c unmatched", groupsTable([]string{"b", "a"}, []string{"y", "x"}), []string{">x<", ">y<", "(10)<"}, 10},
	} {
		defer tc.join.Release()
		tables := transforms.NewMemTables(map[string]arrow.RecordBatch{"in": emb, "join": tc.join}, "out")
		opts := Stage{}.NewOptions().(*Options)
		opts.Color, opts.On = "grp", "label"
		env := &transforms.Env{Tables: tables, Mem: mem}
		if err := transforms.Run(context.Background(), Stage{}, opts, env); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		svg := string(tables.File("out"))
		for _, w := range tc.legend {
			if !strings.Contains(svg, w) {
				t.Errorf("%s: the SVG lacks %q", tc.name, w)
			}
		}
		warned := strings.Join(env.Prov.Warnings, "\n")
		if (tc.unmatched > 0) != strings.Contains(warned, "10 of 30 rows") {
			t.Errorf("%s: warnings %q, want %d unmatched rows counted", tc.name, warned, tc.unmatched)
		}
		if strings.Contains(svg, ">(null)<") {
			t.Errorf("%s: the unmatched rows' null is a legend level", tc.name)
		}
	}
}
