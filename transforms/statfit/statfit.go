package statfit

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/affine"
	"github.com/ordinate/ordinate/transforms/apply"
	"github.com/ordinate/ordinate/transforms/moments"
	"github.com/ordinate/ordinate/transforms/table"
)

// Stream says how a linear stage (bvp, pca, lda) reads its rows.
type Stream string

const (
	// StreamAuto reads the rows into memory when they fit the run's memory
	// limit, and streams a Parquet input whose rows do not.
	StreamAuto Stream = "auto"
	// StreamOn always fits from statistics streamed over the input.
	StreamOn Stream = "on"
	// StreamOff always reads the rows into memory.
	StreamOff Stream = "off"
)

// Values implements the options' enumeration.
func (Stream) Values() []string {
	return []string{string(StreamAuto), string(StreamOn), string(StreamOff)}
}

// Streaming is the --stream option of the linear stages: embed it in their
// options, so that it has one name and one meaning.
type Streaming struct {
	Stream Stream `opt:"stream" help:"how the rows are read: on fits from class counts, means and co-moments streamed over the input, one batch in memory (and reads it again to place the rows in out); off reads every row into memory; auto streams a Parquet input whose rows would not fit the memory limit"`
}

// DefaultStreaming is --stream auto.
func DefaultStreaming() Streaming { return Streaming{Stream: StreamAuto} }

// rowBytesFactor is the float64 copies of the features an in-memory fit
// holds: as read, standardised, and the fit's own (the SVD's copy, lda's
// whitened rows).
const rowBytesFactor = 3

// Streamed decides whether a linear stage fits from statistics: when asked
// to (mode on), when it reads or writes partials (roles from-partials and
// partials-out), when it writes the model alone (no out: one pass over
// in), or, with mode auto, when in is Parquet and its rows would not fit
// the memory limit. It refuses what streaming cannot do: read
// standard input twice (the statistics, then the rows for out), or
// partials with mode off. It records the choice in the provenance's
// figures (fit_from: rows, streamed statistics or partials).
func Streamed(ctx context.Context, env *transforms.Env, mode Stream) (bool, error) {
	streamed, err := streamed(ctx, env, mode)
	if err == nil {
		// Provenance: what the fit was computed from.
		from := "rows"
		switch {
		case env.Has("from-partials"):
			from = "partials"
		case streamed:
			from = "streamed statistics"
		}
		env.Figure("fit_from", from)
	}
	return streamed, err
}

func streamed(ctx context.Context, env *transforms.Env, mode Stream) (bool, error) {
	partials := env.Has("from-partials") || env.Has("partials-out")
	in := inputPath(env)
	if env.Has("from-partials") {
		switch {
		case env.Has("out") && !env.Has("in"):
			return false, transforms.Optionf("out", "%w: a fit from partials has no rows to place; give in (the rows to place) or leave out out", transforms.ErrNoTable)
		case env.Has("in") && !env.Has("out"):
			return false, transforms.Optionf("in", "is read to place its rows in out, after a fit from partials: give out, or leave in out")
		case !env.Has("out") && !env.Has("model-out") && !env.Has("partials-out"):
			return false, transforms.Optionf("model-out", "%w: a fit from partials writes model-out, out or partials-out: give one", transforms.ErrNoTable)
		}
	} else {
		switch {
		case !env.Has("in"):
			return false, &transforms.OptionError{Option: "in", Err: fmt.Errorf("%w: the input table, or from-partials", transforms.ErrNoTable)}
		case !env.Has("out") && !env.Has("partials-out") && !env.Has("model-out"):
			return false, &transforms.OptionError{Option: "out", Err: fmt.Errorf("%w: the output table, model-out or partials-out", transforms.ErrNoTable)}
		}
	}
	if mode == StreamOff {
		switch {
		case partials:
			return false, transforms.Optionf("stream", "off reads the rows into memory, but from-partials and partials-out fit from statistics: leave stream at auto or on")
		case !env.Has("out"):
			return false, transforms.Optionf("stream", "off reads the rows into memory to place them in out: give out, or leave stream at auto or on for model-out alone")
		}
		return false, nil
	}
	if !env.Has("out") {
		return true, nil // the model alone: one pass over in, whatever its size
	}
	if !partials && mode == StreamAuto && !tooLarge(ctx, env, in) {
		return false, nil
	}
	if !env.Has("from-partials") && transforms.IsStream(in) && env.Has("out") {
		return false, transforms.Optionf("in", "a stream on standard input cannot be read twice: a fit from streamed statistics reads in for them, then again to place its rows in out; give a file, or write only partials-out or model-out")
	}
	return true, nil
}

// inputPath is the path of role in ("" when the tables have no paths).
func inputPath(env *transforms.Env) string {
	if p, ok := env.Tables.(interface{ Path(string) string }); ok {
		return p.Path("in")
	}
	return ""
}

// tooLarge tells whether in, a Parquet file or dataset, holds more rows
// than an in-memory fit can hold within the memory limit (counted from
// its footers; other formats are read into memory).
func tooLarge(ctx context.Context, env *transforms.Env, in string) bool {
	if in == "" || transforms.IsStream(in) {
		return false
	}
	if fi, err := os.Stat(in); !(err == nil && fi.IsDir()) && !strings.HasSuffix(strings.ToLower(in), ".parquet") && !strings.ContainsAny(in, "*?[") {
		return false
	}
	fi, err := arrowio.Inspect(ctx, in, arrowio.WithReadAllocator(env.Mem))
	if err != nil || fi.Format != arrowio.FormatParquet || fi.Schema == nil {
		return false // the read reports it
	}
	numeric := 0
	for _, f := range fi.Schema.Fields() {
		if arrow.IsFloating(f.Type.ID()) || arrow.IsInteger(f.Type.ID()) {
			numeric++
		}
	}
	need := rowBytesFactor * transforms.Float64Bytes(int(fi.Rows), max(numeric, 1))
	if env.Reserve(need, "", "") == nil {
		return false
	}
	limit, _ := env.Memory()
	env.Log.Info("streaming the fit", "input", in, "rows", fi.Rows, "need", need, "limit", limit)
	return true
}

// WriteStreamed is affine.Write for a fit from statistics: it writes the model
// (model-out) and places the rows of in with it into out, streamed batch
// by batch as apply places them, so that the output holds the bits a fit
// of the rows in memory writes for the same model. sel is the fit's
// selection (id, kept columns, label, invalid-value policy); its features
// become the model's.
func WriteStreamed(ctx context.Context, env *transforms.Env, stage string, s *transforms.Scaling, featureList string, standardized bool, origin []float64, axes *mat.Dense, params map[string]any, sel arrowio.Selection) (*affine.Model, error) {
	m := affine.New(stage, s, featureList, standardized, origin, axes, params)
	if err := m.Check(); err != nil {
		return nil, err
	}
	if env.Has("model-out") {
		if err := env.WriteModel(ctx, "model-out", m); err != nil {
			return nil, err
		}
	}
	if !env.Has("out") {
		return m, nil
	}
	r, err := env.Open(ctx, "in")
	if err != nil {
		return nil, err
	}
	defer r.Release()
	var w arrowio.Writer
	defer func() {
		if w != nil {
			w.Abort()
		}
	}()
	create := func(schema *arrow.Schema) (arrowio.Writer, error) {
		w, err = env.Create(ctx, "out", schema)
		return w, err
	}
	st, err := apply.Rows(ctx, m, r, sel, create, apply.Config{Progress: env.Progress, Mem: env.Mem, Threads: env.Threads})
	if err != nil {
		return nil, err
	}
	env.Log.Info(stage, "rows", st.Rows, "features", len(s.Names), "dims", m.Dims(), "streamed", true)
	return m, env.Close("out", w)
}

// Statistics returns the statistics a fit from statistics takes: the
// merged partials of from-partials, or those of in streamed through sel
// (by the label's classes when byClass, else pooled).
// It writes them to partials-out when asked; done reports that nothing
// else is asked (no out, no model-out). With from-partials, the partials
// fix the features and the label: sel may name the same label, and no
// features.
func Statistics(ctx context.Context, env *transforms.Env, sel arrowio.Selection, byClass bool) (t *moments.Table, done bool, err error) {
	if env.Has("from-partials") {
		if sel.Features != nil || sel.Exclude != nil {
			return nil, false, transforms.Optionf("features", "the partials fix the features: leave features and exclude out with from-partials")
		}
		if t, err = moments.ReadPartials(ctx, env, "from-partials"); err != nil {
			return nil, false, err
		}
		if byClass && sel.Label != "" && sel.Label != t.Label {
			return nil, false, transforms.Optionf("label", "%q, but the partials were written with label %q", sel.Label, t.Label)
		}
		env.Figure("features", t.Features)
	} else if t, err = moments.Read(ctx, env, "in", sel, byClass); err != nil {
		return nil, false, err
	}
	if env.Has("partials-out") {
		if err := moments.WritePartials(ctx, env, "partials-out", t); err != nil {
			return nil, false, err
		}
	}
	return t, !env.Has("out") && !env.Has("model-out"), nil
}

// Classes says how a stage orders the label's classes: not at all (By
// false: the statistics pool every row), or by Order, as OrdinalClasses
// (Ordinal) or NominalClasses order a label's rows.
type Classes struct {
	By      bool
	Order   []string
	Ordinal bool
}

// Prepared is what a linear fit from statistics takes: the statistics as
// gathered, the classes in the stage's order (nil without classes), the
// standardisation ReadFeatures would fit on the rows, and the statistics
// standardised with the classes in order.
type Prepared struct {
	Table   *moments.Table
	Classes *transforms.Classes
	Scaling *transforms.Scaling
	Z       *moments.Moments
}

// Prepare gathers the statistics (Statistics), orders and records the
// classes and standardises them (moments.Table.Standardize). It returns
// nil when the run asked for nothing but partials.
func Prepare(ctx context.Context, env *transforms.Env, sel arrowio.Selection, cls Classes, standardize bool) (*Prepared, error) {
	t, done, err := Statistics(ctx, env, sel, cls.By)
	if err != nil || done {
		return nil, err
	}
	p := &Prepared{Table: t}
	m := t.Moments
	if cls.By {
		if p.Classes, m, err = t.Classes(cls.Order, cls.Ordinal); err != nil {
			return nil, err
		}
		p.Classes.Record(env)
	}
	if p.Scaling, p.Z, err = t.Standardize(env, m, standardize); err != nil {
		return nil, err
	}
	return p, nil
}

// Write is WriteStreamed for the prepared statistics.
func (p *Prepared) Write(ctx context.Context, env *transforms.Env, stage string, standardized bool, origin []float64, axes *mat.Dense, params map[string]any, sel arrowio.Selection) (*affine.Model, error) {
	return WriteStreamed(ctx, env, stage, p.Scaling, p.Table.FeatureList, standardized, origin, axes, params, sel)
}

// StreamDoc documents the streamed fit and the partials in the linear
// stages' help.
const StreamDoc = `Large tables and shards: the fit needs only class counts, means and co-moments,
which merge exactly. --stream on (or auto, for a Parquet input too large for the
memory limit) streams the input once for them, one batch in memory, fits, and reads
it again to place its rows in --out: memory grows with features² × classes, not
rows (ids are not checked for duplicates then); --model-out without --out
streams in one pass. --partials-out P writes the
statistics of the rows read (a shard, a partition); --from-partials DIR|GLOB merges
such files in path order and fits them, equal to the fit of all their rows to
rounding (features and label come from the partials).`

const (
	inHelp  = "input table: .parquet (file, glob or directory of parts), .arrow/.feather, .csv, or - for an Arrow IPC stream on stdin (needed unless from-partials)"
	outHelp = "output table: .parquet (zstd), .arrow, .csv, or - for an Arrow IPC stream on stdout (needed unless partials-out or from-partials)"
)

// InputRoles are the inputs of a linear stage: the rows, or partials.
func InputRoles() []transforms.Role {
	return []transforms.Role{
		{Name: "in", Help: inHelp},
		{Name: "from-partials", Help: "fit from partials tables written with partials-out (a file, glob or directory), merged in path order, instead of in"},
	}
}

// OutputRoles are the outputs of a linear stage.
func OutputRoles() []transforms.Role {
	return []transforms.Role{
		{Name: "out", Help: outHelp, Kind: table.Embedding},
		{Name: "model-out", Help: "also save the fitted model (Parquet) for ordinate apply", Kind: table.Model, Models: []string{affine.Kind}},
		{Name: "partials-out", Help: "write the rows' statistics (class counts, means, co-moments) for a later fit with from-partials", Kind: table.Partials},
	}
}
