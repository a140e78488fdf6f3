package transforms

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// fpFrame is a frame of n rows of d features, with string ids when ids is
// not nil (else row numbers rows).
func fpFrame(x []float64, d int, ids []string, rows []int64) *arrowio.Frame {
	n := len(x) / d
	f := &arrowio.Frame{N: n, D: d, X: x, Rows: rows, IDName: "row"}
	for j := range d {
		f.FeatureNames = append(f.FeatureNames, "x"+string(rune('0'+j)))
	}
	if ids != nil {
		b := array.NewStringBuilder(memory.DefaultAllocator)
		b.AppendValues(ids, nil)
		f.ID, f.IDName = b.NewArray(), "id"
	}
	return f
}

// TestFingerprint: the fingerprint is the same for the same rows in any
// order when rows carry ids, and for a table cut into parts added up; any
// change of a value, an id, a row number, a row or a column changes it;
// −0 and +0 are one value.
func TestFingerprint(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 5))
	const n, d = 50, 3
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	ids := make([]string, n)
	rows := make([]int64, n)
	for i := range ids {
		ids[i] = "r" + string(rune('A'+i%26)) + string(rune('a'+i/26))
		rows[i] = int64(i)
	}
	byID := func(x []float64, ids []string) string {
		f := fpFrame(x, d, ids, nil)
		defer f.Release()
		return FingerprintOf(f, true).Hash
	}
	byRow := func(x []float64, rows []int64) string {
		return FingerprintOf(fpFrame(x, d, nil, rows), false).Hash
	}
	base, baseRows := byID(x, ids), byRow(x, rows)
	if !strings.HasPrefix(base, FingerprintScheme+":") || len(base) != len(FingerprintScheme)+1+64 {
		t.Fatalf("hash %q", base)
	}
	// Reversed rows, each with its id (or its row number).
	rx, rids, rrows := make([]float64, n*d), make([]string, n), make([]int64, n)
	for i := range n {
		copy(rx[(n-1-i)*d:(n-i)*d], x[i*d:(i+1)*d])
		rids[n-1-i], rrows[n-1-i] = ids[i], rows[i]
	}
	if got := byID(rx, rids); got != base {
		t.Error("rows with ids in another order: another fingerprint")
	}
	if got := byRow(rx, rrows); got != baseRows {
		t.Error("rows with their numbers in another order: another fingerprint")
	}
	// Parts add up to the whole.
	fp := NewFingerprinter("id", []string{"x0", "x1", "x2"})
	for _, cut := range [][2]int{{0, 20}, {20, 21}, {21, n}} {
		f := fpFrame(x[cut[0]*d:cut[1]*d], d, ids[cut[0]:cut[1]], nil)
		fp.Add(f)
		f.Release()
	}
	if got := fp.Fingerprint(); got.Hash != base || got.Rows != n {
		t.Errorf("three parts: %+v, want the whole's %s", got, base)
	}
	zero := append([]float64{}, x...)
	zero[4] = 0
	negZero := append([]float64{}, zero...)
	negZero[4] = math.Copysign(0, -1)
	if byID(zero, ids) != byID(negZero, ids) {
		t.Error("−0 and +0 give different fingerprints")
	}
	changedValue := append([]float64{}, x...)
	changedValue[77] = math.Nextafter(changedValue[77], 10)
	changedID := append([]string{}, ids...)
	changedID[3] = "other"
	swapped := append([]string{}, ids...) // the ids of two rows exchanged
	swapped[0], swapped[1] = swapped[1], swapped[0]
	renumbered := append([]int64{}, rows...)
	renumbered[0], renumbered[1] = rows[1], rows[0]
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"a value one ulp away", byID(changedValue, ids), base},
		{"an id changed", byID(x, changedID), base},
		{"two rows' ids exchanged", byID(x, swapped), base},
		{"two rows' numbers exchanged", byRow(x, renumbered), baseRows},
		{"a row fewer", byID(x[:(n-1)*d], ids[:n-1]), base},
		{"ids instead of row numbers", base, baseRows},
	} {
		if tc.got == tc.want {
			t.Errorf("%s: the same fingerprint", tc.name)
		}
	}
	// The columns are part of the record, and their order of the hash.
	f := fpFrame(x, d, nil, rows)
	f.FeatureNames = []string{"b", "a", "c"}
	if got := FingerprintOf(f, false); strings.Join(got.Columns, ",") != "b,a,c" || got.ID != "" || got.Rows != n {
		t.Errorf("record %+v", got)
	}
}
