package transforms

import (
	"fmt"

	"github.com/ordinate/ordinate/kernels"
)

// parseCorrection maps a --correction name to the spectrum correction. The
// fisher stage's glue moved to transforms/fisher (with its own Correction
// option type); this is left for ckpcafit.go until that glue moves too.
func parseCorrection(name string) (kernels.Correction, error) {
	switch name {
	case "clip":
		return kernels.Clip, nil
	case "flip":
		return kernels.Flip, nil
	case "shift":
		return kernels.Shift, nil
	case "none":
		return kernels.None, nil
	}
	return 0, fmt.Errorf("%w: --correction %q: want clip, flip, shift or none", ErrOption, name)
}
