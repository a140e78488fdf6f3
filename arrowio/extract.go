package arrowio

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/ordinate/ordinate/internal/floats"
	"github.com/ordinate/ordinate/internal/parallel"
)

// Extract turns one record batch of the plan's schema into a Frame. file and
// firstRow locate the batch (Reader.Position); they go into error messages
// and Frame.Rows.
//
// Invalid values (null, NaN, ±Inf) in a used column (id, features, label,
// soft labels) stop Extract with an *Error for the first such row (the
// lowest row; within a row the id, then features, label, soft labels) or,
// with InvalidDrop, drop the row. A list feature whose length differs from
// the first non-null list of the batch, a negative soft-label weight, and a
// soft-label row whose weights sum to 0 are errors whatever OnInvalid says.
//
// The returned Frame holds Arrow arrays (ID, Keep) that must be released.
// For a variable-length list feature, D is the length of the batch's first
// non-null list; ReadFrame checks it across batches.
func (p *Plan) Extract(rec arrow.RecordBatch, file string, firstRow int64) (*Frame, error) {
	return p.extract(nil, rec, file, firstRow, -1, false)
}

// ExtractTo is Extract with the frame's X in dst's storage when the frame's
// scalar features fit in cap(dst), as gonum's dst arguments (a list
// feature, or a dst too small, gets a new X). A loop that is done with each
// frame before it extracts the next one (apply) passes the last frame's X
// back and allocates, and zeroes, no X per batch.
func (p *Plan) ExtractTo(dst []float64, rec arrow.RecordBatch, file string, firstRow int64) (*Frame, error) {
	return p.extract(dst, rec, file, firstRow, -1, false)
}

// ExtractColumns is ExtractTo for a caller that can take the features as
// columns: when every feature is a float64 column without nulls (the
// usual table) and no row is dropped, the frame's X is nil and
// Frame.Columns holds the D columns (views into rec: no copy), unchecked
// for NaN and ±Inf, which the caller must catch itself (apply's affine
// map turns them into a non-finite coordinate, and then extracts the batch
// again with ExtractTo, which reports or drops the row). Any other batch
// gets ExtractTo(dst, …). The id, labels and kept columns are checked and
// taken as always.
func (p *Plan) ExtractColumns(dst []float64, rec arrow.RecordBatch, file string, firstRow int64) (*Frame, error) {
	return p.extract(dst, rec, file, firstRow, -1, true)
}

// floatColumns returns the scalar feature columns of rec when every one is
// a float64 array without nulls, else nil.
func (p *Plan) floatColumns(rec arrow.RecordBatch) [][]float64 {
	if p.listIdx >= 0 || len(p.featIdx) == 0 {
		return nil
	}
	cols := make([][]float64, len(p.featIdx))
	for j, ci := range p.featIdx {
		a, ok := rec.Column(ci).(*array.Float64)
		if !ok || a.NullN() > 0 {
			return nil
		}
		cols[j] = a.Float64Values()
	}
	return cols
}

// extract is ExtractTo with the expected length of a variable list feature
// (wantD < 0: take it from the batch) and, with columns, ExtractColumns.
func (p *Plan) extract(dst []float64, rec arrow.RecordBatch, file string, firstRow int64, wantD int, columns bool) (*Frame, error) {
	if err := p.checkBatch(rec, file); err != nil {
		return nil, err
	}
	n := int(rec.NumRows())
	t := &tracker{mode: p.sel.OnInvalid, first: issue{row: -1}}
	if t.mode == InvalidDrop {
		t.drop = make([]bool, n)
	}
	b := &batch{p: p, rec: rec, n: n, t: t, dst: dst}
	var cols [][]float64
	if columns {
		cols = p.floatColumns(rec)
	}
	switch {
	case p.listIdx >= 0:
		b.listFeatures(wantD)
	case cols != nil:
		b.d = len(cols)
	case len(p.featIdx) > 0:
		b.scalarFeatures()
	}
	b.id()
	b.label()
	b.softLabels()
	if cols != nil && (t.first.row >= 0 || t.ndrop > 0) {
		// A row to drop or report: with X, whose checks put the features
		// in their place in the row order.
		return p.extract(dst, rec, file, firstRow, wantD, false)
	}
	if t.first.row >= 0 {
		return nil, p.issueError(rec, file, firstRow, t.first)
	}
	f, err := b.frame(firstRow)
	if f != nil {
		f.Columns = cols
	}
	return f, err
}

// checkBatch makes sure rec has the columns the plan was compiled for.
func (p *Plan) checkBatch(rec arrow.RecordBatch, file string) error {
	sc := rec.Schema()
	if sc.NumFields() != p.schema.NumFields() {
		return &Error{File: file, Row: -1, Err: fmt.Errorf("%w: batch has %d columns, expected %d",
			ErrSchema, sc.NumFields(), p.schema.NumFields())}
	}
	used := slices.Concat(p.featIdx, p.softIdx, p.keepIdx, []int{p.idIdx, p.listIdx, p.labelIdx})
	for _, i := range used {
		if i < 0 {
			continue
		}
		want, got := p.schema.Field(i), sc.Field(i)
		if got.Name != want.Name || !arrow.TypeEqual(got.Type, want.Type) {
			return &Error{File: file, Column: want.Name, Row: -1, Err: fmt.Errorf(
				"%w: column %d is %s %s, expected %s %s", ErrSchema, i, got.Name, got.Type, want.Name, want.Type)}
		}
	}
	return nil
}

func (p *Plan) issueError(rec arrow.RecordBatch, file string, firstRow int64, is issue) *Error {
	e := &Error{File: file, Column: is.col, Row: firstRow + int64(is.row), Err: is.err}
	if p.idIdx >= 0 {
		if a := rec.Column(p.idIdx); a.IsValid(is.row) {
			e.ID = a.ValueStr(is.row)
		}
	}
	return e
}

// Tie-break order of the roles within a row: id 0, feature j 1+j, then
// the label and the soft labels.
const (
	orderLabel = 1 << 30
	orderSoft  = orderLabel + 1
)

// issue is a problem found at a row of the batch.
type issue struct {
	row, order int
	col        string
	err        error
}

// tracker collects invalid rows (InvalidDrop) and the first error.
type tracker struct {
	mode  OnInvalid
	drop  []bool // InvalidDrop: rows to drop
	ndrop int
	first issue // row -1: none
}

// invalid records an invalid value; it reports whether the caller may stop
// scanning its column.
func (t *tracker) invalid(row, order int, col, what string) bool {
	if t.mode == InvalidDrop {
		if !t.drop[row] {
			t.drop[row] = true
			t.ndrop++
		}
		return false
	}
	t.fail(row, order, col, fmt.Errorf("%w: %s", ErrInvalidValue, what))
	return true
}

// fail records an error; the lowest (row, order) wins.
func (t *tracker) fail(row, order int, col string, err error) {
	f := &t.first
	if f.row < 0 || row < f.row || row == f.row && order < f.order {
		*f = issue{row: row, order: order, col: col, err: err}
	}
}

// past reports whether rows from row on cannot change the outcome: an error
// at an earlier row has been recorded.
func (t *tracker) past(row int) bool { return t.first.row >= 0 && row > t.first.row }

// batch is the working state of one Extract.
type batch struct {
	p   *Plan
	rec arrow.RecordBatch
	n   int
	t   *tracker

	d    int
	dst  []float64 // storage for x, if large enough (ExtractTo)
	x    []float64 // n×d
	num  []float64 // numeric labels
	ints []int64   // integer labels, exactly (uint64 as bits when unsigned)
	str  []string  // string labels
	// unsigned says ints holds uint64 bits; order is the label's ordered
	// dictionary (Labels.Order).
	unsigned bool
	order    []string
	soft     []float64 // n×C
}

// blockBytes is the size of the block of X filled column by column.
const blockBytes = 64 << 10

func (b *batch) scalarFeatures() {
	p, n := b.p, b.n
	d := len(p.featIdx)
	b.d = d
	if cap(b.dst) >= n*d {
		b.x = b.dst[:n*d] // every element is written below
	} else {
		b.x = make([]float64, n*d)
	}
	srcs := make([]numSource, d)
	for j, ci := range p.featIdx {
		srcs[j] = newNumSource(b.rec.Column(ci))
	}
	// Fill X in blocks of rows that stay in cache while every column
	// writes its stride; blocks go to p.threads goroutines (disjoint rows,
	// so the same X).
	step := max(1, blockBytes/(8*d))
	blocks := (n + step - 1) / step
	// nonFinite[k]: block k holds a NaN or ±Inf (checked while the block
	// is in cache; scanX then looks at those blocks only).
	nonFinite := make([]bool, blocks)
	fill := func(k int) {
		lo, hi := k*step, min(k*step+step, n)
		for j := range srcs {
			srcs[j].into(b.x[lo*d+j:], d, lo, hi)
		}
		nonFinite[k] = !floats.AllFinite(b.x[lo*d : hi*d])
	}
	// No context here: Extract is not cancellable, and a batch is short.
	_ = parallel.For(context.Background(), blocks, p.threads, 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			fill(k)
		}
	})
	for j, s := range srcs {
		if s.null != nil {
			b.scanNulls(s.null, 1+j, p.featNames[j])
		}
	}
	where := func(j int) (string, string) { return p.featNames[j], "" }
	for k, bad := range nonFinite {
		if bad {
			b.scanX(k*step, min(k*step+step, n), where)
		}
	}
}

// listFeatures reads a list, large list or fixed-size list column.
func (b *batch) listFeatures(wantD int) {
	p, n, name := b.p, b.n, b.p.listName
	arr := b.rec.Column(p.listIdx)
	var listNull func(int) bool
	if arr.NullN() > 0 {
		listNull = arr.IsNull
	}
	var child numSource
	var bounds func(r int) (int, int)
	switch a := arr.(type) {
	case *array.List:
		child, bounds = newNumSource(a.ListValues()), offsetBounds(a.Offsets(), a.Offset())
	case *array.LargeList:
		child, bounds = newNumSource(a.ListValues()), offsetBounds(a.Offsets(), a.Offset())
	case *array.FixedSizeList:
		child = newNumSource(a.ListValues())
		bounds = func(r int) (int, int) {
			s, e := a.ValueOffsets(r)
			return int(s), int(e)
		}
	default:
		panic(fmt.Sprintf("arrowio: list feature of type %s", arr.DataType()))
	}
	valid := func(r int) bool { return listNull == nil || !listNull(r) }

	d := wantD
	if p.listLen >= 0 {
		d = p.listLen
	}
	if d < 0 { // the first non-null list sets the length
		d = 0
		for r := range n {
			if valid(r) {
				s, e := bounds(r)
				d = e - s
				break
			}
		}
	}
	b.d = d
	b.x = make([]float64, n*d)

	// Check lengths. Without null lists, lists of one length lie back to
	// back in the child array and convert in one call.
	contiguous := n > 0 && listNull == nil
	for r := 0; r < n && !b.t.past(r); r++ {
		if !valid(r) {
			continue
		}
		s, e := bounds(r)
		switch {
		case d == 0:
			b.t.fail(r, 1, name, fmt.Errorf("%w: empty list", ErrInvalidValue))
		case e-s != d:
			b.t.fail(r, 1, name, fmt.Errorf("%w: list of %d elements, expected %d", ErrInvalidValue, e-s, d))
		}
	}
	// Rows from a wrong length on need no conversion: that row's error
	// is reported unless an earlier row has one.
	limit := n
	if b.t.first.row >= 0 {
		limit, contiguous = b.t.first.row, false
	}
	switch {
	case d == 0:
	case contiguous:
		s0, _ := bounds(0)
		child.into(b.x, 1, s0, s0+n*d)
	default:
		for r := range limit {
			if valid(r) {
				s, _ := bounds(r)
				child.into(b.x[r*d:], 1, s, s+d)
			}
		}
	}

	if listNull != nil {
		b.scanNulls(listNull, 1, name)
	}
	if d == 0 {
		return
	}
	if child.null != nil {
	rows:
		for r := 0; r < n && !b.t.past(r); r++ {
			if !valid(r) {
				continue
			}
			s, e := bounds(r)
			if e-s != d {
				continue
			}
			for k := range d {
				if child.null(s + k) {
					if b.t.invalid(r, 1+k, name, fmt.Sprintf("null (element %d)", k)) {
						break rows
					}
					break
				}
			}
		}
	}
	b.scanX(0, n, func(j int) (string, string) { return name, fmt.Sprintf(" (element %d)", j) })
}

// offsetBounds gives the child range of list r from an offsets buffer.
func offsetBounds[T int32 | int64](offs []T, off int) func(r int) (int, int) {
	return func(r int) (int, int) { return int(offs[off+r]), int(offs[off+r+1]) }
}

// scanNulls reports the null rows of a column.
func (b *batch) scanNulls(null func(int) bool, order int, col string) {
	for r := 0; r < b.n && !b.t.past(r); r++ {
		if null(r) && b.t.invalid(r, order, col, "null") {
			return
		}
	}
}

// scanX reports NaN and ±Inf in X. where gives the column of feature j and
// a detail for the message. Null slots, which may hold NaN, have been
// reported before at the same (row, order), and the first report wins.
func (b *batch) scanX(lo, hi int, where func(j int) (col, detail string)) {
	x, d := b.x, b.d
	for i := lo * d; i < hi*d; i++ {
		v := x[i]
		if v-v == 0 { // finite
			continue
		}
		r, j := i/d, i%d
		if b.t.past(r) {
			return
		}
		col, detail := where(j)
		if b.t.invalid(r, 1+j, col, kindOf(v)+detail) {
			return
		}
		i = (r+1)*d - 1 // the row is dropped: go on with the next one
	}
}

// scanFloats reports NaN and ±Inf in a column of values.
func (b *batch) scanFloats(v []float64, null func(int) bool, order int, col string) {
	for r := 0; r < len(v) && !b.t.past(r); r++ {
		if x := v[r]; x-x != 0 && (null == nil || !null(r)) {
			if b.t.invalid(r, order, col, kindOf(x)) {
				return
			}
		}
	}
}

func kindOf(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case v > 0:
		return "+Inf"
	}
	return "-Inf"
}

func (b *batch) id() {
	p := b.p
	if p.idIdx < 0 {
		return
	}
	a := b.rec.Column(p.idIdx)
	if a.NullN() > 0 {
		b.scanNulls(a.IsNull, 0, p.idName)
	}
	switch a.DataType().ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		src := newNumSource(a)
		v := make([]float64, b.n)
		if b.n > 0 {
			src.into(v, 1, 0, b.n)
		}
		b.scanFloats(v, src.null, 0, p.idName)
	}
}

func (b *batch) label() {
	p, n := b.p, b.n
	if p.labelIdx < 0 {
		return
	}
	a := b.rec.Column(p.labelIdx)
	b.order = dictOrder(a)
	if IsNumeric(a.DataType()) {
		src := newNumSource(a)
		b.num = make([]float64, n)
		if n > 0 {
			src.into(b.num, 1, 0, n)
		}
		b.ints, b.unsigned = intLabels(a)
		if src.null != nil {
			b.scanNulls(src.null, orderLabel, p.sel.Label)
		}
		b.scanFloats(b.num, src.null, orderLabel, p.sel.Label)
		return
	}
	src := newStrSource(a)
	b.str = make([]string, n)
	for r := range n {
		if src.null == nil || !src.null(r) {
			b.str[r] = src.get(r)
		}
	}
	if src.null != nil {
		b.scanNulls(src.null, orderLabel, p.sel.Label)
	}
}

func (b *batch) softLabels() {
	p, n := b.p, b.n
	c := len(p.softIdx)
	if c == 0 {
		return
	}
	w := make([]float64, n*c)
	var nulls []int32 // null entries per row, nil when there are none
	for k, ci := range p.softIdx {
		src := newNumSource(b.rec.Column(ci))
		if n == 0 {
			continue
		}
		src.into(w[k:], c, 0, n)
		if src.null == nil {
			continue
		}
		if nulls == nil {
			nulls = make([]int32, n)
		}
		for r := range n {
			if src.null(r) {
				w[r*c+k] = 0 // a null next to other weights counts as 0
				nulls[r]++
			}
		}
	}
	b.soft = w
	all := strings.Join(p.softNames, ",")
	for r := 0; r < n && !b.t.past(r); r++ {
		row := w[r*c : (r+1)*c]
		if nulls != nil && int(nulls[r]) == c { // unlabelled
			for k := range row {
				row[k] = math.NaN()
			}
			continue
		}
		bad, sum := false, 0.0
		for k, v := range row {
			switch {
			case v-v != 0:
				b.t.invalid(r, orderSoft+k, p.softNames[k], kindOf(v))
				bad = true
			case v < 0:
				b.t.fail(r, orderSoft+k, p.softNames[k], fmt.Errorf("%w: negative weight %v", ErrInvalidValue, v))
				bad = true
			default:
				sum += v
			}
		}
		switch {
		case bad:
		case sum == 0:
			b.t.fail(r, orderSoft, all, fmt.Errorf("%w: soft-label weights sum to 0", ErrInvalidValue))
		case math.IsInf(sum, 0):
			b.t.fail(r, orderSoft, all, fmt.Errorf("%w: soft-label weights overflow", ErrInvalidValue))
		default:
			for k := range row {
				row[k] /= sum
			}
		}
	}
}

// span is a run [lo, hi) of kept rows.
type span struct{ lo, hi int }

func (b *batch) keptRuns() []span {
	if b.t.ndrop == 0 {
		return []span{{0, b.n}}
	}
	var runs []span
	for r := 0; r < b.n; {
		for r < b.n && b.t.drop[r] {
			r++
		}
		lo := r
		for r < b.n && !b.t.drop[r] {
			r++
		}
		if r > lo {
			runs = append(runs, span{lo, r})
		}
	}
	return runs
}

// compact moves the kept rows (w values each) to the front of v.
func compact[T any](v []T, w int, runs []span, all bool) []T {
	if all || v == nil {
		return v
	}
	k := 0
	for _, s := range runs {
		k += copy(v[k:], v[s.lo*w:s.hi*w])
	}
	return v[:k]
}

func (b *batch) frame(firstRow int64) (f *Frame, err error) {
	p := b.p
	runs := b.keptRuns()
	all := b.t.ndrop == 0
	f = &Frame{
		Source:      p.src,
		N:           b.n - b.t.ndrop,
		D:           b.d,
		FeatureList: p.listName,
		X:           compact(b.x, b.d, runs, all),
		IDName:      p.idName,
		SoftNames:   slices.Clone(p.softNames),
		Soft:        compact(b.soft, len(p.softIdx), runs, all),
		KeepFields:  slices.Clone(p.keepFields),
		Dropped:     int64(b.t.ndrop),
	}
	if p.listIdx >= 0 {
		f.FeatureNames = listNames(p.listName, b.d)
	} else {
		f.FeatureNames = slices.Clone(p.featNames)
	}
	if p.labelIdx >= 0 {
		f.Label = &Labels{Name: p.sel.Label, Numeric: b.str == nil,
			Num: compact(b.num, 1, runs, all), Str: compact(b.str, 1, runs, all),
			Int: compact(b.ints, 1, runs, all), Unsigned: b.unsigned, Order: b.order}
	}
	f.Rows = make([]int64, 0, f.N)
	for _, s := range runs {
		for r := s.lo; r < s.hi; r++ {
			f.Rows = append(f.Rows, firstRow+int64(r))
		}
	}

	defer func() {
		if err != nil {
			f.Release()
			f = nil
		}
	}()
	if p.idIdx < 0 {
		bld := array.NewInt64Builder(p.mem)
		defer bld.Release()
		bld.AppendValues(f.Rows, nil)
		f.ID = bld.NewArray()
	} else if f.ID, err = p.take(b.rec.Column(p.idIdx), runs, all); err != nil {
		return nil, err
	}
	f.Keep = make([]arrow.Array, 0, len(p.keepIdx))
	for _, ci := range p.keepIdx {
		a, err := p.take(b.rec.Column(ci), runs, all)
		if err != nil {
			return nil, err
		}
		f.Keep = append(f.Keep, a)
	}
	return f, nil
}

// take gives the kept rows of arr: arr itself when nothing was dropped,
// otherwise the kept runs, sliced and concatenated.
func (p *Plan) take(arr arrow.Array, runs []span, all bool) (arrow.Array, error) {
	switch {
	case all:
		arr.Retain()
		return arr, nil
	case len(runs) == 0:
		return array.NewSlice(arr, 0, 0), nil
	case len(runs) == 1:
		return array.NewSlice(arr, int64(runs[0].lo), int64(runs[0].hi)), nil
	}
	parts := make([]arrow.Array, len(runs))
	for k, s := range runs {
		parts[k] = array.NewSlice(arr, int64(s.lo), int64(s.hi))
	}
	defer func() {
		for _, a := range parts {
			a.Release()
		}
	}()
	out, err := array.Concatenate(parts, p.mem)
	if err != nil {
		return nil, fmt.Errorf("arrowio: gathering kept rows: %w", err)
	}
	return out, nil
}

// numSource reads a numeric Arrow array as float64.
type numSource struct {
	// into writes elements lo..hi-1 to dst[0], dst[stride], …; null
	// slots get whatever value the array holds there.
	into func(dst []float64, stride, lo, hi int)
	null func(i int) bool // nil when no element is null
}

// newNumSource panics on a non-numeric array: Compile and checkBatch make
// sure that none reaches it.
func newNumSource(arr arrow.Array) numSource {
	var s numSource
	if arr.NullN() > 0 {
		s.null = arr.IsNull
	}
	switch a := arr.(type) {
	case *array.Float64:
		s.into = convert(a.Float64Values())
	case *array.Float32:
		s.into = convert(a.Float32Values())
	case *array.Int8:
		s.into = convert(a.Int8Values())
	case *array.Int16:
		s.into = convert(a.Int16Values())
	case *array.Int32:
		s.into = convert(a.Int32Values())
	case *array.Int64:
		s.into = convert(a.Int64Values())
	case *array.Uint8:
		s.into = convert(a.Uint8Values())
	case *array.Uint16:
		s.into = convert(a.Uint16Values())
	case *array.Uint32:
		s.into = convert(a.Uint32Values())
	case *array.Uint64:
		s.into = convert(a.Uint64Values())
	case *array.Float16:
		v := a.Values()
		s.into = func(dst []float64, stride, lo, hi int) {
			for i, x := range v[lo:hi] {
				dst[i*stride] = float64(x.Float32())
			}
		}
	case *array.Decimal32:
		v, scale := a.Values(), a.DataType().(*arrow.Decimal32Type).Scale
		s.into = func(dst []float64, stride, lo, hi int) {
			for i, x := range v[lo:hi] {
				dst[i*stride] = decimalFloat(int64(x), scale, x.ToFloat64)
			}
		}
	case *array.Decimal64:
		v, scale := a.Values(), a.DataType().(*arrow.Decimal64Type).Scale
		s.into = func(dst []float64, stride, lo, hi int) {
			for i, x := range v[lo:hi] {
				dst[i*stride] = decimalFloat(int64(x), scale, x.ToFloat64)
			}
		}
	case *array.Decimal128:
		v, scale := a.Values(), a.DataType().(*arrow.Decimal128Type).Scale
		s.into = func(dst []float64, stride, lo, hi int) {
			for i, x := range v[lo:hi] {
				lo64 := int64(x.LowBits())
				if x.HighBits() == lo64>>63 { // fits in an int64
					dst[i*stride] = decimalFloat(lo64, scale, x.ToFloat64)
				} else {
					dst[i*stride], _ = x.ToBigFloat(scale).Float64()
				}
			}
		}
	case *array.Decimal256:
		v, scale := a.Values(), a.DataType().(*arrow.Decimal256Type).Scale
		s.into = func(dst []float64, stride, lo, hi int) {
			for i, x := range v[lo:hi] {
				w := x.Array()
				lo64 := int64(w[0])
				if ext := uint64(lo64 >> 63); w[1] == ext && w[2] == ext && w[3] == ext {
					dst[i*stride] = decimalFloat(lo64, scale, x.ToFloat64)
				} else {
					dst[i*stride], _ = x.ToBigFloat(scale).Float64()
				}
			}
		}
	case *array.Dictionary:
		return dictNumSource(a)
	default:
		panic(fmt.Sprintf("arrowio: %s is not numeric", arr.DataType()))
	}
	return s
}

// convert reads a slice of Go numbers.
func convert[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64](v []T) func([]float64, int, int, int) {
	return func(dst []float64, stride, lo, hi int) {
		src := v[lo:hi]
		if stride == 1 {
			dst = dst[:len(src)]
			for i, x := range src {
				dst[i] = float64(x)
			}
			return
		}
		for i, x := range src {
			dst[i*stride] = float64(x)
		}
	}
}

// pow10 holds the powers of ten that are exact in float64.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// decimalFloat gives unscaled·10^-scale rounded once to the nearest float64
// when unscaled and the power of ten are exact in float64 (so that 1.15
// stored as 115 with scale 2 becomes the float64 literal 1.15), and
// otherwise falls back to arrow's conversion.
func decimalFloat(unscaled int64, scale int32, fallback func(int32) float64) float64 {
	const exact = 1 << 53
	if -exact <= unscaled && unscaled <= exact {
		switch {
		case scale >= 0 && int(scale) < len(pow10):
			return float64(unscaled) / pow10[scale]
		case scale < 0 && int(-scale) < len(pow10):
			return float64(unscaled) * pow10[-scale]
		}
	}
	return fallback(scale)
}

// dictNumSource decodes the dictionary once and gathers by index.
func dictNumSource(a *array.Dictionary) numSource {
	dict := newNumSource(a.Dictionary())
	table := make([]float64, a.Dictionary().Len())
	if len(table) > 0 {
		dict.into(table, 1, 0, len(table))
	}
	var s numSource
	switch idx := a.Indices().(type) {
	case *array.Int8:
		s.into = gather(idx.Int8Values(), table)
	case *array.Int16:
		s.into = gather(idx.Int16Values(), table)
	case *array.Int32:
		s.into = gather(idx.Int32Values(), table)
	case *array.Int64:
		s.into = gather(idx.Int64Values(), table)
	case *array.Uint8:
		s.into = gather(idx.Uint8Values(), table)
	case *array.Uint16:
		s.into = gather(idx.Uint16Values(), table)
	case *array.Uint32:
		s.into = gather(idx.Uint32Values(), table)
	case *array.Uint64:
		s.into = gather(idx.Uint64Values(), table)
	default:
		panic(fmt.Sprintf("arrowio: dictionary index type %s", idx.DataType()))
	}
	switch {
	case dict.null != nil: // null dictionary entries make null values
		s.null = func(i int) bool {
			if a.IsNull(i) {
				return true
			}
			k := a.GetValueIndex(i)
			return k < 0 || k >= len(table) || dict.null(k)
		}
	case a.NullN() > 0:
		s.null = a.IsNull
	}
	return s
}

// gather looks indices up in table; an index out of range (a damaged
// file) gives NaN rather than a panic.
func gather[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](idx []T, table []float64) func([]float64, int, int, int) {
	return func(dst []float64, stride, lo, hi int) {
		for i, k := range idx[lo:hi] {
			if j := uint64(k); j < uint64(len(table)) {
				dst[i*stride] = table[j]
			} else {
				dst[i*stride] = math.NaN()
			}
		}
	}
}

// strSource reads a string label column.
type strSource struct {
	get  func(i int) string // only for non-null i
	null func(i int) bool   // nil when no element is null
}

// newStrSource copies the character data once, so that the strings outlive
// the Arrow buffers.
func newStrSource(arr arrow.Array) strSource {
	var s strSource
	if arr.NullN() > 0 {
		s.null = arr.IsNull
	}
	switch a := arr.(type) {
	case *array.String:
		s.get = substrings(string(a.ValueBytes()), a.ValueOffsets())
	case *array.LargeString:
		s.get = substrings(string(a.ValueBytes()), a.ValueOffsets())
	case *array.StringView:
		s.get = func(i int) string { return strings.Clone(a.Value(i)) }
	case *array.Dictionary:
		dict := newStrSource(a.Dictionary())
		table := make([]string, a.Dictionary().Len())
		tableNull := make([]bool, len(table))
		for k := range table {
			if dict.null != nil && dict.null(k) {
				tableNull[k] = true
			} else {
				table[k] = dict.get(k)
			}
		}
		s.get = func(i int) string { return table[a.GetValueIndex(i)] }
		s.null = func(i int) bool {
			if a.IsNull(i) {
				return true
			}
			k := a.GetValueIndex(i)
			return k < 0 || k >= len(table) || tableNull[k]
		}
	default:
		panic(fmt.Sprintf("arrowio: %s is not a string type", arr.DataType()))
	}
	return s
}

func substrings[T int32 | int64](data string, offs []T) func(int) string {
	base := int64(0)
	if len(offs) > 0 {
		base = int64(offs[0])
	}
	return func(i int) string { return data[int64(offs[i])-base : int64(offs[i+1])-base] }
}
