package main

import (
	"fmt"
	"math"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/quality"
	"github.com/ordinate/ordinate/transforms/triplets"
)

// aspectMaps are per-aspect maps read from a maps table (aspect, id, emb_*).
type aspectMaps struct {
	objects *transforms.Indexer
	aspects *transforms.Indexer
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
	m := &aspectMaps{objects: transforms.NewIndexer(), aspects: transforms.NewIndexer(), dims: f.D}
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
	in, err := transforms.ReadTriplets(e.ctx, r, m.objects, arrowio.InvalidError)
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
		add("train", transforms.Subset(in.Table, in.Train, true))
		add("hidden", transforms.Subset(in.Table, in.Train, false))
	}
	if err := writeMetrics(e, c.String("out"), rep); err != nil {
		return err
	}
	if !c.Bool("quiet") {
		for _, row := range rep.Rows {
			if row.Subset == "all" || row.Subset == "train" || row.Subset == "hidden" {
				fmt.Fprintf(e.stdout, "triplet accuracy (%s): %.4f\n", row.Subset, row.Value)
			}
		}
	}
	return nil
}
