package figure

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// MaxHeatMapObjects is the most objects a distance heat map draws.
const MaxHeatMapObjects = 2000

// PairsSelection reads a long distance table (kind distance_pairs: i, j,
// distance) for DistanceHeatMap.
func PairsSelection() arrowio.Selection {
	return arrowio.Selection{ID: "i", Features: []string{"distance"}, Keep: []string{"j"}}
}

// DistanceHeatMap draws a long distance table, read with PairsSelection, as
// a heat map, its objects ordered by class (classes maps an object id to its
// class; nil: by id).
func DistanceHeatMap(w io.Writer, format string, pf *arrowio.Frame, classes map[string]string, o Style) error {
	type pair struct {
		i, j string
		d    float64
	}
	pairs := make([]pair, pf.N)
	ids := map[string]bool{}
	for k := range pairs {
		p := pair{pf.ID.ValueStr(k), pf.Keep[0].ValueStr(k), pf.X[k]}
		pairs[k] = p
		ids[p.i], ids[p.j] = true, true
	}
	if len(ids) > MaxHeatMapObjects {
		return fmt.Errorf("%w: %d objects: a heat map is drawn up to %d", ErrInput, len(ids), MaxHeatMapObjects)
	}
	order := make([]string, 0, len(ids))
	for id := range ids {
		order = append(order, id)
	}
	sort.SliceStable(order, func(a, b int) bool {
		ca, cb := classes[order[a]], classes[order[b]]
		if ca != cb {
			return ca < cb
		}
		na, ea := strconv.ParseFloat(order[a], 64)
		nb, eb := strconv.ParseFloat(order[b], 64)
		if ea == nil && eb == nil {
			return na < nb
		}
		return order[a] < order[b]
	})
	pos := make(map[string]int, len(order))
	for k, id := range order {
		pos[id] = k
	}
	n := len(order)
	m := make([]float64, n*n)
	for k := range m {
		m[k] = math.NaN()
	}
	for i := range n {
		m[i*n+i] = 0
	}
	for _, p := range pairs {
		m[pos[p.i]*n+pos[p.j]] = p.d
		if math.IsNaN(m[pos[p.j]*n+pos[p.i]]) {
			m[pos[p.j]*n+pos[p.i]] = p.d
		}
	}
	var group []string
	if len(classes) > 0 {
		group = make([]string, n)
		for k, id := range order {
			group[k] = classes[id]
		}
	}
	if o.ColorLabel == "" {
		o.ColorLabel = "distance"
	}
	return HeatMap(w, format, m, n, group, o)
}

// ObjectClasses reads the class of every object of a distance table from
// the table its stage read its labels from (input role labels, else
// similarity or in, as the provenance records them), by the stage's id and
// label options; nil when they cannot be found or read.
func ObjectClasses(ctx context.Context, p *arrowio.Provenance, mem memory.Allocator) map[string]string {
	if p == nil {
		return nil
	}
	id, _ := p.Params["id"].(string)
	label, _ := p.Params["label"].(string)
	if id == "" || label == "" {
		return nil
	}
	for _, role := range []string{"labels", "similarity", "in"} {
		path := ""
		for _, in := range p.Inputs {
			if in.Role == role {
				path = in.Path
			}
		}
		if path == "" {
			path, _ = p.Params[role].(string) // outputs of older versions
		}
		if path == "" || path == "-" {
			continue
		}
		r, err := arrowio.Open(ctx, path, arrowio.WithReadAllocator(mem))
		if err != nil {
			continue
		}
		f, err := arrowio.ReadFrame(ctx, r, arrowio.Selection{ID: id, Label: label, NoFeatures: true, Keep: []string{}}, arrowio.WithFrameAllocator(mem))
		r.Release()
		if err != nil {
			continue
		}
		out := make(map[string]string, f.N)
		for i := range f.N {
			out[f.ID.ValueStr(i)] = f.Label.Text(i)
		}
		f.Release()
		return out
	}
	return nil
}
