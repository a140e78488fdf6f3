package placement

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// Kind is the model kind of placement maps; each method registers it for
// its own stage (Register).
const Kind = "placement"

// Sources of a model's reference rows.
const (
	FromFeatures  = "features"  // feature rows: new rows are placed by their features
	FromDistances = "distances" // a distance table: new objects by their distances to the reference
)

// A Searcher finds a new row's nearest reference rows for a model whose
// Source was registered with RegisterSource: rows placed by their features
// in a metric other than the Euclidean distance of the standardised
// features (Fisher maps). Such a model stores features and a graph as a
// model FromFeatures does.
type Searcher interface {
	// Settings are the search's settings, written in the header under
	// the source's name.
	Settings() any
	// Prepare builds what the searches share, once per model.
	Prepare(ctx context.Context, m *Model, threads int) error
	// NewRowSearch returns one goroutine's search, with its own buffers.
	NewRowSearch() RowSearch
}

// RowSearch finds the candidate reference rows of one new row at a time.
type RowSearch interface {
	// Candidates returns the candidate reference rows of the standardised
	// row z and their SQUARED distances, in any order. The slices belong
	// to the RowSearch until its next call. The result depends on z and
	// the model alone.
	Candidates(z []float64) (ref []int32, d2 []float64, err error)
}

// SearcherLoader builds a model's Searcher from the settings stored under
// its source's name, once the model's rows are read.
type SearcherLoader func(m *Model, settings json.RawMessage) (Searcher, error)

var (
	sourcesMu sync.RWMutex
	sources   = map[string]SearcherLoader{}
)

// RegisterSource registers a source of models whose new rows are found by
// a Searcher (the features and the graph are stored as for FromFeatures).
// It panics if the name is taken.
func RegisterSource(name string, load SearcherLoader) {
	sourcesMu.Lock()
	defer sourcesMu.Unlock()
	if _, dup := sources[name]; dup || name == FromFeatures || name == FromDistances {
		panic("placement: RegisterSource: source " + name + " registered twice")
	}
	sources[name] = load
}

func sourceLoader(name string) SearcherLoader {
	sourcesMu.RLock()
	defer sourcesMu.RUnlock()
	return sources[name]
}

// GraphDegree is the number of nearest reference rows per reference row
// stored in a model for the neighbour index.
const GraphDegree = 24

// Method is what a method that places rows into its fitted maps brings to
// a Model: its placement settings and the placer built from them.
type Method interface {
	// Settings are the placement settings, written in the model header
	// under the stage's name and decoded by the Decode given to Register.
	Settings() any
	// Perplexity is the perplexity of a placed row's affinities.
	Perplexity() float64
	// Tune applies apply's overrides: a perplexity and an iteration budget
	// (0 keeps the model's). It refuses values the method cannot use.
	Tune(perplexity float64, maxIter int) error
	// UsesLabels reports whether placing a row can take its classes.
	UsesLabels() bool
	// Placer builds what places rows into the reference map, once per
	// model. soft holds the reference rows' label weights (N×classes, a
	// NaN row unlabelled), or is nil.
	Placer(ctx context.Context, ref Reference, soft []float64, classes, threads int) (Placer, error)
}

// Placer places rows into a fixed reference map. It is safe for concurrent
// use; each goroutine places with its own Worker.
type Placer interface {
	// Neighbors is how many nearest reference rows a new row is placed
	// from.
	Neighbors() int
	// NewWorker returns one goroutine's placer, with its own buffers.
	NewWorker() Worker
}

// Worker places one row at a time.
type Worker interface {
	// Place writes to dst (Dims values) the position of a new row from its
	// nearest reference rows nbr, ascending, with their SQUARED input
	// distances d2, and its label weights soft (nil: unlabelled). The
	// result depends on the arguments alone.
	Place(dst []float64, nbr []int32, d2, soft []float64) error
}

// Register registers the placement model kind of stage: how a model that
// stage wrote is read. Its placement settings are stored in the header
// under the stage's name as the JSON of an S (Method.Settings returns
// one), and method builds the Method from them.
func Register[S any](stage, doc string, method func(settings S) Method) {
	decode := func(raw json.RawMessage) (Method, error) {
		var s S
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return method(s), nil
	}
	transforms.RegisterModel(transforms.ModelKind{Kind: Kind, Stage: stage, Doc: doc,
		Load: func(r arrowio.Reader, h transforms.ModelHeader) (transforms.Model, error) {
			return Load(r, h, decode)
		}})
}

// Model is the model of a fitted map (kind "placement"): the reference rows
// and their positions, from which new rows are placed by optimising each
// row alone against the fixed map, with the fitting method's Method. It
// holds:
//
//   - the reference ids (always), and for Source FromFeatures their
//     standardised features X, the standardisation (Scaling) and a graph of
//     each reference row's GraphDegree nearest reference rows for the
//     neighbour index;
//   - the reference embedding Y (N×Dims);
//   - the reference rows' label weights Soft (N×len(Classes), an
//     unlabelled row NaN) when the fit used labels;
//   - the method's placement settings, which apply may tune.
//
// Its file holds one row per reference row: id, x_0 … (features), emb_0 …,
// nn_0 … (graph) and w_0 … (label weights); the rest is in the header.
type Model struct {
	Stage        string // the stage that fitted the map: "tsne", "nerv"
	Source       string // FromFeatures or FromDistances
	Scaling      *transforms.Scaling
	FeatureList  string
	Standardized bool

	IDs   arrow.Array // N reference ids
	X     []float64   // N×D standardised features (FromFeatures)
	Y     []float64   // N×Dims reference embedding
	Dims  int
	Graph []int32 // N×G nearest reference rows (FromFeatures)
	G     int

	Classes []string  // label classes, in the order of Soft's columns
	Soft    []float64 // N×len(Classes), or nil

	Method Method
	Params map[string]any // the fit's figures, for the record

	// Searcher finds new rows' reference rows for a registered source
	// (RegisterSource); nil for FromFeatures and FromDistances.
	Searcher Searcher

	prep    sync.Once
	workers sync.Pool // *worker, reused across batches
	prepErr error
	index   *kernels.Index
	placer  Placer
	idPos   map[string]int32 // FromDistances: reference id → row
}

// NewFromFeatures is the model of a map y (n×dims) fitted by stage on the
// feature table ft: the reference rows are ft's rows, with their features
// as fitted (ft.Z) and ft's standardisation, and a graph of each row's
// GraphDegree nearest rows for the neighbour index. knn, if not nil, holds
// each row's k nearest rows by (squared distance, index) as the fit found
// them (k ≥ the degree: its first columns are the graph); otherwise the
// graph is an exact k-NN search. The caller sets Classes and Soft for a
// fit with labels, and Params.
func NewFromFeatures(ctx context.Context, stage string, method Method, ft *transforms.FeatureTable, standardized bool, y []float64, dims int, knn []int32, k, threads int) (*Model, error) {
	n, D := ft.N, ft.K()
	g := min(n-1, GraphDegree)
	graph := make([]int32, n*g)
	if knn != nil && k >= g && len(knn) == n*k {
		for i := range n {
			copy(graph[i*g:(i+1)*g], knn[i*k:])
		}
	} else if err := kernels.KNN(ctx, graph, nil, ft.Z, n, D, g, threads); err != nil {
		return nil, err
	}
	return &Model{Stage: stage, Source: FromFeatures, Scaling: ft.Scaling, FeatureList: ft.FeatureList,
		Standardized: standardized, IDs: ft.ID, X: ft.Z, Y: y, Dims: dims, Graph: graph, G: g, Method: method}, nil
}

// NewFromDistances is the model of a map y (n×dims) fitted by stage on a
// distance table over the objects ids: new objects are placed from their
// distances to these.
func NewFromDistances(stage string, method Method, ids arrow.Array, y []float64, dims int) *Model {
	return &Model{Stage: stage, Source: FromDistances, IDs: ids, Y: y, Dims: dims, Method: method}
}

// N is the number of reference rows.
func (m *Model) N() int { return len(m.Y) / m.Dims }

// ReferenceRows implements apply's count of the reference rows.
func (m *Model) ReferenceRows() int { return m.N() }

// D is the number of features (0 for a model from distances).
func (m *Model) D() int {
	if m.Scaling == nil {
		return 0
	}
	return len(m.Scaling.Names)
}

// Header implements transforms.Model. The header's params hold the source,
// the standardisation, the graph degree, the classes, the reference row
// count, the fit's figures ("fit") and the method's settings under the
// stage's name.
func (m *Model) Header() transforms.ModelHeader {
	p := map[string]any{"source": m.Source, "graph_degree": m.G, "reference_rows": m.N()}
	if m.Scaling != nil {
		p["feature_names"], p["mean"], p["scale"] = m.Scaling.Names, m.Scaling.Mean, m.Scaling.Scale
	}
	if len(m.Classes) > 0 {
		p["classes"] = m.Classes
	}
	if len(m.Params) > 0 {
		p["fit"] = m.Params
	}
	if m.Method != nil {
		p[m.Stage] = m.Method.Settings()
	}
	if m.Searcher != nil {
		p[m.Source] = m.Searcher.Settings()
	}
	// The params as JSON reads them back: what is written is what a loaded
	// model reports.
	var out map[string]any
	raw, _ := json.Marshal(p)
	_ = json.Unmarshal(raw, &out)
	return transforms.ModelHeader{Format: transforms.ModelFormat, Version: transforms.ModelVersion, Kind: Kind, Stage: m.Stage,
		Dims: m.Dims, Features: m.D(), FeatureList: m.FeatureList, Standardized: m.Standardized, Params: out}
}

// InputFeatures implements transforms.Model: the features a new row needs
// (none for a model from distances).
func (m *Model) InputFeatures() []string {
	if m.Scaling == nil {
		return nil
	}
	return m.Scaling.Names
}

// SizeBytes is the approximate size of the model's data in memory.
func (m *Model) SizeBytes() int64 {
	return 8*int64(len(m.X)+len(m.Y)+len(m.Soft)) + 4*int64(len(m.Graph))
}

// Settings are the placement settings in use (after Tune), for the
// record.
func (m *Model) Settings() any { return m.Method.Settings() }

// Tune implements apply's overrides of the placement settings: a
// perplexity below the reference row count, and an iteration budget (0
// keeps the model's). Call it before the first placement.
func (m *Model) Tune(perplexity float64, maxIter int) error {
	if perplexity > 0 && !(perplexity < float64(m.N())) {
		return transforms.Optionf("perplexity", "%g: want a value below the %d reference rows", perplexity, m.N())
	}
	return m.Method.Tune(perplexity, maxIter)
}

// LabelClasses are the classes a new row's label weights are given in
// (apply's label and soft-labels), or an error saying why the model takes
// none.
func (m *Model) LabelClasses() ([]string, error) {
	switch {
	case !m.Method.UsesLabels():
		return nil, fmt.Errorf("a %s map places rows by their features alone (pass the column through with keep)", m.Stage)
	case len(m.Classes) == 0:
		return nil, fmt.Errorf("the %s model was fitted without classes: new rows cannot bring labels", m.Stage)
	}
	return m.Classes, nil
}

// Neighbors is the number of nearest reference rows a new row is placed
// from (after Prepare).
func (m *Model) Neighbors() int { return m.placer.Neighbors() }

// Prepare builds what placement needs once per model: the neighbour index
// over the reference features and the method's placer. It runs once;
// later calls return its error.
func (m *Model) Prepare(ctx context.Context, threads int) error {
	m.prep.Do(func() { m.prepErr = m.prepare(ctx, threads) })
	return m.prepErr
}

func (m *Model) prepare(ctx context.Context, threads int) error {
	if m.Method == nil {
		return fmt.Errorf("%w: a %s placement model without its method", transforms.ErrModel, m.Stage)
	}
	ref := Reference{Y: m.Y, N: m.N(), Dims: m.Dims}
	var err error
	if m.placer, err = m.Method.Placer(ctx, ref, m.Soft, len(m.Classes), threads); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: %w", ErrSettings, err)
	}
	if m.Searcher != nil {
		return m.Searcher.Prepare(ctx, m, threads)
	}
	if m.Source == FromDistances {
		m.idPos = make(map[string]int32, m.N())
		for r := range m.N() {
			m.idPos[m.IDs.ValueStr(r)] = int32(r)
		}
		return nil
	}
	// The whole stored graph: on isotropic 50-D clusters (the hard case for a
	// graph index) degree 24 finds more of the 25 nearest rows than the
	// default 16, at the same speed (BENCHMARKS.md).
	m.index, err = kernels.NewIndex(ctx, m.X, m.N(), m.D(), m.Graph, m.G, kernels.IndexOptions{Degree: m.G}, threads)
	if errors.Is(err, kernels.ErrGraph) {
		return fmt.Errorf("%w: %w", transforms.ErrModel, err)
	}
	return err
}

// ErrSettings marks placement settings (from the model, or the apply
// options that tune them) that the method's placer refuses.
var ErrSettings = transforms.NewSentinel(transforms.ErrInvalidOption, "placement settings")

// Release frees the reference ids. The model must not be used afterwards.
func (m *Model) Release() {
	if m.IDs != nil {
		m.IDs.Release()
		m.IDs = nil
	}
}

// Transform implements transforms.Model: it places the n rows of x (raw
// features), unlabelled.
func (m *Model) Transform(ctx context.Context, dst, x []float64, n, threads int) error {
	return m.TransformLabelled(ctx, dst, x, nil, n, threads)
}

// grain is the number of rows per parallel chunk of a placement.
const grain = 64

// TransformLabelled places the n rows of the row-major x (raw features, in
// the model's InputFeatures order) into dst (n×Dims). soft holds the rows'
// label weights (n×len(Classes); a NaN row is unlabelled) or is nil. Each
// row's position depends on the model and that row alone: the same bits
// for any n, batch or thread count. A row that cannot be placed fails the
// call with a *transforms.ItemError naming it.
func (m *Model) TransformLabelled(ctx context.Context, dst, x, soft []float64, n, threads int) error {
	if m.Source == FromDistances {
		return fmt.Errorf("%w: the %s model was fitted on distances; place new objects by their distances to the reference objects", transforms.ErrModel, m.Stage)
	}
	if err := m.Prepare(ctx, threads); err != nil {
		return err
	}
	D, c := m.D(), len(m.Classes)
	if len(x) != n*D || len(dst) != n*m.Dims || (soft != nil && len(soft) != n*c) {
		panic(fmt.Sprintf("placement: Transform: %d features and %d outputs for n = %d, D = %d, dims = %d", len(x), len(dst), n, D, m.Dims))
	}
	k := min(m.Neighbors(), m.N())
	return m.parallel(ctx, n, threads, func(w *worker, i int) error {
		w.init(k, D)
		if m.Searcher != nil && w.rows == nil {
			w.rows = m.Searcher.NewRowSearch()
		}
		for j := range D {
			w.z[j] = m.Scaling.Standardize(j, x[i*D+j])
		}
		if m.Searcher != nil {
			if err := m.nearestCandidates(w); err != nil {
				return err
			}
		} else {
			m.index.Search(w.nbr, w.d2, w.z, &w.search)
		}
		var row []float64
		if soft != nil {
			row = soft[i*c : (i+1)*c]
			if math.IsNaN(row[0]) {
				row = nil
			}
		}
		return w.place.Place(dst[i*m.Dims:(i+1)*m.Dims], w.nbr, w.d2, row)
	})
}

// nearestCandidates fills w.nbr and w.d2 with the nearest of the
// candidates that the model's Searcher finds for w.z, by (squared
// distance, row); fewer when there are fewer candidates.
func (m *Model) nearestCandidates(w *worker) error {
	ref, d2, err := w.rows.Candidates(w.z)
	if err != nil {
		return err
	}
	w.pairs = w.pairs[:0]
	for q, j := range ref {
		w.pairs = append(w.pairs, pairDist{j, d2[q]})
	}
	w.keepNearest()
	return nil
}

// parallel calls fn for the items 0 … n−1 on up to threads goroutines, in
// chunks of grain, each goroutine with a worker from the model's pool
// (kept across batches: a search scratch holds a mark per reference row).
// It returns the error of the first chunk that failed.
func (m *Model) parallel(ctx context.Context, n, threads int, fn func(w *worker, i int) error) error {
	workers := make([]*worker, kernels.Workers(n, threads, grain))
	defer func() {
		for _, w := range workers {
			if w != nil {
				m.workers.Put(w)
			}
		}
	}()
	errs := make([]error, kernels.NumChunks(n, grain))
	err := kernels.ParallelForWorker(ctx, n, threads, grain, func(wi, lo, hi int) {
		if workers[wi] == nil {
			workers[wi], _ = m.workers.Get().(*worker)
			if workers[wi] == nil {
				workers[wi] = &worker{place: m.placer.NewWorker()}
			}
		}
		for i := lo; i < hi; i++ {
			if err := fn(workers[wi], i); err != nil {
				errs[lo/grain] = &transforms.ItemError{Item: i, Err: err}
				return
			}
		}
	})
	if err != nil {
		return err
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// worker is one goroutine's buffers and placer.
type worker struct {
	z      []float64
	nbr    []int32
	d2     []float64
	pairs  []pairDist
	search kernels.SearchScratch
	rows   RowSearch // a Searcher's, for a registered source
	place  Worker
}

// keepNearest orders w.pairs by (squared distance, row) and puts the
// first len(w.nbr) of them (all, when fewer) in w.nbr and w.d2.
func (w *worker) keepNearest() {
	slices.SortFunc(w.pairs, func(a, b pairDist) int {
		return cmp.Or(cmp.Compare(a.d2, b.d2), cmp.Compare(a.j, b.j))
	})
	k := min(len(w.pairs), len(w.nbr))
	w.nbr, w.d2 = w.nbr[:k], w.d2[:k]
	for q := range k {
		w.nbr[q], w.d2[q] = w.pairs[q].j, w.pairs[q].d2
	}
}

type pairDist struct {
	j  int32
	d2 float64
}

func (w *worker) init(k, d int) {
	if cap(w.nbr) < k {
		w.nbr, w.d2 = make([]int32, k), make([]float64, k)
	}
	w.nbr, w.d2 = w.nbr[:k], w.d2[:k]
	if len(w.z) != d {
		w.z = make([]float64, d)
	}
}

// FromDistances reports whether the model places new objects by their
// distances to the reference objects (a map fitted on a distance table).
func (m *Model) FromDistances() bool { return m.Source == FromDistances }

// PlaceObjects places new objects from their PLAIN distances to reference
// rows: object o has the distances dist[o] to the reference rows ref[o]
// (indices into the model's rows). Reference rows not given for an object
// count as far: they are not its neighbours, and still repel through the
// map. Each object uses the nearest Neighbors() of its distances.
func (m *Model) PlaceObjects(ctx context.Context, dst []float64, ref [][]int32, dist [][]float64, threads int) error {
	if err := m.Prepare(ctx, threads); err != nil {
		return err
	}
	n := len(ref)
	if len(dist) != n || len(dst) != n*m.Dims {
		panic("placement: PlaceObjects: mismatched lengths")
	}
	return m.parallel(ctx, n, threads, func(w *worker, o int) error {
		if len(ref[o]) != len(dist[o]) {
			panic("placement: PlaceObjects: mismatched lengths")
		}
		w.pairs = w.pairs[:0]
		for q, j := range ref[o] {
			w.pairs = append(w.pairs, pairDist{j, dist[o][q] * dist[o][q]})
		}
		w.init(m.Neighbors(), 0)
		w.keepNearest()
		return w.place.Place(dst[o*m.Dims:(o+1)*m.Dims], w.nbr, w.d2, nil)
	})
}

// ReferenceRow returns the row of the reference id (compared as text), or
// false (after Prepare).
func (m *Model) ReferenceRow(id string) (int32, bool) {
	j, ok := m.idPos[id]
	return j, ok
}

// MinDistances is the fewest distances to reference objects a new object
// needs: more than the placement perplexity.
func (m *Model) MinDistances() int { return int(math.Floor(m.Method.Perplexity())) + 1 }

// Record implements transforms.Model.
func (m *Model) Record(mem memory.Allocator) (arrow.RecordBatch, error) {
	n, D, d, c := m.N(), m.D(), m.Dims, len(m.Classes)
	fields := []arrow.Field{{Name: "id", Type: m.IDs.DataType()}}
	fields = append(fields, transforms.Float64Fields("x_", D)...)
	fields = append(fields, transforms.Float64Fields("emb_", d)...)
	for g := range m.G {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("nn_%d", g), Type: arrow.PrimitiveTypes.Int32})
	}
	for k := range c {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("w_%d", k), Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	}
	schema := arrow.NewSchema(fields, nil)
	cols := make([]arrow.Array, 0, len(fields))
	m.IDs.Retain()
	cols = append(cols, m.IDs)
	strided := func(src []float64, stride, col int, valid func(i int) bool) arrow.Array {
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		b.Reserve(n)
		for i := range n {
			if valid != nil && !valid(i) {
				b.AppendNull()
				continue
			}
			b.UnsafeAppend(src[i*stride+col])
		}
		return b.NewArray()
	}
	for j := range D {
		cols = append(cols, strided(m.X, D, j, nil))
	}
	for j := range d {
		cols = append(cols, strided(m.Y, d, j, nil))
	}
	for g := range m.G {
		b := array.NewInt32Builder(mem)
		b.Reserve(n)
		for i := range n {
			b.UnsafeAppend(m.Graph[i*m.G+g])
		}
		cols = append(cols, b.NewArray())
		b.Release()
	}
	for k := range c {
		cols = append(cols, strided(m.Soft, c, k, func(i int) bool { return !math.IsNaN(m.Soft[i*c]) }))
	}
	rec := array.NewRecordBatch(schema, cols, int64(n))
	for _, a := range cols {
		a.Release()
	}
	return rec, nil
}

// Check implements transforms.Model: the standardisation, every reference
// position and every reference feature finite.
func (m *Model) Check() error {
	if m.Scaling != nil {
		if err := transforms.CheckScaling(m.Stage, m.Scaling); err != nil {
			return err
		}
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	for k, v := range m.Y {
		if !finite(v) {
			return transforms.ModelValueError(m.Stage, fmt.Sprintf("emb_%d", k%m.Dims), k/m.Dims, fmt.Sprintf("reference row %d, coordinate %d", k/m.Dims, k%m.Dims), v)
		}
	}
	if D := m.D(); D > 0 {
		for k, v := range m.X {
			if !finite(v) {
				return transforms.ModelValueError(m.Stage, fmt.Sprintf("x_%d", k%D), k/D, fmt.Sprintf("reference row %d, feature %q", k/D, m.Scaling.Names[k%D]), v)
			}
		}
	}
	return nil
}
