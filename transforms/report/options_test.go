package report

import (
	"errors"
	"testing"

	"github.com/ordinate/ordinate/transforms"
)

// TestOptions: the defaults validate and are what the stage starts from;
// an empty title is refused with an OptionError naming it.
func TestOptions(t *testing.T) {
	def := DefaultOptions()
	if err := transforms.Validate(&def); err != nil {
		t.Fatalf("DefaultOptions: %v", err)
	}
	if got := *(Stage{}).NewOptions().(*Options); got != def {
		t.Errorf("NewOptions %+v, want DefaultOptions %+v", got, def)
	}
	o := DefaultOptions()
	o.Title = ""
	var oe *transforms.OptionError
	if err := transforms.Validate(&o); !errors.As(err, &oe) || oe.Option != "title" {
		t.Errorf("empty title: error %v, want an OptionError naming title", err)
	}
}
