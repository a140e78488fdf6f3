package placement_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/internal/synth"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/apply"
	"github.com/ordinate/ordinate/transforms/nerv"
	"github.com/ordinate/ordinate/transforms/placement"
	"github.com/ordinate/ordinate/transforms/tsne"
)

// mixture draws n points of d dimensions from k separated Gaussian clusters
// and names each row's cluster.
func mixture(rng *rand.Rand, n, d, k int) ([]float64, []string) {
	centres := make([]float64, k*d)
	for i := range centres {
		centres[i] = 6 * rng.NormFloat64()
	}
	x := make([]float64, n*d)
	labels := make([]string, n)
	for i := range n {
		c := rng.IntN(k)
		labels[i] = fmt.Sprintf("c%d", c)
		for j := range d {
			x[i*d+j] = centres[c*d+j] + rng.NormFloat64()
		}
	}
	return x, labels
}

// featureRecords is a feature table (id, f0 …, label) in batches of batch
// rows; ids start at first.
func featureRecords(x []float64, d int, labels []string, first int64, batch int) []arrow.RecordBatch {
	n := len(x) / d
	fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}
	for j := range d {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("f%d", j), Type: arrow.PrimitiveTypes.Float64})
	}
	fields = append(fields, arrow.Field{Name: "label", Type: arrow.BinaryTypes.String})
	schema := arrow.NewSchema(fields, nil)
	var recs []arrow.RecordBatch
	for lo := 0; lo < n; lo += batch {
		hi := min(n, lo+batch)
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := lo; i < hi; i++ {
			b.Field(0).(*array.Int64Builder).Append(first + int64(i))
			for j := range d {
				b.Field(1 + j).(*array.Float64Builder).Append(x[i*d+j])
			}
			b.Field(1 + d).(*array.StringBuilder).Append(labels[i])
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return recs
}

// pairRecords is a long distance table (i, j, distance) of the objects
// (ids first + row) of x to the reference objects (ids refFirst + row) of
// ref, grouped by i, in batches of batch rows: the pairs with j < keep
// (every pair for a large keep), without i = j when the ids coincide.
func pairRecords(x, ref []float64, d int, first, refFirst int64, keep, batch int) []arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "j", Type: arrow.PrimitiveTypes.Int64},
		{Name: "distance", Type: arrow.PrimitiveTypes.Float64}}, nil)
	var recs []arrow.RecordBatch
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	rows := 0
	flush := func() {
		if rows > 0 {
			recs = append(recs, b.NewRecordBatch())
			rows = 0
		}
	}
	n, m := len(x)/d, len(ref)/d
	for i := range n {
		for j := range min(m, keep) {
			if first == refFirst && i == j {
				continue
			}
			var s float64
			for c := range d {
				s += (x[i*d+c] - ref[j*d+c]) * (x[i*d+c] - ref[j*d+c])
			}
			b.Field(0).(*array.Int64Builder).Append(first + int64(i))
			b.Field(1).(*array.Int64Builder).Append(refFirst + int64(j))
			b.Field(2).(*array.Float64Builder).Append(math.Sqrt(s))
			if rows++; rows == batch {
				flush()
			}
		}
	}
	flush()
	return recs
}

// placementFixture draws reference and new rows from one mixture of k
// clusters: the reference as a feature table and as its all-pairs
// distance table (released at the end of the test), and the new rows'
// values and labels.
func placementFixture(t *testing.T, seed uint64, nRef, nNew, d, k int) (xRef, xNew []float64, lNew []string, ref, refPairs []arrow.RecordBatch) {
	rng := rand.New(rand.NewPCG(13, seed))
	xRef, lRef := mixture(rng, nRef, d, k)
	xNew, lNew = mixture(rng, nNew, d, k)
	ref = featureRecords(xRef, d, lRef, 0, 1<<20)
	refPairs = pairRecords(xRef, xRef, d, 0, 0, 1<<30, 1<<20)
	t.Cleanup(func() { release(ref); release(refPairs) })
	return xRef, xNew, lNew, ref, refPairs
}

func release(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// run runs a stage on in-memory tables and returns them (release them).
func run(t *testing.T, stage transforms.Stage, in map[string][]arrow.RecordBatch, want []string, opts map[string]string, threads int) (*transforms.MemTables, error) {
	t.Helper()
	o := stage.NewOptions()
	if err := transforms.SetOptions(o, opts); err != nil {
		t.Fatalf("%s options %v: %v", stage.Info().Name, opts, err)
	}
	tables := &transforms.MemTables{In: in, Want: want}
	err := transforms.Run(context.Background(), stage, o, &transforms.Env{Tables: tables, Threads: threads})
	return tables, err
}

// embedding returns the id and emb_* columns of an embedding table, rows
// sorted by id.
func embedding(t *testing.T, m *transforms.MemTable) (ids []int64, y []float64, dims int) {
	t.Helper()
	type row struct {
		id int64
		y  []float64
	}
	var rows []row
	for _, rec := range m.Records {
		var cols []*array.Float64
		var idc *array.Int64
		for c, f := range rec.Schema().Fields() {
			switch {
			case f.Name == "id":
				idc = rec.Column(c).(*array.Int64)
			case strings.HasPrefix(f.Name, "emb_"):
				cols = append(cols, rec.Column(c).(*array.Float64))
			}
		}
		dims = len(cols)
		for i := range int(rec.NumRows()) {
			r := row{id: idc.Value(i)}
			for _, c := range cols {
				r.y = append(r.y, c.Value(i))
			}
			rows = append(rows, r)
		}
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].id < rows[b].id })
	for _, r := range rows {
		ids = append(ids, r.id)
		y = append(y, r.y...)
	}
	return ids, y, dims
}

// TestPlacementIsAFunctionOfTheRow places the same rows in one batch, in
// batches of 1, 7 and 4,096, and with 1 and 2 threads, into t-SNE and NeRV
// maps (from features, and from distances), and wants identical bits.
func TestPlacementIsAFunctionOfTheRow(t *testing.T) {
	const d = 8
	xRef, xNew, lNew, ref, refPairs := placementFixture(t, 1, 300, 4500, d, 4)

	cases := []struct {
		name      string
		stage     transforms.Stage
		fit       map[string]string
		fitIn     map[string][]arrow.RecordBatch
		apply     map[string]string
		rows      int
		distances bool
		batches   []int
	}{
		{name: "tsne features", stage: tsne.Stage{}, fit: map[string]string{"id": "id", "label": "label"},
			fitIn: map[string][]arrow.RecordBatch{"in": ref}, apply: map[string]string{"id": "id"}, rows: 4500, batches: []int{4500, 1, 7, 4096}},
		{name: "classnerv with labels", stage: nerv.Stage{}, fit: map[string]string{"id": "id", "label": "label", "perplexity": "10"},
			fitIn: map[string][]arrow.RecordBatch{"in": ref}, apply: map[string]string{"id": "id", "label": "label"}, rows: 300, batches: []int{300, 1, 7}},
		{name: "tsne bh", stage: tsne.Stage{}, fit: map[string]string{"id": "id", "label": "label", "method": "bh", "perplexity": "10"},
			fitIn: map[string][]arrow.RecordBatch{"in": ref}, apply: map[string]string{"id": "id"}, rows: 500, batches: []int{500, 1, 7}},
		{name: "nerv bh", stage: nerv.Stage{}, fit: map[string]string{"id": "id", "label": "", "features": "f*", "method": "bh", "perplexity": "10"},
			fitIn: map[string][]arrow.RecordBatch{"in": ref}, apply: map[string]string{"id": "id"}, rows: 200, batches: []int{200, 1, 7}},
		{name: "nerv cutoff", stage: nerv.Stage{}, fit: map[string]string{"id": "id", "label": "", "features": "f*", "method": "cutoff", "perplexity": "10"},
			fitIn: map[string][]arrow.RecordBatch{"in": ref}, apply: map[string]string{"id": "id"}, rows: 200, batches: []int{200, 1, 7}},
		{name: "tsne distances", stage: tsne.Stage{}, fit: map[string]string{},
			fitIn: map[string][]arrow.RecordBatch{"distances": refPairs}, rows: 200, distances: true, batches: []int{1 << 20, 1, 7, 4096}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fit, err := run(t, c.stage, c.fitIn, []string{"out", "model-out"}, c.fit, 2)
			if err != nil {
				t.Fatalf("%s: fit: %v", c.name, err)
			}
			defer fit.Release()
			model := fit.Out("model-out").Records
			var want []float64
			for _, batch := range c.batches {
				for _, threads := range []int{1, 2} {
					var in []arrow.RecordBatch
					role := "in"
					if c.distances {
						in, role = pairRecords(xNew[:c.rows*d], xRef, d, 100000, 0, 1<<30, batch), "distances"
					} else {
						in = featureRecords(xNew[:c.rows*d], d, lNew, 100000, batch)
					}
					out, err := run(t, apply.Stage{}, map[string][]arrow.RecordBatch{"model": model, role: in}, []string{"out"}, c.apply, threads)
					release(in)
					if err != nil {
						t.Fatalf("%s: batches of %d, %d threads: %v", c.name, batch, threads, err)
					}
					ids, y, _ := embedding(t, out.Out("out"))
					out.Release()
					if len(ids) != c.rows {
						t.Fatalf("%s: batches of %d, %d threads: %d rows placed, want %d", c.name, batch, threads, len(ids), c.rows)
					}
					if want == nil {
						want = y
						continue
					}
					for k := range y {
						if math.Float64bits(y[k]) != math.Float64bits(want[k]) {
							t.Fatalf("%s: batches of %d, %d threads: row %d coordinate %d is %v, in one batch %v", c.name, batch, threads, k/2, k%2, y[k], want[k])
						}
					}
				}
			}
		})
	}
}

// knnIdx returns the k nearest rows of ref (n×d) to q by squared Euclidean
// distance, ties by index.
func knnIdx(ref []float64, d int, q []float64, k int) []int {
	n := len(ref) / d
	idx := make([]int, n)
	dist := make([]float64, n)
	for j := range n {
		idx[j] = j
		for c := range d {
			dist[j] += (ref[j*d+c] - q[c]) * (ref[j*d+c] - q[c])
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return dist[idx[a]] < dist[idx[b]] })
	return idx[:k]
}

// heldOut scores placed rows against the reference map: the k-NN class
// accuracy of their map positions among the reference rows, and the
// fraction of their k nearest reference rows in the input that are also
// among their k nearest reference rows in the map.
func heldOut(xRef, yRef []float64, lRef []string, xNew, yNew []float64, lNew []string, d, k int) (acc, recall float64) {
	n := len(lNew)
	for i := range n {
		inMap := knnIdx(yRef, 2, yNew[i*2:(i+1)*2], k)
		votes := map[string]int{}
		for _, j := range inMap {
			votes[lRef[j]]++
		}
		best := ""
		for _, c := range slices.Sorted(func(yield func(string) bool) {
			for c := range votes {
				if !yield(c) {
					return
				}
			}
		}) {
			if best == "" || votes[c] > votes[best] {
				best = c
			}
		}
		if best == lNew[i] {
			acc++
		}
		inInput := knnIdx(xRef, d, xNew[i*d:(i+1)*d], k)
		for _, j := range inInput {
			if slices.Contains(inMap, j) {
				recall++
			}
		}
	}
	return acc / float64(n), recall / float64(n*k)
}

// TestPlacementHeldOut fits t-SNE on 80 % of a data set, places the other
// 20 %, and holds floors on the placed rows' k-NN class accuracy and
// neighbour recall that two broken placements fail: every row at the
// centre of the map, and every row on its nearest reference row's spot.
func TestPlacementHeldOut(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 2))
	fc, fcSoft := synth.FourClusters(rng, 100)
	fcLabels := make([]string, 400)
	for i := range fcLabels {
		fcLabels[i] = fmt.Sprint(slices.Index(fcSoft[i*6:(i+1)*6], slices.Max(fcSoft[i*6:(i+1)*6])))
	}
	thyroid, thyroidLabels := readThyroid(t)
	cases := []struct {
		name   string
		x      []float64
		labels []string
		d      int
		fit    map[string]string
		minAcc float64
	}{
		{"four clusters", fc, fcLabels, 3, map[string]string{"id": "id", "label": "label"}, 0.7}, // cluster 2 has random classes: about 0.76 at best
		{"newthyroid", thyroid, thyroidLabels, 5, map[string]string{"id": "id", "label": "label", "standardize": "true"}, 0.9},
	}
	for _, c := range cases {
		n := len(c.labels)
		perm := rand.New(rand.NewPCG(7, 7)).Perm(n)
		nRef := n * 8 / 10
		pick := func(rows []int) ([]float64, []string) {
			x := make([]float64, 0, len(rows)*c.d)
			l := make([]string, 0, len(rows))
			for _, r := range rows {
				x = append(x, c.x[r*c.d:(r+1)*c.d]...)
				l = append(l, c.labels[r])
			}
			return x, l
		}
		xRef, lRef := pick(perm[:nRef])
		xNew, lNew := pick(perm[nRef:])
		ref := featureRecords(xRef, c.d, lRef, 0, 1<<20)
		fit, err := run(t, tsne.Stage{}, map[string][]arrow.RecordBatch{"in": ref}, []string{"out", "model-out"}, c.fit, 2)
		release(ref)
		if err != nil {
			t.Fatalf("%s: fit: %v", c.name, err)
		}
		in := featureRecords(xNew, c.d, lNew, int64(nRef), 1<<20)
		out, err := run(t, apply.Stage{}, map[string][]arrow.RecordBatch{"model": fit.Out("model-out").Records, "in": in}, []string{"out"}, map[string]string{"id": "id"}, 2)
		release(in)
		if err != nil {
			t.Fatalf("%s: apply: %v", c.name, err)
		}
		_, yRef, _ := embedding(t, fit.Out("out"))
		_, yNew, _ := embedding(t, out.Out("out"))
		fit.Release()
		out.Release()
		// The space the map was fitted in (standardised for newthyroid).
		zRef, zNew := xRef, xNew
		if c.fit["standardize"] == "true" {
			zRef, zNew = standardizeLike(xRef, xNew, c.d)
		}
		centre := make([]float64, len(yNew))
		var cx, cy float64
		for i := range nRef {
			cx, cy = cx+yRef[2*i]/float64(nRef), cy+yRef[2*i+1]/float64(nRef)
		}
		nnSpot := make([]float64, len(yNew))
		for i := range len(lNew) {
			centre[2*i], centre[2*i+1] = cx, cy
			j := knnIdx(zRef, c.d, zNew[i*c.d:(i+1)*c.d], 1)[0]
			nnSpot[2*i], nnSpot[2*i+1] = yRef[2*j], yRef[2*j+1]
		}
		acc, recall := heldOut(zRef, yRef, lRef, zNew, yNew, lNew, c.d, 10)
		accC, recallC := heldOut(zRef, yRef, lRef, zNew, centre, lNew, c.d, 10)
		accN, recallN := heldOut(zRef, yRef, lRef, zNew, nnSpot, lNew, c.d, 10)
		t.Logf("%s: placed acc %.3f recall %.4f; centre %.3f %.4f; nearest spot %.3f %.4f", c.name, acc, recall, accC, recallC, accN, recallN)
		minRecall := recallN + 0.01
		if acc < c.minAcc || recall < minRecall {
			t.Errorf("%s: placed rows' k-NN accuracy %.3f (floor %.2f) and neighbour recall %.4f (floor %.4f, the nearest-spot placement's + 0.01)", c.name, acc, c.minAcc, recall, minRecall)
		}
		if accC >= c.minAcc {
			t.Errorf("%s: the centre placement passes the accuracy floor (%.3f ≥ %.2f): the floor cannot fail", c.name, accC, c.minAcc)
		}
	}
}

// standardizeLike standardises ref and x by ref's means and sample
// standard deviations.
func standardizeLike(ref, x []float64, d int) ([]float64, []float64) {
	n := len(ref) / d
	mean, sd := make([]float64, d), make([]float64, d)
	for i := range n {
		for j := range d {
			mean[j] += ref[i*d+j] / float64(n)
		}
	}
	for i := range n {
		for j := range d {
			sd[j] += (ref[i*d+j] - mean[j]) * (ref[i*d+j] - mean[j]) / float64(n-1)
		}
	}
	scale := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for k := range v {
			out[k] = (v[k] - mean[k%d]) / math.Sqrt(sd[k%d])
		}
		return out
	}
	return scale(ref), scale(x)
}

// readThyroid reads testdata/ordinal/newthyroid.csv: five features and a
// label.
func readThyroid(t *testing.T) ([]float64, []string) {
	t.Helper()
	ctx := context.Background()
	r, err := arrowio.Open(ctx, "../../testdata/ordinal/newthyroid.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	f, err := arrowio.ReadFrame(ctx, r, arrowio.Selection{Label: "label"})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Release()
	labels := make([]string, f.N)
	for i := range f.N {
		if f.Label.Numeric {
			labels[i] = fmt.Sprint(f.Label.Num[i])
		} else {
			labels[i] = f.Label.Str[i]
		}
	}
	return f.X, labels
}

// TestApplyPlacementErrors: options and tables that do not fit the model
// are refused with the kind of error that names them.
func TestApplyPlacementErrors(t *testing.T) {
	const d = 4
	xRef, xNew, lNew, ref, refPairs := placementFixture(t, 3, 120, 10, d, 3)
	models := map[string]*transforms.MemTables{}
	for name, fit := range map[string]struct {
		stage transforms.Stage
		in    map[string][]arrow.RecordBatch
		opts  map[string]string
	}{
		"tsne":      {tsne.Stage{}, map[string][]arrow.RecordBatch{"in": ref}, map[string]string{"id": "id", "label": "label", "perplexity": "10"}},
		"tsne-dist": {tsne.Stage{}, map[string][]arrow.RecordBatch{"distances": refPairs}, map[string]string{"perplexity": "10"}},
		"classnerv": {nerv.Stage{}, map[string][]arrow.RecordBatch{"in": ref}, map[string]string{"id": "id", "label": "label", "perplexity": "10"}},
		"nerv":      {nerv.Stage{}, map[string][]arrow.RecordBatch{"in": ref}, map[string]string{"id": "id", "label": "", "features": "f*", "perplexity": "10"}},
	} {
		m, err := run(t, fit.stage, fit.in, []string{"out", "model-out"}, fit.opts, 2)
		if err != nil {
			t.Fatalf("fit %s: %v", name, err)
		}
		defer m.Release()
		models[name] = m
	}
	newRows := featureRecords(xNew, d, lNew, 1000, 1<<20)
	defer release(newRows)
	otherLabels := slices.Repeat([]string{"nope"}, 10)
	badLabel := featureRecords(xNew, d, otherLabels, 1000, 1<<20)
	defer release(badLabel)
	newPairs := pairRecords(xNew, xRef, d, 1000, 0, 1<<30, 1<<20)
	defer release(newPairs)
	unknownRef := pairRecords(xNew, xRef, d, 1000, 5000, 1<<30, 1<<20) // j ids are not the model's
	defer release(unknownRef)
	fewPairs := pairRecords(xNew, xRef, d, 1000, 0, 3, 1<<20) // 3 distances per object
	defer release(fewPairs)
	// Rows of object 1000 again after object 1001.
	scattered := append(pairRecords(xNew[:2*d], xRef, d, 1000, 0, 1<<30, 1<<20), pairRecords(xNew[:d], xRef, d, 1000, 0, 5, 1<<20)...)
	defer release(scattered)

	cases := []struct {
		name, model string
		in          map[string][]arrow.RecordBatch
		opts        map[string]string
		kind        error
		msg         string
	}{
		{"label for a t-SNE map", "tsne", map[string][]arrow.RecordBatch{"in": newRows}, map[string]string{"label": "label"}, transforms.ErrInvalidOption, "features alone"},
		{"label for NeRV without classes", "nerv", map[string][]arrow.RecordBatch{"in": newRows}, map[string]string{"label": "label"}, transforms.ErrInvalidOption, "without classes"},
		{"unknown class", "classnerv", map[string][]arrow.RecordBatch{"in": badLabel}, map[string]string{"label": "label"}, transforms.ErrInvalidData, `class "nope"`},
		{"perplexity above the reference", "tsne", map[string][]arrow.RecordBatch{"in": newRows}, map[string]string{"perplexity": "500"}, transforms.ErrInvalidOption, "reference rows"},
		{"features for a distance model", "tsne-dist", map[string][]arrow.RecordBatch{"in": newRows}, nil, transforms.ErrInvalidOption, "distances"},
		{"distances for a feature model", "tsne", map[string][]arrow.RecordBatch{"distances": newPairs}, nil, transforms.ErrInvalidOption, "distances"},
		{"unknown reference object", "tsne-dist", map[string][]arrow.RecordBatch{"distances": unknownRef}, nil, transforms.ErrInvalidData, "not a reference object"},
		{"too few distances", "tsne-dist", map[string][]arrow.RecordBatch{"distances": fewPairs}, nil, transforms.ErrInvalidData, "needs at least 6"},
		{"objects not grouped", "tsne-dist", map[string][]arrow.RecordBatch{"distances": scattered}, nil, transforms.ErrInvalidData, "not contiguous"},
	}
	for _, c := range cases {
		in := map[string][]arrow.RecordBatch{"model": models[c.model].Out("model-out").Records}
		for k, v := range c.in {
			in[k] = v
		}
		out, err := run(t, apply.Stage{}, in, []string{"out"}, c.opts, 1)
		out.Release()
		if !errors.Is(err, c.kind) || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v, want %v mentioning %q", c.name, err, c.kind, c.msg)
		}
	}
}

// TestPlacementGraphIsExactKNN: the graph a model stores is each reference
// row's exact nearest rows, whether the fit's own neighbour lists were
// reused (Barnes–Hut) or a search made it (exact methods).
func TestPlacementGraphIsExactKNN(t *testing.T) {
	const d = 5
	_, _, _, ref, _ := placementFixture(t, 4, 300, 1, d, 3)
	for _, c := range []struct {
		name  string
		stage transforms.Stage
		opts  map[string]string
	}{
		{"tsne bh", tsne.Stage{}, map[string]string{"method": "bh", "perplexity": "10"}},
		{"tsne exact", tsne.Stage{}, map[string]string{"method": "exact", "perplexity": "10"}},
		{"nerv bh", nerv.Stage{}, map[string]string{"method": "bh", "perplexity": "10", "features": "f*", "label": ""}},
		{"nerv cutoff", nerv.Stage{}, map[string]string{"method": "cutoff", "perplexity": "10", "features": "f*", "label": ""}},
	} {
		c.opts["id"] = "id"
		if c.opts["label"] == "" && c.stage.Info().Name == "tsne" {
			c.opts["label"] = "label"
		}
		fit, err := run(t, c.stage, map[string][]arrow.RecordBatch{"in": ref}, []string{"out", "model-out"}, c.opts, 2)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		rec := fit.Out("model-out").Records[0]
		n := int(rec.NumRows())
		col := func(name string) arrow.Array { return rec.Column(rec.Schema().FieldIndices(name)[0]) }
		x := make([]float64, n*d)
		for j := range d {
			for i, v := range col(fmt.Sprintf("x_%d", j)).(*array.Float64).Float64Values() {
				x[i*d+j] = v
			}
		}
		g := placement.GraphDegree
		want := make([]int32, n*g)
		if err := kernels.KNN(context.Background(), want, nil, x, n, d, g, 1); err != nil {
			t.Fatal(err)
		}
		for c2 := range g {
			for i, v := range col(fmt.Sprintf("nn_%d", c2)).(*array.Int32).Int32Values() {
				if v != want[i*g+c2] {
					t.Fatalf("%s: neighbour %d of reference row %d is %d, exact k-NN says %d", c.name, c2, i, v, want[i*g+c2])
				}
			}
		}
		fit.Release()
	}
}
