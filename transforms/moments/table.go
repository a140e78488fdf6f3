package moments

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// Label types of a Table, as partials files record them: they decide how
// the classes are ordered (transforms.ValueClasses).
const (
	LabelInt    = "int"   // an integer column: classes by value, exactly
	LabelUint   = "uint"  // an unsigned 64-bit column
	LabelFloat  = "float" // other numbers
	LabelText   = "text"  // text: byte order, or --order
	labelAbsent = ""      // no label column
)

// Table is the statistics of the rows of a feature table, one class per
// distinct label value (the values in order of first appearance), or one
// class for all rows without a label.
type Table struct {
	*Moments
	Path        string   // the input, or the partials files, for errors
	Features    []string // the D feature columns (list elements "v[0]", … for a list column)
	FeatureList string   // the list column the features came from, or ""
	Label       string   // the label column, or ""
	LabelType   string   // LabelInt, LabelUint, LabelFloat or LabelText ("" without label)
	LabelOrder  []string // the label's ordered dictionary, or nil
	Values      []string // class k's label value (LabelText's form); nil without label
	Dropped     int64    // rows dropped as invalid (on-invalid drop)

	slot map[string]int
	// reserve, when set, checks that k classes fit in memory before they
	// are allocated.
	reserve func(k int) error
}

// newTable returns empty statistics of the features, with a label of that
// type ("" for none).
func newTable(path string, features []string, list, label, labelType string) *Table {
	k := 0
	if label == "" {
		k = 1
	}
	t := &Table{Moments: &Moments{D: len(features), Min: make([]float64, len(features)), Max: make([]float64, len(features))},
		Path: path, Features: slices.Clone(features), FeatureList: list, Label: label, LabelType: labelType,
		slot: map[string]int{}}
	e := New(len(features), 1)
	copy(t.Min, e.Min)
	copy(t.Max, e.Max)
	t.Grow(k)
	return t
}

// classOf returns the class of label value v, adding it when new.
func (t *Table) classOf(v string) (int, error) {
	if k, ok := t.slot[v]; ok {
		return k, nil
	}
	k := len(t.Values)
	if t.reserve != nil {
		if err := t.reserve(k + 1); err != nil {
			return 0, err
		}
	}
	t.slot[v] = k
	t.Values = append(t.Values, v)
	t.Grow(k + 1)
	return k, nil
}

// labelType names the type of a frame's labels.
func labelType(l *arrowio.Labels) string {
	switch {
	case l == nil:
		return labelAbsent
	case !l.Numeric:
		return LabelText
	case l.Int == nil:
		return LabelFloat
	case l.Unsigned:
		return LabelUint
	}
	return LabelInt
}

// Read streams the table of role through sel (features, label, id,
// invalid-value policy) into statistics, one batch in memory at a time,
// on env's threads. It records what ReadFeatures records of its input:
// the default feature set's report, the input (rows read and dropped),
// the dropped rows' warning and the rows' fingerprint. It does not check
// that ids are unique: that would hold every id. With byClass false, the
// label's rows are checked as usual but the statistics pool them, as one
// class without a label.
func Read(ctx context.Context, env *transforms.Env, role string, sel arrowio.Selection, byClass bool) (*Table, error) {
	r, sel, err := env.OpenFeatures(ctx, role, sel)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	src := r.Source()
	plan, err := sel.Compile(r.Schema(), src, arrowio.WithFrameThreads(env.Threads))
	if err != nil {
		return nil, err
	}
	var (
		t       *Table
		fp      *transforms.Fingerprinter
		x       []float64
		classes []int
	)
	env.Progress.Start("reading "+role, 0)
	defer env.Progress.Finish()
	for r.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		file, first := r.Position()
		f, err := plan.ExtractTo(x, r.RecordBatch(), file, first)
		if err != nil {
			return nil, err
		}
		if t == nil {
			label, typ := "", ""
			if f.Label != nil && byClass {
				label, typ = f.Label.Name, labelType(f.Label)
			}
			t = newTable(src.Path, f.FeatureNames, f.FeatureList, label, typ)
			t.reserve = reserveClasses(env, src.Path, t.D)
			if err := t.reserve(max(t.K, 1)); err != nil {
				f.Release()
				return nil, err
			}
			id := ""
			if sel.ID != "" {
				id = f.IDName
			}
			fp = transforms.NewFingerprinter(id, transforms.FingerprintColumns(f))
		}
		// The fingerprint's hashes beside the statistics: on two cores
		// they took a quarter of a single-threaded pass.
		hashed := make(chan struct{})
		go func() {
			defer close(hashed)
			fp.Add(f)
		}()
		err = t.addFrame(ctx, f, &classes, env.Threads)
		<-hashed
		t.Dropped += f.Dropped
		env.Progress.Add(int64(f.N) + f.Dropped)
		x = f.X[:0]
		f.Release()
		if err != nil {
			return nil, err
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if t == nil || t.Rows() == 0 {
		msg := "the input has no rows"
		if t != nil && t.Dropped > 0 {
			msg = fmt.Sprintf("all %d rows were dropped as invalid", t.Dropped)
		}
		return nil, &arrowio.Error{File: src.Path, Row: -1, Err: fmt.Errorf("%w: %s", arrowio.ErrEmpty, msg)}
	}
	env.Input(role, src, t.Rows()+t.Dropped, t.Dropped, transforms.TableProvenance(r.Schema()))
	if t.Dropped > 0 {
		env.Warn("%s: dropped %d of %d rows with NaN, ±Inf or null in a used column (on-invalid drop)", src.Path, t.Dropped, t.Rows()+t.Dropped)
	}
	env.SetInputFingerprint(role, fp.Fingerprint())
	env.Log.Info("read", "role", role, "input", src.Path, "rows", t.Rows(), "features", t.D, "streamed", true)
	return t, nil
}

// reserveClasses checks the statistics of k classes over D features, and
// the fit's D×D matrices, against the run's memory limit.
func reserveClasses(env *transforms.Env, path string, D int) func(k int) error {
	return func(k int) error {
		return env.Reserve(float64(k+4)*transforms.Float64Bytes(D, D),
			fmt.Sprintf("%s: the statistics of %s classes over %s features, %d D×D matrices", path, transforms.Thousands(int64(k)), transforms.Thousands(int64(D)), k+4),
			"use fewer features (each element of a list column is one), or a label with fewer classes")
	}
}

// addFrame adds the rows of a frame: their classes by label value.
func (t *Table) addFrame(ctx context.Context, f *arrowio.Frame, classes *[]int, threads int) error {
	if f.N == 0 {
		return nil
	}
	var cls []int
	if f.Label != nil && t.Label != "" {
		if f.Label.Order != nil {
			l := &arrowio.Labels{Name: t.Label, Order: t.LabelOrder}
			if err := l.MergeOrder(f.Label, f.Source.Path); err != nil {
				return err
			}
			t.LabelOrder = l.Order
		}
		cls = slices.Grow((*classes)[:0], f.N)[:f.N]
		for i := range f.N {
			var err error
			if cls[i], err = t.classOf(f.Label.Text(i)); err != nil {
				return err
			}
		}
		*classes = cls
	}
	return t.Add(ctx, f.X, f.N, cls, threads)
}

// Labels returns the label's distinct values as labels of their type, one
// per class, and the rows of each.
func (t *Table) Labels() (*arrowio.Labels, []int64, error) {
	l := &arrowio.Labels{Name: t.Label, Order: t.LabelOrder}
	switch t.LabelType {
	case LabelText:
		l.Str = slices.Clone(t.Values)
	case LabelFloat, LabelInt, LabelUint:
		l.Numeric = true
		l.Num = make([]float64, len(t.Values))
		if t.LabelType != LabelFloat {
			l.Int, l.Unsigned = make([]int64, len(t.Values)), t.LabelType == LabelUint
		}
		for i, v := range t.Values {
			var err error
			switch t.LabelType {
			case LabelFloat:
				l.Num[i], err = strconv.ParseFloat(v, 64)
			case LabelUint:
				var u uint64
				u, err = strconv.ParseUint(v, 10, 64)
				l.Int[i], l.Num[i] = int64(u), float64(u)
			default:
				l.Int[i], err = strconv.ParseInt(v, 10, 64)
				l.Num[i] = float64(l.Int[i])
			}
			if err != nil {
				return nil, nil, fmt.Errorf("%w: %s: class %q of label %q is not a %s value", ErrPartials, t.Path, v, t.Label, t.LabelType)
			}
		}
	default:
		return nil, nil, &transforms.OptionError{Option: "label", Err: transforms.ErrNoLabel}
	}
	return l, slices.Clone(t.Count), nil
}

// Classes orders the label's classes as the stage does with its rows
// (transforms.OrdinalClasses when ordinal, else NominalClasses, with the
// same order) and returns them with the statistics in class order.
func (t *Table) Classes(order []string, ordinal bool) (*transforms.Classes, *Moments, error) {
	l, counts, err := t.Labels()
	if err != nil {
		return nil, nil, err
	}
	cls, of, err := transforms.ValueClasses(l, counts, order, ordinal, t.Path)
	if err != nil {
		return nil, nil, err
	}
	return cls, t.Reorder(of, cls.K()), nil
}

// Merge adds the statistics of o, of the same features and label, to t:
// its classes by label value, new values after t's.
func (t *Table) Merge(o *Table) error {
	switch {
	case !slices.Equal(t.Features, o.Features) || t.FeatureList != o.FeatureList:
		return fmt.Errorf("%w: %s holds the features %v, %s %v", ErrPartials, o.Path, o.Features, t.Path, t.Features)
	case t.Label != o.Label || t.LabelType != o.LabelType:
		return fmt.Errorf("%w: %s holds the label %q (%s), %s %q (%s)", ErrPartials, o.Path, o.Label, o.LabelType, t.Path, t.Label, t.LabelType)
	}
	if o.LabelOrder != nil {
		l := &arrowio.Labels{Name: t.Label, Order: t.LabelOrder}
		if err := l.MergeOrder(&arrowio.Labels{Order: o.LabelOrder}, o.Path); err != nil {
			return err
		}
		t.LabelOrder = l.Order
	}
	for c := range o.K {
		k := 0
		if t.Label != "" {
			var err error
			if k, err = t.classOf(o.Values[c]); err != nil {
				return err
			}
		}
		t.mergeClass(k, o.Moments, c)
	}
	for j := range t.D {
		t.Min[j], t.Max[j] = min(t.Min[j], o.Min[j]), max(t.Max[j], o.Max[j])
	}
	t.Dropped += o.Dropped
	return nil
}
