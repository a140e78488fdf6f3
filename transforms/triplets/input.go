package triplets

import (
	"context"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// FitInput are the options of the stages that fit maps to a triplet table
// (score, tste, soe): how the table is read and which of its triplets are
// fitted. Those stages embed it in their options.
type FitInput struct {
	ID        string               `opt:"id" help:"id column of the objects table"`
	All       bool                 `opt:"all" help:"fit every triplet, also those marked split = hidden"`
	OnInvalid arrowio.OnInvalid    `opt:"on-invalid" help:"a null id, an unknown id or a triplet that repeats an object: error (stop, naming file, column and row) or drop (drop the triplet and report how many)"`
	Columns   table.TripletColumns `opt:"triplet-columns" help:"names of the i, j, k and (optional) aspect columns of the triplet table, comma list"`
}

// DefaultFitInput is FitInput with its defaults.
func DefaultFitInput() FitInput {
	return FitInput{OnInvalid: arrowio.InvalidError, Columns: table.DefaultTripletColumns}
}

// FitRoles are the input roles of a stage that fits maps to triplets: the
// triplet table (in) and the optional objects table.
func FitRoles(objectsHelp string) []transforms.Role {
	return []transforms.Role{
		{Name: "in", Help: "triplet table (i, j, k and optional aspect and split)", Kind: table.Triplets, Required: true},
		{Name: "objects", Help: objectsHelp},
	}
}

// ReadFit reads the triplet table of role "in", with ids from the objects
// table when one is given, and returns it with the triplets to fit: the
// train triplets of a split unless o.All. It is the shared prologue of
// score, tste and soe.
func ReadFit(ctx context.Context, env *transforms.Env, o FitInput) (*table.TripletInput, *Table, error) {
	var objects *table.Indexer
	if env.Has("objects") {
		if o.ID == "" {
			return nil, nil, transforms.Optionf("id", "the objects table needs id naming its id column")
		}
		of, err := env.ReadFrame(ctx, "objects", arrowio.Selection{ID: o.ID, NoFeatures: true, Keep: []string{}})
		if err != nil {
			return nil, nil, err
		}
		objects = table.NewIndexer()
		for i := range of.N {
			objects.Add(of.ID.ValueStr(i))
		}
		of.Release()
		objects.Fixed = true
	}
	r, err := env.Open(ctx, "in")
	if err != nil {
		return nil, nil, err
	}
	defer r.Release()
	env.Progress.Start("reading in", 0)
	in, err := table.ReadTriplets(ctx, r, objects, o.OnInvalid, o.Columns)
	env.Progress.Finish()
	if err != nil {
		return nil, nil, err
	}
	env.Input("in", r.Source(), int64(in.Table.Len())+in.Dropped, in.Dropped, transforms.TableProvenance(r.Schema()))
	if in.Dropped > 0 {
		env.Warn("dropped %d invalid triplets (on-invalid drop)", in.Dropped)
	}
	t := in.Table
	if in.Train != nil && !o.All {
		t = table.Subset(t, in.Train, true)
		env.Log.Info("fitting the train triplets of the split", "train", t.Len(), "hidden", in.Table.Len()-t.Len())
	}
	return in, t, nil
}
