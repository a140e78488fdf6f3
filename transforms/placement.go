package transforms

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
	"github.com/ordinate/ordinate/transforms/place"
)

// Sources of a placement model's reference rows.
const (
	FromFeatures  = "features"  // feature rows: new rows are placed by their features
	FromDistances = "distances" // a distance table: new objects by their distances to the reference
)

// PlacementGraphDegree is the number of nearest reference rows per reference
// row stored in a placement model for the neighbour index.
const PlacementGraphDegree = 24

// LargeModelBytes is the model size above which writing or loading one is
// a warning: a placement model holds every reference row.
const LargeModelBytes = 1 << 30

// Placement is the model of a fitted t-SNE or NeRV map (kind "placement"):
// the reference rows and their positions, from which new rows are placed
// by optimising each row alone against the fixed map (package place). It
// holds:
//
//   - the reference ids (always), and for Source FromFeatures their
//     standardised features X, the standardisation (Scaling) and a graph of
//     each reference row's PlacementGraphDegree nearest reference rows for
//     the neighbour index;
//   - the reference embedding Y (N×Dims);
//   - for NeRV, the reference rows' label weights Soft (N×len(Classes), an
//     unlabelled row NaN) when the fit used labels;
//   - the placement options (TSNE or NeRV) fixed at fit time, which apply
//     may override.
//
// Its file holds one row per reference row: id, x_0 … (features), emb_0 …,
// nn_0 … (graph) and w_0 … (label weights); the rest is in the header.
type Placement struct {
	Stage        string // "tsne" or "nerv"
	Source       string // FromFeatures or FromDistances
	Scaling      *Scaling
	FeatureList  string
	Standardized bool

	IDs   arrow.Array // N reference ids
	X     []float64   // N×D standardised features (FromFeatures)
	Y     []float64   // N×Dims reference embedding
	Dims  int
	Graph []int32 // N×G nearest reference rows (FromFeatures)
	G     int

	Classes []string  // NeRV label classes, in the order of Soft's columns
	Soft    []float64 // N×len(Classes), or nil

	TSNE   *place.TSNEOptions
	NeRV   *place.NeRVOptions
	Params map[string]any // the fit's parameters, for provenance

	prep    sync.Once
	scratch sync.Pool // *placeScratch, reused across batches
	prepErr error
	index   *kernels.Index
	tsne    *place.TSNE
	nerv    *place.NeRV
	idPos   map[string]int32 // FromDistances: reference id → row
}

// N is the number of reference rows.
func (m *Placement) N() int { return len(m.Y) / m.Dims }

// D is the number of features (0 for a model from distances).
func (m *Placement) D() int {
	if m.Scaling == nil {
		return 0
	}
	return len(m.Scaling.Names)
}

// placementParams is the header's description of a placement model.
type placementParams struct {
	Source   string             `json:"source"`
	Names    []string           `json:"feature_names,omitempty"`
	Mean     []float64          `json:"mean,omitempty"`
	Scale    []float64          `json:"scale,omitempty"`
	Graph    int                `json:"graph_degree"`
	Classes  []string           `json:"classes,omitempty"`
	TSNE     *place.TSNEOptions `json:"tsne,omitempty"`
	NeRV     *place.NeRVOptions `json:"nerv,omitempty"`
	Fit      map[string]any     `json:"fit,omitempty"`
	RefCount int                `json:"reference_rows"`
}

// Header implements Model.
func (m *Placement) Header() ModelHeader {
	pp := placementParams{Source: m.Source, Graph: m.G, Classes: m.Classes, TSNE: m.TSNE, NeRV: m.NeRV, Fit: m.Params, RefCount: m.N()}
	if m.Scaling != nil {
		pp.Names, pp.Mean, pp.Scale = m.Scaling.Names, m.Scaling.Mean, m.Scaling.Scale
	}
	var p map[string]any
	raw, _ := json.Marshal(pp)
	_ = json.Unmarshal(raw, &p)
	return ModelHeader{Format: ModelFormat, Version: ModelVersion, Kind: "placement", Stage: m.Stage,
		Dims: m.Dims, Features: m.D(), FeatureList: m.FeatureList, Standardized: m.Standardized, Params: p}
}

// InputFeatures implements Model: the features a new row needs (none for
// a model from distances).
func (m *Placement) InputFeatures() []string {
	if m.Scaling == nil {
		return nil
	}
	return m.Scaling.Names
}

// SizeBytes is the approximate size of the model's data in memory.
func (m *Placement) SizeBytes() int64 {
	return 8*int64(len(m.X)+len(m.Y)+len(m.Soft)) + 4*int64(len(m.Graph))
}

// Neighbors is the number of nearest reference rows a new row is placed
// from.
func (m *Placement) Neighbors() int {
	if m.tsne != nil {
		return m.tsne.Neighbors()
	}
	return m.nerv.Neighbors()
}

// Prepare builds what placement needs once per model: the neighbour index
// over the reference features and the placer (t-SNE's repulsion field,
// NeRV's map index). It runs once; later calls return its error.
func (m *Placement) Prepare(ctx context.Context, threads int) error {
	m.prep.Do(func() { m.prepErr = m.prepare(ctx, threads) })
	return m.prepErr
}

func (m *Placement) prepare(ctx context.Context, threads int) error {
	ref := place.Reference{Y: m.Y, N: m.N(), Dims: m.Dims}
	var err error
	switch m.Stage {
	case "tsne":
		if m.TSNE == nil {
			return fmt.Errorf("%w: a t-SNE placement model without t-SNE options", ErrModel)
		}
		m.tsne, err = place.NewTSNE(ctx, ref, *m.TSNE, threads)
	case "nerv":
		if m.NeRV == nil {
			return fmt.Errorf("%w: a NeRV placement model without NeRV options", ErrModel)
		}
		m.nerv, err = place.NewNeRV(ref, m.Soft, len(m.Classes), *m.NeRV)
	default:
		return fmt.Errorf("%w: placement for stage %q", ErrModel, m.Stage)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrPlacementSettings, err)
	}
	if m.Source == FromDistances {
		m.idPos = make(map[string]int32, m.N())
		for r := range m.N() {
			m.idPos[m.IDs.ValueStr(r)] = int32(r)
		}
		return nil
	}
	// The whole stored graph: on isotropic 50-D clusters (the hard case for a
	// graph index) degree 24 finds 97 % of the 25 nearest rows where the
	// default 16 finds 93 %, at the same speed (BENCHMARKS.md).
	m.index, err = kernels.NewIndex(ctx, m.X, m.N(), m.D(), m.Graph, m.G, kernels.IndexOptions{Degree: m.G}, threads)
	if errors.Is(err, kernels.ErrGraph) {
		return fmt.Errorf("%w: %w", ErrModel, err)
	}
	return err
}

// ErrPlacementSettings marks placement settings (from the model, or the
// apply options that override them) that the placer refuses.
var ErrPlacementSettings = NewSentinel(ErrInvalidOption, "transforms: placement settings")

// Release frees the reference ids. The model must not be used afterwards.
func (m *Placement) Release() {
	if m.IDs != nil {
		m.IDs.Release()
		m.IDs = nil
	}
}

// Transform implements Model: it places the n rows of x (raw features) on
// one goroutine, unlabelled. Apply uses PlaceRows.
func (m *Placement) Transform(dst, x []float64, n int) []float64 {
	if dst == nil {
		dst = make([]float64, n*m.Dims)
	}
	if err := m.PlaceRows(context.Background(), dst, x, nil, n, 1); err != nil {
		panic(fmt.Sprintf("transforms: placement: %v", err))
	}
	return dst
}

// placeGrain is the number of rows per parallel chunk of PlaceRows.
const placeGrain = 64

// PlaceRows places the n rows of the row-major x (raw features, in the
// model's InputFeatures order) into dst (n×Dims). soft, for NeRV, holds the
// rows' label weights (n×len(Classes); a NaN row is unlabelled) or is nil.
// Each row's position depends on the model and that row alone: the same bits
// for any n, batch or thread count. A row that cannot be placed fails the
// call with an *ItemError naming it.
func (m *Placement) PlaceRows(ctx context.Context, dst, x, soft []float64, n, threads int) error {
	if err := m.Prepare(ctx, threads); err != nil {
		return err
	}
	D, c := m.D(), len(m.Classes)
	if m.Source != FromFeatures || len(x) != n*D || len(dst) != n*m.Dims || (soft != nil && len(soft) != n*c) {
		panic(fmt.Sprintf("transforms: PlaceRows: %d features and %d outputs for n = %d, D = %d, dims = %d", len(x), len(dst), n, D, m.Dims))
	}
	k := min(m.Neighbors(), m.N())
	return m.parallel(ctx, n, threads, func(s *placeScratch, i int) error {
		s.init(k, D)
		for j := range D {
			s.z[j] = standardized(x[i*D+j], m.Scaling.Mean[j], m.Scaling.Scale[j])
		}
		m.index.Search(s.nbr, s.d2, s.z, &s.search)
		var row []float64
		if soft != nil {
			row = soft[i*c : (i+1)*c]
		}
		return m.placeOne(dst[i*m.Dims:(i+1)*m.Dims], s.nbr, s.d2, row, s)
	})
}

// parallel calls fn for the items 0 … n−1 on up to threads goroutines, in
// chunks of placeGrain, each goroutine with a scratch from the model's pool
// (kept across batches: a search scratch holds a mark per reference row).
// It returns the error of the first chunk that failed.
func (m *Placement) parallel(ctx context.Context, n, threads int, fn func(s *placeScratch, i int) error) error {
	scratch := make([]*placeScratch, kernels.Workers(n, threads, placeGrain))
	defer func() {
		for _, s := range scratch {
			if s != nil {
				m.scratch.Put(s)
			}
		}
	}()
	errs := make([]error, kernels.NumChunks(n, placeGrain))
	err := kernels.ParallelForWorker(ctx, n, threads, placeGrain, func(w, lo, hi int) {
		if scratch[w] == nil {
			scratch[w], _ = m.scratch.Get().(*placeScratch)
			if scratch[w] == nil {
				scratch[w] = &placeScratch{}
			}
		}
		for i := lo; i < hi; i++ {
			if err := fn(scratch[w], i); err != nil {
				errs[lo/placeGrain] = &ItemError{Item: i, Err: err}
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

// ItemError is the failure of one row (or object) of a PlaceRows (or
// PlaceObjects) call, by its index in the call.
type ItemError struct {
	Item int
	Err  error
}

func (e *ItemError) Error() string { return fmt.Sprintf("item %d: %v", e.Item, e.Err) }
func (e *ItemError) Unwrap() error { return e.Err }

// placeOne places one row from its nearest reference rows.
func (m *Placement) placeOne(dst []float64, nbr []int32, d2, soft []float64, s *placeScratch) error {
	if m.tsne != nil {
		_, err := m.tsne.Place(dst, nbr, d2, &s.tsne)
		return err
	}
	if soft != nil && math.IsNaN(soft[0]) {
		soft = nil
	}
	_, err := m.nerv.Place(dst, nbr, d2, soft, &s.nerv)
	return err
}

// placeScratch is one worker's buffers.
type placeScratch struct {
	z      []float64
	nbr    []int32
	d2     []float64
	pairs  []pairDist
	search kernels.SearchScratch
	tsne   place.Scratch
	nerv   place.NeRVScratch
}

type pairDist struct {
	j  int32
	d2 float64
}

func (s *placeScratch) init(k, d int) {
	if len(s.nbr) != k {
		s.nbr, s.d2 = make([]int32, k), make([]float64, k)
	}
	if len(s.z) != d {
		s.z = make([]float64, d)
	}
}

// PlaceObjects places new objects from their PLAIN distances to reference
// rows: object o has the distances dist[o] to the reference rows ref[o]
// (indices into the model's rows). Reference rows not given for an object
// count as far: they are not its neighbours, and still repel through the
// map. Each object uses the nearest Neighbors() of its distances.
func (m *Placement) PlaceObjects(ctx context.Context, dst []float64, ref [][]int32, dist [][]float64, threads int) error {
	if err := m.Prepare(ctx, threads); err != nil {
		return err
	}
	n := len(ref)
	if len(dist) != n || len(dst) != n*m.Dims {
		panic("transforms: PlaceObjects: mismatched lengths")
	}
	return m.parallel(ctx, n, threads, func(s *placeScratch, o int) error {
		if len(ref[o]) != len(dist[o]) {
			panic("transforms: PlaceObjects: mismatched lengths")
		}
		s.pairs = s.pairs[:0]
		for q, j := range ref[o] {
			s.pairs = append(s.pairs, pairDist{j, dist[o][q] * dist[o][q]})
		}
		slices.SortFunc(s.pairs, func(a, b pairDist) int {
			return cmp.Or(cmp.Compare(a.d2, b.d2), cmp.Compare(a.j, b.j))
		})
		k := min(len(s.pairs), m.Neighbors())
		s.init(k, 0)
		for q := range k {
			s.nbr[q], s.d2[q] = s.pairs[q].j, s.pairs[q].d2
		}
		return m.placeOne(dst[o*m.Dims:(o+1)*m.Dims], s.nbr, s.d2, nil, s)
	})
}

// ReferenceRow returns the row of the reference id (compared as text), or
// false.
func (m *Placement) ReferenceRow(id string) (int32, bool) {
	j, ok := m.idPos[id]
	return j, ok
}

func placementRecord(mem memory.Allocator, m *Placement) arrow.RecordBatch {
	n, D, d, c := m.N(), m.D(), m.Dims, len(m.Classes)
	fields := []arrow.Field{{Name: "id", Type: m.IDs.DataType()}}
	fields = append(fields, float64Columns("x_", D)...)
	fields = append(fields, float64Columns("emb_", d)...)
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
	return rec
}

// checkPlacement refuses a placement model with a non-finite reference
// position or feature (see CheckModel).
func checkPlacement(m *Placement, bad func(column string, row int, what string, v float64) error) error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	for k, v := range m.Y {
		if !finite(v) {
			return bad(fmt.Sprintf("emb_%d", k%m.Dims), k/m.Dims, fmt.Sprintf("reference row %d, coordinate %d", k/m.Dims, k%m.Dims), v)
		}
	}
	if D := m.D(); D > 0 {
		for k, v := range m.X {
			if !finite(v) {
				return bad(fmt.Sprintf("x_%d", k%D), k/D, fmt.Sprintf("reference row %d, feature %q", k/D, m.Scaling.Names[k%D]), v)
			}
		}
	}
	return nil
}

// loadPlacement reads the body of a placement model from rd.
func loadPlacement(rd arrowio.Reader, h ModelHeader) (*Placement, error) {
	path := rd.Source().Path
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %w: %s", path, ErrModel, fmt.Sprintf(format, a...))
	}
	var pp placementParams
	raw, err := json.Marshal(h.Params)
	if err == nil {
		err = json.Unmarshal(raw, &pp)
	}
	if err != nil {
		return nil, bad("header parameters: %v", err)
	}
	m := &Placement{Stage: h.Stage, Source: pp.Source, FeatureList: h.FeatureList, Standardized: h.Standardized,
		Dims: h.Dims, G: pp.Graph, Classes: pp.Classes, TSNE: pp.TSNE, NeRV: pp.NeRV, Params: pp.Fit}
	D := len(pp.Names)
	switch {
	case h.Dims < 1:
		return nil, bad("%d dims", h.Dims)
	case pp.Source == FromFeatures && (D == 0 || D != h.Features || len(pp.Mean) != D || len(pp.Scale) != D || pp.Graph < 1):
		return nil, bad("header has %d feature names, %d means, %d scales and graph degree %d for %d features", D, len(pp.Mean), len(pp.Scale), pp.Graph, h.Features)
	case pp.Source == FromDistances && (D != 0 || pp.Graph != 0):
		return nil, bad("a model from distances with %d features and graph degree %d", D, pp.Graph)
	case pp.Source != FromFeatures && pp.Source != FromDistances:
		return nil, bad("unknown source %q", pp.Source)
	case (h.Stage == "tsne") != (pp.TSNE != nil) || (h.Stage == "nerv") != (pp.NeRV != nil):
		return nil, bad("stage %q without its placement options", h.Stage)
	}
	if D > 0 {
		m.Scaling = &Scaling{Names: pp.Names, Mean: pp.Mean, Scale: pp.Scale}
		for j, s := range pp.Scale {
			if !(s > 0) || math.IsInf(s, 1) || math.IsNaN(pp.Mean[j]) || math.IsInf(pp.Mean[j], 0) {
				return nil, bad("feature %q has mean %g and scale %g", pp.Names[j], pp.Mean[j], s)
			}
		}
	}
	c := len(pp.Classes)
	var ids []arrow.Array
	defer func() {
		for _, a := range ids {
			a.Release()
		}
	}()
	xs := make([][]float64, D)
	ys := make([][]float64, h.Dims)
	ws := make([][]float64, c)
	gs := make([][]int32, m.G)
	for rd.Next() {
		rec := rd.RecordBatch()
		col := func(name string) (arrow.Array, error) {
			idx := rec.Schema().FieldIndices(name)
			if len(idx) != 1 {
				return nil, bad("column %q missing", name)
			}
			return rec.Column(idx[0]), nil
		}
		a, err := col("id")
		if err != nil {
			return nil, err
		}
		if a.NullN() > 0 {
			return nil, bad("column \"id\" holds nulls")
		}
		a.Retain()
		ids = append(ids, a)
		floats := func(prefix string, dst [][]float64) error {
			for j := range dst {
				name := fmt.Sprintf("%s%d", prefix, j)
				a, err := col(name)
				if err != nil {
					return err
				}
				vals, err := modelFloats(a, name, bad)
				if err != nil {
					return err
				}
				dst[j] = append(dst[j], vals...)
			}
			return nil
		}
		if err := floats("x_", xs); err != nil {
			return nil, err
		}
		if err := floats("emb_", ys); err != nil {
			return nil, err
		}
		for g := range gs {
			name := fmt.Sprintf("nn_%d", g)
			a, err := col(name)
			if err != nil {
				return nil, err
			}
			ia, ok := a.(*array.Int32)
			if !ok || ia.NullN() > 0 {
				return nil, bad("column %q must be non-null int32", name)
			}
			gs[g] = append(gs[g], ia.Int32Values()...)
		}
		for k := range ws {
			name := fmt.Sprintf("w_%d", k)
			a, err := col(name)
			if err != nil {
				return nil, err
			}
			fa, ok := a.(*array.Float64)
			if !ok {
				return nil, bad("column %q must be float64", name)
			}
			for i := range fa.Len() {
				v := math.NaN()
				if fa.IsValid(i) {
					v = fa.Value(i)
					if !(v >= 0) || math.IsInf(v, 1) {
						return nil, bad("column %q holds %v", name, v)
					}
				}
				ws[k] = append(ws[k], v)
			}
		}
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	n := len(ys[0])
	if n < 2 {
		return nil, bad("%d reference rows, want at least 2", n)
	}
	if len(ids) == 1 {
		m.IDs = ids[0]
		m.IDs.Retain()
	} else {
		cat, err := array.Concatenate(ids, memory.DefaultAllocator)
		if err != nil {
			return nil, bad("ids: %v", err)
		}
		m.IDs = cat
	}
	interleave := func(cols [][]float64) []float64 {
		w := len(cols)
		out := make([]float64, n*w)
		for j, v := range cols {
			for i := range n {
				out[i*w+j] = v[i]
			}
		}
		return out
	}
	m.Y = interleave(ys)
	if D > 0 {
		m.X = interleave(xs)
		m.Graph = make([]int32, n*m.G)
		for g, v := range gs {
			for i := range n {
				if v[i] < 0 || int(v[i]) >= n || int(v[i]) == i {
					return nil, bad("column \"nn_%d\", row %d: neighbour %d of %d reference rows", g, i, v[i], n)
				}
				m.Graph[i*m.G+g] = v[i]
			}
		}
	}
	if c > 0 {
		m.Soft = interleave(ws)
		for i := range n {
			labelled := !math.IsNaN(m.Soft[i*c])
			var sum float64
			for k := range c {
				if math.IsNaN(m.Soft[i*c+k]) == labelled {
					return nil, bad("reference row %d is labelled in some w_ columns and not in others", i)
				}
				sum += m.Soft[i*c+k]
			}
			if labelled && math.Abs(sum-1) > 1e-9 {
				return nil, bad("the label weights of reference row %d sum to %g, not 1", i, sum)
			}
		}
	}
	return m, nil
}

// NewFeaturePlacement is the placement model of a map y (n×dims) fitted on
// the feature table ft: the reference rows are ft's rows, with their
// features as fitted (ft.Z) and ft's standardisation, and a graph of each
// row's PlacementGraphDegree nearest rows for the neighbour index. knn, if
// not nil, holds each row's k nearest rows by (squared distance, index) as
// the fit found them (k ≥ the degree: its first columns are the graph);
// otherwise the graph is an exact k-NN search. The caller sets TSNE or NeRV
// (and the NeRV labels) and Params.
func NewFeaturePlacement(ctx context.Context, stage string, ft *FeatureTable, standardized bool, y []float64, dims int, knn []int32, k, threads int) (*Placement, error) {
	n, D := ft.N, ft.K()
	g := min(n-1, PlacementGraphDegree)
	graph := make([]int32, n*g)
	if knn != nil && k >= g && len(knn) == n*k {
		for i := range n {
			copy(graph[i*g:(i+1)*g], knn[i*k:])
		}
	} else if err := kernels.KNN(ctx, graph, nil, ft.Z, n, D, g, threads); err != nil {
		return nil, err
	}
	return &Placement{Stage: stage, Source: FromFeatures, Scaling: ft.Scaling, FeatureList: ft.FeatureList,
		Standardized: standardized, IDs: ft.ID, X: ft.Z, Y: y, Dims: dims, Graph: graph, G: g}, nil
}

// NewDistancePlacement is the placement model of a map y (n×dims) fitted
// on a distance table over the objects ids: new objects are placed from
// their distances to these.
func NewDistancePlacement(stage string, ids arrow.Array, y []float64, dims int) *Placement {
	return &Placement{Stage: stage, Source: FromDistances, IDs: ids, Y: y, Dims: dims}
}

// MinDistances is the fewest distances to reference objects a new object
// needs: more than the placement perplexity.
func (m *Placement) MinDistances() int {
	var perp float64
	switch {
	case m.TSNE != nil:
		perp = m.TSNE.Perplexity
	case m.NeRV != nil:
		perp = m.NeRV.Perplexity
	}
	return int(math.Floor(perp)) + 1
}
