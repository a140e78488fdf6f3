package main

import (
	"fmt"
	"math/rand/v2"
	"path"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/triplets"
)

func tripletsCommand() *cli.Command {
	return &cli.Command{
		Name:  "triplets",
		Usage: "generate conditional ordinal triplets from categorical attributes, one aspect per attribute",
		UsageText: `ordinate triplets --in ATTRS [--id COL] [--aspects SPEC] [--exclude SPEC] [--pairs ordered|unordered] [--per-aspect N] [--split-objects R --split-out S] --out TRIPLETS

For every aspect (attribute) t, <i, j, k>_t is a triplet whenever objects i and j
share the value of t and k does not (under t, j is more similar to i than to k).
--pairs ordered takes i != j in both orders; unordered only i < j. An empty value
(or null) leaves the object out of that aspect. Triplets stream to the output in
batches (aspect, then i, j, k ascending); all of them never sit in memory.

--per-aspect N samples N triplets per aspect uniformly without replacement (seeded).
--split-objects R is the evaluation protocol of Le & Lauw: per aspect a random
fraction R of the objects is observed; the output gets a column split = train
(all three objects observed) or hidden (at least one not), and --split-out writes
the observed objects (aspect, id, observed) so that the same split can be scored.

Examples:
   ordinate triplets --in testdata/zoo/zoo.csv --exclude animal_name,type_name --out zoo-triplets.parquet
   ordinate triplets --in testdata/house-votes-84/house-votes-84-complete.csv --id row_id --exclude party --pairs unordered --per-aspect 20000 --split-objects 0.5 --split-out split.parquet --out hv.parquet`,
		Flags: append([]cli.Flag{
			flagIn, flagOut, &cli.StringFlag{Name: "id", Usage: "object id column (unique; default: a row column of 0-based row numbers)"},
			&cli.StringFlag{Name: "aspects", Value: "*", Usage: "attribute columns, comma list of names and globs (default: every column but the id)"},
			&cli.StringFlag{Name: "exclude", Usage: "columns to leave out of the aspects (names and globs)"},
			&cli.StringFlag{Name: "pairs", Value: "ordered", Usage: "ordered (i != j, both orders) or unordered (i < j)"},
			&cli.IntFlag{Name: "per-aspect", Usage: "sample this many triplets per aspect uniformly (0: all)"},
			&cli.Float64Flag{Name: "split-objects", Usage: "observe this fraction of the objects per aspect (0: no split)"},
			&cli.StringFlag{Name: "split-out", Usage: "with --split-objects: write the observed objects here"},
		}, commonFlags()...),
		Action: action(runTriplets),
	}
}

func runTriplets(c *cli.Context) error {
	e, err := newEnv(c, "triplets")
	if err != nil {
		return err
	}
	in, out := c.String("in"), c.String("out")
	if err := checkOutPath(in, out); err != nil {
		return err
	}
	pairs, err := triplets.ParsePairs(c.String("pairs"))
	if err != nil {
		return usagef("--pairs %q: want ordered or unordered", c.String("pairs"))
	}
	r := c.Float64("split-objects")
	if r < 0 || r >= 1 {
		return usagef("--split-objects %g: want a fraction in (0, 1)", r)
	}
	if c.String("split-out") != "" && r == 0 {
		return usagef("--split-out needs --split-objects")
	}
	f, names, err := readAttributes(e, in, c.String("id"), splitList(c.String("aspects")), splitList(c.String("exclude")))
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
	codes := triplets.Encode(values)
	counts := triplets.Count(codes, pairs)
	var total int64
	for _, n := range counts {
		total += n
	}
	e.log.Info("triplets", "objects", f.N, "aspects", len(names), "triplets", total)
	rng := rand.New(rand.NewPCG(c.Uint64("seed"), 0x7269706c6574)) // "riplet"
	var split *triplets.Split
	if r > 0 {
		s := triplets.SplitObjects(rng, len(names), f.N, r)
		split = &s
	}

	ic := newIDColumn(f.ID)
	fields := []arrow.Field{{Name: "i", Type: ic.typ}, {Name: "j", Type: ic.typ}, {Name: "k", Type: ic.typ}, {Name: "aspect", Type: arrow.BinaryTypes.String}}
	if split != nil {
		fields = append(fields, arrow.Field{Name: "split", Type: arrow.BinaryTypes.String})
	}
	schema := arrow.NewSchema(fields, nil)
	w, err := e.createSchema(out, schema)
	if err != nil {
		return err
	}
	defer w.Abort()
	b := array.NewRecordBuilder(e.mem, schema)
	defer b.Release()
	var hidden int64
	emit := func(t *triplets.Table) error {
		for r := range t.Len() {
			ic.append(b.Field(0), int(t.I[r]))
			ic.append(b.Field(1), int(t.J[r]))
			ic.append(b.Field(2), int(t.K[r]))
			b.Field(3).(*array.StringBuilder).Append(names[t.Aspect[r]])
			if split != nil {
				obs := split.Observed[t.Aspect[r]]
				if obs[t.I[r]] && obs[t.J[r]] && obs[t.K[r]] {
					b.Field(4).(*array.StringBuilder).Append("train")
				} else {
					b.Field(4).(*array.StringBuilder).Append("hidden")
					hidden++
				}
			}
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		e.prog.Add(int64(t.Len()))
		return w.Write(rec)
	}
	e.prog.Start("triplets", total)
	if n := c.Int("per-aspect"); n > 0 {
		err = emit(triplets.Sample(codes, pairs, n, rng))
	} else {
		err = triplets.Generate(e.ctx, codes, pairs, 1<<16, emit)
	}
	e.prog.Finish()
	if err != nil {
		return err
	}
	figures := map[string]any{"objects": f.N, "aspects": names, "triplets_per_aspect": counts, "triplets_available": total}
	if split != nil {
		figures["hidden"] = hidden
		figures["train"] = w.Rows() - hidden
	}
	if err := e.finish(w, figures); err != nil {
		return err
	}
	if so := c.String("split-out"); so != "" {
		return writeSplit(e, so, f, names, split)
	}
	return nil
}

// readAttributes reads the id column and the aspect columns (as text).
func readAttributes(e *env, in, id string, aspects, exclude []string) (*arrowio.Frame, []string, error) {
	r, err := e.open(in)
	if err != nil {
		return nil, nil, err
	}
	var keep []string
	for _, fl := range r.Schema().Fields() {
		if fl.Name == id || matchAny(exclude, fl.Name) || !matchAny(aspects, fl.Name) {
			continue
		}
		keep = append(keep, fl.Name)
	}
	r.Release()
	if len(keep) == 0 {
		return nil, nil, usagef("--aspects %v selects no column of %s", aspects, in)
	}
	f, err := e.readFrame("in", in, arrowio.Selection{ID: id, NoFeatures: true, Keep: keep})
	if err != nil {
		return nil, nil, err
	}
	seen := make(map[string]int, f.N)
	for i := range f.N {
		v := f.ID.ValueStr(i)
		if first, dup := seen[v]; dup {
			f.Release()
			return nil, nil, badInput(&arrowio.Error{File: in, Column: f.IDName, Row: f.Rows[i], ID: v,
				Err: fmt.Errorf("%w: duplicate id (also row %d); triplets name objects by id, so ids must be unique (leave out --id to use row numbers)",
					arrowio.ErrInvalidValue, f.Rows[first])})
		}
		seen[v] = i
	}
	names := make([]string, len(f.KeepFields))
	for t, fl := range f.KeepFields {
		names[t] = fl.Name
	}
	return f, names, nil
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok || p == name {
			return true
		}
	}
	return false
}

// writeSplit writes the observed objects of every aspect: aspect, id, observed.
func writeSplit(e *env, out string, f *arrowio.Frame, names []string, s *triplets.Split) error {
	ic := newIDColumn(f.ID)
	schema := arrow.NewSchema([]arrow.Field{{Name: "aspect", Type: arrow.BinaryTypes.String}, {Name: "id", Type: ic.typ},
		{Name: "observed", Type: arrow.FixedWidthTypes.Boolean}}, nil)
	return e.writeTable(out, schema, func(b *array.RecordBuilder) {
		for t, name := range names {
			for i := range f.N {
				b.Field(0).(*array.StringBuilder).Append(name)
				ic.append(b.Field(1), i)
				b.Field(2).(*array.BooleanBuilder).Append(s.Observed[t][i])
			}
		}
	}, map[string]any{"aspects": len(names), "objects": f.N})
}
