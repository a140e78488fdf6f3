package arrowio

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ReadFrame reads the whole of r into one Frame: it compiles sel against
// r.Schema(), extracts every batch (see Plan.Extract) and concatenates the
// results. It checks ctx between batches and returns ctx.Err() when it is
// done. A Frame with no rows, because the input has none or because every
// row was dropped, is an *Error wrapping ErrEmpty. r is not released.
func ReadFrame(ctx context.Context, r Reader, sel Selection, opts ...FrameOption) (*Frame, error) {
	src := r.Source()
	p, err := sel.Compile(r.Schema(), src, opts...)
	if err != nil {
		return nil, err
	}
	var frames []*Frame
	defer func() {
		for _, f := range frames {
			f.Release()
		}
	}()
	wantD := -1 // a variable list's length, fixed by the first kept row
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !r.Next() {
			break
		}
		file, first := r.Position()
		f, err := p.extract(nil, r.RecordBatch(), file, first, wantD, false)
		if err != nil {
			return nil, err
		}
		frames = append(frames, f)
		if wantD < 0 && p.listIdx >= 0 && f.N > 0 {
			wantD = f.D
		}
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	var n, dropped int64
	for _, f := range frames {
		n += int64(f.N)
		dropped += f.Dropped
	}
	if n == 0 {
		err := ErrEmpty
		if dropped > 0 {
			err = fmt.Errorf("%w: all %d rows were dropped for invalid values", ErrEmpty, dropped)
		}
		return nil, &Error{File: src.Path, Row: -1, Err: err}
	}
	if len(frames) == 1 {
		f := frames[0]
		frames = nil
		return f, nil
	}
	return ConcatFrames(p.mem, frames)
}

// ConcatFrames joins frames of one plan, in order, into a new Frame: X,
// labels, soft labels and Rows are appended, the id and Keep arrays
// concatenated with mem (nil: memory.DefaultAllocator), Dropped summed.
// Frames with no rows only add to Dropped. The frames must agree on their
// columns (names, D, label kind, Keep types), otherwise the error wraps
// ErrSchema, or ErrInvalidValue for list features of different lengths.
// The frames are not released; Source is the first frame's.
func ConcatFrames(mem memory.Allocator, frames []*Frame) (*Frame, error) {
	if len(frames) == 0 {
		return nil, fmt.Errorf("arrowio: ConcatFrames of no frames")
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	parts := make([]*Frame, 0, len(frames))
	var n int
	var dropped int64
	for _, f := range frames {
		dropped += f.Dropped
		if f.N > 0 {
			parts = append(parts, f)
			n += f.N
		}
	}
	if len(parts) == 0 {
		parts = frames[:1]
	}
	ref := parts[0]
	for _, f := range parts[1:] {
		if err := sameColumns(ref, f); err != nil {
			return nil, err
		}
	}

	out := &Frame{
		Source:       ref.Source,
		N:            n,
		D:            ref.D,
		FeatureNames: slices.Clone(ref.FeatureNames),
		FeatureList:  ref.FeatureList,
		IDName:       ref.IDName,
		SoftNames:    slices.Clone(ref.SoftNames),
		KeepFields:   slices.Clone(ref.KeepFields),
		Dropped:      dropped,
	}
	if ref.X != nil {
		out.X = make([]float64, 0, n*ref.D)
	}
	if ref.Soft != nil {
		out.Soft = make([]float64, 0, n*len(ref.SoftNames))
	}
	out.Rows = make([]int64, 0, n)
	if ref.Label != nil {
		out.Label = &Labels{Name: ref.Label.Name, Numeric: ref.Label.Numeric, Unsigned: ref.Label.Unsigned}
		if ref.Label.Int != nil {
			out.Label.Int = make([]int64, 0, n)
		}
	}
	for _, f := range parts {
		out.X = append(out.X, f.X...)
		out.Soft = append(out.Soft, f.Soft...)
		out.Rows = append(out.Rows, f.Rows...)
		if out.Label != nil {
			if err := out.Label.appendLabels(f.Label, f.Source.Path); err != nil {
				return nil, err
			}
		}
	}

	var err error
	if out.ID, err = concatColumn(mem, parts, func(f *Frame) arrow.Array { return f.ID }); err != nil {
		return nil, err
	}
	out.Keep = make([]arrow.Array, 0, len(ref.Keep))
	for k := range ref.Keep {
		a, err := concatColumn(mem, parts, func(f *Frame) arrow.Array { return f.Keep[k] })
		if err != nil {
			out.Release()
			return nil, err
		}
		out.Keep = append(out.Keep, a)
	}
	return out, nil
}

func concatColumn(mem memory.Allocator, frames []*Frame, col func(*Frame) arrow.Array) (arrow.Array, error) {
	if len(frames) == 1 {
		a := col(frames[0])
		a.Retain()
		return a, nil
	}
	arrs := make([]arrow.Array, len(frames))
	for i, f := range frames {
		arrs[i] = col(f)
	}
	a, err := array.Concatenate(arrs, mem)
	if err != nil {
		return nil, fmt.Errorf("arrowio: concatenating frames: %w", err)
	}
	return a, nil
}

// sameColumns checks that f can follow ref in a concatenation.
func sameColumns(ref, f *Frame) error {
	row := int64(-1)
	if len(f.Rows) > 0 {
		row = f.Rows[0]
	}
	bad := func(col, format string, args ...any) error {
		return &Error{File: f.Source.Path, Column: col, Row: row,
			Err: fmt.Errorf("%w: "+format, append([]any{ErrSchema}, args...)...)}
	}
	switch {
	case f.D != ref.D && ref.FeatureList != "" && f.FeatureList == ref.FeatureList:
		return &Error{File: f.Source.Path, Column: f.FeatureList, Row: row,
			Err: fmt.Errorf("%w: list of %d elements, expected %d", ErrInvalidValue, f.D, ref.D)}
	case !slices.Equal(f.FeatureNames, ref.FeatureNames) || f.FeatureList != ref.FeatureList:
		return bad("", "features %v, expected %v", f.FeatureNames, ref.FeatureNames)
	case f.IDName != ref.IDName || !arrow.TypeEqual(f.ID.DataType(), ref.ID.DataType()):
		return bad(f.IDName, "id %s %s, expected %s %s", f.IDName, f.ID.DataType(), ref.IDName, ref.ID.DataType())
	case (f.Label == nil) != (ref.Label == nil) ||
		f.Label != nil && (f.Label.Name != ref.Label.Name || f.Label.Numeric != ref.Label.Numeric ||
			(f.Label.Int == nil) != (ref.Label.Int == nil) || f.Label.Unsigned != ref.Label.Unsigned):
		return bad("", "labels differ")
	case !slices.Equal(f.SoftNames, ref.SoftNames):
		return bad("", "soft labels %v, expected %v", f.SoftNames, ref.SoftNames)
	case len(f.Keep) != len(ref.Keep) || len(f.KeepFields) != len(ref.KeepFields):
		return bad("", "%d kept columns, expected %d", len(f.Keep), len(ref.Keep))
	}
	for k, a := range f.Keep {
		if name := ref.KeepFields[k].Name; f.KeepFields[k].Name != name || !arrow.TypeEqual(a.DataType(), ref.Keep[k].DataType()) {
			return bad(name, "kept column %s %s, expected %s %s",
				f.KeepFields[k].Name, a.DataType(), name, ref.Keep[k].DataType())
		}
	}
	return nil
}
