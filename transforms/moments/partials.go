package moments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// A partials table holds the statistics of some rows (a shard, a Spark
// partition) for a later fit of all of them (--from-partials): one row per
// class, in the order the classes met the rows,
//
//	class  utf8          the label value (LabelText's form); null without a label
//	count  int64         rows of the class
//	mean   list<double>  the class mean of x − shift, D values
//	m2     list<double>  the class co-moments Σ (x − μ)(x − μ)ᵀ, D×D row-major
//
// and a header in the schema metadata under PartialsMetadataKey (JSON:
// format, features, feature_list, label, label_type, label_order, dropped,
// the features' smallest and largest values as text, so that ±Inf survive,
// and the shift the means are taken from, Moments.Shift). Features are
// raw, not standardised: the fit standardises the merged statistics.
const (
	PartialsMetadataKey = transforms.PartialsMetadataKey
	PartialsFormat      = 1
)

// ErrPartials reports a partials table that cannot be read or merged.
var ErrPartials = transforms.NewSentinel(transforms.ErrInvalidData, "bad partials table")

// partialsHeader is the JSON header of a partials table.
type partialsHeader struct {
	Format      int      `json:"format"`
	Features    []string `json:"features"`
	FeatureList string   `json:"feature_list,omitempty"`
	Label       string   `json:"label,omitempty"`
	LabelType   string   `json:"label_type,omitempty"`
	LabelOrder  []string `json:"label_order,omitempty"`
	Dropped     int64    `json:"dropped"`
	Min         []string `json:"min"`
	Max         []string `json:"max"`
	Shift       []string `json:"shift,omitempty"` // the means are of x − shift
}

func formatFloats(v []float64) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return out
}

// Record returns t as a partials table (the package's layout).
func (t *Table) Record(mem memory.Allocator) (arrow.RecordBatch, error) {
	h := partialsHeader{Format: PartialsFormat, Features: t.Features, FeatureList: t.FeatureList, Label: t.Label,
		LabelType: t.LabelType, LabelOrder: t.LabelOrder, Dropped: t.Dropped, Min: formatFloats(t.Min), Max: formatFloats(t.Max)}
	if t.Shift != nil {
		h.Shift = formatFloats(t.Shift)
	}
	js, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	md := arrow.NewMetadata([]string{PartialsMetadataKey}, []string{string(js)})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "class", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "count", Type: arrow.PrimitiveTypes.Int64},
		{Name: "mean", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64)},
		{Name: "m2", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64)},
	}, &md)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	cb, nb := b.Field(0).(*array.StringBuilder), b.Field(1).(*array.Int64Builder)
	mb, sb := b.Field(2).(*array.ListBuilder), b.Field(3).(*array.ListBuilder)
	mv, sv := mb.ValueBuilder().(*array.Float64Builder), sb.ValueBuilder().(*array.Float64Builder)
	D := t.D
	for c := range t.K {
		if t.Label == "" {
			cb.AppendNull()
		} else {
			cb.Append(t.Values[c])
		}
		nb.Append(t.Count[c])
		mb.Append(true)
		mv.AppendValues(t.Mean[c*D:(c+1)*D], nil)
		sb.Append(true)
		sv.AppendValues(t.M2[c*D*D:(c+1)*D*D], nil)
	}
	return b.NewRecordBatch(), nil
}

// WritePartials writes t as the partials table of role.
func WritePartials(ctx context.Context, env *transforms.Env, role string, t *Table) error {
	rec, err := t.Record(env.Mem)
	if err != nil {
		return err
	}
	defer rec.Release()
	return env.WriteRecord(ctx, role, rec)
}

// ReadPartials reads the partials tables of role (a file, a glob or a
// directory of them, or a stream) and merges them in the order of their
// paths. Files of other features or another label, a table without the
// header, and counts, means or co-moments that are not finite are errors
// wrapping ErrPartials that name the file (and the row).
func ReadPartials(ctx context.Context, env *transforms.Env, role string) (*Table, error) {
	r, err := env.Open(ctx, role)
	if err != nil {
		return nil, err
	}
	src := r.Source()
	files := src.Files
	prov := transforms.TableProvenance(r.Schema())
	var t *Table
	add := func(r arrowio.Reader, path string) error {
		p, err := readPartials(env, r, path)
		if err != nil {
			return err
		}
		if t == nil {
			t = p
			return nil
		}
		return t.Merge(p)
	}
	if len(files) <= 1 {
		path := src.Path
		if len(files) == 1 {
			path = files[0]
		}
		err = add(r, path)
		r.Release()
	} else {
		// One reader per file: each carries its own header.
		r.Release()
		for _, f := range files {
			if err = ctx.Err(); err != nil {
				break
			}
			var fr arrowio.Reader
			if fr, err = arrowio.Open(ctx, f, arrowio.WithReadAllocator(env.Mem)); err != nil {
				break
			}
			err = add(fr, f)
			fr.Release()
			if err != nil {
				break
			}
		}
	}
	if err != nil {
		return nil, err
	}
	t.Path = src.Path
	if t.Rows() == 0 {
		return nil, &arrowio.Error{File: src.Path, Row: -1, Err: fmt.Errorf("%w: the partials hold no rows", arrowio.ErrEmpty)}
	}
	env.Input(role, src, t.Rows()+t.Dropped, t.Dropped, prov)
	env.Log.Info("read", "role", role, "input", src.Path, "files", len(files), "rows", t.Rows(), "features", t.D)
	return t, nil
}

// readPartials reads one partials table.
func readPartials(env *transforms.Env, r arrowio.Reader, path string) (*Table, error) {
	bad := func(row int64, column, format string, a ...any) error {
		return &arrowio.Error{File: path, Column: column, Row: row, Err: fmt.Errorf("%w: %s", ErrPartials, fmt.Sprintf(format, a...))}
	}
	md := r.Schema().Metadata()
	i := md.FindKey(PartialsMetadataKey)
	if i < 0 {
		return nil, bad(-1, "", "the table has no %s header: write partials with --partials-out", PartialsMetadataKey)
	}
	var h partialsHeader
	if err := json.Unmarshal([]byte(md.Values()[i]), &h); err != nil {
		return nil, bad(-1, "", "its header does not parse: %v", err)
	}
	D := len(h.Features)
	switch {
	case h.Format != PartialsFormat:
		return nil, bad(-1, "", "format %d, this version reads format %d", h.Format, PartialsFormat)
	case D == 0 || len(h.Min) != D || len(h.Max) != D || (h.Shift != nil && len(h.Shift) != D):
		return nil, bad(-1, "", "%d features with %d smallest, %d largest values and %d shifts", D, len(h.Min), len(h.Max), len(h.Shift))
	case (h.Label == "") != (h.LabelType == ""):
		return nil, bad(-1, "", "label %q of type %q", h.Label, h.LabelType)
	}
	reserve := reserveClasses(env, path, D)
	if err := reserve(1); err != nil {
		return nil, err
	}
	t := newTable(path, h.Features, h.FeatureList, h.Label, h.LabelType)
	t.LabelOrder, t.Dropped, t.reserve = h.LabelOrder, h.Dropped, reserve
	if h.Shift != nil {
		t.Shift = make([]float64, D)
	}
	for j := range D {
		var e1, e2, e3 error
		t.Min[j], e1 = strconv.ParseFloat(h.Min[j], 64)
		t.Max[j], e2 = strconv.ParseFloat(h.Max[j], 64)
		if h.Shift != nil {
			t.Shift[j], e3 = strconv.ParseFloat(h.Shift[j], 64)
			if e3 == nil && (math.IsNaN(t.Shift[j]) || math.IsInf(t.Shift[j], 0)) {
				e3 = fmt.Errorf("shift %g", t.Shift[j])
			}
		}
		if err := errors.Join(e1, e2, e3); err != nil {
			return nil, bad(-1, "", "feature %q: %v", h.Features[j], err)
		}
	}
	cols, cerr := partialsColumns(r.Schema())
	if cerr != nil {
		return nil, bad(-1, "", "%v", cerr)
	}
	var row int64
	var err error
	for r.Next() {
		rec := r.RecordBatch()
		cls := rec.Column(cols[0]).(*array.String)
		cnt := rec.Column(cols[1]).(*array.Int64)
		mean, m2 := rec.Column(cols[2]).(*array.List), rec.Column(cols[3]).(*array.List)
		mv, sv := mean.ListValues().(*array.Float64), m2.ListValues().(*array.Float64)
		for i := range int(rec.NumRows()) {
			c := 0
			switch {
			case h.Label == "" && cls.IsValid(i):
				return nil, bad(row, "class", "a class %q without a label", cls.Value(i))
			case h.Label != "" && !cls.IsValid(i):
				return nil, bad(row, "class", "no class")
			case h.Label != "":
				if _, seen := t.slot[cls.Value(i)]; seen {
					return nil, bad(row, "class", "class %q appears twice", cls.Value(i))
				}
				if c, err = t.classOf(cls.Value(i)); err != nil {
					return nil, err
				}
			case row > 0:
				return nil, bad(row, "class", "a second row without a label")
			}
			n := cnt.Value(i)
			if !cnt.IsValid(i) || n < 0 {
				return nil, bad(row, "count", "count %d", n)
			}
			mu, err := floats(mean, mv, i, D)
			if err != nil {
				return nil, bad(row, "mean", "%v", err)
			}
			s2, err := floats(m2, sv, i, D*D)
			if err != nil {
				return nil, bad(row, "m2", "%v", err)
			}
			one := New(D, 1)
			one.Shift = t.Shift
			one.Count[0] = n
			copy(one.Mean, mu)
			copy(one.M2, s2)
			t.mergeClass(c, one, 0)
			row++
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

// partialsColumns finds the columns of a partials table, of their types.
func partialsColumns(s *arrow.Schema) ([4]int, error) {
	var idx [4]int
	want := []struct {
		name string
		typ  arrow.DataType
	}{{"class", arrow.BinaryTypes.String}, {"count", arrow.PrimitiveTypes.Int64},
		{"mean", arrow.ListOf(arrow.PrimitiveTypes.Float64)}, {"m2", arrow.ListOf(arrow.PrimitiveTypes.Float64)}}
	for k, w := range want {
		is := s.FieldIndices(w.name)
		if len(is) != 1 {
			return idx, fmt.Errorf("no column %q", w.name)
		}
		if got := s.Field(is[0]).Type; !arrow.TypeEqual(got, w.typ) {
			return idx, fmt.Errorf("column %q is %s, want %s", w.name, got, w.typ)
		}
		idx[k] = is[0]
	}
	return idx, nil
}

// floats returns the n values of list row i, all finite.
func floats(l *array.List, v *array.Float64, i, n int) ([]float64, error) {
	if !l.IsValid(i) {
		return nil, errors.New("null")
	}
	lo, hi := l.ValueOffsets(i)
	if int(hi-lo) != n {
		return nil, fmt.Errorf("%d values, want %d", hi-lo, n)
	}
	out := v.Float64Values()[lo:hi]
	for _, x := range out {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("the value %g", x)
		}
	}
	if v.NullN() > 0 {
		for k := lo; k < hi; k++ {
			if v.IsNull(int(k)) {
				return nil, errors.New("a null value")
			}
		}
	}
	return out, nil
}
