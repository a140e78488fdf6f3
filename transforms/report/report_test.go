package report

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/figure"
)

func info(fields []string, params map[string]any) *arrowio.FileInfo {
	var fs []arrow.Field
	for _, f := range fields {
		t := arrow.DataType(arrow.PrimitiveTypes.Float64)
		if f == "class" || f == "id" {
			t = arrow.BinaryTypes.String
		}
		fs = append(fs, arrow.Field{Name: f, Type: t})
	}
	fi := &arrowio.FileInfo{Schema: arrow.NewSchema(fs, nil)}
	if params != nil {
		fi.Provenance = &arrowio.Provenance{Params: params}
	}
	return fi
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		fields []string
		want   kind
	}{
		{[]string{"metric", "k", "subset", "value"}, kindMetrics},
		{[]string{"aspect", "delta", "pole_0"}, kindAspects},
		{[]string{"i", "j", "distance"}, kindDistances},
		{[]string{"aspect", "id", "emb_0", "emb_1"}, kindMaps},
		{[]string{"id", "emb_0", "emb_1"}, kindEmbedding},
		{[]string{"id", "emb_0"}, kindOther},
	} {
		if got := classify(info(tc.fields, nil)); got != tc.want {
			t.Errorf("%v: kind %d, want %d", tc.fields, got, tc.want)
		}
	}
}

// TestColourSpec checks the preference order: the stage's soft labels, its
// label column, any p_* columns, the first text column.
func TestColourSpec(t *testing.T) {
	emb := []string{"id", "class", "p_a", "p_b", "emb_0", "emb_1"}
	for _, tc := range []struct {
		name   string
		fields []string
		params map[string]any
		color  string
		soft   bool
	}{
		{"stage soft labels", emb, map[string]any{"soft-labels": "p_*", "label": "", "id": "id"}, "", true},
		{"stage label", emb, map[string]any{"label": "class", "id": "id"}, "class", false},
		{"p_ columns, no supervision", emb, map[string]any{"id": "id"}, "", true},
		{"first text column", []string{"id", "class", "emb_0", "emb_1"}, map[string]any{"id": "id"}, "class", false},
		{"nothing", []string{"emb_0", "emb_1"}, nil, "", false},
	} {
		s := colourSpec(&file{info: info(tc.fields, tc.params)})
		if s.Color != tc.color || (s.SoftLabels != nil) != tc.soft {
			t.Errorf("%s: colour %q, soft %v; want %q, %v", tc.name, s.Color, s.SoftLabels, tc.color, tc.soft)
		}
		if tc.soft && !slices.Equal(s.SoftLabels, []string{"p_a", "p_b"}) {
			t.Errorf("%s: soft labels %v", tc.name, s.SoftLabels)
		}
	}
}

func TestWriteErrors(t *testing.T) {
	if _, err := Write(context.Background(), nil, nil, Options{}); !errors.Is(err, ErrNoFiles) {
		t.Errorf("no files: %v", err)
	}
	if _, err := Write(context.Background(), nil, []string{"does-not-exist.parquet"}, Options{}); err == nil {
		t.Error("missing file: no error")
	}
}

func TestShort(t *testing.T) {
	long := make([]byte, 400)
	for i := range long {
		long[i] = 'x'
	}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{"a", "a"}, {0.1234567891, "0.123457"}, {[]any{1.0, "b"}, `[1,"b"]`}, {string(long), string(long[:300]) + "…"},
	} {
		if got := short(tc.v); got != tc.want {
			t.Errorf("short(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestThin(t *testing.T) {
	n := 2*maxPoints + 5
	p := &figure.Points{X: make([]float64, n), Y: make([]float64, n), Category: make([]string, n), Soft: make([]float64, 2*n), Classes: []string{"a", "b"}}
	for i := range n {
		p.X[i] = float64(i)
		p.Soft[2*i] = float64(i)
	}
	var o figure.Options
	thin(p, &o)
	if len(p.X) > maxPoints || len(p.Y) != len(p.X) || len(p.Category) != len(p.X) || len(p.Soft) != 2*len(p.X) {
		t.Fatalf("thinned to %d x, %d y, %d categories, %d soft values", len(p.X), len(p.Y), len(p.Category), len(p.Soft))
	}
	for k := range p.X {
		if p.Soft[2*k] != p.X[k] {
			t.Fatalf("point %d: soft row %v does not follow x %v", k, p.Soft[2*k], p.X[k])
		}
	}
	if o.Subtitle == "" {
		t.Error("no note of the thinning")
	}
}
