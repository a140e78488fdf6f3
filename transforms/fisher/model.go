package fisher

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/kernels"
	"github.com/ordinate/ordinate/transforms"
)

// ModelKind is the kind of the model the local mode writes (--model-out):
// the fitted rows' Fisher metric, without a map.
const ModelKind = "fisher"

// MapSettings are what the Fisher distances of a new row need besides the
// fitted rows: the kernel, σ, the path rule and the neighbour counts of the
// fit. A model stores them in its header under "fisher".
type MapSettings struct {
	Kernel           string  `json:"kernel"`
	Gamma            float64 `json:"gamma,omitempty"` // rbf's γ as resolved by the fit
	Sigma            float64 `json:"sigma"`
	Steps            int     `json:"steps"`
	Rule             Rule    `json:"rule"`
	ExcludeEndpoints bool    `json:"exclude_endpoints"`
	// Neighbors is K, the fitted rows a new row gets distances to (its
	// nearest in the kernel metric).
	Neighbors int `json:"neighbors"`
	// ParzenNeighbors is L, the rows of each list in the Parzen sums.
	ParzenNeighbors int `json:"parzen_neighbors"`
	// ListLength is M = max(K, L), the rows listed per row.
	ListLength int `json:"list_length"`
}

// check refuses settings no fit writes.
func (s MapSettings) check(n int) error {
	switch {
	case s.Kernel != "linear" && s.Kernel != "rbf" && s.Kernel != "cosine":
		return fmt.Errorf("kernel %q has no local mode", s.Kernel)
	case s.Kernel == "rbf" && !(s.Gamma > 0 && !math.IsInf(s.Gamma, 1)):
		return fmt.Errorf("rbf with gamma %g", s.Gamma)
	case !(s.Sigma > 0 && !math.IsInf(s.Sigma, 1)):
		return fmt.Errorf("sigma %g", s.Sigma)
	case s.Steps < 1 || s.Steps > maxModelSteps:
		return fmt.Errorf("%d steps, want 1 … %d", s.Steps, maxModelSteps)
	case s.Rule != Trapezoid && s.Rule != Left:
		return fmt.Errorf("rule %q", s.Rule)
	case s.Neighbors < 1 || s.ParzenNeighbors < 1 || s.ListLength != max(s.Neighbors, s.ParzenNeighbors) || s.ListLength >= n:
		return fmt.Errorf("neighbors %d, parzen_neighbors %d and list_length %d for %d rows", s.Neighbors, s.ParzenNeighbors, s.ListLength, n)
	}
	return nil
}

// Model is the Fisher metric of a local-mode fit (kind "fisher"): the
// fitted rows' ids, features as fitted (standardised), classes, each row's
// L Parzen neighbours, and the MapSettings. It places nothing by itself;
// BindMap joins it to a map fitted on its distances (tsne --distances D
// --fisher-model F), which then places new rows by their Fisher distances
// to the fitted rows.
type Model struct {
	IDs          arrow.Array
	Scaling      *transforms.Scaling
	FeatureList  string
	Standardized bool
	X            []float64 // n×D features as fitted
	Lists        []int32   // n×M nearest rows in the kernel metric, nearest first (M = Settings.ListLength)
	Classes      []string
	Class        []int32 // n class indices into Classes
	Settings     MapSettings
	// Setup are the options of the fit, which a tile computed from the
	// model must not change (FitModel).
	Setup PreparedSetup
}

// NewModel is the Fisher metric of a local-mode fit res (FitFeatures with
// options o) of the rows x (as fitted, with the standardisation scaling)
// with ids and classes cls. It shares x and ids (not retained). It panics
// if res is not a local-mode Fisher fit.
func NewModel(ids arrow.Array, scaling *transforms.Scaling, x []float64, cls *transforms.Classes, res *FitResult, o Options) *Model {
	lc := res.local
	if lc == nil || res.Sigma == 0 {
		panic("fisher: NewModel: not a local-mode Fisher fit")
	}
	n, M, L := res.N, lc.Knn, lc.Parzen
	m := &Model{IDs: ids, Scaling: scaling, X: x, Lists: lc.Idx, Classes: cls.Names, Class: make([]int32, n),
		Settings: MapSettings{Kernel: lc.Kernel.Kind, Sigma: res.Sigma, Steps: o.Steps, Rule: o.Rule,
			ExcludeEndpoints: o.ExcludeEndpoints, Neighbors: res.K, ParzenNeighbors: L, ListLength: M},
		Setup: setupOf(o, true)}
	if lc.Kernel.Kind == "rbf" {
		m.Settings.Gamma = lc.Kernel.Gamma
	}
	for i := range n {
		m.Class[i] = int32(cls.Index[i])
	}
	return m
}

// N is the number of fitted rows.
func (m *Model) N() int { return len(m.Class) }

func init() {
	transforms.RegisterModel(transforms.ModelKind{Kind: ModelKind, Stage: "fisher",
		Doc:  "the Fisher metric of a local-mode fit (fisher --in … --neighbors K --model-out F): rows, classes, neighbour lists and σ; tsne --distances D --fisher-model F --model-out M joins it to the map, and apply places new rows with M",
		Load: loadModel})
}

// Header implements transforms.Model.
func (m *Model) Header() transforms.ModelHeader {
	p := map[string]any{"feature_names": m.Scaling.Names, "mean": m.Scaling.Mean, "scale": m.Scaling.Scale,
		"classes": m.Classes, "reference_rows": m.N(), "fisher": m.Settings, "setup": m.Setup}
	var out map[string]any
	raw, _ := json.Marshal(p)
	_ = json.Unmarshal(raw, &out)
	return transforms.ModelHeader{Kind: ModelKind, Stage: "fisher", Features: len(m.Scaling.Names),
		FeatureList: m.FeatureList, Standardized: m.Standardized, Params: out}
}

// InputFeatures implements transforms.Model.
func (m *Model) InputFeatures() []string { return m.Scaling.Names }

// ErrNoMap is the error of applying a Fisher model that has no map.
var ErrNoMap = transforms.NewSentinel(transforms.ErrModel, "a fisher model holds the Fisher metric of its rows but no map: embed the distances with tsne --distances D --fisher-model F --model-out M, and apply M")

// Transform implements transforms.Model: it refuses (ErrNoMap).
func (m *Model) Transform(context.Context, []float64, []float64, int, int) error { return ErrNoMap }

// NotApplicable tells apply what to do with the model instead (ErrNoMap).
func (m *Model) NotApplicable() error { return ErrNoMap }

// SizeBytes is the approximate size of the model's data in memory.
func (m *Model) SizeBytes() int64 { return 8*int64(len(m.X)) + 4*int64(len(m.Lists)+len(m.Class)) }

// Release frees the ids.
func (m *Model) Release() {
	if m.IDs != nil {
		m.IDs.Release()
		m.IDs = nil
	}
}

// Record implements transforms.Model: id, x_0 …, nn_0 … nn_{M−1}, class.
func (m *Model) Record(mem memory.Allocator) (arrow.RecordBatch, error) {
	n, D, L := m.N(), len(m.Scaling.Names), m.Settings.ListLength
	fields := []arrow.Field{{Name: "id", Type: m.IDs.DataType()}}
	fields = append(fields, transforms.Float64Fields("x_", D)...)
	for g := range L {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("nn_%d", g), Type: arrow.PrimitiveTypes.Int32})
	}
	fields = append(fields, arrow.Field{Name: "class", Type: arrow.PrimitiveTypes.Int32})
	cols := make([]arrow.Array, 0, len(fields))
	m.IDs.Retain()
	cols = append(cols, m.IDs)
	for j := range D {
		b := array.NewFloat64Builder(mem)
		b.Reserve(n)
		for i := range n {
			b.UnsafeAppend(m.X[i*D+j])
		}
		cols = append(cols, b.NewArray())
		b.Release()
	}
	int32Col := func(src []int32, stride, col int) arrow.Array {
		b := array.NewInt32Builder(mem)
		defer b.Release()
		b.Reserve(n)
		for i := range n {
			b.UnsafeAppend(src[i*stride+col])
		}
		return b.NewArray()
	}
	for g := range L {
		cols = append(cols, int32Col(m.Lists, L, g))
	}
	cols = append(cols, int32Col(m.Class, 1, 0))
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	for _, a := range cols {
		a.Release()
	}
	return rec, nil
}

// Check implements transforms.Model.
func (m *Model) Check() error {
	if err := transforms.CheckScaling("fisher", m.Scaling); err != nil {
		return err
	}
	D := len(m.Scaling.Names)
	for k, v := range m.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return transforms.ModelValueError("fisher", fmt.Sprintf("x_%d", k%D), k/D, fmt.Sprintf("row %d, feature %q", k/D, m.Scaling.Names[k%D]), v)
		}
	}
	return nil
}

// modelHeader is the header params of a fisher model, as Header writes them.
type modelHeader struct {
	Names    []string      `json:"feature_names"`
	Mean     []float64     `json:"mean"`
	Scale    []float64     `json:"scale"`
	Classes  []string      `json:"classes"`
	RefCount int           `json:"reference_rows"`
	Settings MapSettings   `json:"fisher"`
	Setup    PreparedSetup `json:"setup"`
}

// loadModel reads a fisher model. Nothing in the header is taken on trust:
// the counts must be the table's columns before they allocate, and every
// list entry and class index must be in range.
func loadModel(rd arrowio.Reader, h transforms.ModelHeader) (transforms.Model, error) {
	file := transforms.ModelFile{Path: rd.Source().Path}
	var hp modelHeader
	if err := file.Params(h, &hp); err != nil {
		return nil, err
	}
	D, L, c := len(hp.Names), hp.Settings.ListLength, len(hp.Classes)
	if D == 0 || D != h.Features || c < 2 {
		return nil, file.Errorf("header has %d feature names for %d features and %d classes", D, h.Features, c)
	}
	if err := file.CheckScaling(hp.Names, hp.Mean, hp.Scale); err != nil {
		return nil, err
	}
	if err := file.CheckFeatures(rd.Schema(), hp.Names); err != nil {
		return nil, err
	}
	for _, col := range []struct {
		prefix string
		n      int
		what   string
	}{{"x_", D, "features"}, {"nn_", L, "list_length"}} {
		if err := file.CheckColumns(rd.Schema(), col.prefix, col.n, col.what); err != nil {
			return nil, err
		}
	}
	m := &Model{Scaling: &transforms.Scaling{Names: hp.Names, Mean: hp.Mean, Scale: hp.Scale},
		FeatureList: h.FeatureList, Standardized: h.Standardized, Classes: hp.Classes, Settings: hp.Settings, Setup: hp.Setup}
	var (
		ids   []arrow.Array
		xs    = make([][]float64, D)
		lists = make([][]int32, L)
		class []int32
	)
	defer func() {
		for _, a := range ids {
			a.Release()
		}
	}()
	for rd.Next() {
		rec := rd.RecordBatch()
		a, err := file.Column(rec, "id")
		if err != nil {
			return nil, err
		}
		if a.NullN() > 0 {
			return nil, file.Errorf("column \"id\" holds nulls")
		}
		a.Retain()
		ids = append(ids, a)
		for j := range xs {
			v, err := file.Floats(rec, fmt.Sprintf("x_%d", j))
			if err != nil {
				return nil, err
			}
			xs[j] = append(xs[j], v...)
		}
		for g := range lists {
			v, err := file.Int32s(rec, fmt.Sprintf("nn_%d", g))
			if err != nil {
				return nil, err
			}
			lists[g] = append(lists[g], v...)
		}
		v, err := file.Int32s(rec, "class")
		if err != nil {
			return nil, err
		}
		class = append(class, v...)
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	n := len(class)
	if hp.RefCount != n {
		return nil, file.Errorf("header says %d rows, the table has %d", hp.RefCount, n)
	}
	if err := hp.Settings.check(n); err != nil {
		return nil, file.Errorf("fisher settings: %v", err)
	}
	for i, k := range class {
		if k < 0 || int(k) >= c {
			return nil, file.Errorf("column \"class\", row %d: class %d of %d", i, k, c)
		}
	}
	m.Class = class
	m.X = make([]float64, n*D)
	for j, v := range xs {
		for i := range n {
			m.X[i*D+j] = v[i]
		}
	}
	m.Lists = make([]int32, n*L)
	for g, v := range lists {
		for i := range n {
			if v[i] < 0 || int(v[i]) >= n || int(v[i]) == i {
				return nil, file.Errorf("column \"nn_%d\", row %d: neighbour %d of %d rows", g, i, v[i], n)
			}
			m.Lists[i*L+g] = v[i]
		}
	}
	var err error
	if m.IDs, err = file.JoinIDs(ids); err != nil {
		return nil, err
	}
	return m, nil
}

// FitModel computes the local mode's path lengths from the model m that
// the local mode wrote (its set-up: rows, lists, σ): every row's K pairs,
// or o.Tile's entries, with the bits of the fit that wrote m. The path
// options are m's; an option of o that is neither at its default nor at
// m's value is refused.
func FitModel(ctx context.Context, m *Model, o Options, prog transforms.Progress) (*FitResult, error) {
	if err := transforms.Validate(&o); err != nil {
		return nil, err
	}
	if prog == nil {
		prog = transforms.NoProgress{}
	}
	if name, got, was := m.Setup.conflicts(o, true); name != "" {
		return nil, transforms.Optionf(name, "%v, but the fisher model used %v: a tile must use the model's", got, was)
	}
	if o.Metric != MetricFisher {
		return nil, transforms.Optionf("metric", "a fisher model gives Fisher path lengths only")
	}
	s := m.Settings
	n, D, K, M := m.N(), len(m.Scaling.Names), s.Neighbors, s.ListLength
	need := transforms.Float64Bytes(2, n, M) + transforms.Float64Bytes(1, n, K)
	if s.Kernel == "cosine" {
		need += transforms.Float64Bytes(1, n, D)
	}
	if err := transforms.Reserve(ctx, need, fmt.Sprintf("the pair sums of %s rows × %d pairs", transforms.Thousands(int64(n)), K), "use fewer neighbours"); err != nil {
		return nil, err
	}
	classes := make([]int, n)
	for i, c := range m.Class {
		classes[i] = int(c)
	}
	lc, err := localOf(ctx, m.X, n, D, kernels.Kernel{Kind: s.Kernel, Gamma: s.Gamma}, classes, len(m.Classes), m.Lists, M, s.ParzenNeighbors, o.Threads)
	if err != nil {
		return nil, err
	}
	o.Steps, o.Rule, o.ExcludeEndpoints, o.Neighbors = s.Steps, s.Rule, s.ExcludeEndpoints, K
	res := &FitResult{N: n, K: K, Sigma: s.Sigma, Idx: make([]int32, n*K), local: lc,
		Figures: map[string]any{"sigma": s.Sigma, "parzen_neighbors": s.ParzenNeighbors}}
	for i := range n {
		copy(res.Idx[i*K:(i+1)*K], m.Lists[i*M:i*M+K])
	}
	return localPairs(ctx, res, lc, o, prog)
}
