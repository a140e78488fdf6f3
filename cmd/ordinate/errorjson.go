package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// envErrorJSON names the environment variable by which a program that runs
// ordinate (the Python package) asks for the final error as one JSON line
// on stderr instead of the "ordinate: …" line, so that it can keep the
// error's kind and place without parsing prose.
const envErrorJSON = "ORDINATE_ERROR_JSON"

// errorRecord is that line: the message as the text line gives it, the
// kind (option: a bad option or usage; data: bad input data; runtime: I/O,
// internal; interrupted), the exit code, and where the error lies when it
// is known.
type errorRecord struct {
	Error  string `json:"error"`
	Kind   string `json:"kind"`
	Exit   int    `json:"exit"`
	Option string `json:"option,omitempty"`
	File   string `json:"file,omitempty"`
	Column string `json:"column,omitempty"`
	Row    *int64 `json:"row,omitempty"`
	ID     string `json:"id,omitempty"`
}

// errorKind classifies err as errorRecord's Kind says.
func errorKind(ctx context.Context, err error, code int) string {
	switch {
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.Is(err, transforms.ErrInvalidData):
		return "data"
	case code == exitInput:
		return "option"
	}
	return "runtime"
}

// writeErrorJSON writes err as an errorRecord line.
func writeErrorJSON(w io.Writer, ctx context.Context, err error, code int) {
	rec := errorRecord{Error: strings.TrimSpace(err.Error()), Kind: errorKind(ctx, err, code), Exit: code}
	var oe *transforms.OptionError
	if errors.As(err, &oe) {
		rec.Option = oe.Option
	}
	var ae *arrowio.Error
	if errors.As(err, &ae) {
		rec.File, rec.Column, rec.ID = ae.File, ae.Column, ae.ID
		if ae.Row >= 0 {
			row := ae.Row
			rec.Row = &row
		}
	}
	b, _ := json.Marshal(rec)
	w.Write(append(b, '\n'))
}
