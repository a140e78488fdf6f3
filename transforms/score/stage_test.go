package score_test

import (
	"testing"

	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/score"
)

// TestMaxIterAlias: the former name --epochs still sets max-iter, which the
// provenance records as max_iter.
func TestMaxIterAlias(t *testing.T) {
	o := score.Stage{}.NewOptions()
	if err := transforms.SetOptions(o, map[string]string{"epochs": "5"}); err != nil {
		t.Fatal(err)
	}
	if got := o.(*score.Options).MaxIter; got != 5 {
		t.Errorf("--epochs 5: MaxIter %d", got)
	}
	p := transforms.Params(o)
	if _, old := p["epochs"]; old || p["max_iter"] != 5 {
		t.Errorf("params: max_iter %v, epochs present %v", p["max_iter"], old)
	}
	if err := transforms.SetOptions(o, map[string]string{"epochs": "5", "max-iter": "6"}); err == nil {
		t.Error("--epochs and --max-iter together: no error")
	}
}
