package synth

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestFourClusters(t *testing.T) {
	x, soft := FourClusters(rand.New(rand.NewPCG(1, 2)), 200)
	const n, c = 800, 6
	if len(x) != n*3 || len(soft) != n*c || len(FourClusterClasses) != c {
		t.Fatalf("sizes %d, %d", len(x), len(soft))
	}
	counts := make([]float64, c)
	for i := range n {
		var sum float64
		for k := range c {
			w := soft[i*c+k]
			if w < 0 || w > 1 {
				t.Fatalf("row %d weight %v", i, w)
			}
			sum += w
			counts[k] += w
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Fatalf("row %d sums to %v", i, sum)
		}
		cluster := i / 200
		switch cluster {
		case 1: // hard split by z = 0
			if (x[i*3+2] < 0) != (soft[i*c] == 1) {
				t.Fatalf("row %d: z %v but purple weight %v", i, x[i*3+2], soft[i*c])
			}
		case 3: // soft blend, monotone in z
			if want := math.Min(1, math.Max(0, (x[i*3+2]+2)/4)); soft[i*c+5] != want {
				t.Fatalf("row %d: yellow %v, want %v", i, soft[i*c+5], want)
			}
		}
	}
	// Purple: all of cluster 0 and about half of cluster 1; the random pair about half each.
	if counts[0] < 250 || counts[0] > 350 || math.Abs(counts[2]-100) > 40 || math.Abs(counts[3]-100) > 40 {
		t.Errorf("class masses %v", counts)
	}
	again, _ := FourClusters(rand.New(rand.NewPCG(1, 2)), 200)
	for i := range x {
		if x[i] != again[i] {
			t.Fatal("same seed, different data")
		}
	}
}

func TestPacman(t *testing.T) {
	x, soft := Pacman(rand.New(rand.NewPCG(3, 4)), 500)
	var softRows int
	for i := range 500 {
		r := math.Sqrt(x[i*3]*x[i*3] + x[i*3+1]*x[i*3+1] + x[i*3+2]*x[i*3+2])
		if math.Abs(r-1) > 1e-12 {
			t.Fatalf("point %d has norm %v", i, r)
		}
		if math.Abs(soft[i*2]+soft[i*2+1]-1) > 1e-12 {
			t.Fatalf("row %d weights %v", i, soft[i*2:i*2+2])
		}
		if x[i*3] < 0 {
			softRows++
			if want := (1 - x[i*3+2]) / 2; math.Abs(soft[i*2+1]-want) > 1e-15 {
				t.Fatalf("row %d: yellow %v, want %v", i, soft[i*2+1], want)
			}
		} else if soft[i*2] != 0 && soft[i*2] != 1 {
			t.Fatalf("row %d on the hard hemisphere has weight %v", i, soft[i*2])
		}
	}
	if softRows < 200 || softRows > 300 {
		t.Errorf("%d of 500 points on the soft hemisphere, want about 250", softRows)
	}
}
