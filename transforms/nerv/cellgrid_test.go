package nerv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ordinate/ordinate/kernels"
)

// TestCellGrid checks the layout (Perm a permutation, Pos its rows, cells
// in order) and that the runs of a query hold every point within the
// radius, against brute force, for 1–3 dims, clustered and coincident
// points, radii from 0 to beyond the grid and centres outside it.
func TestCellGrid(t *testing.T) {
	for _, dims := range []int{1, 2, 3} {
		for _, layout := range []string{"uniform", "clustered", "coincident"} {
			name := fmt.Sprintf("%d-D %s", dims, layout)
			rng := rand.New(rand.NewPCG(uint64(dims), 7))
			const n = 600
			y := make([]float64, n*dims)
			for i := range y {
				switch layout {
				case "uniform":
					y[i] = 10 * rng.Float64()
				case "clustered":
					y[i] = float64(rng.IntN(3))*20 + rng.NormFloat64()*0.3
				case "coincident":
					y[i] = float64(i / dims % 4)
				}
			}
			var g CellGrid
			if !g.Build(y, n, dims, 0.7) {
				t.Fatalf("%s: Build reported non-finite coordinates", name)
			}
			perm := slices.Clone(g.Perm)
			slices.Sort(perm)
			for i, p := range perm {
				if int(p) != i {
					t.Fatalf("%s: Perm is not a permutation (sorted[%d] = %d)", name, i, p)
				}
			}
			for q, p := range g.Perm {
				if !slices.Equal(g.Pos[q*dims:(q+1)*dims], y[int(p)*dims:int(p+1)*dims]) {
					t.Fatalf("%s: Pos row %d is not point %d", name, q, p)
				}
				if k := g.cellOf(y[int(p)*dims : int(p+1)*dims]); !(g.Start[k] <= int32(q) && int32(q) < g.Start[k+1]) {
					t.Fatalf("%s: point %d at %d is outside its cell %d [%d, %d)", name, p, q, k, g.Start[k], g.Start[k+1])
				}
			}
			for trial := range 200 {
				c := make([]float64, dims)
				for k := range c {
					c[k] = 70*rng.Float64() - 10
				}
				r := []float64{0, 0.3, 1, 2.5, 100}[trial%5]
				in := make([]bool, n)
				for _, run := range g.AppendRuns(nil, c, r) {
					for q := run[0]; q < run[1]; q++ {
						in[g.Perm[q]] = true
					}
				}
				for i := range n {
					if d := kernels.EmbedSqDist(c, y[i*dims:(i+1)*dims]); d <= r*r && !in[i] {
						t.Fatalf("%s: point %d at distance %g ≤ r = %g from %v is in no run", name, i, math.Sqrt(d), r, c)
					}
				}
			}
		}
	}
}

// TestCellGridBounded checks that a grid over two far points keeps to
// CellGridMaxCells, that NaN radii and boxes off the grid give no runs,
// and that Build refuses non-finite coordinates and overflowing extents.
func TestCellGridBounded(t *testing.T) {
	var g CellGrid
	for _, bad := range [][]float64{
		{0, 0, math.NaN(), 1, 1, 1},
		{0, 0, 1, math.Inf(1), 1, 1},
		{0, 0, math.Inf(-1), 1, 1, 1},
		{-1.5e308, 0, 1.5e308, 1, 1, 1},
	} {
		if g.Build(bad, 3, 2, 1) {
			t.Errorf("Build(%v) reported a usable grid", bad)
		}
	}
	y := []float64{0, 0, 1e9, 1e9, 1, 1}
	if !g.Build(y, 3, 2, 1e-3) {
		t.Fatal("far points: Build reported non-finite coordinates")
	}
	if cells := len(g.Start) - 1; cells > CellGridMaxCells(3) {
		t.Errorf("far points: %d cells, want ≤ %d", cells, CellGridMaxCells(3))
	}
	if runs := g.AppendRuns(nil, []float64{0, 0}, math.NaN()); len(runs) != 0 {
		t.Errorf("NaN radius: runs %v", runs)
	}
	if runs := g.AppendRuns(nil, []float64{-5e9, 0}, 1); len(runs) != 0 {
		t.Errorf("box off the grid: runs %v", runs)
	}
	if runs := g.AppendRuns(nil, []float64{0, 0}, math.Inf(1)); len(runs) == 0 {
		t.Errorf("infinite radius: no runs")
	}
}

// TestCellGridRunsHugTheBall checks that with cells a quarter of r wide
// the runs visit few points outside the ball: the box of the ball would
// visit 4/π times its points and more.
func TestCellGridRunsHugTheBall(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 40000
	for _, dims := range []int{1, 2, 3} {
		y := make([]float64, n*dims)
		for k := range y {
			y[k] = 100 * rng.Float64()
		}
		const r = 8.0
		var g CellGrid
		if !g.Build(y, n, dims, r/4) {
			t.Fatalf("dims %d: Build failed", dims)
		}
		visited, inside := 0, 0
		for range 50 {
			c := make([]float64, dims)
			for k := range c {
				c[k] = 20 + 60*rng.Float64()
			}
			for _, run := range g.AppendRuns(nil, c, r) {
				visited += int(run[1] - run[0])
				for q := run[0]; q < run[1]; q++ {
					if kernels.EmbedSqDist(c, g.Pos[int(q)*dims:int(q+1)*dims]) <= r*r {
						inside++
					}
				}
			}
		}
		ratio := float64(visited) / float64(inside)
		// The chords rounded out to whole cells: measured 1.12 (1-D), 1.34
		// (2-D) and 1.66 (3-D); whole boxes 1.12, 1.62 and 2.75.
		if limit := []float64{1.2, 1.45, 1.8}[dims-1]; ratio > limit {
			t.Errorf("dims %d: runs visit %.2f times the points within r, want ≤ %.2f", dims, ratio, limit)
		}
	}
}
