package main

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
)

// TestScoreCommand fits SCORE on sampled Zoo triplets with the paper's object
// split and checks the outputs, and that multiple maps beat one pooled map on
// the hidden triplets (the paper's central claim; here with fixed seeds).
func TestScoreCommand(t *testing.T) {
	dir := t.TempDir()
	tr, split := filepath.Join(dir, "t.parquet"), filepath.Join(dir, "split.parquet")
	if code, _, e := runCmd(t, nil, "triplets", "--in", zoo, "--exclude", "animal_name,type_name", "--per-aspect", "3000",
		"--split-objects", "0.5", "--split-out", split, "--out", tr, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	hidden := func(maps string) float64 {
		m := filepath.Join(dir, "e.csv")
		if code, _, e := runCmd(t, nil, "evaluate", "--embedding", maps, "--triplets", tr, "--out", m, "--quiet"); code != 0 {
			t.Fatalf("evaluate %s: %s", maps, e)
		}
		f, err := readFigures(&cli.Context{Context: context.Background()}, m)
		if err != nil {
			t.Fatal(err)
		}
		return f["triplet_accuracy/hidden"]
	}
	multi, aspects, sphere := filepath.Join(dir, "multi.parquet"), filepath.Join(dir, "aspects.csv"), filepath.Join(dir, "sphere.parquet")
	if code, _, e := runCmd(t, nil, "score", "--in", tr, "--deterministic", "--out", multi, "--aspects-out", aspects, "--sphere-out", sphere, "--quiet"); code != 0 {
		t.Fatalf("score: exit %d: %s", code, e)
	}
	info, err := arrowio.Inspect(context.Background(), multi)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 17*101 || info.Schema.NumFields() != 4 {
		t.Errorf("maps: %d rows, %d columns; want %d rows of aspect, id, emb_0, emb_1", info.Rows, info.Schema.NumFields(), 17*101)
	}
	r, err := arrowio.Open(context.Background(), aspects)
	if err != nil {
		t.Fatal(err)
	}
	a, err := arrowio.ReadFrame(context.Background(), r, arrowio.Selection{ID: "aspect", Features: []string{"delta", "pole_*"}, Keep: []string{}})
	r.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	if a.N != 17 || a.D != 4 { // delta, pole_0, pole_1, pole_2
		t.Fatalf("aspects table %d×%d", a.N, a.D)
	}
	for i := range a.N {
		row := a.X[i*4 : (i+1)*4]
		if row[0] < 0 || row[0] > 1 || math.Abs(row[1]*row[1]+row[2]*row[2]+row[3]*row[3]-1) > 1e-9 {
			t.Errorf("aspect %s: delta %v, pole %v", a.ID.ValueStr(i), row[0], row[1:])
		}
	}
	single := filepath.Join(dir, "single.parquet")
	if code, _, e := runCmd(t, nil, "score", "--in", tr, "--deterministic", "--single-map", "--out", single, "--quiet"); code != 0 {
		t.Fatalf("score --single-map: %s", e)
	}
	hm, hs := hidden(multi), hidden(single)
	if !(hm > hs) || hm < 0.6 {
		t.Errorf("hidden triplet accuracy: multiple maps %.3f, single map %.3f; want multiple > single and ≥ 0.6", hm, hs)
	}
	// The paper's 10-NN classification of hidden objects by attribute value.
	m := filepath.Join(dir, "knn.csv")
	code, out, e := runCmd(t, nil, "evaluate", "--embedding", multi, "--triplets", tr, "--split", split, "--attributes", zoo, "--out", m)
	if code != 0 || !strings.Contains(out, "10-NN accuracy of hidden objects") {
		t.Fatalf("evaluate --split: exit %d: %s\n%s", code, e, out)
	}
	f, err := readFigures(&cli.Context{Context: context.Background()}, m)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := f["hidden_knn_accuracy@10/hidden"]; !ok || v < 0.5 || v > 1 {
		t.Errorf("hidden 10-NN accuracy = %v (%v)", v, ok)
	}
	code, _, e = runCmd(t, nil, "score", "--in", tr, "--alpha", "-1", "--out", filepath.Join(dir, "x.parquet"))
	if code != exitInput || !strings.Contains(strings.ToLower(e), "alpha") {
		t.Errorf("negative alpha: exit %d, %s", code, e)
	}
}
