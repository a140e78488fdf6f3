package main

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms/quality"
	"github.com/ordinate/ordinate/transforms/table"
	"github.com/ordinate/ordinate/transforms/triplets"
)

// aspectMaps are per-aspect maps read from a maps table (aspect, id, emb_*).
type aspectMaps struct {
	objects *table.Indexer
	aspects *table.Indexer
	maps    [][]float64 // maps[a] is objects×dims
	dims    int
}

// readMaps reads a maps table written by score, tste or soe.
func readMaps(e *env, path string) (*aspectMaps, error) {
	f, err := e.readFrame("embedding", path, arrowio.Selection{ID: "id", Features: []string{"emb_*"}, Keep: []string{"aspect"}})
	if err != nil {
		return nil, err
	}
	defer f.Release()
	m := &aspectMaps{objects: table.NewIndexer(), aspects: table.NewIndexer(), dims: f.D}
	obj, asp := make([]int32, f.N), make([]int32, f.N)
	for r := range f.N {
		obj[r], asp[r] = m.objects.Index(f.ID, r), m.aspects.Index(f.Keep[0], r)
		if asp[r] < 0 {
			return nil, badInput(&arrowio.Error{File: path, Column: "aspect", Row: f.Rows[r], Err: fmt.Errorf("%w: null aspect", arrowio.ErrInvalidValue)})
		}
	}
	n, d := m.objects.Len(), m.dims
	m.maps = make([][]float64, m.aspects.Len())
	seen := make([][]bool, len(m.maps))
	for a := range m.maps {
		m.maps[a], seen[a] = make([]float64, n*d), make([]bool, n)
	}
	for r := range f.N {
		a, i := asp[r], obj[r]
		if seen[a][i] {
			return nil, badInput(&arrowio.Error{File: path, Row: f.Rows[r], ID: m.objects.Names[i],
				Err: fmt.Errorf("%w: object appears twice in map %q", arrowio.ErrInvalidValue, m.aspects.Names[a])})
		}
		seen[a][i] = true
		copy(m.maps[a][int(i)*d:(int(i)+1)*d], f.X[r*d:(r+1)*d])
	}
	for a := range seen {
		for i, ok := range seen[a] {
			if !ok {
				return nil, badInput(&arrowio.Error{File: path, Row: -1, Err: fmt.Errorf("%w: map %q has no row for object %q",
					arrowio.ErrInvalidValue, m.aspects.Names[a], m.objects.Names[i])})
			}
		}
	}
	m.objects.Fixed = true
	return m, nil
}

// evaluateTriplets scores maps against a triplet table: triplet accuracy
// (Eq. 10 of Le & Lauw) per aspect and averaged, on all triplets and, with
// a split column, on the train and hidden ones.
func evaluateTriplets(e *env, c *cli.Context) error {
	m, err := readMaps(e, c.String("embedding"))
	if err != nil {
		return err
	}
	r, err := e.open(c.String("triplets"))
	if err != nil {
		return err
	}
	defer r.Release()
	cols, err := tripletColumns(c)
	if err != nil {
		return err
	}
	in, err := table.ReadTriplets(e.ctx, r, m.objects, arrowio.InvalidError, cols)
	if err != nil {
		return badInput(err)
	}
	// Map each triplet aspect to its map: the map of the same name, or the
	// single map "all".
	maps := make([][]float64, in.Aspects.Len())
	for a, name := range in.Aspects.Names {
		k := -1
		for b, mn := range m.aspects.Names {
			if mn == name || (len(m.aspects.Names) == 1 && mn == "all") {
				k = b
			}
		}
		if k < 0 {
			return badInput(fmt.Errorf("%s: no map for aspect %q (maps: %v)", c.String("embedding"), name, m.aspects.Names))
		}
		maps[a] = m.maps[k]
	}
	rep := &quality.Report{N: m.objects.Len()}
	add := func(subset string, t *triplets.Table) {
		if t.Len() == 0 {
			return
		}
		per, mean := quality.TripletAccuracy(t, maps, m.dims)
		rep.Rows = append(rep.Rows, quality.Row{Metric: "triplet_accuracy", Subset: subset, Value: mean})
		for a, v := range per {
			if !math.IsNaN(v) {
				rep.Rows = append(rep.Rows, quality.Row{Metric: "triplet_accuracy", Subset: subset + "/" + in.Aspects.Names[a], Value: v})
			}
		}
	}
	add("all", in.Table)
	if in.Train != nil {
		add("train", table.Subset(in.Table, in.Train, true))
		add("hidden", table.Subset(in.Table, in.Train, false))
	}
	if sp := c.String("split"); sp != "" {
		if err := hiddenKNN(e, c, m, maps, in.Aspects.Names, rep); err != nil {
			return err
		}
	}
	if err := writeMetrics(e, c.String("out"), rep); err != nil {
		return err
	}
	if !c.Bool("quiet") {
		for _, row := range rep.Rows {
			if row.Subset == "all" || row.Subset == "train" || row.Subset == "hidden" {
				name := "triplet accuracy"
				if row.Metric != "triplet_accuracy" {
					name = fmt.Sprintf("%d-NN accuracy of hidden objects by attribute value", row.K)
				}
				fmt.Fprintf(e.stdout, "%s (%s): %.4f\n", name, row.Subset, row.Value)
			}
		}
	}
	return nil
}

// hiddenKNN adds the paper's k-NN classification of hidden objects: for each
// aspect, every object the split hid is classified by majority vote of its k
// nearest observed objects in that aspect's map, against its attribute value.
func hiddenKNN(e *env, c *cli.Context, m *aspectMaps, maps [][]float64, aspects []string, rep *quality.Report) error {
	attrs := c.String("attributes")
	if attrs == "" {
		return usagef("--split needs --attributes ATTRS (the table the triplets were made from, with --id if it was used)")
	}
	k := 10
	if ks, err := parseKs(c.String("k")); err == nil && len(ks) == 1 && c.IsSet("k") {
		k = ks[0]
	}
	f, err := e.readFrame("attributes", attrs, arrowio.Selection{ID: c.String("id"), NoFeatures: true, Keep: aspects})
	if err != nil {
		return err
	}
	defer f.Release()
	n := m.objects.Len()
	obj := make([]int32, f.N) // attribute row -> map object, −1 if not in the maps
	for r := range f.N {
		obj[r] = m.objects.Index(f.ID, r)
	}
	values := make([][]string, len(aspects))
	for t := range aspects {
		values[t] = make([]string, n)
		for r := range f.N {
			if obj[r] >= 0 && !f.Keep[t].IsNull(r) {
				values[t][obj[r]] = f.Keep[t].ValueStr(r)
			}
		}
	}
	codes := triplets.Encode(values)
	sf, err := e.readFrame("split", c.String("split"), arrowio.Selection{ID: "id", NoFeatures: true, Keep: []string{"aspect", "observed"}})
	if err != nil {
		return err
	}
	defer sf.Release()
	aspectIdx := table.NewIndexer()
	for _, a := range aspects {
		aspectIdx.Add(a)
	}
	aspectIdx.Fixed = true
	obs, ok := sf.Keep[1].(*array.Boolean)
	if !ok {
		return badInput(&arrowio.Error{File: c.String("split"), Column: "observed", Row: -1, Err: fmt.Errorf("%w: want a boolean column", arrowio.ErrColumnType)})
	}
	hidden := make([][]bool, len(aspects))
	for t := range hidden {
		hidden[t] = make([]bool, n)
	}
	for r := range sf.N {
		t, i := aspectIdx.Index(sf.Keep[0], r), m.objects.Index(sf.ID, r)
		if t >= 0 && i >= 0 && !obs.IsNull(r) {
			hidden[t][i] = !obs.Value(r)
		}
	}
	per, mean := quality.HiddenKNNAccuracy(maps, m.dims, codes, hidden, k)
	rep.Rows = append(rep.Rows, quality.Row{Metric: "hidden_knn_accuracy", K: k, Subset: "hidden", Value: mean})
	for t, v := range per {
		if !math.IsNaN(v) {
			rep.Rows = append(rep.Rows, quality.Row{Metric: "hidden_knn_accuracy", K: k, Subset: "hidden/" + aspects[t], Value: v})
		}
	}
	return nil
}
