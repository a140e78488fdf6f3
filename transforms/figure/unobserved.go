package figure

import (
	"context"
	"fmt"
	"slices"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// A SCORE (or OE) maps table places every object in every aspect's map,
// also the objects that no triplet of that aspect names: their places
// follow only from the other aspects and the shared sphere, and they sit
// at the same off-cluster spots in every panel. The maps table does not
// say which they are; the triplets it was fitted on do.

// Observed is which objects each aspect's triplets name.
type Observed map[string]map[string]bool

// ReadObserved reads the triplet table r that maps with provenance
// mapsProv were fitted on: the objects each aspect's fitted triplets name
// (the train triplets of a split unless the fit took them all). The
// columns are those the fit recorded (triplet_columns).
func ReadObserved(ctx context.Context, r arrowio.Reader, mapsProv *arrowio.Provenance) (Observed, *table.TripletInput, error) {
	cols := table.DefaultTripletColumns
	all := false
	if mapsProv != nil {
		if s, ok := mapsProv.Params["triplet_columns"].(string); ok && s != "" {
			if err := cols.UnmarshalText([]byte(s)); err != nil {
				return nil, nil, fmt.Errorf("%s: triplet_columns %q: %w", r.Source().Path, s, err)
			}
		}
		all, _ = mapsProv.Params["all"].(bool)
	}
	in, err := table.ReadTriplets(ctx, r, nil, arrowio.InvalidDrop, cols)
	if err != nil {
		return nil, nil, err
	}
	t := in.Table
	obs := Observed{}
	for n := range t.Len() {
		if in.Train != nil && !all && !in.Train[n] {
			continue
		}
		a := in.Aspects.Names[t.Aspect[n]]
		if obs[a] == nil {
			obs[a] = map[string]bool{}
		}
		for _, o := range []int32{t.I[n], t.J[n], t.K[n]} {
			obs[a][in.Objects.Names[o]] = true
		}
	}
	return obs, in, nil
}

// Unobserved returns, per row of aspects and ids, whether the row's
// aspect never observed its object. A row whose aspect the triplets do not
// name, as in one map for all aspects (SCORE --single-map writes the
// aspect "all"), or a table without an aspect column, counts an object
// observed when any aspect observed it.
func (o Observed) Unobserved(aspects, ids []string) []bool {
	out := make([]bool, len(ids))
	for i, id := range ids {
		if aspects != nil {
			if seen, ok := o[aspects[i]]; ok {
				out[i] = !seen[id]
				continue
			}
		}
		out[i] = true // one map: observed by any aspect
		for _, seen := range o {
			out[i] = out[i] && !seen[id]
		}
	}
	return out
}

// MarkUnobserved sets p.Unobserved for the rows of the maps frame f (read
// with its id column; p drawn from f) from the triplet table r that the
// maps, with provenance mapsProv, were fitted on. It returns the triplets
// read, and an error wrapping transforms.ErrInvalidData when r names none
// of several aspects of f (the wrong triplet table).
func MarkUnobserved(ctx context.Context, r arrowio.Reader, mapsProv *arrowio.Provenance, f *arrowio.Frame, p *Points) (*table.TripletInput, error) {
	obs, in, err := ReadObserved(ctx, r, mapsProv)
	if err != nil {
		return nil, err
	}
	ids := make([]string, f.N)
	for i := range f.N {
		ids[i] = valueString(f.ID, i)
	}
	// Several panels none of which is an aspect of the triplets: the wrong
	// triplet table. (One panel is one map for all aspects.)
	if levels := Levels(p.Facet, nil); len(levels) > 1 && !slices.ContainsFunc(levels, func(a string) bool { return obs[a] != nil }) {
		return nil, fmt.Errorf("%w: %s names none of the aspects of %s", transforms.ErrInvalidData, r.Source().Path, f.Source.Path)
	}
	p.Unobserved = obs.Unobserved(p.Facet, ids)
	return in, nil
}

// readObserved marks, from the stage's input "triplets", the rows of the
// maps frame f that their aspect never observed.
func readObserved(ctx context.Context, env *transforms.Env, prov *arrowio.Provenance, f *arrowio.Frame, p *Points) error {
	r, err := env.Open(ctx, "triplets")
	if err != nil {
		return err
	}
	defer r.Release()
	in, err := MarkUnobserved(ctx, r, prov, f, p)
	if err != nil {
		return err
	}
	env.Input("triplets", r.Source(), int64(in.Table.Len())+in.Dropped, in.Dropped, transforms.TableProvenance(r.Schema()))
	return nil
}
