package fisher

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// prepare runs the stage's set-up alone (prepared-out, no out) and returns
// the set-up's path.
func prepare(t *testing.T, in map[string]string, set func(o *Options)) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "prepared.arrow")
	paths := map[string]string{"prepared-out": p}
	for k, v := range in {
		paths[k] = v
	}
	o := DefaultOptions()
	o.ID, o.Label = "id", "label"
	set(&o)
	if err := transforms.Run(context.Background(), Stage{}, &o, &transforms.Env{Tables: &transforms.FileTables{Paths: paths}}); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPreparedTiles: the tiles of a set-up written once are the untiled
// table bit for bit, with the untiled run's set-up figures, for the path
// options a tile may still choose; a set-up option other than the set-up's
// is refused, naming it.
func TestPreparedTiles(t *testing.T) {
	sonar := map[string]string{"similarity": filepath.Join("..", "..", "testdata", "similarity", "aural_sonar.parquet")}
	for _, m := range []struct {
		name string
		set  func(o *Options)
	}{
		{"default", func(o *Options) {}},
		{"left exclude-endpoints upper", func(o *Options) { o.Rule, o.ExcludeEndpoints, o.Steps, o.Upper = Left, true, 5, true }},
		{"sigma-scale flip", func(o *Options) { o.SigmaScale, o.Correction = 2, CorrectFlip }},
	} {
		full, fullFig := runFile(t, sonar, m.set)
		prep := prepare(t, sonar, m.set)
		in := map[string]string{"prepared": prep}
		const T = 3
		union := map[pairKey]bool{}
		for I := range T {
			for J := range T {
				o := DefaultOptions()
				m.set(&o)
				if o.Upper && I > J {
					continue
				}
				tile := Tile{I: I, J: J, Count: T}
				rows, fig := runFile(t, in, func(o *Options) { m.set(o); o.Tile = tile })
				if fig["sigma"] != fullFig["sigma"] || fig["negative_eigenvalue_share"] != fullFig["negative_eigenvalue_share"] {
					t.Errorf("%s tile %s: σ %v and negative share %v, untiled %v and %v", m.name, tile, fig["sigma"], fig["negative_eigenvalue_share"], fullFig["sigma"], fullFig["negative_eigenvalue_share"])
				}
				for k := range rows {
					union[k] = true
				}
			}
		}
		if len(union) != len(full) {
			t.Fatalf("%s: %d rows in the tiles, %d untiled", m.name, len(union), len(full))
		}
		for k := range full {
			if !union[k] {
				t.Fatalf("%s: untiled row %v is in no tile with the same bits", m.name, k)
			}
		}
	}
	prep := prepare(t, sonar, func(o *Options) {})
	for _, tc := range []struct {
		name, option string
		set          func(o *Options)
	}{
		{"another sigma-scale", "sigma-scale", func(o *Options) { o.SigmaScale = 3 }},
		{"a sigma", "sigma", func(o *Options) { o.Sigma = 0.5 }},
		{"another correction", "correction", func(o *Options) { o.Correction = CorrectShift }},
		{"the kernel metric", "metric", func(o *Options) { o.Metric = MetricKernel }},
		{"neighbours", "neighbors", func(o *Options) { o.Neighbors = 5 }},
	} {
		o := DefaultOptions()
		tc.set(&o)
		paths := map[string]string{"prepared": prep, "out": filepath.Join(t.TempDir(), "x.parquet")}
		err := transforms.Run(context.Background(), Stage{}, &o, &transforms.Env{Tables: &transforms.FileTables{Paths: paths}})
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option {
			t.Errorf("%s: %v, want an option error on %s", tc.name, err, tc.option)
		}
	}
}

// TestPreparedFile: the set-up survives its file, and a damaged one is
// refused with ErrModel naming what is wrong.
func TestPreparedFile(t *testing.T) {
	const n, dim, k = 40, 3, 2
	x, cls := mixtureRows(n, dim, k, 4)
	ctx := context.Background()
	s := gram(t, mustKernel(t, "rbf", x, n, dim), x, n, dim)
	o := DefaultOptions()
	o.Perplexity = 5
	p, _, err := Prepare(ctx, s, n, cls, k, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.IDs, p.Classes = int64IDs(n, 0), []string{"a", "b"}
	defer p.Release()
	dir := t.TempDir()
	path := filepath.Join(dir, "p.parquet")
	if err := transforms.WriteModelFile(ctx, path, p, nil); err != nil {
		t.Fatal(err)
	}
	back, _, err := transforms.ReadModelFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	b := back.(*Prepared)
	defer b.Release()
	if b.Sigma != p.Sigma || !slices.Equal(b.S, p.S) || !slices.Equal(b.Class, p.Class) || b.Setup != p.Setup {
		t.Errorf("the set-up changed in its file")
	}
	if err := b.Transform(ctx, nil, nil, 0, 1); !errors.Is(err, ErrNotAMap) {
		t.Errorf("applying a set-up: %v", err)
	}
	for _, tc := range []struct {
		name, want string
		damage     func(c *Prepared)
	}{
		{"asymmetric", `column "s_1", row 3`, func(c *Prepared) { c.S[3*n+1] += 1e-9 }},
		{"class out of range", `column "class", row 5`, func(c *Prepared) { c.Class[5] = 2 }},
		{"one class", "1 classes", func(c *Prepared) { c.Classes = c.Classes[:1]; clear(c.Class) }},
	} {
		c := *p
		c.S, c.Class, c.Classes = slices.Clone(p.S), slices.Clone(p.Class), slices.Clone(p.Classes)
		tc.damage(&c)
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".parquet")
		if err := transforms.WriteModelFile(ctx, path, &c, nil); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if _, _, err := transforms.ReadModelFile(ctx, path); !errors.Is(err, transforms.ErrModel) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrModel naming %s", tc.name, err, tc.want)
		}
	}
}

func mustKernel(t *testing.T, kind string, x []float64, n, dim int) kernels.Kernel {
	t.Helper()
	k, err := kernels.Kernel{Kind: kind}.Resolve(x, n, dim)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// int64IDs is the ids from, from+1, … of n rows.
func int64IDs(n int, from int64) arrow.Array {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range n {
		b.Append(from + int64(i))
	}
	return b.NewArray()
}
