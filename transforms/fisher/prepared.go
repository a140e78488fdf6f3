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

// PreparedKind is the kind of the set-up that --prepared-out writes once
// and every --prepared tile reads: the dense mode's corrected similarity
// and bandwidth.
const PreparedKind = "fisher-prepared"

// Prepared is the set-up of the dense mode, done once for many tiles: the
// symmetrised, corrected similarity S (n×n, exactly symmetric), the rows'
// ids and classes, σ, and the options and figures of the set-up. Its path
// lengths (FitPrepared) are those of Fit with the same options, bit for
// bit.
type Prepared struct {
	IDs     arrow.Array
	S       []float64
	Classes []string
	Class   []int32
	Sigma   float64
	Setup   PreparedSetup
	Figures map[string]any // the set-up's figures (sigma, negative_eigenvalue_share, …)
}

// PreparedSetup are the options a set-up used (a prepared dense set-up,
// or a local-mode model). A tile run given other values for them is
// refused: its distances would not be the table's.
type PreparedSetup struct {
	Correction       Correction        `json:"correction"`
	Sigma            float64           `json:"sigma_option"`
	Perplexity       float64           `json:"perplexity"`
	SigmaScale       float64           `json:"sigma_scale"`
	Kernel           Kernel            `json:"kernel"`
	Gamma            float64           `json:"gamma"`
	Standardize      bool              `json:"standardize"`
	Neighbors        int               `json:"neighbors,omitempty"`
	ParzenNeighbors  int               `json:"parzen_neighbors,omitempty"`
	KNN              kernels.KNNMethod `json:"knn,omitempty"`
	KNNRecall        float64           `json:"knn_recall,omitempty"`
	Seed             uint64            `json:"seed,omitempty"`
	Steps            int               `json:"steps,omitempty"`
	Rule             Rule              `json:"rule,omitempty"`
	ExcludeEndpoints bool              `json:"exclude_endpoints,omitempty"`
}

// setupOf records o's set-up options; local adds the local mode's (its
// lists and its path options, which a model fixes).
func setupOf(o Options, local bool) PreparedSetup {
	p := PreparedSetup{Correction: o.Correction, Sigma: o.Sigma, Perplexity: o.Perplexity, SigmaScale: o.SigmaScale,
		Kernel: o.Kernel, Gamma: o.Gamma, Standardize: o.Standardize}
	if local {
		p.Neighbors, p.ParzenNeighbors, p.KNN, p.KNNRecall, p.Seed = o.Neighbors, o.ParzenNeighbors, o.KNN, o.KNNRecall, o.Seed
		p.Steps, p.Rule, p.ExcludeEndpoints = o.Steps, o.Rule, o.ExcludeEndpoints
	}
	return p
}

// conflicts names the first set-up option of o that is neither at its
// default nor at the value the set-up used (local: the local mode's
// options too), with the two values.
func (p PreparedSetup) conflicts(o Options, local bool) (string, any, any) {
	d, got := setupOf(DefaultOptions(), local), setupOf(o, local)
	fields := []struct {
		name          string
		got, def, was any
	}{
		{"correction", got.Correction, d.Correction, p.Correction},
		{"sigma", got.Sigma, d.Sigma, p.Sigma},
		{"perplexity", got.Perplexity, d.Perplexity, p.Perplexity},
		{"sigma-scale", got.SigmaScale, d.SigmaScale, p.SigmaScale},
		{"kernel", got.Kernel, d.Kernel, p.Kernel},
		{"gamma", got.Gamma, d.Gamma, p.Gamma},
		{"standardize", got.Standardize, d.Standardize, p.Standardize},
	}
	if local {
		fields = append(fields, []struct {
			name          string
			got, def, was any
		}{
			{"neighbors", got.Neighbors, d.Neighbors, p.Neighbors},
			{"parzen-neighbors", got.ParzenNeighbors, d.ParzenNeighbors, p.ParzenNeighbors},
			{"knn", got.KNN, d.KNN, p.KNN},
			{"knn-recall", got.KNNRecall, d.KNNRecall, p.KNNRecall},
			{"seed", got.Seed, d.Seed, p.Seed},
			{"steps", got.Steps, d.Steps, p.Steps},
			{"rule", got.Rule, d.Rule, p.Rule},
			{"exclude-endpoints", got.ExcludeEndpoints, d.ExcludeEndpoints, p.ExcludeEndpoints},
		}...)
	}
	for _, f := range fields {
		if f.got != f.def && f.got != f.was {
			return f.name, f.got, f.was
		}
	}
	return "", nil, nil
}

// Prepare is the set-up of Fit on the similarity s (n×n, modified in
// place: symmetrised and corrected) with classes: what FitPrepared needs to
// compute any pairs without repeating it. It needs the Fisher metric and
// all pairs (no Neighbors).
func Prepare(ctx context.Context, s []float64, n int, classes []int, k int, o Options, prog transforms.Progress) (*Prepared, []string, error) {
	if err := transforms.Validate(&o); err != nil {
		return nil, nil, err
	}
	if prog == nil {
		prog = transforms.NoProgress{}
	}
	switch {
	case o.Metric != MetricFisher:
		return nil, nil, transforms.Optionf("metric", "%s needs no set-up to share: the kernel distances are the set-up", o.Metric)
	case o.Neighbors > 0:
		return nil, nil, transforms.Optionf("neighbors", "the set-up is the dense mode's (tiles need all pairs)")
	case len(s) != n*n:
		return nil, nil, transforms.Errorf(ErrLength, "len(s) = %d, want n² = %d", len(s), n*n)
	}
	if err := checkFinite(ctx, s, n); err != nil {
		return nil, nil, err
	}
	if err := checkClasses(ctx, classes, n, k); err != nil {
		return nil, nil, err
	}
	if err := transforms.Reserve(ctx, transforms.Float64Bytes(4, n, n),
		fmt.Sprintf("the set-up of %s objects (the matrix, its eigenvectors and distances)", transforms.Thousands(int64(n))),
		"use fewer objects"); err != nil {
		return nil, nil, err
	}
	res := &FitResult{N: n, Figures: map[string]any{}}
	sigma, err := setUp(ctx, res, s, n, o, prog)
	if err != nil {
		return nil, nil, err
	}
	cls := make([]int32, n)
	for i, c := range classes {
		cls[i] = int32(c)
	}
	return &Prepared{S: s, Class: cls, Sigma: sigma, Setup: setupOf(o, false), Figures: res.Figures}, res.Warnings, nil
}

// FitPrepared is Fit's dense path lengths (all pairs, or o.Tile's) from the
// set-up p, with o's path options (Steps, Rule, ExcludeEndpoints, Tile,
// Threads, Progress). Set-up options of o must be at their defaults or at
// p's values.
func FitPrepared(ctx context.Context, p *Prepared, o Options, prog transforms.Progress) (*FitResult, error) {
	if err := transforms.Validate(&o); err != nil {
		return nil, err
	}
	if prog == nil {
		prog = transforms.NoProgress{}
	}
	if name, got, was := p.Setup.conflicts(o, false); name != "" {
		return nil, transforms.Optionf(name, "%v, but the set-up (prepared) used %v: a tile must use the set-up's", got, was)
	}
	switch {
	case o.Metric != MetricFisher:
		return nil, transforms.Optionf("metric", "a prepared set-up gives Fisher path lengths only")
	case o.Neighbors > 0:
		return nil, transforms.Optionf("neighbors", "a prepared set-up gives all pairs (or a tile), not neighbour lists")
	}
	n := len(p.Class)
	classes, k := make([]int, n), len(p.Classes)
	for i, c := range p.Class {
		classes[i] = int(c)
	}
	if err := reserve(ctx, n, k, o); err != nil {
		return nil, err
	}
	res := &FitResult{N: n, Figures: map[string]any{}, Sigma: p.Sigma}
	for key, v := range p.Figures {
		res.Figures[key] = v
	}
	return pathLengths(ctx, res, p.S, n, classes, k, p.Sigma, o, prog)
}

// checkFinite refuses a NaN or ±Inf in s, naming its cell.
func checkFinite(ctx context.Context, s []float64, n int) error {
	for q, v := range s {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return transforms.MatrixErrorf("s", q/n, q%n, ErrNonFinite, "%v", v)
		}
		if q%(1<<20) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

func init() {
	transforms.RegisterModel(transforms.ModelKind{Kind: PreparedKind, Stage: "fisher",
		Doc:  "the dense mode's set-up (fisher --prepared-out P): the corrected similarity, classes and σ, which every fisher --prepared P --tile task reads instead of repeating it",
		Load: loadPrepared})
}

// Header implements transforms.Model.
func (p *Prepared) Header() transforms.ModelHeader {
	params := map[string]any{"classes": p.Classes, "rows": len(p.Class), "sigma": p.Sigma, "setup": p.Setup, "figures": p.Figures}
	var out map[string]any
	raw, _ := json.Marshal(params)
	_ = json.Unmarshal(raw, &out)
	return transforms.ModelHeader{Kind: PreparedKind, Stage: "fisher", Params: out}
}

// InputFeatures implements transforms.Model: none.
func (p *Prepared) InputFeatures() []string { return nil }

// ErrNotAMap is the error of applying a prepared set-up.
var ErrNotAMap = transforms.NewSentinel(transforms.ErrModel, "a prepared fisher set-up places no rows: give it to fisher --prepared with --tile")

// Transform implements transforms.Model: it refuses (ErrNotAMap).
func (p *Prepared) Transform(context.Context, []float64, []float64, int, int) error {
	return ErrNotAMap
}

// NotApplicable tells apply what to do with the set-up instead (ErrNotAMap).
func (p *Prepared) NotApplicable() error { return ErrNotAMap }

// SizeBytes is the size of the matrix in memory.
func (p *Prepared) SizeBytes() int64 { return 8 * int64(len(p.S)) }

// Release frees the ids.
func (p *Prepared) Release() {
	if p.IDs != nil {
		p.IDs.Release()
		p.IDs = nil
	}
}

// Record implements transforms.Model: id, class, s_0 … s_{n−1} (row i's
// column j is S_ij).
func (p *Prepared) Record(mem memory.Allocator) (arrow.RecordBatch, error) {
	n := len(p.Class)
	fields := []arrow.Field{{Name: "id", Type: p.IDs.DataType()}, {Name: "class", Type: arrow.PrimitiveTypes.Int32}}
	fields = append(fields, transforms.Float64Fields("s_", n)...)
	cols := make([]arrow.Array, 0, len(fields))
	p.IDs.Retain()
	cols = append(cols, p.IDs)
	ib := array.NewInt32Builder(mem)
	ib.AppendValues(p.Class, nil)
	cols = append(cols, ib.NewArray())
	ib.Release()
	col := make([]float64, n)
	for j := range n {
		for i := range n {
			col[i] = p.S[i*n+j]
		}
		b := array.NewFloat64Builder(mem)
		b.AppendValues(col, nil)
		cols = append(cols, b.NewArray())
		b.Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	for _, a := range cols {
		a.Release()
	}
	return rec, nil
}

// Check implements transforms.Model: finite σ and matrix.
func (p *Prepared) Check() error {
	if !(p.Sigma > 0) || math.IsInf(p.Sigma, 1) {
		return transforms.ModelValueError("fisher", "sigma", -1, "the bandwidth", p.Sigma)
	}
	n := len(p.Class)
	for q, v := range p.S {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return transforms.ModelValueError("fisher", fmt.Sprintf("s_%d", q%n), q/n, fmt.Sprintf("similarity (%d, %d)", q/n, q%n), v)
		}
	}
	return nil
}

// preparedHeader is the header params of a prepared set-up.
type preparedHeader struct {
	Classes []string       `json:"classes"`
	Rows    int            `json:"rows"`
	Sigma   float64        `json:"sigma"`
	Setup   PreparedSetup  `json:"setup"`
	Figures map[string]any `json:"figures"`
}

// loadPrepared reads a prepared set-up. The matrix must be exactly
// symmetric (it was written so) and the classes in range, each present.
func loadPrepared(rd arrowio.Reader, h transforms.ModelHeader) (transforms.Model, error) {
	file := transforms.ModelFile{Path: rd.Source().Path}
	var hp preparedHeader
	if err := file.Params(h, &hp); err != nil {
		return nil, err
	}
	n, k := hp.Rows, len(hp.Classes)
	switch {
	case n < 3 || k < 2:
		return nil, file.Errorf("%d rows and %d classes, want at least 3 and 2", n, k)
	case !(hp.Sigma > 0) || math.IsInf(hp.Sigma, 1):
		return nil, file.Errorf("sigma %v", hp.Sigma)
	}
	if err := file.CheckColumns(rd.Schema(), "s_", n, "rows"); err != nil {
		return nil, err
	}
	if err := transforms.Reserve(context.Background(), transforms.Float64Bytes(1, n, n),
		fmt.Sprintf("%s: the prepared %s×%s similarity", file.Path, transforms.Thousands(int64(n)), transforms.Thousands(int64(n))), "prepare fewer objects"); err != nil {
		return nil, err
	}
	p := &Prepared{S: make([]float64, n*n), Classes: hp.Classes, Sigma: hp.Sigma, Setup: hp.Setup, Figures: hp.Figures}
	var ids []arrow.Array
	defer func() {
		for _, a := range ids {
			a.Release()
		}
	}()
	row := 0
	for rd.Next() {
		rec := rd.RecordBatch()
		m := int(rec.NumRows())
		if row+m > n {
			return nil, file.Errorf("more than the %d rows of its header", n)
		}
		a, err := file.Column(rec, "id")
		if err != nil {
			return nil, err
		}
		if a.NullN() > 0 {
			return nil, file.Errorf("column \"id\" holds nulls")
		}
		a.Retain()
		ids = append(ids, a)
		cv, err := file.Int32s(rec, "class")
		if err != nil {
			return nil, err
		}
		for r, v := range cv {
			if v < 0 || int(v) >= k {
				return nil, file.Errorf("column \"class\", row %d: class %d of %d", row+r, v, k)
			}
			p.Class = append(p.Class, v)
		}
		for j := range n {
			v, err := file.Floats(rec, fmt.Sprintf("s_%d", j))
			if err != nil {
				return nil, err
			}
			for r, x := range v {
				p.S[(row+r)*n+j] = x
			}
		}
		row += m
	}
	if err := rd.Err(); err != nil {
		return nil, err
	}
	if row != n {
		return nil, file.Errorf("header says %d rows, the table has %d", n, row)
	}
	for i := range n {
		for j := range i {
			if p.S[i*n+j] != p.S[j*n+i] {
				return nil, file.Errorf("column \"s_%d\", row %d: the prepared similarity is not symmetric (%v against %v)", j, i, p.S[i*n+j], p.S[j*n+i])
			}
		}
	}
	var err error
	if p.IDs, err = file.JoinIDs(ids); err != nil {
		return nil, err
	}
	return p, nil
}
