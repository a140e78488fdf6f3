package bvp

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/ordinate/ordinate/transforms/linear"
	"github.com/ordinate/ordinate/transforms/moments"
)

// TestFitMoments: on the six ORCA sets (standardised), BVP from the rows'
// statistics, computed in batches of 29 rows and merged, equals Fit of the
// rows to 1e-12: axes, origin, centres and singular values, for d = 2 and
// with one axis filled from the covariance beyond the rank where that
// axis's variance stands apart from the next one's (car's one-hot
// features tie: any rotation within a tie is a right answer, and so is
// any basis of the zero-variance directions that d = D would fill).
func TestFitMoments(t *testing.T) {
	ctx := context.Background()
	for _, name := range orcaSets {
		x, cl, k := loadOrdinal(t, name)
		n, D := x.Dims()
		m := moments.New(D, k)
		raw := x.RawMatrix().Data
		for lo := 0; lo < n; lo += 29 {
			hi := min(lo+29, n)
			if err := m.Add(ctx, raw[lo*D:hi*D], hi-lo, cl[lo:hi], 2); err != nil {
				t.Fatal(err)
			}
		}
		ref, err := Fit(x, cl, k, fitOpts(1, SVD, 0))
		if err != nil {
			t.Fatal(err)
		}
		dims := []int{2}
		if r := ref.Rank; r+1 < D {
			top, _ := Fit(x, cl, k, fitOpts(r, SVD, 0))
			_, vars, err := linear.PrincipalAxesOrthogonal(x, top.Axes, 2)
			if err != nil {
				t.Fatal(err)
			}
			if vars[0]-vars[1] > 1e-3*vars[0] {
				dims = append(dims, r+1)
			} else {
				t.Logf("%s: the first filled axis ties with the next (variances %v, %v): not compared", name, vars[0], vars[1])
			}
		}
		for _, d := range dims {
			const tol = 1e-12
			label := fmt.Sprintf("%s d=%d", name, d)
			want, err := Fit(x, cl, k, fitOpts(d, SVD, 0))
			if err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			got, err := FitMoments(m, fitOpts(d, SVD, 0))
			if err != nil {
				t.Fatalf("%s from statistics: %v", label, err)
			}
			if got.Rank != want.Rank || got.NullFilled != want.NullFilled {
				t.Fatalf("%s: rank %d, %d filled from statistics; %d, %d from rows", label, got.Rank, got.NullFilled, want.Rank, want.NullFilled)
			}
			for j := range d {
				for i := range D {
					if e := math.Abs(got.Axes.At(i, j) - want.Axes.At(i, j)); !(e <= tol) {
						t.Fatalf("%s: axis %d component %d: %v from statistics, %v from rows", label, j, i, got.Axes.At(i, j), want.Axes.At(i, j))
					}
				}
			}
			for i := range D {
				if e := math.Abs(got.Origin[i] - want.Origin[i]); !(e <= 1e-12) {
					t.Fatalf("%s: origin %d: %v from statistics, %v from rows", label, i, got.Origin[i], want.Origin[i])
				}
				for c := range k {
					if e := math.Abs(got.Centers.At(c, i) - want.Centers.At(c, i)); !(e <= 1e-12) {
						t.Fatalf("%s: centre %d, %d: %v from statistics, %v from rows", label, c, i, got.Centers.At(c, i), want.Centers.At(c, i))
					}
				}
			}
			for j, s := range want.SingularValues {
				if e := math.Abs(got.SingularValues[j] - s); !(e <= 1e-12*want.SingularValues[0]) {
					t.Errorf("%s: singular value %d is %v from statistics, %v from rows", label, j, got.SingularValues[j], s)
				}
			}
		}
	}
}
