package arrowio

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"

	"github.com/apache/arrow-go/v18/arrow"
)

// Provenance is what every output records about the run that made it,
// stored as JSON under MetadataKey. Keys are snake_case throughout, the
// parameters' included.
type Provenance struct {
	Tool        string         `json:"tool"`    // always "ordinate"
	Version     string         `json:"version"` // tool version
	Stage       string         `json:"stage"`   // e.g. "bvp"
	Kind        string         `json:"kind,omitempty"`
	Params      map[string]any `json:"params"` // every parameter, defaults resolved
	Seed        uint64         `json:"seed"`
	Inputs      []InputInfo    `json:"inputs"`
	RowsWritten int64          `json:"rows_written"`
	Started     string         `json:"started"` // RFC 3339, UTC
	RunSeconds  float64        `json:"run_seconds"`
	Figures     map[string]any `json:"figures,omitempty"` // the stage's own numbers
	Warnings    []string       `json:"warnings,omitempty"`
	// RunID is shared by every output of one run.
	RunID string `json:"run_id,omitempty"`
}

// InputInfo describes one input of a run.
type InputInfo struct {
	Role    string   `json:"role"` // "in", "model", "embedding", …
	Path    string   `json:"path"`
	Files   []string `json:"files,omitempty"`
	Rows    int64    `json:"rows"`
	Bytes   int64    `json:"bytes"`
	Dropped int64    `json:"dropped,omitempty"`
	// Kind and Stage are the input's own, read from its provenance when it
	// has one.
	Kind  string `json:"kind,omitempty"`
	Stage string `json:"stage,omitempty"`
	// RunID is the input's own run id: two inputs made by one run (an
	// embedding and its model) share it.
	RunID string `json:"run_id,omitempty"`
	// Fingerprint identifies the rows a stage read features from (set by
	// the shared feature-reading path), so that a later run can tell
	// whether a table holds the very rows an embedding was fitted on.
	Fingerprint *Fingerprint `json:"fingerprint,omitempty"`
}

// Fingerprint is the identity of the rows of a feature table as a stage
// read them: how many, which columns, and a hash of their values
// (transforms.FingerprintOf computes it).
type Fingerprint struct {
	Rows int64 `json:"rows"`
	// ID is the id column whose values identify the rows, "" when the
	// rows are identified by their input row numbers.
	ID string `json:"id,omitempty"`
	// Columns are the feature columns hashed, in order (one list column
	// for list features).
	Columns []string `json:"columns"`
	// Hash is "sha256-sum:" and 64 hex digits.
	Hash string `json:"hash"`
}

// Metadata is the schema metadata that carries p (its JSON under
// MetadataKey), for a table built in memory that should read as a stage's
// output.
func (p *Provenance) Metadata() (arrow.Metadata, error) {
	js, err := p.JSON()
	if err != nil {
		return arrow.Metadata{}, err
	}
	return arrow.NewMetadata([]string{MetadataKey}, []string{js}), nil
}

// JSON encodes p compactly. It never fails on values: NaN and ±Inf, which
// JSON cannot hold, become null wherever they are (parameters, figures).
func (p *Provenance) JSON() (string, error) {
	q := *p
	q.Params = sanitize(p.Params).(map[string]any)
	if p.Figures != nil {
		q.Figures = sanitize(p.Figures).(map[string]any)
	}
	if math.IsNaN(q.RunSeconds) || math.IsInf(q.RunSeconds, 0) {
		q.RunSeconds = 0
	}
	b, err := json.Marshal(&q)
	if err != nil {
		return "", fmt.Errorf("arrowio: encoding provenance: %w", err)
	}
	return string(b), nil
}

// sanitize returns v with every non-finite float replaced by nil, walking
// maps, slices and arrays. Other values are returned as they are.
func sanitize(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case map[string]any:
		if x == nil {
			return map[string]any{}
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = sanitize(e)
		}
		return out
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return x
	case float32:
		return sanitize(float64(x))
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return v
		}
		if k := rv.Type().Elem().Kind(); k != reflect.Float64 && k != reflect.Float32 && k != reflect.Interface &&
			k != reflect.Slice && k != reflect.Map && k != reflect.Array {
			return v
		}
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = sanitize(rv.Index(i).Interface())
		}
		return out
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return v
		}
		out := make(map[string]any, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			out[it.Key().String()] = sanitize(it.Value().Interface())
		}
		return out
	}
	return v
}

// ParseProvenance decodes the JSON stored under MetadataKey.
func ParseProvenance(s string) (*Provenance, error) {
	var p Provenance
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return nil, fmt.Errorf("arrowio: provenance metadata is not valid JSON: %w", err)
	}
	return &p, nil
}
