package transforms

import (
	"encoding/json"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// PartialsMetadataKey is the schema metadata key of a partials table's
// header (package moments): such a table is no data table either.
const PartialsMetadataKey = "ordinate.partials"

// ErrModelAsData marks a model file given where a stage reads a data table.
var ErrModelAsData = NewSentinel(ErrInvalidOption, "a model file, not a data table")

// ErrPartialsAsData marks a partials table given where a stage reads a
// data table.
var ErrPartialsAsData = NewSentinel(ErrInvalidOption, "partial statistics, not a data table")

// checkDataTable refuses a model file (a table whose schema carries the
// model header, ModelMetadataKey) opened for an input role that reads data:
// fitted as data, its reference rows, embedding and neighbour columns would
// be taken for features, or the run would fail on a perplexity or a column
// that is not there. Roles that take models (Role.Models: apply's model)
// and variadic roles (report's tables, shown as they are) accept one; so
// does a role the stage does not declare. A partials table (its header
// under PartialsMetadataKey) is refused the same way, except by
// from-partials, with ErrPartialsAsData.
func (env *Env) checkDataTable(role, path string, schema *arrow.Schema) error {
	if schema == nil {
		return nil
	}
	md := schema.Metadata()
	base, _, _ := strings.Cut(role, "#")
	i := md.FindKey(ModelMetadataKey)
	partials := md.FindKey(PartialsMetadataKey) >= 0
	if i < 0 && !partials {
		return nil
	}
	declared := false
	for _, r := range env.info.Inputs {
		if r.Name == base {
			declared = true
			if len(r.Models) > 0 || r.Variadic {
				return nil
			}
		}
	}
	if !declared || base == "from-partials" {
		return nil
	}
	if partials {
		return Optionf(role, "%w: %s was written with partials-out: fit it with from-partials", ErrPartialsAsData, path)
	}
	var h struct {
		Kind  string `json:"kind"`
		Stage string `json:"stage"`
	}
	what := "a fitted model"
	if json.Unmarshal([]byte(md.Values()[i]), &h) == nil && h.Stage != "" {
		what = "a " + h.Stage + " model"
		if h.Kind != "" && h.Kind != h.Stage {
			what += " (" + h.Kind + ")"
		}
	}
	return Optionf(role, "%w: %s holds %s: use it with ordinate apply --model", ErrModelAsData, path, what)
}
