package tsne_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ordinate/ordinate/transforms/placement"
	"github.com/ordinate/ordinate/transforms/tsne"
)

// Leave-one-out on a fitted map: a reference row placed back from its
// nearest other reference rows lands near the spot the fit gave it.
// Measured: median distance 0.9 % of the map's extent, 90th percentile 4.6 %.
func TestTSNELeaveOneOut(t *testing.T) {
	const n, d, c = 300, 10, 3
	rng := rand.New(rand.NewPCG(3, 1))
	x := make([]float64, n*d)
	for i := range n {
		for k := range d {
			x[i*d+k] = rng.NormFloat64()
		}
		x[i*d+i%c] += 6
	}
	o := tsne.DefaultOptions()
	o.Threads = 2
	fit, err := tsne.FromFeatures(context.Background(), x, n, d, o)
	if err != nil {
		t.Fatal(err)
	}
	ref := placement.Reference{Y: fit.Y, N: n, Dims: 2}
	p, err := tsne.NewPlacer(context.Background(), ref, tsne.DefaultPlaceOptions(), 2)
	if err != nil {
		t.Fatal(err)
	}
	var extent float64
	for a := range 2 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range n {
			lo, hi = min(lo, fit.Y[2*i+a]), max(hi, fit.Y[2*i+a])
		}
		extent = max(extent, hi-lo)
	}
	type nd struct {
		d float64
		j int32
	}
	var s tsne.PlaceScratch
	dst := make([]float64, 2)
	var dist []float64
	for i := 0; i < n; i += 3 {
		var all []nd
		for j := range n {
			if j == i {
				continue
			}
			var s float64
			for k := range d {
				s += (x[i*d+k] - x[j*d+k]) * (x[i*d+k] - x[j*d+k])
			}
			all = append(all, nd{s, int32(j)})
		}
		slices.SortFunc(all, func(a, b nd) int {
			if a.d < b.d {
				return -1
			} else if a.d > b.d {
				return 1
			}
			return int(a.j - b.j)
		})
		m := p.Neighbors()
		nbr, d2 := make([]int32, m), make([]float64, m)
		for k := range m {
			nbr[k], d2[k] = all[k].j, all[k].d
		}
		if _, err := p.Place(dst, nbr, d2, &s); err != nil {
			t.Fatal(err)
		}
		dist = append(dist, math.Hypot(dst[0]-fit.Y[2*i], dst[1]-fit.Y[2*i+1])/extent)
	}
	slices.Sort(dist)
	med, p90 := dist[len(dist)/2], dist[len(dist)*9/10]
	t.Logf("distance from the fitted spot / map extent: median %.4f, 90th percentile %.4f", med, p90)
	if med > 0.03 || p90 > 0.08 {
		t.Errorf("distance from the fitted spot / map extent: median %.4f (want ≤ 0.03), 90th percentile %.4f (want ≤ 0.08)", med, p90)
	}
}
