package main

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/table"
	"github.com/ordinate/ordinate/transforms/triplets"
)

// readTripletTable reads --in as triplets, with ids from --objects if given.
// readFitTriplets checks --out, reads the triplet table and returns the
// triplets to fit: the train triplets of a split unless --all.
func readFitTriplets(e *env, c *cli.Context) (*table.TripletInput, *triplets.Table, error) {
	if err := checkOutPath(c.String("in"), c.String("out")); err != nil {
		return nil, nil, err
	}
	in, err := readTripletTable(e, c)
	if err != nil {
		return nil, nil, err
	}
	t := in.Table
	if in.Train != nil && !c.Bool("all") {
		t = table.Subset(t, in.Train, true)
		e.log.Info("fitting the train triplets of the split", "train", t.Len(), "hidden", in.Table.Len()-t.Len())
	}
	return in, t, nil
}

func readTripletTable(e *env, c *cli.Context) (*table.TripletInput, error) {
	sel, err := selection(c)
	if err != nil {
		return nil, err
	}
	var objects *table.Indexer
	if op := c.String("objects"); op != "" {
		if c.String("id") == "" {
			return nil, usagef("--objects needs --id naming its id column")
		}
		of, err := e.readFrame("objects", op, arrowio.Selection{ID: c.String("id"), NoFeatures: true, Keep: []string{}})
		if err != nil {
			return nil, err
		}
		objects = table.NewIndexer()
		for i := range of.N {
			objects.Add(of.ID.ValueStr(i))
		}
		of.Release()
		objects.Fixed = true
	}
	r, err := e.open(c.String("in"))
	if err != nil {
		return nil, err
	}
	defer r.Release()
	cols, err := tripletColumns(c)
	if err != nil {
		return nil, err
	}
	in, err := table.ReadTriplets(e.ctx, r, objects, sel.OnInvalid, cols)
	if err != nil {
		return nil, badInput(err)
	}
	src := r.Source()
	e.prov.Inputs = append(e.prov.Inputs, arrowio.InputInfo{Role: "in", Path: c.String("in"), Files: src.Files,
		Rows: int64(in.Table.Len()) + in.Dropped, Bytes: src.Bytes, Dropped: in.Dropped})
	if in.Dropped > 0 {
		e.warn(fmt.Sprintf("dropped %d invalid triplets (--on-invalid drop)", in.Dropped))
	}
	return in, nil
}

// writeMaps writes per-aspect maps: aspect, id, emb_0 … emb_{d−1}.
func writeMaps(e *env, out string, ids, aspects []string, maps [][]float64, d int, figures map[string]any) error {
	fields := append([]arrow.Field{{Name: "aspect", Type: arrow.BinaryTypes.String}, {Name: "id", Type: arrow.BinaryTypes.String}},
		float64Fields("emb_", d)...)
	return e.writeTable(out, arrow.NewSchema(fields, nil), func(b *array.RecordBuilder) {
		for t, name := range aspects {
			for i, id := range ids {
				b.Field(0).(*array.StringBuilder).Append(name)
				b.Field(1).(*array.StringBuilder).Append(id)
				for j := range d {
					b.Field(2 + j).(*array.Float64Builder).Append(maps[t][i*d+j])
				}
			}
		}
	}, figures)
}

// flagTripletColumns names the columns of a triplet table.
var flagTripletColumns = &cli.StringFlag{Name: "triplet-columns", Value: "i,j,k,aspect",
	Usage: "names of the i, j, k and (optional) aspect columns of the triplet table, comma list"}

func tripletColumns(c *cli.Context) (table.TripletColumns, error) {
	names := splitList(c.String("triplet-columns"))
	if len(names) < 3 || len(names) > 4 {
		return table.TripletColumns{}, usagef("--triplet-columns %q: want three or four names (i, j, k and aspect)", c.String("triplet-columns"))
	}
	cols := table.TripletColumns{I: names[0], J: names[1], K: names[2]}
	if len(names) == 4 {
		cols.Aspect = names[3]
	}
	return cols, nil
}
