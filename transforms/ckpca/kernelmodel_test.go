package ckpca

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

func testKernelModel(kind string) *KernelModel {
	s := &transforms.Scaling{Names: []string{"a", "b"}, Cols: []int{0, 1}, Mean: []float64{1, -1}, Scale: []float64{2, 0.5}}
	ref := mat.NewDense(3, 2, []float64{0, 0, 1, 0.5, -0.3, 2})
	alpha := mat.NewDense(3, 2, []float64{0.2, -0.1, 0.7, 0.3, -0.4, 0.05})
	return &KernelModel{Stage: "ckpca", Scaling: s, Standardized: true,
		Kernel: kernels.Kernel{Kind: kind, Gamma: 0.37, Degree: 2, Coef0: 1.5}, Ref: ref, Alpha: alpha,
		Params: map[string]any{"kernel": kind}}
}

// modelTransform is m's transform of the n rows of x.
func modelTransform(t *testing.T, m transforms.Model, x []float64, n int) []float64 {
	t.Helper()
	y := make([]float64, n*m.Header().Dims)
	if err := m.Transform(context.Background(), y, x, n, 0); err != nil {
		t.Fatal(err)
	}
	return y
}

// TestKernelModelRoundTrip saves and loads a kernel model, and checks its
// Transform against the expansion written out by hand.
func TestKernelModelRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []string{"rbf", "poly", "cosine", "linear"} {
		m := testKernelModel(kind)
		path := filepath.Join(t.TempDir(), kind+".parquet")
		if err := transforms.WriteModelFile(ctx, path, m, &arrowio.Provenance{Tool: "ordinate", Stage: m.Header().Stage, Seed: 9}); err != nil {
			t.Fatal(err)
		}
		got, _, err := transforms.ReadModelFile(ctx, path)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if _, ok := got.(*KernelModel); !ok {
			t.Fatalf("%s: loaded a %T, want *ckpca.KernelModel", kind, got)
		}
		x := []float64{1, -1, 3, 0.5, -2, 4}
		have, want := modelTransform(t, got, x, 3), modelTransform(t, m, x, 3)
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
	if err := transforms.WriteModelFile(ctx, path, m, &arrowio.Provenance{Tool: "ordinate", Stage: m.Header().Stage, Seed: 9}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := transforms.ReadModelFile(ctx, path); !errors.Is(err, transforms.ErrModel) {
		t.Errorf("unknown kernel: error %v, want ErrModel", err)
	}
}

// A kernel model with a non-finite value is refused (Check, and
// WriteModel) and never written.
func TestWriteKernelModelRefusesNonFinite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	km := &KernelModel{Stage: "ckpca", Scaling: &transforms.Scaling{Names: []string{"a"}, Cols: []int{0}, Mean: []float64{0}, Scale: []float64{1}},
		Kernel: kernels.Kernel{Kind: "rbf", Gamma: 1},
		Ref:    mat.NewDense(2, 1, []float64{0, 1}), Alpha: mat.NewDense(2, 1, []float64{1, math.NaN()})}
	if err := km.Check(); !errors.Is(err, transforms.ErrInvalidData) || !strings.Contains(err.Error(), "alpha_0") {
		t.Errorf("kernel model: %v", err)
	}
	path := filepath.Join(dir, "alpha.parquet")
	if err := transforms.WriteModelFile(ctx, path, km, nil); !errors.Is(err, transforms.ErrInvalidData) || !strings.Contains(err.Error(), "alpha_0") {
		t.Errorf("kernel model: WriteModel: %v, want a data error naming alpha_0", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("the kernel model was written")
	}
	if err := testKernelModel("rbf").Check(); err != nil {
		t.Errorf("a sound model: %v", err)
	}
}
