package table

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ordinate/ordinate/arrowio"
)

func readTripletsCSV(t *testing.T, body string, objects *Indexer, on arrowio.OnInvalid) (*TripletInput, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := arrowio.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	return ReadTriplets(context.Background(), r, objects, on, TripletColumns{})
}

func TestReadTriplets(t *testing.T) {
	in, err := readTripletsCSV(t, "i,j,k,aspect,split\ncat,dog,fish,legs,train\ndog,cat,bird,legs,hidden\nfish,bird,cat,wings,train\n", nil, arrowio.InvalidError)
	if err != nil {
		t.Fatal(err)
	}
	tb := in.Table
	if tb.Len() != 3 || strings.Join(in.Objects.Names, ",") != "cat,dog,fish,bird" || strings.Join(in.Aspects.Names, ",") != "legs,wings" {
		t.Fatalf("read %d triplets, objects %v, aspects %v", tb.Len(), in.Objects.Names, in.Aspects.Names)
	}
	if tb.I[1] != 1 || tb.J[1] != 0 || tb.K[1] != 3 || tb.Aspect[2] != 1 {
		t.Errorf("indices: %+v", tb)
	}
	if in.Train[0] != true || in.Train[1] != false || in.Train[2] != true {
		t.Errorf("split flags %v", in.Train)
	}
	if got := Subset(tb, in.Train, true); got.Len() != 2 || got.I[1] != 2 {
		t.Errorf("train subset %+v", got)
	}

	// No aspect column: one aspect called "all".
	in, err = readTripletsCSV(t, "i,j,k\n1,2,3\n2,3,1\n", nil, arrowio.InvalidError)
	if err != nil || strings.Join(in.Aspects.Names, ",") != "all" || in.Train != nil {
		t.Errorf("no aspect column: %v, aspects %v", err, in.Aspects.Names)
	}

	bad := "i,j,k,aspect\na,b,c,x\na,a,c,x\nb,,c,x\n"
	for _, tc := range []struct {
		name    string
		body    string
		objects *Indexer
		want    string
	}{
		{"repeated object", bad, nil, `column "i", row 1: invalid value: i, j and k must be three different objects`},
		{"unknown id", "i,j,k\na,b,z\n", fixedIndexer("a", "b", "c"), `column "k", row 0: invalid value: id z is not in the objects table`},
		{"missing column", "i,j,aspect\na,b,x\n", nil, `column "k"`},
	} {
		_, err := readTripletsCSV(t, tc.body, tc.objects, arrowio.InvalidError)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	in, err = readTripletsCSV(t, bad, nil, arrowio.InvalidDrop)
	if err != nil || in.Table.Len() != 1 || in.Dropped != 2 {
		t.Errorf("drop: %v, %d kept, %d dropped; want 1 kept, 2 dropped", err, in.Table.Len(), in.Dropped)
	}
}

func fixedIndexer(names ...string) *Indexer {
	x := NewIndexer()
	for _, n := range names {
		x.Add(n)
	}
	x.Fixed = true
	return x
}
