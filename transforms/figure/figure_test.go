package figure

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/cmpimg"
	"gonum.org/v1/plot/vg"
)

var update = flag.Bool("update", false, "rewrite the golden images in testdata")

// testPoints are three Gaussian blobs with a class, a value and soft labels.
func testPoints() *Points {
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 150
	p := &Points{X: make([]float64, n), Y: make([]float64, n), Category: make([]string, n), Value: make([]float64, n),
		Soft: make([]float64, n*2), Classes: []string{"blue", "yellow"}, Facet: make([]string, n)}
	for i := range n {
		k := i % 3
		p.X[i] = float64(k)*3 + rng.NormFloat64()
		p.Y[i] = float64(k%2)*2 + rng.NormFloat64()
		p.Category[i] = []string{"low", "mid", "high"}[k]
		p.Value[i] = p.X[i] + p.Y[i]
		w := math.Min(1, math.Max(0, p.X[i]/6))
		p.Soft[2*i], p.Soft[2*i+1] = 1-w, w
		p.Facet[i] = []string{"a", "b", "c", "d"}[i%4]
	}
	p.Order = []string{"low", "mid", "high"}
	return p
}

func only(p *Points, keep string) *Points {
	q := &Points{X: p.X, Y: p.Y}
	switch keep {
	case "category":
		q.Category, q.Order = p.Category, p.Order
	case "value":
		q.Value = p.Value
	case "soft":
		q.Soft, q.Classes = p.Soft, p.Classes
	case "facets":
		q.Category, q.Order, q.Facet = p.Category, p.Order, p.Facet
		q.FacetNotes = map[string]string{"a": "δ = 0.5"}
	}
	return q
}

// TestScatterGolden compares PNG renderings with the images in testdata
// (regenerate with go test -update after a deliberate change).
func TestScatterGolden(t *testing.T) {
	p := testPoints()
	for _, tc := range []string{"category", "value", "soft", "facets"} {
		var buf bytes.Buffer
		o := Style{Title: "test " + tc, Subtitle: "150 points", XLabel: "emb_0", YLabel: "emb_1", ColorLabel: tc,
			Width: 12, Height: 9}
		if err := Scatter(&buf, "png", only(p, tc), o); err != nil {
			t.Fatalf("%s: %v", tc, err)
		}
		golden(t, "scatter-"+tc+".png", buf.Bytes())
	}
}

func TestHeatMapGolden(t *testing.T) {
	const n = 30
	d := make([]float64, n*n)
	group := make([]string, n)
	for i := range n {
		group[i] = []string{"1", "2", "3"}[i/10]
		for j := range n {
			d[i*n+j] = math.Abs(float64(i/10-j/10)) + 0.1*math.Abs(float64(i-j))/n
		}
	}
	d[5*n+7] = math.NaN()
	var buf bytes.Buffer
	if err := HeatMap(&buf, "png", d, n, group, Style{Title: "distances", ColorLabel: "distance", Width: 10}); err != nil {
		t.Fatal(err)
	}
	golden(t, "heatmap.png", buf.Bytes())
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	compareGolden(t, name, got, "image", func(got, want []byte) (bool, error) {
		return cmpimg.EqualApprox("png", got, want, 0.01)
	})
}

// compareGolden compares got with the file testdata/name by equal, or
// writes it there with -update. On a difference it keeps got in a
// temporary file and names it.
func compareGolden(t *testing.T, name string, got []byte, what string, equal func(got, want []byte) (bool, error)) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run go test -update to create it)", name, err)
	}
	ok, err := equal(got, want)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		bad := filepath.Join(t.TempDir(), name)
		os.WriteFile(bad, got, 0o644)
		t.Errorf("%s differs from the golden %s; this run's is %s", name, what, bad)
	}
}

// TestScatterSVG checks that an SVG embeds its fonts (or not, on request)
// and carries the title and legend.
func TestScatterSVG(t *testing.T) {
	p := only(testPoints(), "category")
	for _, embed := range []bool{true, false} {
		var buf bytes.Buffer
		if err := Scatter(&buf, "svg", p, Style{Title: "Title here", NoFontEmbedding: !embed}); err != nil {
			t.Fatal(err)
		}
		s := buf.String()
		for _, want := range []string{"<svg", "Title here", ">low<", ">high<"} {
			if !strings.Contains(s, want) {
				t.Errorf("embed %v: SVG lacks %q", embed, want)
			}
		}
		if got := strings.Contains(s, "@font-face"); got != embed {
			t.Errorf("embed %v: @font-face present = %v", embed, got)
		}
	}
}

func TestScatterErrors(t *testing.T) {
	p := testPoints()
	for _, tc := range []struct {
		name   string
		p      *Points
		format string
	}{
		{"NaN point", &Points{X: []float64{0, math.NaN()}, Y: []float64{0, 1}}, "svg"},
		{"length mismatch", &Points{X: []float64{0, 1}, Y: []float64{0}}, "svg"},
		{"category not in order", &Points{X: []float64{0, 1}, Y: []float64{0, 1}, Category: []string{"a", "z"}, Order: []string{"a"}}, "svg"},
		{"soft length", &Points{X: []float64{0, 1}, Y: []float64{0, 1}, Soft: []float64{1}, Classes: []string{"a"}}, "png"},
		{"format", only(p, "value"), "pdf"},
		{"empty", &Points{}, "svg"},
	} {
		if err := Scatter(&bytes.Buffer{}, tc.format, tc.p, Style{}); !errors.Is(err, ErrInput) {
			t.Errorf("%s: error %v, want ErrInput", tc.name, err)
		}
	}
}

func TestPointStyle(t *testing.T) {
	prevR, prevA := vg.Length(math.Inf(1)), math.Inf(1)
	for _, n := range []int{10, 100, 1000, 10000, 100000, 1000000} {
		r, a := PointStyle(n)
		if r > prevR || a > prevA || r < vg.Points(0.8) || a < 0.35 || a > 1 {
			t.Errorf("n = %d: radius %v, alpha %v (previous %v, %v)", n, r, a, prevR, prevA)
		}
		prevR, prevA = r, a
	}
}

func TestViridis(t *testing.T) {
	m := &viridis{min: -1, max: 1}
	lo, hi := m.nrgba(-1), m.nrgba(1)
	first, last := viridisAnchors[0], viridisAnchors[len(viridisAnchors)-1]
	if lo.R != uint8(first[0]) || lo.B != uint8(first[2]) || hi.R != uint8(last[0]) || hi.G != uint8(last[1]) {
		t.Errorf("ends %v, %v; want the first and last anchors", lo, hi)
	}
	if _, err := m.At(2); err == nil {
		t.Error("At(2) beyond max: no error")
	}
}

// BenchmarkScatter times drawing n coloured points as PNG and SVG.
func BenchmarkScatter(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		rng := rand.New(rand.NewPCG(1, 1))
		p := &Points{X: make([]float64, n), Y: make([]float64, n), Category: make([]string, n)}
		for i := range n {
			p.X[i], p.Y[i] = rng.NormFloat64(), rng.NormFloat64()
			p.Category[i] = []string{"a", "b", "c"}[i%3]
		}
		for _, format := range []string{"png", "svg"} {
			b.Run(fmt.Sprintf("%s/n=%d", format, n), func(b *testing.B) {
				var size int
				for b.Loop() {
					var buf bytes.Buffer
					if err := Scatter(&buf, format, p, Style{Title: "bench"}); err != nil {
						b.Fatal(err)
					}
					size = buf.Len()
				}
				b.ReportMetric(float64(size)/1e6, "MB")
			})
		}
	}
}

// placedPoints are 12 rows placed into testPoints' map: in its classes,
// with their own values, soft labels and facets, one far outside the map.
func placedPoints(p *Points) *Points {
	const m = 12
	q := &Points{X: make([]float64, m), Y: make([]float64, m), Category: make([]string, m), Value: make([]float64, m),
		Soft: make([]float64, 2*m), Classes: p.Classes, Facet: make([]string, m)}
	for i := range m {
		k := i % 3
		q.X[i], q.Y[i] = float64(k)*3+0.3*float64(i%4), float64(k%2)*2-0.2*float64(i%5)
		q.Category[i] = []string{"low", "mid", "high"}[k]
		q.Value[i] = q.X[i] + q.Y[i]
		q.Soft[2*i], q.Soft[2*i+1] = 0.5, 0.5
		q.Facet[i] = []string{"a", "b", "c", "d"}[i%4]
	}
	q.X[m-1], q.Y[m-1] = 100, -40 // the axes must reach it
	return q
}

// onlyPlaced is only(p, keep) with the rows of q, coloured the same way
// unless bare, placed into it.
func onlyPlaced(p, q *Points, keep string, bare bool) *Points {
	r := only(p, keep)
	if bare {
		r.Placed = &Points{X: q.X, Y: q.Y}
	} else {
		r.Placed = only(q, keep)
		r.Placed.Order, r.Placed.FacetNotes = nil, nil
	}
	return r
}

// TestScatterPlacedGolden draws placed rows as rings over the map (PNG
// compared with testdata/scatter-placed.png; go test -update rewrites it).
func TestScatterPlacedGolden(t *testing.T) {
	p := testPoints()
	q := placedPoints(p)
	q.X[len(q.X)-1], q.Y[len(q.Y)-1] = 4, 4 // not far off: the golden image shows the map
	var buf bytes.Buffer
	o := Style{Title: "test placed", Subtitle: "150 points, 12 placed", XLabel: "emb_0", YLabel: "emb_1", ColorLabel: "category",
		Width: 12, Height: 9}
	if err := Scatter(&buf, "png", onlyPlaced(p, q, "category", false), o); err != nil {
		t.Fatal(err)
	}
	golden(t, "scatter-placed.png", buf.Bytes())
}

// TestScatterPlacedSVG checks the placed rows' marks in the SVG: one ring
// (its dark edge, stroke #222222) for each placed row in each panel it is
// drawn in, plus the legend's; the ring colour of uncoloured rows (grey;
// vermillion when nothing is coloured); the legend entry; and axes that
// reach a placed row far outside the map.
func TestScatterPlacedSVG(t *testing.T) {
	p := testPoints()
	q := placedPoints(p)
	m := len(q.X)
	for _, tc := range []struct {
		name, keep string
		bare       bool
		rings      int    // ring edges: placed rows drawn, plus the legend's
		ring       string // a ring colour that must appear rings times
		legend     string
	}{
		{"category", "category", false, m + 1, "", "placed (12 rows)"},
		{"category, placed uncoloured", "category", true, m + 1, "stroke:#707070", "placed (12 rows)"},
		{"value", "value", false, m + 1, "", "placed (12 rows)"},
		{"value, placed uncoloured", "value", true, m + 1, "stroke:#707070", "placed (12 rows)"},
		{"soft", "soft", false, m + 1, "", "placed (12 rows)"},
		{"nothing coloured", "", true, m + 1, "stroke:#D55E00", "placed (12 rows)"},
		{"facets of the placed rows", "facets", false, m + 1, "", "placed (12 rows)"},
		{"placed rows in every panel", "facets", true, 4*m + 1, "stroke:#707070", "placed (12 rows)"},
	} {
		pts := onlyPlaced(p, q, tc.keep, tc.bare)
		var buf bytes.Buffer
		if err := Scatter(&buf, "svg", pts, Style{Title: "placed", NoFontEmbedding: true}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		s := buf.String()
		if got := strings.Count(s, "stroke:#222222;"); got != tc.rings {
			t.Errorf("%s: %d ring edges, want %d", tc.name, got, tc.rings)
		}
		if tc.ring != "" {
			if got := strings.Count(s, tc.ring+";"); got != tc.rings {
				t.Errorf("%s: %d rings %s, want %d", tc.name, got, tc.ring, tc.rings)
			}
		}
		if !strings.Contains(s, ">"+tc.legend+"<") {
			t.Errorf("%s: no legend entry %q", tc.name, tc.legend)
		}
		if !strings.Contains(s, ">100<") {
			t.Errorf("%s: the x axis does not reach the placed row at x = 100", tc.name)
		}
		pts.PlacedLegend = "new rows"
		buf.Reset()
		if err := Scatter(&buf, "svg", pts, Style{NoFontEmbedding: true}); err != nil || !strings.Contains(buf.String(), ">new rows<") {
			t.Errorf("%s: PlacedLegend not shown (error %v)", tc.name, err)
		}
	}
}

func TestScatterPlacedErrors(t *testing.T) {
	p := testPoints()
	q := placedPoints(p)
	with := func(keep string, placed *Points) *Points {
		r := only(p, keep)
		r.Placed = placed
		return r
	}
	for _, tc := range []struct {
		name string
		p    *Points
	}{
		{"category over values", with("value", &Points{X: q.X, Y: q.Y, Category: q.Category})},
		{"values over categories", with("category", &Points{X: q.X, Y: q.Y, Value: q.Value})},
		{"soft over nothing", with("", &Points{X: q.X, Y: q.Y, Soft: q.Soft, Classes: q.Classes})},
		{"other soft classes", with("soft", &Points{X: q.X, Y: q.Y, Soft: q.Soft, Classes: []string{"x", "y"}})},
		{"category length", with("category", &Points{X: q.X, Y: q.Y, Category: q.Category[1:]})},
		{"facet length", with("facets", &Points{X: q.X, Y: q.Y, Facet: q.Facet[1:]})},
		{"category not in the order", with("category", &Points{X: q.X[:1], Y: q.Y[:1], Category: []string{"new"}})},
		{"NaN placed point", with("", &Points{X: []float64{math.NaN()}, Y: []float64{0}})},
		{"no placed points", with("", &Points{})},
	} {
		if err := Scatter(&bytes.Buffer{}, "svg", tc.p, Style{}); !errors.Is(err, ErrInput) {
			t.Errorf("%s: error %v, want ErrInput", tc.name, err)
		}
	}
}
