package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/ordinate/ordinate/arrowio"
)

const zoo = "../../testdata/zoo/zoo.csv"

func TestTripletsCommand(t *testing.T) {
	dir := t.TempDir()
	all := filepath.Join(dir, "all.parquet")
	if code, _, e := runCmd(t, nil, "triplets", "--in", zoo, "--exclude", "animal_name,type_name", "--out", all, "--quiet"); code != 0 {
		t.Fatalf("triplets: exit %d: %s", code, e)
	}
	info, err := arrowio.Inspect(context.Background(), all)
	if err != nil {
		t.Fatal(err)
	}
	// The paper's 3.24×10⁶: 17 aspects (16 attributes + type), ordered pairs.
	if info.Rows != 3_233_424 {
		t.Errorf("Zoo ordered triplets: %d, want 3,233,424", info.Rows)
	}

	split, splitOut := filepath.Join(dir, "split.parquet"), filepath.Join(dir, "observed.parquet")
	code, _, e := runCmd(t, nil, "triplets", "--in", zoo, "--exclude", "animal_name,type_name", "--per-aspect", "500",
		"--split-objects", "0.5", "--split-out", splitOut, "--out", split, "--quiet")
	if code != 0 {
		t.Fatalf("triplets --split-objects: exit %d: %s", code, e)
	}
	observed := map[string]bool{}
	r, err := arrowio.Open(context.Background(), splitOut)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for r.Next() {
		rec := r.RecordBatch()
		asp, id, obs := rec.Column(0).(*array.String), rec.Column(1).(*array.Int64), rec.Column(2).(*array.Boolean)
		for i := range int(rec.NumRows()) {
			observed[asp.Value(i)+"/"+id.ValueStr(i)] = obs.Value(i)
			rows++
		}
	}
	r.Release()
	if rows != 17*101 {
		t.Errorf("split table has %d rows, want %d", rows, 17*101)
	}
	// Every triplet's split label agrees with the observed table.
	r, err = arrowio.Open(context.Background(), split)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var n, train int
	for r.Next() {
		rec := r.RecordBatch()
		a, lab := rec.Column(3).(*array.String), rec.Column(4).(*array.String)
		for i := range int(rec.NumRows()) {
			asp := a.Value(i)
			in := true
			for c := range 3 {
				in = in && observed[asp+"/"+rec.Column(c).ValueStr(i)]
			}
			if want := map[bool]string{true: "train", false: "hidden"}[in]; lab.Value(i) != want {
				t.Fatalf("row %d marked %s, want %s", n, lab.Value(i), want)
			}
			if in {
				train++
			}
			n++
		}
	}
	if n != 17*500 || train == 0 || train == n {
		t.Errorf("%d sampled triplets (%d train), want %d with both kinds", n, train, 17*500)
	}

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad pairs", []string{"--pairs", "both"}, "--pairs"},
		{"bad fraction", []string{"--split-objects", "1.5"}, "--split-objects"},
		{"no aspects", []string{"--aspects", "nothing*"}, "selects no column"},
		{"split-out without split", []string{"--split-out", filepath.Join(dir, "x.parquet")}, "--split-out: needs split-objects"},
		{"duplicate ids", []string{"--id", "animal_name"}, `row 26 (id frog): invalid value: duplicate id (also row 25)`},
	} {
		args := append([]string{"triplets", "--in", zoo, "--exclude", "animal_name,type_name", "--out", filepath.Join(dir, "bad.parquet")}, tc.args...)
		code, _, e := runCmd(t, nil, args...)
		if code != exitInput || !strings.Contains(e, tc.want) {
			t.Errorf("%s: exit %d, stderr %q", tc.name, code, e)
		}
	}
}

func TestOrdinalEmbeddingCommands(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.parquet")
	if code, _, e := runCmd(t, nil, "triplets", "--in", zoo, "--exclude", "animal_name,type_name", "--per-aspect", "300", "--out", tr, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	for _, tc := range []struct {
		cmd  string
		args []string
		rows int64
	}{
		{"tste", nil, 101},
		{"soe", nil, 101},
		{"tste", []string{"--per-aspect"}, 17 * 101},
		{"soe", []string{"--per-aspect", "--dims", "3"}, 17 * 101},
	} {
		out := filepath.Join(dir, tc.cmd+".parquet")
		args := append([]string{tc.cmd, "--in", tr, "--out", out, "--quiet", "--max-iter", "200"}, tc.args...)
		if code, _, e := runCmd(t, nil, args...); code != 0 {
			t.Fatalf("%s %v: exit %d: %s", tc.cmd, tc.args, code, e)
		}
		info, err := arrowio.Inspect(context.Background(), out)
		if err != nil {
			t.Fatal(err)
		}
		if info.Rows != tc.rows || info.Schema.Field(0).Name != "aspect" || info.Schema.Field(1).Name != "id" {
			t.Errorf("%s %v: %d rows, schema %v", tc.cmd, tc.args, info.Rows, info.Schema)
		}
	}
	bad := filepath.Join(dir, "bad.csv")
	write(t, bad, "i,j,k,aspect\n1,2,3,a\n1,1,3,a\n")
	code, _, e := runCmd(t, nil, "soe", "--in", bad, "--out", filepath.Join(dir, "x.parquet"))
	if code != exitInput || !strings.Contains(e, "row 1") || !strings.Contains(e, "three different objects") {
		t.Errorf("repeated object: exit %d, %s", code, e)
	}
}

// TestEvaluateTriplets checks triplet accuracy against a direct count on
// the written map and triplet tables.
func TestEvaluateTriplets(t *testing.T) {
	dir := t.TempDir()
	tr, maps, m := filepath.Join(dir, "t.csv"), filepath.Join(dir, "maps.csv"), filepath.Join(dir, "m.csv")
	// Objects on a line: 0 1 2 3 in map a; in map b object 3 sits next to 0.
	write(t, maps, "aspect,id,emb_0,emb_1\na,0,0,0\na,1,1,0\na,2,2,0\na,3,3,0\nb,0,0,0\nb,1,5,0\nb,2,6,0\nb,3,0.5,0\n")
	// <i, j, k>: j is nearer to i than to k.
	write(t, tr, "i,j,k,aspect,split\n1,0,3,a,train\n3,0,1,a,hidden\n3,0,1,b,train\n1,0,3,b,hidden\n2,1,3,b,hidden\n")
	code, out, e := runCmd(t, nil, "evaluate", "--embedding", maps, "--triplets", tr, "--out", m)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	// a: <1,0,3> holds (1 < 3), <3,0,1> fails; b: <3,0,1> holds (0.5 < 5), <1,0,3> fails, <2,1,3> holds (1 < 4.5).
	for _, want := range []string{"triplet accuracy (all): 0.5833", "triplet accuracy (train): 1.0000", "triplet accuracy (hidden): 0.2500"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	code, _, e = runCmd(t, nil, "evaluate", "--embedding", maps, "--triplets", tr, "--in", "", "--out", m)
	if code != 0 {
		t.Errorf("--in is not needed with --triplets: exit %d: %s", code, e)
	}
	write(t, tr, "i,j,k,aspect\n1,0,9,a\n")
	if code, _, e := runCmd(t, nil, "evaluate", "--embedding", maps, "--triplets", tr, "--out", m); code != exitInput || !strings.Contains(e, "id 9") {
		t.Errorf("unknown object: exit %d, %s", code, e)
	}
}

func TestTripletColumnNames(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.csv")
	write(t, tr, "anchor_a,ref,other,judge\n1,2,3,x\n2,3,4,x\n4,1,2,y\n3,4,1,y\n1,3,2,x\n")
	out := filepath.Join(dir, "m.parquet")
	code, _, e := runCmd(t, nil, "soe", "--in", tr, "--triplet-columns", "anchor_a,ref,other,judge", "--per-aspect", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("soe with renamed columns: exit %d: %s", code, e)
	}
	if info, err := arrowio.Inspect(context.Background(), out); err != nil || info.Rows != 2*4 {
		t.Errorf("maps: %v, %d rows; want 2 aspects × 4 objects", err, info.Rows)
	}
	code, _, e = runCmd(t, nil, "soe", "--in", tr, "--out", out)
	if code != exitInput || !strings.Contains(e, `column "i"`) {
		t.Errorf("default names on a renamed table: exit %d, %s", code, e)
	}
	code, _, e = runCmd(t, nil, "soe", "--in", tr, "--triplet-columns", "a,b", "--out", out)
	if code != exitInput || !strings.Contains(e, "--triplet-columns") {
		t.Errorf("two names: exit %d, %s", code, e)
	}
}
