package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorJSON: with ORDINATE_ERROR_JSON set, a failed run's last stderr
// line is one JSON record with the error's kind, exit code and place, for
// the programs that run ordinate; without it, the usual "ordinate: …".
func TestErrorJSON(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	write(t, bad, "x1,x2\n1,2\n3,nan\n")
	out := filepath.Join(dir, "o.parquet")
	row := int64(1)
	for _, tc := range []struct {
		name string
		args []string
		want errorRecord
	}{
		{"bad option", []string{"pca", "--in", thyroid, "--dims", "0", "--out", out}, errorRecord{Kind: "option", Exit: 2, Option: "dims"}},
		{"unknown flag", []string{"pca", "--bogus"}, errorRecord{Kind: "option", Exit: 2}},
		{"bad data", []string{"pca", "--in", bad, "--out", out}, errorRecord{Kind: "data", Exit: 2, File: bad, Column: "x2", Row: &row}},
	} {
		t.Setenv(envErrorJSON, "1")
		code, _, stderr := runCmd(t, nil, append(tc.args, "--quiet")...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		var got errorRecord
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
			t.Fatalf("%s: last stderr line %q is not JSON: %v", tc.name, lines[len(lines)-1], err)
		}
		if code != tc.want.Exit || got.Kind != tc.want.Kind || got.Exit != code || got.Option != tc.want.Option ||
			got.File != tc.want.File || got.Column != tc.want.Column || (got.Row == nil) != (tc.want.Row == nil) ||
			(got.Row != nil && *got.Row != *tc.want.Row) || got.Error == "" {
			t.Errorf("%s: exit %d, record %+v; want %+v", tc.name, code, got, tc.want)
		}
		t.Setenv(envErrorJSON, "")
		if _, _, plain := runCmd(t, nil, append(tc.args, "--quiet")...); !strings.Contains(plain, "ordinate: "+got.Error) {
			t.Errorf("%s: without %s the error reads %q, want the record's message %q", tc.name, envErrorJSON, plain, got.Error)
		}
	}
}
