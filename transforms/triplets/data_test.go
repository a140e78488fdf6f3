package triplets

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"
)

// loadCSV reads a testdata CSV file and codes the given columns, one aspect
// per column.
func loadCSV(tb testing.TB, path string, cols []int) Codes {
	tb.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", path))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	rows = rows[1:] // header
	values := make([][]string, len(cols))
	for a, c := range cols {
		for _, r := range rows {
			values[a] = append(values[a], r[c])
		}
	}
	return Encode(values)
}

// loadZoo: 101 animals, 17 aspects = columns hair … catsize (1–16) and type
// (17); animal_name and type_name are not aspects.
func loadZoo(tb testing.TB) Codes {
	return loadCSV(tb, "zoo/zoo.csv", span(1, 17))
}

// loadHouseVote: the 232 complete rows, 16 aspects = the vote columns 2–17.
func loadHouseVote(tb testing.TB) Codes {
	return loadCSV(tb, "house-votes-84/house-votes-84-complete.csv", span(2, 17))
}

func span(lo, hi int) []int {
	var s []int
	for c := lo; c <= hi; c++ {
		s = append(s, c)
	}
	return s
}

func sum(c []int64) int64 {
	var s int64
	for _, v := range c {
		s += v
	}
	return s
}

// TestPaperCounts checks the triplet counts of Le & Lauw (2019): Zoo
// 3.24×10⁶ (ordered pairs) and HouseVote 2.4×10⁷ (unordered pairs).
func TestPaperCounts(t *testing.T) {
	for _, tc := range []struct {
		name             string
		codes            Codes
		objects, aspects int
		pairs            Pairs
		want             int64
	}{
		{"zoo", loadZoo(t), 101, 17, Ordered, 3_233_424},
		{"house-votes-84", loadHouseVote(t), 232, 16, Unordered, 23_517_385},
	} {
		if len(tc.codes) != tc.aspects || tc.codes.Objects() != tc.objects {
			t.Errorf("%s: %d aspects × %d objects, want %d × %d", tc.name, len(tc.codes), tc.codes.Objects(), tc.aspects, tc.objects)
		}
		if got := sum(Count(tc.codes, tc.pairs)); got != tc.want {
			t.Errorf("%s: %v total %d, want %d", tc.name, tc.pairs, got, tc.want)
		}
	}
}

// TestGeneratePaper streams every triplet of both data sets and checks that
// each is valid, that the stream is strictly increasing in generation order
// (so no triplet repeats), and that the number equals the paper's count:
// together, the stream is exactly the triplet set, in order.
func TestGeneratePaper(t *testing.T) {
	for _, tc := range []struct {
		name  string
		codes Codes
		pairs Pairs
		want  int64
	}{
		{"zoo", loadZoo(t), Ordered, 3_233_424},
		{"house-votes-84", loadHouseVote(t), Unordered, 23_517_385},
	} {
		var n int64
		prev := [4]int32{-1, -1, -1, -1}
		err := Generate(context.Background(), tc.codes, tc.pairs, 1<<15, func(b *Table) error {
			for r := range b.I {
				a, i, j, k := b.Aspect[r], b.I[r], b.J[r], b.K[r]
				row := tc.codes[a]
				cur := [4]int32{a, i, j, k}
				ok := row[i] == row[j] && row[j] != row[k] && row[k] != Missing && i != j &&
					(tc.pairs == Ordered || i < j) && less(prev, cur)
				if !ok {
					t.Fatalf("%s: triplet %d <%d,%d,%d>_%d invalid or out of order after %v", tc.name, n, i, j, k, a, prev)
				}
				prev = cur
				n++
			}
			return nil
		})
		if err != nil || n != tc.want {
			t.Errorf("%s: err %v, %d triplets, want %d", tc.name, err, n, tc.want)
		}
	}
}

func less(a, b [4]int32) bool {
	for x := range a {
		if a[x] != b[x] {
			return a[x] < b[x]
		}
	}
	return false
}
