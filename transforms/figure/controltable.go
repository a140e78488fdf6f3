package figure

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// controlTableRole is the input role of the control-point table of ckpca
// and lsp (ckpca.ControlTableRole; not imported, which would make figure
// depend on a method).
const controlTableRole = "control-table"

// WithControlTable completes s, when it has no control columns, with the
// control points of a fit given by a control table (ckpca and lsp
// --control-table T --id ID): the ids T lists, matched on the ID column
// that the embedding passes through. The table is read from the path the
// provenance records; when it cannot be found or read, or the embedding has
// no such column, s is returned unchanged (the plot is then drawn without
// the marks, as for any table without control points).
func (s Spec) WithControlTable(ctx context.Context, schema *arrow.Schema, p *arrowio.Provenance, mem memory.Allocator) Spec {
	if s.Control != nil || s.ControlIDs != nil || p == nil {
		return s
	}
	id, _ := p.Params["id"].(string)
	path := ""
	for _, in := range p.Inputs {
		if in.Role == controlTableRole {
			path = in.Path
		}
	}
	if id == "" || path == "" || path == "-" || !schema.HasField(id) {
		return s
	}
	r, err := arrowio.Open(ctx, path, arrowio.WithReadAllocator(mem))
	if err != nil {
		return s
	}
	defer r.Release()
	f, err := arrowio.ReadFrame(ctx, r, arrowio.Selection{ID: id, NoFeatures: true, Keep: []string{}}, arrowio.WithFrameAllocator(mem))
	if err != nil {
		return s
	}
	defer f.Release()
	ids := make(map[string]bool, f.N)
	for i := range f.N {
		ids[f.ID.ValueStr(i)] = true
	}
	s.ControlIDColumn, s.ControlIDs = id, ids
	return s
}
