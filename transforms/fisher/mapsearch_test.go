package fisher

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/placement"
)

// stubMethod places a row at (its nearest candidate, that candidate's
// squared distance): enough to see which rows and distances a map's
// search hands to the method.
type stubMethod struct{}

func (stubMethod) Settings() any               { return map[string]any{"stub": true} }
func (stubMethod) Perplexity() float64         { return 1 }
func (stubMethod) Tune(float64, int) error     { return nil }
func (stubMethod) UsesLabels() bool            { return false }
func (stubMethod) NewWorker() placement.Worker { return stubMethod{} }
func (stubMethod) Neighbors() int              { return 3 }
func (stubMethod) Place(dst []float64, nbr []int32, d2, _ []float64) error {
	dst[0], dst[1] = float64(nbr[0]), d2[0]
	return nil
}
func (stubMethod) Placer(context.Context, placement.Reference, []float64, int, int) (placement.Placer, error) {
	return stubMethod{}, nil
}

func init() {
	placement.Register("fisherstub", "test", func(map[string]any) placement.Method { return stubMethod{} })
}

// fittedMap fits the local mode on x and binds it to a made-up map.
func fittedMap(t *testing.T, x []float64, n, dim int, cls []int, k int, kind string, o Options) (*Model, *placement.Model, *FitResult) {
	t.Helper()
	kern, err := kernels.Kernel{Kind: kind}.Resolve(x, n, dim)
	if err != nil {
		t.Fatal(err)
	}
	o.Kernel = Kernel(kind)
	res, err := FitFeatures(context.Background(), x, n, dim, kern, cls, k, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range n {
		b.Append(int64(1000 + i))
	}
	ids := b.NewArray()
	names := make([]string, dim)
	mean, scale := make([]float64, dim), make([]float64, dim)
	for j := range dim {
		names[j], scale[j] = fmt.Sprintf("f%d", j), 1
	}
	classes := &transforms.Classes{Names: make([]string, k), Index: cls}
	for c := range k {
		classes.Names[c] = fmt.Sprintf("c%d", c)
	}
	fm := NewModel(ids, &transforms.Scaling{Names: names, Mean: mean, Scale: scale}, x, classes, res, o)
	// The map's rows in reverse order: BindMap must match them by id.
	y := make([]float64, n*2)
	rb := array.NewInt64Builder(memory.DefaultAllocator)
	defer rb.Release()
	for r := range n {
		i := n - 1 - r
		rb.Append(int64(1000 + i))
		y[r*2], y[r*2+1] = float64(i), -float64(i)
	}
	pm := placement.NewFromDistances("fisherstub", stubMethod{}, rb.NewArray(), y, 2)
	bound, err := fm.BindMap(pm)
	pm.Release()
	if err != nil {
		t.Fatal(err)
	}
	return fm, bound, res
}

// TestMapCandidates: a Fisher map hands a new row's K nearest fitted rows
// with the squares of the distances PlaceDistances computes by its
// exhaustive search (below the index's exact size, the same bits), and the
// bound map's rows are the fisher model's, whatever the map's row order.
func TestMapCandidates(t *testing.T) {
	const n, m, dim, k = 300, 25, 12, 3
	x, cls := mixtureRows(n+m, dim, k, 5)
	xq := append([]float64(nil), x[n*dim:]...)
	x, cls = x[:n*dim], cls[:n]
	for _, kind := range LocalKernels {
		for _, excl := range []bool{false, true} {
			name := fmt.Sprintf("%s excl=%v", kind, excl)
			o := DefaultOptions()
			o.Neighbors, o.ParzenNeighbors, o.ExcludeEndpoints, o.Threads, o.Perplexity = 20, 15, excl, 2, 5
			fm, bound, res := fittedMap(t, x, n, dim, cls, k, kind, o)
			for i := range n {
				if bound.Y[i*2] != float64(i) {
					t.Fatalf("%s: bound map row %d holds the position of row %v", name, i, bound.Y[i*2])
				}
			}
			ctx := context.Background()
			if err := bound.Prepare(ctx, 2); err != nil {
				t.Fatal(err)
			}
			idx, dist, err := PlaceDistances(ctx, res.local, xq, m, o.Neighbors, o.Rule,
				PathParams{Sigma: res.Sigma, Steps: o.Steps, ExcludeEndpoints: excl, Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			rs := bound.Searcher.NewRowSearch()
			for r := range m {
				ref, d2, err := rs.Candidates(xq[r*dim : (r+1)*dim])
				if err != nil {
					t.Fatal(err)
				}
				K := o.Neighbors
				for q := range K {
					if ref[q] != idx[r*K+q] || d2[q] != dist[r*K+q]*dist[r*K+q] {
						t.Fatalf("%s: row %d candidate %d is (%d, %v), want (%d, %v)", name, r, q, ref[q], d2[q], idx[r*K+q], dist[r*K+q]*dist[r*K+q])
					}
				}
			}
			// Through Transform: the stub places at (nearest row, its d²).
			dst := make([]float64, m*2)
			if err := bound.Transform(ctx, dst, xq, m, 2); err != nil {
				t.Fatal(err)
			}
			for r := range m {
				K := o.Neighbors
				best := 0
				for q := range K {
					if dist[r*K+q] < dist[r*K+best] || (dist[r*K+q] == dist[r*K+best] && idx[r*K+q] < idx[r*K+best]) {
						best = q
					}
				}
				if dst[r*2] != float64(idx[r*K+best]) || dst[r*2+1] != dist[r*K+best]*dist[r*K+best] {
					t.Fatalf("%s: row %d placed from (%v, %v), want the Fisher-nearest (%d, %v)", name, r, dst[r*2], dst[r*2+1], idx[r*K+best], dist[r*K+best]*dist[r*K+best])
				}
			}
			bound.Release()
			fm.Release()
		}
	}
}

// TestMapCandidatesLarge: above the size where kernels.Index would search
// a graph, a Fisher map still finds every new row's exact candidates (an
// exhaustive search, or the k-d tree for few features): the bits of
// PlaceDistances.
func TestMapCandidatesLarge(t *testing.T) {
	for _, dim := range []int{6, 16} {
		const n, m, k = 3000, 30, 4
		x, cls := mixtureRows(n+m, dim, k, 8)
		xq := append([]float64(nil), x[n*dim:]...)
		x, cls = x[:n*dim], cls[:n]
		o := DefaultOptions()
		o.Neighbors, o.Threads = 60, 2
		fm, bound, res := fittedMap(t, x, n, dim, cls, k, "rbf", o)
		ctx := context.Background()
		if err := bound.Prepare(ctx, 2); err != nil {
			t.Fatal(err)
		}
		idx, dist, err := PlaceDistances(ctx, res.local, xq, m, o.Neighbors, o.Rule, PathParams{Sigma: res.Sigma, Steps: o.Steps, Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		rs := bound.Searcher.NewRowSearch()
		K := o.Neighbors
		for r := range m {
			ref, d2, err := rs.Candidates(xq[r*dim : (r+1)*dim])
			if err != nil {
				t.Fatal(err)
			}
			for q := range K {
				if ref[q] != idx[r*K+q] || d2[q] != dist[r*K+q]*dist[r*K+q] {
					t.Fatalf("d = %d: row %d candidate %d is (%d, %v), want (%d, %v)", dim, r, q, ref[q], d2[q], idx[r*K+q], dist[r*K+q]*dist[r*K+q])
				}
			}
		}
		bound.Release()
		fm.Release()
	}
}

// TestFisherModelFiles: both models survive their files (same bits placed),
// and damaged ones are refused with ErrModel naming what is wrong.
func TestFisherModelFiles(t *testing.T) {
	const n, m, dim, k = 120, 10, 5, 3
	x, cls := mixtureRows(n+m, dim, k, 13)
	xq := append([]float64(nil), x[n*dim:]...)
	x, cls = x[:n*dim], cls[:n]
	o := DefaultOptions()
	o.Neighbors, o.Perplexity, o.Threads = 15, 5, 2
	fm, bound, _ := fittedMap(t, x, n, dim, cls, k, "cosine", o)
	defer fm.Release()
	defer bound.Release()
	ctx := context.Background()
	dir := t.TempDir()
	want := make([]float64, m*2)
	if err := bound.Transform(ctx, want, xq, m, 2); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "map.parquet")
	if err := transforms.WriteModelFile(ctx, path, bound, nil); err != nil {
		t.Fatal(err)
	}
	got, _, err := transforms.ReadModelFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	placed := make([]float64, m*2)
	if err := got.Transform(ctx, placed, xq, m, 1); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(placed, want) {
		t.Errorf("the loaded map places %v, the fitted one %v", placed[:4], want[:4])
	}
	got.(*placement.Model).Release()

	fpath := filepath.Join(dir, "fisher.parquet")
	if err := transforms.WriteModelFile(ctx, fpath, fm, nil); err != nil {
		t.Fatal(err)
	}
	back, _, err := transforms.ReadModelFile(ctx, fpath)
	if err != nil {
		t.Fatal(err)
	}
	fb := back.(*Model)
	if fb.Settings != fm.Settings || !slices.Equal(fb.X, fm.X) || !slices.Equal(fb.Lists, fm.Lists) || !slices.Equal(fb.Class, fm.Class) || !array.Equal(fb.IDs, fm.IDs) {
		t.Errorf("the fisher model changed in its file")
	}
	if err := fb.Transform(ctx, placed, xq, m, 1); !errors.Is(err, ErrNoMap) {
		t.Errorf("applying a fisher model alone: %v, want ErrNoMap", err)
	}
	fb.Release()

	for _, tc := range []struct {
		name, want string
		damage     func(c *Model)
	}{
		{"class out of range", `column "class", row 3`, func(c *Model) { c.Class[3] = 7 }},
		{"self in its list", `column "nn_0", row 0`, func(c *Model) { c.Lists[0] = 0 }},
		{"list beyond the rows", `column "nn_2", row 1`, func(c *Model) { c.Lists[c.Settings.ParzenNeighbors+2] = n }},
		{"zero sigma", "sigma 0", func(c *Model) { c.Settings.Sigma = 0 }},
		{"polynomial kernel", `kernel "poly"`, func(c *Model) { c.Settings.Kernel = "poly" }},
		{"too many neighbours", "neighbors 120", func(c *Model) { c.Settings.Neighbors = n }},
	} {
		c := *fm
		c.Class, c.Lists = slices.Clone(fm.Class), slices.Clone(fm.Lists)
		tc.damage(&c)
		p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".parquet")
		if err := transforms.WriteModelFile(ctx, p, &c, nil); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		_, _, err := transforms.ReadModelFile(ctx, p)
		if !errors.Is(err, transforms.ErrModel) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrModel naming %s", tc.name, err, tc.want)
		}
	}
}

// TestBindMapRefuses: a map of other rows, or one fitted on features.
func TestBindMapRefuses(t *testing.T) {
	const n, dim, k = 60, 4, 2
	x, cls := mixtureRows(n, dim, k, 2)
	o := DefaultOptions()
	o.Neighbors, o.Perplexity, o.Threads = 10, 3, 1
	fm, bound, _ := fittedMap(t, x, n, dim, cls, k, "rbf", o)
	defer fm.Release()
	defer bound.Release()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range n {
		b.Append(int64(i)) // not the model's ids 1000 …
	}
	other := b.NewArray()
	pm := placement.NewFromDistances("fisherstub", stubMethod{}, other, make([]float64, n*2), 2)
	defer pm.Release()
	if _, err := fm.BindMap(pm); !errors.Is(err, transforms.ErrModel) || !strings.Contains(err.Error(), "not in the map") {
		t.Errorf("other ids: %v", err)
	}
	short := placement.NewFromDistances("fisherstub", stubMethod{}, array.NewSlice(other, 0, n-1), make([]float64, (n-1)*2), 2)
	defer short.Release()
	if _, err := fm.BindMap(short); !errors.Is(err, transforms.ErrModel) || !strings.Contains(err.Error(), "59 rows") {
		t.Errorf("fewer rows: %v", err)
	}
	if _, err := fm.BindMap(bound); !errors.Is(err, transforms.ErrModel) {
		t.Errorf("a map that is not from distances: %v", err)
	}
	var _ arrow.Array = other
}
