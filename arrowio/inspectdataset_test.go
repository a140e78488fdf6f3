package arrowio

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestInspectDataset inspects a directory and a glob of Parquet parts as
// Open reads them: the parts, their total rows, their schema and the
// provenance of the first part; parts whose schemas differ are refused as
// Open refuses them.
func TestInspectDataset(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	p1, p2 := filepath.Join(ds, "part-0.parquet"), filepath.Join(ds, "sub", "part-1.parquet")
	writeFile(t, filepath.Join(ds, "_SUCCESS"), nil)
	writeFile(t, p2, nil) // makes the folder
	wtWriteFile(t, p1, wtMake(120, 1), wtProvenance())
	wtWriteFile(t, p2, wtMake(80, 2), nil)
	one, err := Inspect(context.Background(), p1)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{ds, filepath.Join(ds, "*", "*.parquet"), filepath.Join(ds, "part-*.parquet")} {
		fi, err := Inspect(context.Background(), path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		want := []string{p1, p2}
		switch path {
		case filepath.Join(ds, "*", "*.parquet"):
			want = []string{p2}
		case filepath.Join(ds, "part-*.parquet"):
			want = []string{p1}
		}
		var got []string
		var rows, size int64
		for _, p := range fi.Parts {
			got = append(got, p.Path)
			rows += p.Rows
			size += p.Bytes
		}
		if strings.Join(got, ",") != strings.Join(want, ",") || fi.Rows != rows || fi.Bytes != size || fi.Format != FormatParquet {
			t.Errorf("%s: parts %v (%d rows, %d bytes, %v), want %v", path, got, fi.Rows, fi.Bytes, fi.Format, want)
		}
		if !fi.Schema.Equal(one.Schema) {
			t.Errorf("%s: schema %v, want %v", path, fi.Schema, one.Schema)
		}
		if want[0] == p1 && (fi.Provenance == nil || fi.Provenance.Stage != "bvp") {
			t.Errorf("%s: provenance %+v, want the first part's", path, fi.Provenance)
		}
	}

	fi, err := Inspect(context.Background(), ds)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Rows != 200 || len(fi.Parts) != 2 {
		t.Fatalf("dataset: %d rows in %d parts", fi.Rows, len(fi.Parts))
	}
	var buf bytes.Buffer
	if err := fi.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{"dataset:  " + ds + "\n", "files:    2\n", "rows:     200\n", "parts: 2\n", p1, " 120 rows ", p2, " 80 rows ",
		"columns: 6\n", "provenance (of the first part, " + p1 + "):\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "row groups:") {
		t.Errorf("a dataset's summary lists row groups:\n%s", text)
	}
	if s := fi.Summary(); len(s.Parts) != 2 || s.Parts[1].Rows != 80 || s.Rows != 200 {
		t.Errorf("JSON summary: %+v", s)
	}

	// A part of another schema, as Open refuses it.
	rec := floatRecord(5)
	defer rec.Release()
	writeParquet(t, filepath.Join(ds, "part-2.parquet"), 100, rec)
	if _, err := Inspect(context.Background(), ds); !errors.Is(err, ErrSchema) {
		t.Errorf("parts of two schemas: %v, want ErrSchema", err)
	}
	// An empty folder.
	if _, err := Inspect(context.Background(), t.TempDir()); !errors.Is(err, ErrNoFiles) {
		t.Errorf("empty folder: %v, want ErrNoFiles", err)
	}
}
