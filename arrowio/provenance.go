package arrowio

import (
	"encoding/json"
	"fmt"
)

// Provenance is what every output records about the run that made it,
// stored as JSON under MetadataKey.
type Provenance struct {
	Tool        string         `json:"tool"`    // always "ordinate"
	Version     string         `json:"version"` // tool version
	Stage       string         `json:"stage"`   // e.g. "bvp"
	Params      map[string]any `json:"params"`  // every parameter, defaults resolved
	Seed        uint64         `json:"seed"`
	Inputs      []InputInfo    `json:"inputs"`
	RowsWritten int64          `json:"rows_written"`
	Started     string         `json:"started"` // RFC 3339, UTC
	RunSeconds  float64        `json:"run_seconds"`
	Figures     map[string]any `json:"figures,omitempty"` // the stage's own numbers
	Warnings    []string       `json:"warnings,omitempty"`
}

// InputInfo describes one input of a run.
type InputInfo struct {
	Role    string   `json:"role"` // "in", "model", "embedding", …
	Path    string   `json:"path"`
	Files   []string `json:"files,omitempty"`
	Rows    int64    `json:"rows"`
	Bytes   int64    `json:"bytes"`
	Dropped int64    `json:"dropped,omitempty"`
}

// JSON encodes p compactly.
func (p *Provenance) JSON() (string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("arrowio: encoding provenance: %w", err)
	}
	return string(b), nil
}

// ParseProvenance decodes the JSON stored under MetadataKey.
func ParseProvenance(s string) (*Provenance, error) {
	var p Provenance
	if err := json.Unmarshal([]byte(s), &p); err != nil {
		return nil, fmt.Errorf("arrowio: provenance metadata is not valid JSON: %w", err)
	}
	return &p, nil
}
