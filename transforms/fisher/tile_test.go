package fisher

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// pairKey is one row of a long distance table: the ids and the distance's
// bits.
type pairKey struct {
	i, j string
	bits uint64
}

// runFile runs the stage on files and returns the rows of its long output
// as a set (each row must occur once) and the output's figures.
func runFile(t *testing.T, in map[string]string, set func(o *Options)) (map[pairKey]bool, map[string]any) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.parquet")
	paths := map[string]string{"out": out}
	for k, v := range in {
		paths[k] = v
	}
	o := DefaultOptions()
	o.ID, o.Label = "id", "label"
	set(&o)
	if err := transforms.Run(context.Background(), Stage{}, &o, &transforms.Env{Tables: &transforms.FileTables{Paths: paths}}); err != nil {
		t.Fatal(err)
	}
	r, err := arrowio.Open(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	rows := map[pairKey]bool{}
	for r.Next() {
		rec := r.RecordBatch()
		is, js := rec.Column(0), rec.Column(1)
		ds := rec.Column(2).(*array.Float64)
		for q := range int(rec.NumRows()) {
			k := pairKey{is.ValueStr(q), js.ValueStr(q), math.Float64bits(ds.Value(q))}
			if rows[k] {
				t.Fatalf("row %v twice", k)
			}
			rows[k] = true
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return rows, transforms.TableProvenance(r.Schema()).Figures
}

// tileFigures reports whether fig holds the rows of tile t of n objects
// (tile_rows and tile_columns), and not the tile itself, which the params
// record.
func tileFigures(fig map[string]any, t Tile, n int) bool {
	rows := func(b int) []any {
		lo, hi := t.Block(b, n)
		return []any{float64(lo), float64(hi)}
	}
	return fmt.Sprint(fig["tile_rows"]) == fmt.Sprint(rows(t.I)) && fmt.Sprint(fig["tile_columns"]) == fmt.Sprint(rows(t.J)) &&
		fig["tile"] == nil && fig["tiles"] == nil
}

// TestTilesUnion checks that the tiles of the pair table together are the
// untiled table bit for bit, for T = 1, 2, 3, on the bundled similarity
// matrices and the stage's dense modes.
func TestTilesUnion(t *testing.T) {
	sets := []string{"aural_sonar", "protein"}
	if !testing.Short() {
		sets = append(sets, "voting")
	}
	modes := []struct {
		name string
		set  func(o *Options)
	}{
		{"fisher", func(o *Options) {}},
		{"left exclude-endpoints", func(o *Options) { o.Rule, o.ExcludeEndpoints, o.Steps = Left, true, 5 }},
		{"upper", func(o *Options) { o.Upper = true }},
		{"kernel", func(o *Options) { o.Metric = MetricKernel }},
		{"kernel upper", func(o *Options) { o.Metric, o.Upper = MetricKernel, true }},
	}
	for _, ds := range sets {
		in := map[string]string{"similarity": filepath.Join("..", "..", "testdata", "similarity", ds+".parquet")}
		for _, m := range modes {
			if ds == "voting" && m.name != "upper" {
				continue // the largest set: one mode is enough
			}
			full, _ := runFile(t, in, m.set)
			ids := map[string]bool{}
			for k := range full {
				ids[k.i], ids[k.j] = true, true
			}
			upper := false
			{
				o := DefaultOptions()
				m.set(&o)
				upper = o.Upper
			}
			for T := 1; T <= 3; T++ {
				union := map[pairKey]bool{}
				for I := range T {
					for J := range T {
						if upper && I > J {
							continue
						}
						tile := Tile{I: I, J: J, Count: T}
						rows, fig := runFile(t, in, func(o *Options) { m.set(o); o.Tile = tile })
						if !tileFigures(fig, tile, len(ids)) {
							t.Errorf("%s %s tile %s: figures %v", ds, m.name, tile, fig)
						}
						for k := range rows {
							if union[k] {
								t.Errorf("%s %s tile %s: row %v also in an earlier tile", ds, m.name, tile, k)
							}
							union[k] = true
						}
					}
				}
				if len(union) != len(full) {
					t.Errorf("%s %s T=%d: %d rows in the tiles, %d untiled", ds, m.name, T, len(union), len(full))
				}
				var diff int
				for k := range full {
					if !union[k] {
						diff++
					}
				}
				if diff > 0 {
					t.Errorf("%s %s T=%d: %d untiled rows missing from the tiles (or with other bits)", ds, m.name, T, diff)
				}
			}
		}
	}
}

func TestTileText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Tile
		ok   bool
	}{
		{"", Tile{}, true},
		{"0,0/1", Tile{0, 0, 1}, true},
		{"2,1/3", Tile{2, 1, 3}, true},
		{" 1, 2/3 ", Tile{1, 2, 3}, true},
		{"3,0/3", Tile{}, false},
		{"0,3/3", Tile{}, false},
		{"0,0/0", Tile{}, false},
		{"-1,0/2", Tile{}, false},
		{"0/2", Tile{}, false},
		{"0,1", Tile{}, false},
		{"a,b/c", Tile{}, false},
		{"2147483646,0/2147483647", Tile{2147483646, 0, MaxTiles}, true},
		{"0,0/2147483648", Tile{}, false},
		{"0,0/4611686018427387904", Tile{}, false},
		{"0,0/99999999999999999999", Tile{}, false},
	} {
		var got Tile
		err := got.UnmarshalText([]byte(tc.in))
		if tc.ok != (err == nil) || tc.ok && got != tc.want {
			t.Errorf("%q: %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
			continue
		}
		if tc.ok {
			if b, _ := got.MarshalText(); string(b) != tc.want.String() {
				t.Errorf("%q: text %q", tc.in, b)
			}
		}
	}
	// Blocks cover the rows once, in order, also with more blocks than rows.
	for _, c := range [][2]int{{10, 3}, {2, 5}, {7, 7}, {0, 2}} {
		n, T := c[0], c[1]
		next := 0
		for b := range T {
			lo, hi := Tile{Count: T}.Block(b, n)
			if lo != next || hi < lo {
				t.Errorf("n=%d T=%d: block %d = [%d, %d), want it to start at %d", n, T, b, lo, hi, next)
			}
			next = hi
		}
		if next != n {
			t.Errorf("n=%d T=%d: blocks end at %d", n, T, next)
		}
	}
}

func TestTileErrors(t *testing.T) {
	rec := featureRecord(t)
	for _, tc := range []struct {
		name string
		set  func(o *Options)
	}{
		{"square", func(o *Options) { o.Format = FormatSquare }},
		{"upper below the diagonal", func(o *Options) { o.Upper = true; o.Tile = Tile{1, 0, 2} }},
	} {
		_, err := runStage(t, map[string]arrow.RecordBatch{"in": rec}, func(o *Options) {
			o.Label, o.Kernel, o.Tile = "label", LinearKernel, Tile{0, 1, 2}
			tc.set(o)
		})
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != "tile" {
			t.Errorf("%s: error %v, want an option error on tile", tc.name, err)
		}
	}
}

// TestEmptyTile: a tile of more blocks than objects holds no pairs; it is
// written (with the output's schema and the tile's figures) without a fit,
// so that a host can learn the schema cheaply.
func TestEmptyTile(t *testing.T) {
	in := map[string]string{"similarity": filepath.Join("..", "..", "testdata", "similarity", "aural_sonar.parquet")}
	tile := Tile{I: 0, J: 0, Count: math.MaxInt32}
	rows, fig := runFile(t, in, func(o *Options) { o.Upper, o.Tile = true, tile })
	if len(rows) != 0 {
		t.Errorf("%d rows, want none", len(rows))
	}
	if !tileFigures(fig, tile, 100) || fig["sigma"] != nil {
		t.Errorf("figures %v: want the tile's, and no fit (no sigma)", fig)
	}
	for _, tc := range []struct {
		tile  Tile
		empty bool
	}{{Tile{0, 0, 100}, false}, {Tile{0, 1, 101}, true}, {Tile{100, 100, 101}, false}, {Tile{100, 0, 101}, true}, {Tile{0, 0, 1}, false}, {Tile{}, false}} {
		if got := tc.tile.empty(100); got != tc.empty {
			t.Errorf("tile %s of 100 objects: empty %v, want %v", tc.tile, got, tc.empty)
		}
	}
}

// TestTileHugeCount: a tile of a count far above the number of objects is
// computed from its two blocks alone (no work per block of the count, no
// overflow of b·n): each tile (I, J) of 100 objects holds exactly the pairs
// of the rows its blocks hold, for counts up to the largest int.
func TestTileHugeCount(t *testing.T) {
	in := map[string]string{"similarity": filepath.Join("..", "..", "testdata", "similarity", "aural_sonar.parquet")}
	const n = 100
	full, _ := runFile(t, in, func(o *Options) {})
	byRows := map[[2]string]pairKey{}
	for k := range full {
		byRows[[2]string{k.i, k.j}] = k
	}
	// blockOf is the block of row r among n rows in count blocks: the
	// smallest b with ⌊(b+1)·n/count⌋ > r, i.e. ⌈(r+1)·count/n⌉ − 1,
	// computed in big integers.
	blockOf := func(r int, count int) int {
		c := new(big.Int).Mul(big.NewInt(int64(r+1)), big.NewInt(int64(count)))
		c.Add(c, big.NewInt(n-1))
		c.Quo(c, big.NewInt(n))
		return int(c.Int64()) - 1
	}
	r, err := arrowio.Open(context.Background(), in["similarity"])
	if err != nil {
		t.Fatal(err)
	}
	f, err := arrowio.ReadFrame(context.Background(), r, arrowio.Selection{ID: "id", NoFeatures: true, Keep: []string{}})
	r.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	if f.N != n {
		t.Fatalf("%d objects, want %d", f.N, n)
	}
	ids := func(lo, hi int) []string {
		var s []string
		for r := lo; r < hi; r++ {
			s = append(s, f.ID.ValueStr(r))
		}
		return s
	}
	for _, count := range []int{1_000_000_000_000, 1<<62 + 12345, math.MaxInt64} {
		for _, rc := range [][2]int{{99, 98}, {0, 99}, {57, 57}, {3, 40}} {
			tile := Tile{I: blockOf(rc[0], count), J: blockOf(rc[1], count), Count: count}
			name := fmt.Sprintf("count %d, rows %d and %d (tile %s)", count, rc[0], rc[1], tile)
			ilo, ihi := tile.Block(tile.I, n)
			jlo, jhi := tile.Block(tile.J, n)
			if ilo != rc[0] || ihi != rc[0]+1 || jlo != rc[1] || jhi != rc[1]+1 {
				t.Errorf("%s: blocks [%d, %d) and [%d, %d), want rows %d and %d alone", name, ilo, ihi, jlo, jhi, rc[0], rc[1])
				continue
			}
			rows, fig := runFile(t, in, func(o *Options) { o.Tile = tile })
			if !tileFigures(fig, tile, n) {
				t.Errorf("%s: figures %v", name, fig)
			}
			want := map[pairKey]bool{}
			for _, i := range ids(ilo, ihi) {
				for _, j := range ids(jlo, jhi) {
					if k, ok := byRows[[2]string{i, j}]; ok {
						want[k] = true
					}
				}
			}
			if len(rows) != len(want) {
				t.Errorf("%s: %d rows, want %d", name, len(rows), len(want))
			}
			for k := range want {
				if !rows[k] {
					t.Errorf("%s: row %v of the untiled table missing", name, k)
				}
			}
		}
	}
}
