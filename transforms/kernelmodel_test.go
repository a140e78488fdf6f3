package transforms

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/kernels"
)

func testKernelModel(kind string) *KernelModel {
	s := &Scaling{Names: []string{"a", "b"}, Cols: []int{0, 1}, Mean: []float64{1, -1}, Scale: []float64{2, 0.5}}
	ref := mat.NewDense(3, 2, []float64{0, 0, 1, 0.5, -0.3, 2})
	alpha := mat.NewDense(3, 2, []float64{0.2, -0.1, 0.7, 0.3, -0.4, 0.05})
	return &KernelModel{Stage: "ckpca", Scaling: s, Standardized: true,
		Kernel: kernels.Kernel{Kind: kind, Gamma: 0.37, Degree: 2, Coef0: 1.5}, Ref: ref, Alpha: alpha,
		Params: map[string]any{"kernel": kind}}
}

// TestKernelModelRoundTrip saves and loads a kernel model, and checks its
// Transform against the expansion written out by hand.
func TestKernelModelRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []string{"rbf", "poly", "cosine", "linear"} {
		m := testKernelModel(kind)
		path := filepath.Join(t.TempDir(), kind+".parquet")
		if err := saveModel(ctx, path, m); err != nil {
			t.Fatal(err)
		}
		got, _, err := loadModel(ctx, path)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		x := []float64{1, -1, 3, 0.5, -2, 4}
		have, want := got.Transform(nil, x, 3), m.Transform(nil, x, 3)
		for i := range want {
			if have[i] != want[i] {
				t.Errorf("%s: loaded y[%d] = %v, saved %v", kind, i, have[i], want[i])
			}
		}
		// By hand for the second row: z = ((3 − 1)/2, (0.5 + 1)/0.5) = (1, 3).
		z := []float64{1, 3}
		for s := range 2 {
			var f float64
			for q := range 3 {
				f += m.Alpha.At(q, s) * m.Kernel.Eval(m.Ref.RawRowView(q), z)
			}
			if math.Abs(f-want[2+s]) > 1e-12 {
				t.Errorf("%s: y[1, %d] = %v, by hand %v", kind, s, want[2+s], f)
			}
		}
	}
}

func TestKernelModelRefuses(t *testing.T) {
	ctx := context.Background()
	m := testKernelModel("rbf")
	m.Kernel.Kind = "sigmoid"
	path := filepath.Join(t.TempDir(), "bad.parquet")
	if err := saveModel(ctx, path, m); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadModel(ctx, path); !errors.Is(err, ErrModel) {
		t.Errorf("unknown kernel: error %v, want ErrModel", err)
	}
}
