package triplets

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// Stage generates conditional ordinal triplets from a table of categorical
// attributes, one aspect per attribute column: the triplets stage.
type Stage struct{}

// Options are the options of Stage.
type Options struct {
	ID           string   `opt:"id" help:"object id column (unique; default: a row column of 0-based row numbers)"`
	Aspects      []string `opt:"aspects" help:"attribute columns, comma list of names and globs (default: every column but the id)"`
	Exclude      []string `opt:"exclude" help:"columns to leave out of the aspects (names and globs)"`
	Pairs        Pairs    `opt:"pairs" help:"the pairs (i, j) that share a value: i != j in both orders (ordered) or i < j (unordered)"`
	PerAspect    int      `opt:"per-aspect" range:"[0,)" help:"sample this many triplets per aspect uniformly (0: all)"`
	SplitObjects float64  `opt:"split-objects" range:"[0,1)" help:"observe this fraction of the objects per aspect (0: no split)"`
	Seed         uint64   `opt:"seed" help:"random seed (any whole number ≥ 0); the same input, seed and thread count give bit-identical output"`
}

// DefaultOptions returns the defaults: every column an aspect, ordered
// pairs, all triplets, no split, seed 1.
func DefaultOptions() Options {
	return Options{Aspects: []string{"*"}, Exclude: []string{}, Pairs: Ordered, Seed: 1}
}

// NewOptions returns the defaults (DefaultOptions).
func (Stage) NewOptions() transforms.Options {
	o := DefaultOptions()
	return &o
}

// Info describes the stage.
func (Stage) Info() transforms.Info {
	return transforms.Info{
		Name:     "triplets",
		Category: transforms.CategoryData,
		Summary:  "generate conditional ordinal triplets from categorical attributes, one aspect per attribute",
		Usage:    "ordinate triplets --in ATTRS [--id COL] [--aspects SPEC] [--exclude SPEC] [--pairs ordered|unordered] [--per-aspect N] [--split-objects R --split-out S] --out TRIPLETS",
		Doc: `For every aspect (attribute) t, <i, j, k>_t is a triplet whenever objects i and j
share the value of t and k does not (under t, j is more similar to i than to k).
--pairs ordered takes i != j in both orders; unordered only i < j. An empty value
(or null) leaves the object out of that aspect. Triplets stream to the output in
batches (aspect, then i, j, k ascending); all of them never sit in memory. Every
column is read as categories: a numeric column with more than 12 distinct values
(a measurement such as a displacement) becomes an aspect whose every value is a
category of its own, with a warning naming it and its count; bin it first, or
leave it out with --exclude.

--per-aspect N samples N triplets per aspect uniformly without replacement (seeded).
--split-objects R is the evaluation protocol of Le & Lauw: per aspect a random
fraction R of the objects is observed; the output gets a column split = train
(all three objects observed) or hidden (at least one not), and --split-out writes
the observed objects (aspect, id, observed) so that the same split can be scored.`,
		Examples: []string{
			"ordinate triplets --in testdata/zoo/zoo.csv --exclude animal_name,type_name --out zoo-triplets.parquet",
			"ordinate triplets --in testdata/house-votes-84/house-votes-84-complete.csv --id row_id --exclude party --pairs unordered --per-aspect 20000 --split-objects 0.5 --split-out split.parquet --out hv.parquet",
		},
		Inputs: []transforms.Role{{Name: "in", Help: "attribute table: one categorical column per aspect", Required: true}},
		Outputs: []transforms.Role{
			{Name: "out", Help: "triplet table (i, j, k, aspect and, with a split, split)", Kind: table.Triplets, Required: true},
			{Name: "split-out", Help: "with --split-objects: the observed objects (aspect, id, observed)", Kind: table.Split},
		},
	}
}

// Run generates the triplets and writes them, streaming, to "out", and
// the split to "split-out" when it is wanted.
func (Stage) Run(ctx context.Context, env *transforms.Env, opts transforms.Options) error {
	o := opts.(*Options)
	if env.Has("split-out") && o.SplitObjects == 0 {
		return transforms.Optionf("split-out", "needs split-objects (the fraction of objects to observe)")
	}
	f, names, err := readAttributes(ctx, env, o)
	if err != nil {
		return err
	}
	defer f.Release()
	values := make([][]string, len(f.Keep))
	for t, a := range f.Keep {
		values[t] = make([]string, f.N)
		for i := range f.N {
			if !a.IsNull(i) {
				values[t][i] = a.ValueStr(i)
			}
		}
	}
	codes := Encode(values)
	if w := numericAspects(f.KeepFields, codes); w != "" {
		env.Warn("%s: %s", f.Source.Path, w)
	}
	counts := Count(codes, o.Pairs)
	var total int64
	for _, n := range counts {
		total += n
	}
	env.Log.Info("triplets", "objects", f.N, "aspects", len(names), "triplets", total)
	// No triplet at all is an error, not an empty table: every consumer
	// (score, tste, soe, evaluate) would fail on it later, further from the
	// cause. An aspect without triplets beside others is only a warning.
	if total == 0 {
		return fmt.Errorf("%w: %s: %d objects, %d aspects: no aspect has two objects sharing a value and a third with another value (a triplet needs at least 3 objects and 2 values)",
			ErrNoTriplets, f.Source.Path, f.N, len(names))
	}
	var none []string
	for t, n := range counts {
		if n == 0 {
			none = append(none, strconv.Quote(names[t]))
		}
	}
	if len(none) > 0 {
		env.Warn("%s: aspects with no triplets (every value held by one object, or by all): %s", f.Source.Path, strings.Join(none, ", "))
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x7269706c6574)) // "riplet"
	var split *Split
	if o.SplitObjects > 0 {
		s := SplitObjects(rng, len(names), f.N, o.SplitObjects)
		split = &s
	}

	ids := table.NewIDColumn(f.ID)
	schema := table.TripletsSchema(ids.Type(), split != nil)
	w, err := env.Create(ctx, "out", schema)
	if err != nil {
		return err
	}
	defer w.Abort()
	var hidden int64
	var train []bool
	emit := func(t *Table) error {
		if split != nil {
			train = train[:0]
			for r := range t.Len() {
				ok := split.observed(t, r)
				train = append(train, ok)
				if !ok {
					hidden++
				}
			}
		}
		rec := table.TripletsRecord(env.Mem, schema, ids, names, t, train)
		defer rec.Release()
		env.Progress.Add(int64(t.Len()))
		return w.Write(rec)
	}
	written := total
	if o.PerAspect > 0 {
		written = 0
		for _, n := range counts {
			written += min(n, int64(o.PerAspect))
		}
	}
	env.Progress.Start("generating triplets", written)
	if o.PerAspect > 0 {
		err = emit(Sample(codes, o.Pairs, o.PerAspect, rng))
	} else {
		err = Generate(ctx, codes, o.Pairs, 1<<16, emit)
	}
	env.Progress.Finish()
	if err != nil {
		return err
	}
	env.Figures(map[string]any{"objects": f.N, "aspects": names, "triplets_per_aspect": counts, "triplets_available": total})
	if split != nil {
		env.Figures(map[string]any{"hidden": hidden, "train": w.Rows() - hidden})
	}
	if err := env.Close("out", w); err != nil {
		return err
	}
	if env.Has("split-out") {
		rec := table.SplitRecord(env.Mem, table.SplitSchema(ids.Type()), ids, names, split.Observed)
		defer rec.Release()
		return env.WriteRecord(ctx, "split-out", rec)
	}
	return nil
}

// readAttributes reads the id column and the aspect columns (as text) of
// the input, and checks that the ids are unique.
func readAttributes(ctx context.Context, env *transforms.Env, o *Options) (*arrowio.Frame, []string, error) {
	r, err := env.Open(ctx, "in")
	if err != nil {
		return nil, nil, err
	}
	var keep []string
	for _, fl := range r.Schema().Fields() {
		if fl.Name == o.ID || matchAny(o.Exclude, fl.Name) || !matchAny(o.Aspects, fl.Name) {
			continue
		}
		keep = append(keep, fl.Name)
	}
	// One open: a stream on stdin cannot be read twice.
	defer r.Release()
	src := r.Source().Path
	if len(keep) == 0 {
		return nil, nil, transforms.Optionf("aspects", "%v selects no column of %s", o.Aspects, src)
	}
	f, err := env.ReadFrom(ctx, "in", r, arrowio.Selection{ID: o.ID, NoFeatures: true, Keep: keep})
	if err != nil {
		return nil, nil, err
	}
	seen := make(map[string]int, f.N)
	for i := range f.N {
		v := f.ID.ValueStr(i)
		if first, dup := seen[v]; dup {
			f.Release()
			return nil, nil, &transforms.DataError{File: f.Source.Path, Column: f.IDName, Row: f.Rows[i], ID: v,
				Err: fmt.Errorf("%w: duplicate id (also row %d); triplets name objects by id, so ids must be unique (leave out id to use row numbers)",
					arrowio.ErrInvalidValue, f.Rows[first])}
		}
		seen[v] = i
	}
	names := make([]string, len(f.KeepFields))
	for t, fl := range f.KeepFields {
		names[t] = fl.Name
	}
	return f, names, nil
}

// maxNumericLevels is the most distinct values a numeric column turned into
// an aspect takes without a warning: class-like codes (1–12) pass,
// measurements do not.
const maxNumericLevels = 12

// numericAspects returns a warning naming the numeric aspect columns
// (integers, floats, decimals: not dictionaries, which declare categories)
// with more than maxNumericLevels distinct values, with their counts; or
// "". Each distinct value becomes a category of its own, so 20.1 and 20.2
// are as different as 20.1 and 90: rarely what a measurement means.
func numericAspects(fields []arrow.Field, codes Codes) string {
	var many []string
	for t, fl := range fields {
		if fl.Type.ID() == arrow.DICTIONARY || !arrowio.IsNumeric(fl.Type) {
			continue
		}
		levels := int32(0)
		for _, c := range codes[t] {
			levels = max(levels, c+1)
		}
		if levels > maxNumericLevels {
			many = append(many, fmt.Sprintf("%q (%d distinct values)", fl.Name, levels))
		}
	}
	if len(many) == 0 {
		return ""
	}
	return fmt.Sprintf("numeric columns turned into categorical aspects, each distinct value a category of its own: %s; objects share a category only when their values are equal, so bin these columns first, or leave them out (exclude)",
		strings.Join(many, ", "))
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok || p == name {
			return true
		}
	}
	return false
}

// init registers the stage (package all imports every method).
func init() {
	transforms.Register(Stage{})
}
