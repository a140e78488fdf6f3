package statfit_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	_ "github.com/ordinate/ordinate/transforms/all"
	"github.com/ordinate/ordinate/transforms/moments"
)

// readAll reads every batch of a table into one record.
func readAll(t *testing.T, path string) arrow.RecordBatch {
	t.Helper()
	r, err := arrowio.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var recs []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	tbl := array.NewTableFromRecords(r.Schema(), recs)
	defer tbl.Release()
	for _, rec := range recs {
		rec.Release()
	}
	tr := array.NewTableReader(tbl, tbl.NumRows())
	defer tr.Release()
	tr.Next()
	rec := tr.RecordBatch()
	rec.Retain()
	return rec
}

// writeParts writes the rows of rec as Parquet files in dir, split at
// cuts, and the whole as all.parquet; it returns the parts' paths.
func writeParts(t *testing.T, rec arrow.RecordBatch, dir string, cuts []int64) []string {
	t.Helper()
	write := func(path string, lo, hi int64) {
		w, err := arrowio.Create(context.Background(), path, rec.Schema())
		if err != nil {
			t.Fatal(err)
		}
		s := rec.NewSlice(lo, hi)
		err = w.Write(s)
		s.Release()
		if err == nil {
			err = w.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "parts"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(dir, "all.parquet"), 0, rec.NumRows())
	var parts []string
	lo := int64(0)
	for i, hi := range append(slices.Clone(cuts), rec.NumRows()) {
		p := filepath.Join(dir, "parts", fmt.Sprintf("part-%d.parquet", i))
		write(p, lo, hi)
		parts = append(parts, p)
		lo = hi
	}
	return parts
}

// mixture is a hard data set: four classes of unequal widths and sizes
// that overlap, on an offset of 1e3, with text labels.
func mixture(t *testing.T) arrow.RecordBatch {
	t.Helper()
	rng := rand.New(rand.NewPCG(38, 2))
	const D = 6
	fields := []arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}}
	for j := range D {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("f%d", j), Type: arrow.PrimitiveTypes.Float64})
	}
	fields = append(fields, arrow.Field{Name: "grade", Type: arrow.BinaryTypes.String})
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	grades := []string{"low", "mid", "high", "top"}
	width := []float64{0.5, 2, 1, 4}
	for i := range 1000 {
		c := min(int(rng.ExpFloat64()*1.2), 3)
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("r%04d", i))
		for j := range D {
			b.Field(1 + j).(*array.Float64Builder).Append(1e3 + float64(c*(j%3)) + width[c]*float64(j+1)*rng.NormFloat64())
		}
		b.Field(1 + D).(*array.StringBuilder).Append(grades[c])
	}
	return b.NewRecordBatch()
}

type fitCase struct {
	stage string
	opts  func(o transforms.Options) // the stage's options beside the tables
}

// set sets options by their names (the CLI's), as the describe
// registry's reflection does.
func set(kv ...string) func(o transforms.Options) {
	return func(o transforms.Options) {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		if err := transforms.SetOptions(o, m); err != nil {
			panic(err)
		}
	}
}

// run runs a stage on file tables.
func run(t *testing.T, c fitCase, paths map[string]string, extra ...string) error {
	t.Helper()
	s, ok := transforms.LookupStage(c.stage)
	if !ok {
		t.Fatalf("no stage %s", c.stage)
	}
	o := s.NewOptions()
	if c.opts != nil {
		c.opts(o)
	}
	set(extra...)(o)
	return transforms.Run(context.Background(), s, o, &transforms.Env{Tables: &transforms.FileTables{Paths: paths}})
}

// embedding reads the coordinates of an embedding table by row id.
func embedding(t *testing.T, path, id string) (ids []string, x []float64) {
	t.Helper()
	r, err := arrowio.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	f, err := arrowio.ReadFrame(context.Background(), r, arrowio.Selection{ID: id, Features: []string{"emb_*"}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	for i := range f.N {
		ids = append(ids, f.ID.ValueStr(i))
	}
	return ids, slices.Clone(f.X)
}

// figure reads a figure of a table's provenance.
func figure(t *testing.T, path, key string) any {
	t.Helper()
	r, err := arrowio.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	p := transforms.TableProvenance(r.Schema())
	if p == nil {
		t.Fatalf("%s: no provenance", path)
	}
	return p.Figures[key]
}

// idOption is apply's id option for an id column ("" for row numbers).
func idOption(id string) []string {
	if id == "" {
		return nil
	}
	return []string{"id", id}
}

// relDiff is the largest difference of a and b relative to the largest |b|.
func relDiff(a, b []float64) float64 {
	var big, worst float64
	for _, v := range b {
		big = max(big, math.Abs(v))
	}
	for i := range a {
		worst = max(worst, math.Abs(a[i]-b[i])/big)
	}
	if len(a) != len(b) {
		return math.Inf(1)
	}
	return worst
}

// TestStreamedAndPartialsMatchInMemory: for bvp, pca and lda on real data
// and on a hard mixture, the fit from statistics equals the fit of the
// rows in memory to 1e-12 relative (embeddings of the same rows, the same
// columns): streamed over parts (--stream on), from the parts' partials
// (--from-partials), and from partials merged in two levels (partials of
// partials).
func TestStreamedAndPartialsMatchInMemory(t *testing.T) {
	const tol = 1e-12
	thyroid := readAll(t, "../../testdata/ordinal/newthyroid.csv")
	defer thyroid.Release()
	zoo := readAll(t, "../../testdata/zoo/zoo.csv")
	defer zoo.Release()
	mix := mixture(t)
	defer mix.Release()
	data := []struct {
		name string
		rec  arrow.RecordBatch
		id   string
		cuts []int64
		opts []string
	}{
		{"thyroid", thyroid, "", []int64{70, 71, 150}, []string{"label", "label"}},
		{"zoo", zoo, "", []int64{40}, []string{"label", "type"}}, // animal_name repeats "frog"
		{"mixture", mix, "id", []int64{1, 333, 700}, []string{"label", "grade", "order", "low,mid,high,top", "id", "id"}},
	}
	for _, d := range data {
		for _, stage := range []string{"bvp", "pca", "lda"} {
			name := d.name + "/" + stage
			if d.name == "zoo" && stage == "bvp" {
				continue // zoo's types are not ordinal
			}
			opts := d.opts
			if stage == "pca" && d.name == "mixture" {
				opts = []string{"label", "grade", "id", "id"} // pca passes the label through
			}
			if d.name == "zoo" && stage == "lda" {
				opts = append(slices.Clone(opts), "shrinkage", "1e-3")
			}
			c := fitCase{stage: stage, opts: set(opts...)}
			dir := t.TempDir()
			parts := writeParts(t, d.rec, dir, d.cuts)
			all := filepath.Join(dir, "all.parquet")
			id := d.id
			if id == "" {
				id = "row"
			}
			want := filepath.Join(dir, "mem.parquet")
			if err := run(t, c, map[string]string{"in": all, "out": want}, "stream", "off"); err != nil {
				t.Fatalf("%s in memory: %v", name, err)
			}
			wantIDs, wantX := embedding(t, want, id)
			if got := figure(t, want, "fit_from"); got != "rows" {
				t.Errorf("%s in memory: provenance says fit_from %v, want rows", name, got)
			}

			// Partials per part, merged flat and in two levels.
			pdir, qdir := filepath.Join(dir, "p"), filepath.Join(dir, "q")
			for _, d := range []string{pdir, qdir} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for i, p := range parts {
				if err := run(t, c, map[string]string{"in": p, "partials-out": filepath.Join(pdir, fmt.Sprintf("%d.arrow", i))}); err != nil {
					t.Fatalf("%s: partials of part %d: %v", name, i, err)
				}
			}
			if err := run(t, c, map[string]string{"from-partials": filepath.Join(pdir, "[01].arrow"), "partials-out": filepath.Join(qdir, "01.arrow")}); err != nil {
				t.Fatalf("%s: partials of partials: %v", name, err)
			}
			for i := 2; i < len(parts); i++ {
				b, err := os.ReadFile(filepath.Join(pdir, fmt.Sprintf("%d.arrow", i)))
				if err == nil {
					err = os.WriteFile(filepath.Join(qdir, fmt.Sprintf("%d.arrow", i)), b, 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			// A label of pca is passed through; its statistics are pooled.
			for _, tc := range []struct {
				what  string
				paths map[string]string
				extra []string
			}{
				{"streamed", map[string]string{"in": filepath.Join(dir, "parts")}, []string{"stream", "on"}},
				{"model alone, then applied", map[string]string{"in": filepath.Join(dir, "parts"), "model-out": filepath.Join(dir, "alone.model.parquet")}, nil},
				{"from partials", map[string]string{"from-partials": pdir, "in": all}, nil},
				{"from partials of partials", map[string]string{"from-partials": qdir, "in": all}, nil},
			} {
				out := filepath.Join(dir, strings.ReplaceAll(tc.what, " ", "-")+".parquet")
				if m := tc.paths["model-out"]; m != "" {
					// The model alone, in one pass; apply places the rows.
					if err := run(t, c, tc.paths, tc.extra...); err != nil {
						t.Fatalf("%s %s: %v", name, tc.what, err)
					}
					if err := run(t, fitCase{stage: "apply", opts: set(idOption(d.id)...)}, map[string]string{"model": m, "in": all, "out": out}); err != nil {
						t.Fatalf("%s %s: apply: %v", name, tc.what, err)
					}
				} else {
					tc.paths["out"] = out
					if err := run(t, c, tc.paths, tc.extra...); err != nil {
						t.Fatalf("%s %s: %v", name, tc.what, err)
					}
				}
				if tc.paths["model-out"] == "" {
					want := map[bool]string{true: "partials", false: "streamed statistics"}[tc.paths["from-partials"] != ""]
					if got := figure(t, out, "fit_from"); got != want {
						t.Errorf("%s %s: provenance says fit_from %v, want %s", name, tc.what, got, want)
					}
				}
				ids, x := embedding(t, out, id)
				if !slices.Equal(ids, wantIDs) {
					t.Fatalf("%s %s: rows %v…, want %v…", name, tc.what, ids[:3], wantIDs[:3])
				}
				if e := relDiff(x, wantX); !(e <= tol) {
					t.Errorf("%s %s: embedding off by %.3g relative, want ≤ %g", name, tc.what, e, tol)
				}
			}
		}
	}
}

// TestStreamedRefusals: what a streamed fit cannot do is an option error
// naming the option, before any output is written.
func TestStreamedRefusals(t *testing.T) {
	dir := t.TempDir()
	thyroid := readAll(t, "../../testdata/ordinal/newthyroid.csv")
	defer thyroid.Release()
	parts := writeParts(t, thyroid, dir, []int64{100})
	all := filepath.Join(dir, "all.parquet")
	p := filepath.Join(dir, "p.arrow")
	bvp := fitCase{stage: "bvp", opts: set("label", "label")}
	if err := run(t, bvp, map[string]string{"in": parts[0], "partials-out": p}); err != nil {
		t.Fatal(err)
	}
	zoo := filepath.Join(dir, "zoo.arrow")
	if err := run(t, fitCase{stage: "lda", opts: set("label", "type")}, map[string]string{"in": "../../testdata/zoo/zoo.csv", "partials-out": zoo}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		paths  map[string]string
		extra  []string
		option string
		want   error
		says   string
	}{
		{"stdin twice", map[string]string{"in": "-", "out": filepath.Join(dir, "o.parquet")}, []string{"stream", "on"}, "in", nil, "cannot be read twice"},
		{"stream off with partials", map[string]string{"in": all, "partials-out": filepath.Join(dir, "x.arrow")}, []string{"stream", "off"}, "stream", nil, "from-partials and partials-out"},
		{"out without in", map[string]string{"from-partials": p, "out": filepath.Join(dir, "o.parquet")}, nil, "out", transforms.ErrNoTable, "no rows to place"},
		{"in without out", map[string]string{"from-partials": p, "in": all, "model-out": filepath.Join(dir, "m.parquet")}, nil, "in", nil, "give out"},
		{"nothing to write", map[string]string{"from-partials": p}, nil, "model-out", transforms.ErrNoTable, "model-out, out or partials-out"},
		{"no in", map[string]string{"out": filepath.Join(dir, "o.parquet")}, nil, "in", transforms.ErrNoTable, "from-partials"},
		{"no output", map[string]string{"in": all}, nil, "out", transforms.ErrNoTable, "model-out or partials-out"},
		{"stream off without out", map[string]string{"in": all, "model-out": filepath.Join(dir, "m.parquet")}, []string{"stream", "off"}, "stream", nil, "give out"},
		{"features with partials", map[string]string{"from-partials": p, "model-out": filepath.Join(dir, "m.parquet")}, []string{"features", "x1"}, "features", nil, "partials fix the features"},
		{"another label", map[string]string{"from-partials": p, "model-out": filepath.Join(dir, "m.parquet")}, []string{"label", "grade"}, "label", nil, `written with label "label"`},
		{"partials as data", map[string]string{"in": p, "out": filepath.Join(dir, "o.parquet")}, nil, "in", transforms.ErrPartialsAsData, "with from-partials"},
	} {
		err := run(t, bvp, tc.paths, tc.extra...)
		var oe *transforms.OptionError
		if !errors.As(err, &oe) || oe.Option != tc.option || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v; want an option error on %s saying %q", tc.name, err, tc.option, tc.says)
		}
	}
	// Partials of other features do not merge: the error names both.
	mixed := filepath.Join(dir, "mixed")
	for i, src := range []string{p, zoo} {
		b, err := os.ReadFile(src)
		if err == nil {
			err = os.MkdirAll(mixed, 0o755)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(mixed, fmt.Sprintf("%d.arrow", i)), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	err := run(t, fitCase{stage: "lda"}, map[string]string{"from-partials": mixed, "model-out": filepath.Join(dir, "m.parquet")})
	if !errors.Is(err, moments.ErrPartials) || !strings.Contains(err.Error(), "1.arrow") || !strings.Contains(err.Error(), "0.arrow") {
		t.Errorf("partials of other features: %v, want ErrPartials naming both files", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "m.parquet")); !os.IsNotExist(err) {
		t.Errorf("a refused run left its model: %v", err)
	}
}

// narrow is a harder set far from zero: 20,000 rows of 12 features in five
// classes of widths 0.3 to 8 around seeded centres, all on an offset, with
// integer labels.
func narrow(t *testing.T, offset float64) arrow.RecordBatch {
	t.Helper()
	rng := rand.New(rand.NewPCG(38, 5))
	const D, K, n = 12, 5, 20000
	width := []float64{0.3, 1, 2, 4, 8}
	centre := make([]float64, K*D)
	for i := range centre {
		centre[i] = 2 * rng.NormFloat64()
	}
	fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}
	for j := range D {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("f%d", j), Type: arrow.PrimitiveTypes.Float64})
	}
	fields = append(fields, arrow.Field{Name: "grade", Type: arrow.PrimitiveTypes.Int64})
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i := range n {
		c := rng.IntN(K)
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		for j := range D {
			b.Field(1 + j).(*array.Float64Builder).Append(offset + centre[c*D+j] + width[c]*rng.NormFloat64())
		}
		b.Field(1 + D).(*array.Int64Builder).Append(int64(c))
	}
	return b.NewRecordBatch()
}

// modelColumns reads the float64 columns of an affine model table (mean,
// scale, origin, axis_*).
func modelColumns(t *testing.T, path string) map[string][]float64 {
	t.Helper()
	r, err := arrowio.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	out := map[string][]float64{}
	for r.Next() {
		rec := r.RecordBatch()
		for i, f := range rec.Schema().Fields() {
			if col, ok := rec.Column(i).(*array.Float64); ok {
				out[f.Name] = append(out[f.Name], col.Float64Values()...)
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFitsFromStatisticsFarFromZero: on features offset by 1e6 with a
// class of width 0.3 (narrow), the models fitted from streamed statistics
// and from partials equal the model fitted in memory to 1e-12 relative:
// the standardisation's means and scales and every axis (2.9e-14 at
// worst). The statistics keep their digits by taking every mean from a
// shift, the first row (Moments.Shift): without it they are 5.4e-11 off.
// The embeddings are not compared here: a row's coordinate is a
// difference of terms of the offset's size, so a change of 1e-15 in an
// axis moves it by 1e-9 of its scale, in either fit.
func TestFitsFromStatisticsFarFromZero(t *testing.T) {
	const tol = 1e-12
	rec := narrow(t, 1e6)
	defer rec.Release()
	for _, stage := range []string{"bvp", "pca", "lda"} {
		c := fitCase{stage: stage, opts: set("label", "grade", "id", "id")}
		dir := t.TempDir()
		parts := writeParts(t, rec, dir, []int64{7000, 13001})
		all := filepath.Join(dir, "all.parquet")
		want := filepath.Join(dir, "mem.model.parquet")
		if err := run(t, c, map[string]string{"in": all, "out": filepath.Join(dir, "mem.parquet"), "model-out": want}, "stream", "off"); err != nil {
			t.Fatalf("%s in memory: %v", stage, err)
		}
		pdir := filepath.Join(dir, "p")
		if err := os.Mkdir(pdir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, p := range parts {
			if err := run(t, c, map[string]string{"in": p, "partials-out": filepath.Join(pdir, fmt.Sprintf("%d.arrow", i))}); err != nil {
				t.Fatal(err)
			}
		}
		streamed, merged := filepath.Join(dir, "streamed.model.parquet"), filepath.Join(dir, "merged.model.parquet")
		if err := run(t, c, map[string]string{"in": filepath.Join(dir, "parts"), "model-out": streamed}); err != nil {
			t.Fatal(err)
		}
		if err := run(t, c, map[string]string{"from-partials": pdir, "model-out": merged}); err != nil {
			t.Fatal(err)
		}
		w := modelColumns(t, want)
		for _, got := range []string{streamed, merged} {
			g := modelColumns(t, got)
			for _, col := range []string{"mean", "scale", "axis_0", "axis_1"} {
				if e := relDiff(g[col], w[col]); !(e <= tol) {
					t.Errorf("%s %s: %s off by %.3g relative, want ≤ %g", stage, filepath.Base(got), col, e, tol)
				}
			}
		}
	}
}
