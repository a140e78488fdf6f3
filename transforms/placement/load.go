package placement

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// header is the header params of a placement model, as Header writes them.
type header struct {
	Source   string         `json:"source"`
	Names    []string       `json:"feature_names"`
	Mean     []float64      `json:"mean"`
	Scale    []float64      `json:"scale"`
	Graph    int            `json:"graph_degree"`
	Classes  []string       `json:"classes"`
	Fit      map[string]any `json:"fit"`
	RefCount int            `json:"reference_rows"`
}

// Load reads the body of a placement model with header h from rd; decode
// turns the settings stored under the stage's name into the method.
func Load(rd arrowio.Reader, h transforms.ModelHeader, decode func(json.RawMessage) (Method, error)) (*Model, error) {
	file := transforms.ModelFile{Path: rd.Source().Path}
	var hp header
	if err := file.Params(h, &hp); err != nil {
		return nil, err
	}
	settings, ok := h.Params[h.Stage]
	if !ok {
		return nil, file.Errorf("stage %q without its placement settings", h.Stage)
	}
	rawSettings, err := json.Marshal(settings)
	if err != nil {
		return nil, file.Errorf("placement settings: %v", err)
	}
	method, err := decode(rawSettings)
	if err != nil {
		return nil, file.Errorf("placement settings: %v", err)
	}
	m := &Model{Stage: h.Stage, Source: hp.Source, FeatureList: h.FeatureList, Standardized: h.Standardized,
		Dims: h.Dims, G: hp.Graph, Classes: hp.Classes, Method: method, Params: hp.Fit}
	D := len(hp.Names)
	searcher := sourceLoader(hp.Source)
	withFeatures := hp.Source == FromFeatures || searcher != nil
	switch {
	case h.Dims < 1:
		return nil, file.Errorf("%d dims", h.Dims)
	case withFeatures && (D == 0 || D != h.Features || hp.Graph < 1):
		return nil, file.Errorf("header has %d feature names and graph degree %d for %d features", D, hp.Graph, h.Features)
	case hp.Source == FromDistances && (D != 0 || hp.Graph != 0):
		return nil, file.Errorf("a model from distances with %d features and graph degree %d", D, hp.Graph)
	case !withFeatures && hp.Source != FromDistances:
		return nil, file.Errorf("unknown source %q", hp.Source)
	}
	if D > 0 {
		if err := file.CheckScaling(hp.Names, hp.Mean, hp.Scale); err != nil {
			return nil, err
		}
		if err := file.CheckFeatures(rd.Schema(), hp.Names); err != nil {
			return nil, err
		}
		m.Scaling = &transforms.Scaling{Names: hp.Names, Mean: hp.Mean, Scale: hp.Scale}
	}
	// Every count of the header must be the table's columns, before
	// anything is allocated by them.
	for _, c := range []struct {
		prefix string
		n      int
		what   string
	}{{"x_", D, "features"}, {"emb_", h.Dims, "dims"}, {"nn_", m.G, "graph_degree"}, {"w_", len(hp.Classes), "classes"}} {
		if err := file.CheckColumns(rd.Schema(), c.prefix, c.n, c.what); err != nil {
			return nil, err
		}
	}
	body, err := readBody(rd, file, D, h.Dims, m.G, len(hp.Classes))
	if err != nil {
		return nil, err
	}
	defer body.release()
	n := len(body.ys[0])
	if n < 2 {
		return nil, file.Errorf("%d reference rows, want at least 2", n)
	}
	switch {
	case hp.RefCount != 0 && hp.RefCount != n:
		return nil, file.Errorf("header says %d reference rows, the table has %d", hp.RefCount, n)
	case m.G >= n:
		return nil, file.Errorf("graph degree %d for %d reference rows, want at most %d", m.G, n, n-1)
	}
	if m.IDs, err = file.JoinIDs(body.ids); err != nil {
		return nil, err
	}
	// New objects are matched to reference rows by id, and results are
	// written by id: an id twice would place rows beside the wrong one.
	seen := make(map[string]int, n)
	for i := range n {
		id := m.IDs.ValueStr(i)
		if j, dup := seen[id]; dup {
			m.Release()
			return nil, file.Errorf("reference id %q is in rows %d and %d; ids must be unique", arrowio.ClipValue(id), j, i)
		}
		seen[id] = i
	}
	m.Y = interleave(body.ys, n)
	if D > 0 {
		m.X = interleave(body.xs, n)
		m.Graph = make([]int32, n*m.G)
		for g, v := range body.gs {
			for i := range n {
				if v[i] < 0 || int(v[i]) >= n || int(v[i]) == i {
					m.Release()
					return nil, file.Errorf("column \"nn_%d\", row %d: neighbour %d of %d reference rows", g, i, v[i], n)
				}
				m.Graph[i*m.G+g] = v[i]
			}
		}
	}
	if c := len(m.Classes); c > 0 {
		m.Soft = interleave(body.ws, n)
		if err := checkSoft(file, m.Soft, n, c); err != nil {
			m.Release()
			return nil, err
		}
	}
	if searcher != nil {
		raw, err := json.Marshal(h.Params[hp.Source])
		if err == nil {
			m.Searcher, err = searcher(m, raw)
		}
		if err != nil {
			m.Release()
			return nil, file.Errorf("%s settings: %v", hp.Source, err)
		}
	}
	return m, nil
}

// body is the columns of a model table, read batch by batch.
type body struct {
	ids    []arrow.Array
	xs, ys [][]float64
	ws     [][]float64
	gs     [][]int32
}

func (b *body) release() {
	for _, a := range b.ids {
		a.Release()
	}
}

func readBody(rd arrowio.Reader, file transforms.ModelFile, D, dims, g, c int) (*body, error) {
	b := &body{xs: make([][]float64, D), ys: make([][]float64, dims), ws: make([][]float64, c), gs: make([][]int32, g)}
	fail := func(err error) (*body, error) {
		b.release()
		return nil, err
	}
	for rd.Next() {
		rec := rd.RecordBatch()
		a, err := file.Column(rec, "id")
		if err != nil {
			return fail(err)
		}
		if a.NullN() > 0 {
			return fail(file.Errorf("column \"id\" holds nulls"))
		}
		a.Retain()
		b.ids = append(b.ids, a)
		for _, part := range []struct {
			prefix string
			dst    [][]float64
		}{{"x_", b.xs}, {"emb_", b.ys}} {
			for j := range part.dst {
				v, err := file.Floats(rec, fmt.Sprintf("%s%d", part.prefix, j))
				if err != nil {
					return fail(err)
				}
				part.dst[j] = append(part.dst[j], v...)
			}
		}
		for k := range b.gs {
			v, err := file.Int32s(rec, fmt.Sprintf("nn_%d", k))
			if err != nil {
				return fail(err)
			}
			b.gs[k] = append(b.gs[k], v...)
		}
		for k := range b.ws {
			name := fmt.Sprintf("w_%d", k)
			a, err := file.Column(rec, name)
			if err != nil {
				return fail(err)
			}
			fa, ok := a.(*array.Float64)
			if !ok {
				return fail(file.Errorf("column %q must be float64", name))
			}
			for i := range fa.Len() {
				v := math.NaN()
				if fa.IsValid(i) {
					v = fa.Value(i)
					if !(v >= 0) || math.IsInf(v, 1) {
						return fail(file.Errorf("column %q holds %v", name, v))
					}
				}
				b.ws[k] = append(b.ws[k], v)
			}
		}
	}
	if err := rd.Err(); err != nil {
		return fail(err)
	}
	if len(b.ys) == 0 {
		return fail(file.Errorf("no embedding columns"))
	}
	return b, nil
}

// interleave makes the n×len(cols) row-major matrix of the columns.
func interleave(cols [][]float64, n int) []float64 {
	w := len(cols)
	out := make([]float64, n*w)
	for j, v := range cols {
		for i := range n {
			out[i*w+j] = v[i]
		}
	}
	return out
}

// checkSoft refuses label weights that are labelled in some columns of a
// row and not in others, or whose labelled rows do not sum to 1.
func checkSoft(file transforms.ModelFile, soft []float64, n, c int) error {
	for i := range n {
		labelled := !math.IsNaN(soft[i*c])
		var sum float64
		for k := range c {
			if math.IsNaN(soft[i*c+k]) == labelled {
				return file.Errorf("reference row %d is labelled in some w_ columns and not in others", i)
			}
			sum += soft[i*c+k]
		}
		if labelled && math.Abs(sum-1) > 1e-9 {
			return file.Errorf("the label weights of reference row %d sum to %g, not 1", i, sum)
		}
	}
	return nil
}
