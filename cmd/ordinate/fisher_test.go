package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
)

const aural = "../../testdata/similarity/aural_sonar.parquet"

// TestFisherKernelGolden checks the "original, clip" column of the paper's
// Table 1 on our copies: leave-one-out 1-NN error of the clipped kernel
// distances is 17/100 (aural sonar) and 22/213 (protein).
func TestFisherKernelGolden(t *testing.T) {
	for _, tc := range []struct {
		set  string
		want float64
	}{{"aural_sonar", 0.17}, {"protein", 22.0 / 213}} {
		dir := t.TempDir()
		sim := "../../testdata/similarity/" + tc.set + ".parquet"
		kern := filepath.Join(dir, "k.parquet")
		if code, _, e := runCmd(t, nil, "fisher", "--similarity", sim, "--id", "id", "--label", "label", "--metric", "kernel", "--upper", "--out", kern, "--quiet"); code != 0 {
			t.Fatalf("%s: fisher --metric kernel: %s", tc.set, e)
		}
		m := filepath.Join(dir, "m.parquet")
		if code, _, e := runCmd(t, nil, "evaluate", "--distances", kern, "--in", sim, "--id", "id", "--label", "label", "--k", "1", "--out", m, "--quiet"); code != 0 {
			t.Fatalf("%s: evaluate: %s", tc.set, e)
		}
		f, err := readFigures(&cli.Context{Context: context.Background()}, m)
		if err != nil {
			t.Fatal(err)
		}
		if got := f["nn_error@1/distances"]; math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: 1-NN error of the clipped kernel distances = %v, want %v", tc.set, got, tc.want)
		}
	}
}

func TestFisherOutputs(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.parquet")
	code, _, e := runCmd(t, nil, "fisher", "--similarity", aural, "--id", "id", "--label", "label", "--out", long, "--quiet")
	if code != 0 {
		t.Fatalf("fisher: exit %d: %s", code, e)
	}
	info, err := arrowio.Inspect(context.Background(), long)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 100*99 {
		t.Errorf("long output has %d rows, want %d", info.Rows, 100*99)
	}
	fig := info.Provenance.Figures
	for _, k := range []string{"sigma", "negative_eigenvalue_share", "long_steps", "classes"} {
		if _, ok := fig[k]; !ok {
			t.Errorf("provenance figures lack %q: %v", k, fig)
		}
	}
	params := info.Provenance.Params
	for k, want := range map[string]any{"steps": 10.0, "rule": "trapezoid", "correction": "clip", "format": "long", "sigma_scale": 1.0} {
		if params[k] != want {
			t.Errorf("provenance param %s = %v, want %v", k, params[k], want)
		}
	}
	if info.Provenance.Kind != "distance_pairs" {
		t.Errorf("kind %q, want distance_pairs", info.Provenance.Kind)
	}
	if share, _ := fig["negative_eigenvalue_share"].(float64); math.Abs(share-0.21) > 0.01 {
		t.Errorf("negative eigenvalue share %v, want about 0.21 (SOURCE.md)", share)
	}
	// The trapezoid rule is symmetric, so --upper holds every value once.
	upper := filepath.Join(dir, "upper.parquet")
	if code, _, e := runCmd(t, nil, "fisher", "--similarity", aural, "--id", "id", "--label", "label", "--upper", "--out", upper, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	if info, _ := arrowio.Inspect(context.Background(), upper); info.Rows != 100*99/2 {
		t.Errorf("--upper output has %d rows, want %d", info.Rows, 100*99/2)
	}
	square := filepath.Join(dir, "square.csv")
	if code, _, e := runCmd(t, nil, "fisher", "--similarity", aural, "--id", "id", "--label", "label", "--format", "square", "--out", square, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	raw, err := os.ReadFile(square)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 101 || len(strings.Split(lines[0], ",")) != 101 {
		t.Errorf("square output: %d lines, header %q…", len(lines), lines[0][:20])
	}
}

func TestFisherBadInput(t *testing.T) {
	dir := t.TempDir()
	oneClass := filepath.Join(dir, "one.csv")
	write(t, oneClass, "id,label,s_0,s_1\na,1,1,0.5\nb,1,0.5,1\n")
	notSquare := filepath.Join(dir, "ns.csv")
	write(t, notSquare, "id,label,s_0,s_1,s_2\na,1,1,0.5,0.1\nb,2,0.5,1,0.2\n")
	nan := filepath.Join(dir, "nan.csv")
	write(t, nan, "id,label,s_0,s_1\na,1,1,NaN\nb,2,0.5,1\n")
	out := filepath.Join(dir, "o.parquet")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"one class", []string{"fisher", "--similarity", oneClass, "--id", "id", "--label", "label"}, "at least 2"},
		{"not square", []string{"fisher", "--similarity", notSquare, "--id", "id", "--label", "label"}, "square"},
		{"nan", []string{"fisher", "--similarity", nan, "--id", "id", "--label", "label"}, `column "s_1", row 0`},
		{"no input", []string{"fisher", "--label", "label"}, "--similarity"},
		{"bad rule", []string{"fisher", "--similarity", aural, "--id", "id", "--label", "label", "--rule", "simpson"}, "simpson"},
		{"perplexity too large", []string{"fisher", "--similarity", aural, "--id", "id", "--label", "label", "--perplexity", "200"}, "perplexity"},
	} {
		code, _, e := runCmd(t, nil, append(tc.args, "--out", out)...)
		if code != exitInput || !strings.Contains(e, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d mentioning %q", tc.name, code, e, exitInput, tc.want)
		}
	}
	noLeftovers(t, dir, "nan.csv", "ns.csv", "one.csv")
}

func TestTSNECommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "t.parquet")
	code, _, e := runCmd(t, nil, "tsne", "--in", thyroid, "--label", "label", "--iterations", "300", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("tsne: exit %d: %s", code, e)
	}
	f := readEmbedding(t, out, "row")
	if f.N != 215 || f.D != 2 {
		t.Errorf("embedding %d×%d", f.N, f.D)
	}
	info, err := arrowio.Inspect(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if kl, ok := info.Provenance.Figures["kl"].(float64); !ok || !(kl > 0) {
		t.Errorf("provenance KL = %v", info.Provenance.Figures["kl"])
	}
	// Fisher distances in, labels passed through from the similarity table.
	fd := filepath.Join(dir, "f.parquet")
	if code, _, e := runCmd(t, nil, "fisher", "--similarity", aural, "--id", "id", "--label", "label", "--upper", "--out", fd, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	ft := filepath.Join(dir, "ft.parquet")
	code, _, e = runCmd(t, nil, "tsne", "--distances", fd, "--labels", aural, "--id", "id", "--label", "label", "--iterations", "300", "--out", ft, "--quiet")
	if code != 0 {
		t.Fatalf("tsne --distances: exit %d: %s", code, e)
	}
	info, err = arrowio.Inspect(context.Background(), ft)
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, fl := range info.Schema.Fields() {
		cols = append(cols, fl.Name)
	}
	if strings.Join(cols, ",") != "id,label,emb_0,emb_1" || info.Rows != 100 {
		t.Errorf("Fisher t-SNE output: columns %v, %d rows", cols, info.Rows)
	}
	// Perplexity must be below N − 1.
	if code, _, e := runCmd(t, nil, "tsne", "--in", thyroid, "--label", "label", "--perplexity", "300", "--out", filepath.Join(dir, "x.parquet")); code != exitInput || !strings.Contains(e, "erplexity") {
		t.Errorf("perplexity 300 on 215 rows: exit %d, %s", code, e)
	}
}

// TestSparsePipeline runs the large-N path end to end: Fisher distances of
// each row's K nearest neighbours, then Barnes-Hut t-SNE of that table.
func TestSparsePipeline(t *testing.T) {
	dir := t.TempDir()
	fd := filepath.Join(dir, "f.parquet")
	if code, _, e := runCmd(t, nil, "fisher", "--similarity", aural, "--id", "id", "--label", "label", "--neighbors", "12", "--out", fd, "--quiet"); code != 0 {
		t.Fatalf("fisher --neighbors: %s", e)
	}
	info, err := arrowio.Inspect(context.Background(), fd)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 100*12 {
		t.Errorf("sparse output has %d rows, want %d", info.Rows, 100*12)
	}
	out := filepath.Join(dir, "t.parquet")
	code, _, e := runCmd(t, nil, "tsne", "--distances", fd, "--labels", aural, "--id", "id", "--label", "label",
		"--perplexity", "3", "--iterations", "300", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("tsne on neighbour lists: exit %d: %s", code, e)
	}
	info, err = arrowio.Inspect(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 100 || info.Provenance.Figures["method"] != "bh" {
		t.Errorf("rows %d, method %v; want 100 rows by Barnes-Hut", info.Rows, info.Provenance.Figures["method"])
	}
}

// TestLocalFisherPipeline: fisher on a feature table with neighbors takes
// the local mode (no n×n array): K pairs per row, the Parzen lists of
// 3·perplexity rows in the provenance, and its table feeds tsne.
func TestLocalFisherPipeline(t *testing.T) {
	dir := t.TempDir()
	fd := filepath.Join(dir, "f.parquet")
	thyroid := filepath.Join("..", "..", "testdata", "ordinal", "newthyroid.csv")
	if code, _, e := runCmd(t, nil, "fisher", "--in", thyroid, "--label", "label", "--kernel", "rbf", "--neighbors", "20", "--out", fd, "--quiet"); code != 0 {
		t.Fatalf("fisher --in --neighbors: %s", e)
	}
	info, err := arrowio.Inspect(context.Background(), fd)
	if err != nil {
		t.Fatal(err)
	}
	fig := info.Provenance.Figures
	if info.Rows != 215*20 || fig["parzen_neighbors"] != float64(90) || fig["knn"] != "exact" {
		t.Errorf("local output: %d rows, figures %v; want %d rows, parzen_neighbors 90, knn exact", info.Rows, fig, 215*20)
	}
	out := filepath.Join(dir, "t.parquet")
	if code, _, e := runCmd(t, nil, "tsne", "--distances", fd, "--perplexity", "5", "--max-iter", "300", "--out", out, "--quiet"); code != 0 {
		t.Fatalf("tsne on the local Fisher table: %s", e)
	}
	if info, err = arrowio.Inspect(context.Background(), out); err != nil || info.Rows != 215 {
		t.Fatalf("embedding: %v, %+v", err, info)
	}
}

// TestDistanceTableShapes: tsne tells neighbour lists from all pairs by
// their shape, also where the counts coincide: 215 rows (odd) with 150
// neighbours each have more rows than the upper triangle, and the upper
// triangle has 107 rows per id on average, like lists of 107.
func TestDistanceTableShapes(t *testing.T) {
	dir := t.TempDir()
	thyroid := filepath.Join("..", "..", "testdata", "ordinal", "newthyroid.csv")
	for _, tc := range []struct {
		name   string
		args   []string
		method string
	}{
		{"150 neighbours", []string{"--neighbors", "150"}, "bh"},
		{"upper triangle", []string{"--upper"}, "exact"},
	} {
		fd := filepath.Join(dir, "f.parquet")
		args := append([]string{"fisher", "--in", thyroid, "--label", "label", "--kernel", "rbf", "--out", fd, "--quiet"}, tc.args...)
		if code, _, e := runCmd(t, nil, args...); code != 0 {
			t.Fatalf("%s: fisher: %s", tc.name, e)
		}
		out := filepath.Join(dir, "t.parquet")
		if code, _, e := runCmd(t, nil, "tsne", "--distances", fd, "--max-iter", "50", "--out", out, "--quiet"); code != 0 {
			t.Fatalf("%s: tsne: %s", tc.name, e)
		}
		info, err := arrowio.Inspect(context.Background(), out)
		if err != nil || info.Rows != 215 || info.Provenance.Figures["method"] != tc.method {
			t.Errorf("%s: %v, %d rows, method %v; want 215 rows by %s", tc.name, err, info.Rows, info.Provenance.Figures["method"], tc.method)
		}
	}
}

// TestFisherMapApply: fisher --model-out and tsne --fisher-model save one
// map that apply places feature rows into by their Fisher distances: a
// table placed in two halves gets the bits of the whole, the fitted rows
// land beside their own positions, and the fisher model alone is refused.
func TestFisherMapApply(t *testing.T) {
	dir := t.TempDir()
	thyroid := filepath.Join("..", "..", "testdata", "ordinal", "newthyroid.csv")
	fd, fm := filepath.Join(dir, "f.parquet"), filepath.Join(dir, "f.model.parquet")
	if code, _, e := runCmd(t, nil, "fisher", "--in", thyroid, "--label", "label", "--kernel", "rbf", "--neighbors", "40", "--out", fd, "--model-out", fm, "--quiet"); code != 0 {
		t.Fatalf("fisher --model-out: %s", e)
	}
	emb, model := filepath.Join(dir, "t.parquet"), filepath.Join(dir, "map.parquet")
	if code, _, e := runCmd(t, nil, "tsne", "--distances", fd, "--fisher-model", fm, "--perplexity", "10", "--out", emb, "--model-out", model, "--quiet"); code != 0 {
		t.Fatalf("tsne --fisher-model: %s", e)
	}
	raw, err := os.ReadFile(thyroid)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimRight(string(raw), "\n")+"\n", "\n")
	lines = lines[:len(lines)-1]
	h1, h2 := filepath.Join(dir, "h1.csv"), filepath.Join(dir, "h2.csv")
	if err := os.WriteFile(h1, []byte(strings.Join(lines[:101], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h2, []byte(lines[0]+strings.Join(lines[101:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	place := func(in, out string, threads string) [][]float64 {
		if code, _, e := runCmd(t, nil, "apply", "--model", model, "--in", in, "--out", out, "--threads", threads, "--quiet"); code != 0 {
			t.Fatalf("apply %s: %s", in, e)
		}
		f := readEmbedding(t, out, "row")
		rows := make([][]float64, f.N)
		for i := range rows {
			rows[i] = f.X[i*f.D : (i+1)*f.D]
		}
		return rows
	}
	whole := place(thyroid, filepath.Join(dir, "p.parquet"), "2")
	parts := append(place(h1, filepath.Join(dir, "p1.parquet"), "1"), place(h2, filepath.Join(dir, "p2.parquet"), "2")...)
	if len(whole) != 215 || len(parts) != 215 {
		t.Fatalf("placed %d rows whole and %d in halves, want 215", len(whole), len(parts))
	}
	for i := range whole {
		if !slices.Equal(whole[i], parts[i]) {
			t.Fatalf("row %d placed at %v in the whole table, %v in its half", i, whole[i], parts[i])
		}
	}
	// The fitted rows come back beside their fitted positions.
	fitted := readEmbedding(t, emb, "id")
	var spread float64
	shift := make([]float64, 0, 215)
	for r := range fitted.N {
		i, _ := strconv.Atoi(fitted.ID.ValueStr(r))
		dx, dy := fitted.X[r*2]-whole[i][0], fitted.X[r*2+1]-whole[i][1]
		shift = append(shift, math.Hypot(dx, dy))
		spread += fitted.X[r*2]*fitted.X[r*2] + fitted.X[r*2+1]*fitted.X[r*2+1]
	}
	spread = math.Sqrt(spread / float64(fitted.N))
	slices.Sort(shift)
	if med := shift[len(shift)/2]; !(med < 0.1*spread) {
		t.Errorf("fitted rows placed a median %.3g from their fitted positions, want < 0.1 × the map's spread %.3g", med, spread)
	}
	other := filepath.Join(dir, "other.model.parquet")
	if code, _, e := runCmd(t, nil, "fisher", "--in", h1, "--label", "label", "--kernel", "rbf", "--neighbors", "40", "--model-out", other, "--quiet"); code != 0 {
		t.Fatalf("fisher set-up of the first half: %s", e)
	}
	code, _, e := runCmd(t, nil, "tsne", "--distances", fd, "--fisher-model", other, "--out", filepath.Join(dir, "x.parquet"), "--model-out", filepath.Join(dir, "y.parquet"), "--quiet")
	if code == 0 || !strings.Contains(e, "--fisher-model") || !strings.Contains(e, "fit both on the same table") {
		t.Errorf("a fisher model of other rows: exit %d, %s", code, e)
	}
	code, _, e = runCmd(t, nil, "apply", "--model", fm, "--in", thyroid, "--out", filepath.Join(dir, "x.parquet"), "--quiet")
	if code == 0 || !strings.Contains(e, "tsne --distances D --fisher-model F") {
		t.Errorf("apply of the fisher model alone: exit %d, %s", code, e)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"fisher-model without model-out", []string{"tsne", "--distances", fd, "--fisher-model", fm, "--out", filepath.Join(dir, "y.parquet")}, "fisher-model"},
		{"fisher-model of another kind", []string{"tsne", "--distances", fd, "--fisher-model", model, "--model-out", filepath.Join(dir, "z.parquet"), "--out", filepath.Join(dir, "y.parquet")}, "not the model of fisher --model-out"},
		{"model-out without neighbors", []string{"fisher", "--in", thyroid, "--label", "label", "--kernel", "rbf", "--out", filepath.Join(dir, "y.parquet"), "--model-out", filepath.Join(dir, "z.parquet")}, "local mode"},
	} {
		code, _, e := runCmd(t, nil, append(tc.args, "--quiet")...)
		if code == 0 || !strings.Contains(e, tc.want) {
			t.Errorf("%s: exit %d, %s; want an error naming %q", tc.name, code, e, tc.want)
		}
	}
	noLeftovers(t, dir, "f.model.parquet", "f.parquet", "h1.csv", "h2.csv", "map.parquet", "other.model.parquet", "p.parquet", "p1.parquet", "p2.parquet", "t.parquet")
}

// TestFisherPreparedTiles: prepared-out writes the set-up once, tiles from
// it make the untiled table bit for bit, and wrong combinations are
// refused with the option named.
func TestFisherPreparedTiles(t *testing.T) {
	dir := t.TempDir()
	sonar := filepath.Join("..", "..", "testdata", "similarity", "aural_sonar.parquet")
	full, prep := filepath.Join(dir, "full.parquet"), filepath.Join(dir, "prep.arrow")
	if code, _, e := runCmd(t, nil, "fisher", "--similarity", sonar, "--id", "id", "--label", "label", "--upper", "--out", full, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	if code, _, e := runCmd(t, nil, "fisher", "--similarity", sonar, "--id", "id", "--label", "label", "--prepared-out", prep, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	var got [][]string
	for _, tile := range []string{"0,0/2", "0,1/2", "1,1/2"} {
		out := filepath.Join(dir, "tile-"+tile[:3]+".parquet")
		if code, _, e := runCmd(t, nil, "fisher", "--prepared", prep, "--upper", "--tile", tile, "--out", out, "--quiet"); code != 0 {
			t.Fatalf("tile %s: %s", tile, e)
		}
		got = append(got, readColumnsN(t, out, "i", "j", "distance")...)
	}
	sameRows(t, got, readColumnsN(t, full, "i", "j", "distance"))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"prepared with a similarity", []string{"fisher", "--prepared", prep, "--similarity", sonar, "--out", filepath.Join(dir, "x.parquet")}, "similarity"},
		{"another sigma-scale", []string{"fisher", "--prepared", prep, "--sigma-scale", "2", "--out", filepath.Join(dir, "x.parquet")}, "sigma-scale"},
		{"no output", []string{"fisher", "--similarity", sonar, "--id", "id", "--label", "label"}, "prepared-out"},
		{"prepared-out with neighbors", []string{"fisher", "--similarity", sonar, "--id", "id", "--label", "label", "--neighbors", "5", "--prepared-out", filepath.Join(dir, "y.arrow")}, "--neighbors: the set-up is the dense mode's"},
		{"a model as the set-up", []string{"fisher", "--prepared", filepath.Join("..", "..", "testdata", "similarity", "aural_sonar.parquet"), "--out", filepath.Join(dir, "x.parquet")}, "bad model file"},
	} {
		code, _, e := runCmd(t, nil, append(tc.args, "--quiet")...)
		if code == 0 || !strings.Contains(e, tc.want) {
			t.Errorf("%s: exit %d, %s; want an error naming %q", tc.name, code, e, tc.want)
		}
	}
	code, _, e := runCmd(t, nil, "apply", "--model", prep, "--in", sonar, "--out", filepath.Join(dir, "x.parquet"), "--quiet")
	if code == 0 || !strings.Contains(e, "places no rows") {
		t.Errorf("apply of a set-up: exit %d, %s", code, e)
	}
	noLeftovers(t, dir, "full.parquet", "prep.arrow", "tile-0,0.parquet", "tile-0,1.parquet", "tile-1,1.parquet")
}

// TestFisherLocalTiles: in the local mode, model-out without out writes the
// set-up (lists and σ) and the tiles computed from it (--prepared) make the
// untiled table bit for bit; a similarity with neighbors takes no tiles.
func TestFisherLocalTiles(t *testing.T) {
	dir := t.TempDir()
	thyroid := filepath.Join("..", "..", "testdata", "ordinal", "newthyroid.csv")
	full, setup := filepath.Join(dir, "full.parquet"), filepath.Join(dir, "setup.parquet")
	common := []string{"fisher", "--in", thyroid, "--label", "label", "--kernel", "rbf", "--neighbors", "40", "--upper", "--quiet"}
	if code, _, e := runCmd(t, nil, append(common, "--out", full)...); code != 0 {
		t.Fatal(e)
	}
	if code, _, e := runCmd(t, nil, append(common, "--model-out", setup)...); code != 0 {
		t.Fatal(e)
	}
	var got [][]string
	for _, tile := range []string{"0,0/2", "0,1/2", "1,1/2"} {
		out := filepath.Join(dir, "tile-"+tile[:3]+".parquet")
		if code, _, e := runCmd(t, nil, "fisher", "--prepared", setup, "--upper", "--neighbors", "40", "--tile", tile, "--out", out, "--quiet"); code != 0 {
			t.Fatalf("tile %s: %s", tile, e)
		}
		got = append(got, readColumnsN(t, out, "i", "j", "distance")...)
	}
	sameRows(t, got, readColumnsN(t, full, "i", "j", "distance"))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"other neighbours", []string{"fisher", "--prepared", setup, "--neighbors", "30", "--tile", "0,0/2", "--out", filepath.Join(dir, "x.parquet")}, "--neighbors: 30, but the fisher model used 40"},
		{"square from a model", []string{"fisher", "--prepared", setup, "--format", "square", "--out", filepath.Join(dir, "x.csv")}, "--format"},
		{"a similarity with neighbors", []string{"fisher", "--similarity", filepath.Join("..", "..", "testdata", "similarity", "aural_sonar.parquet"), "--id", "id", "--label", "label", "--neighbors", "5", "--tile", "0,0/2", "--out", filepath.Join(dir, "x.parquet")}, "--tile"},
	} {
		code, _, e := runCmd(t, nil, append(tc.args, "--quiet")...)
		if code == 0 || !strings.Contains(e, tc.want) {
			t.Errorf("%s: exit %d, %s; want an error naming %q", tc.name, code, e, tc.want)
		}
	}
}

// sameRows fails unless the tiles' rows got are the untiled rows want, in
// any order (each row's values as text, so the same bits).
func sameRows(t *testing.T, got, want [][]string) {
	t.Helper()
	key := func(r []string) string { return strings.Join(r, " ") }
	for _, rows := range [][][]string{want, got} {
		slices.SortFunc(rows, func(a, b []string) int { return strings.Compare(key(a), key(b)) })
	}
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("%d rows in the tiles, %d untiled", len(got), len(want))
	}
	for q := range want {
		if key(got[q]) != key(want[q]) {
			t.Fatalf("row %d: tiles %v, untiled %v", q, got[q], want[q])
		}
	}
}
