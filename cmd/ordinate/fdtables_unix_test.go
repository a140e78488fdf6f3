//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// openFile opens a file of dir for reading and writing; its descriptor is
// the fd:N a run is given.
func openFile(t *testing.T, dir, name string) *os.File {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// streamRows reads what a run wrote on a descriptor as an Arrow IPC
// stream, and its rows; complete is false for a stream cut short.
func streamRows(t *testing.T, f *os.File) (rows int64, complete bool) {
	t.Helper()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		return 0, false
	}
	defer r.Release()
	for r.Next() {
		rows += r.RecordBatch().NumRows()
	}
	return rows, r.Err() == nil && bytes.HasSuffix(b, []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
}

// streamFloats reads the emb_* coordinates of an IPC stream file, row by row.
func streamFloats(t *testing.T, f *os.File) []float64 {
	t.Helper()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var out []float64
	for r.Next() {
		rec := r.RecordBatch()
		var cols []*array.Float64
		for i, fl := range rec.Schema().Fields() {
			if strings.HasPrefix(fl.Name, "emb_") {
				cols = append(cols, rec.Column(i).(*array.Float64))
			}
		}
		for i := range int(rec.NumRows()) {
			for _, c := range cols {
				out = append(out, c.Value(i))
			}
		}
	}
	return out
}

// TestFDTables: tables on inherited descriptors (fd:N), as the Python
// package passes them through pipes: a fit writes its embedding and its
// model on two descriptors, apply reads the model from one, and the
// placed rows equal the fit's. A failed run leaves its descriptor's stream
// without the end-of-stream marker. Standard descriptors and closed ones
// are refused as options.
func TestFDTables(t *testing.T) {
	dir := t.TempDir()
	emb, model, placed := openFile(t, dir, "emb.arrows"), openFile(t, dir, "model.arrows"), openFile(t, dir, "placed.arrows")
	fd := func(f *os.File) string { return fmt.Sprintf("fd:%d", f.Fd()) }
	if code, _, e := runCmd(t, nil, "pca", "--in", thyroid, "--label", "label", "--out", fd(emb), "--model-out", fd(model), "--quiet"); code != 0 {
		t.Fatalf("pca: exit %d: %s", code, e)
	}
	if n, ok := streamRows(t, emb); n != 215 || !ok {
		t.Fatalf("embedding on a descriptor: %d rows, complete %v", n, ok)
	}
	in, err := os.Open(model.Name())
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if code, _, e := runCmd(t, nil, "apply", "--model", fd(in), "--in", thyroid, "--keep", "label", "--out", fd(placed), "--quiet"); code != 0 {
		t.Fatalf("apply: exit %d: %s", code, e)
	}
	if a, b := streamFloats(t, emb), streamFloats(t, placed); len(a) != 430 || !slices.Equal(a, b) {
		t.Errorf("the model read from a descriptor places the rows otherwise (%d and %d coordinates)", len(a), len(b))
	}

	bad := filepath.Join(dir, "bad.csv")
	write(t, bad, "x1,x2,label\n1,2,1\n3,nan,2\n")
	cut := openFile(t, dir, "cut.arrows")
	if code, _, _ := runCmd(t, nil, "pca", "--in", bad, "--out", fd(cut), "--quiet"); code != 2 {
		t.Fatalf("pca on bad data: exit %d, want 2", code)
	}
	if _, ok := streamRows(t, cut); ok {
		t.Error("a failed run ended its descriptor's stream as if complete")
	}

	for _, tc := range []struct{ path, says string }{
		{"fd:1", "use - for them"},
		{"fd:987", "not open"},
		{"fd:x", "want fd:N"},
	} {
		code, _, e := runCmd(t, nil, "pca", "--in", thyroid, "--out", tc.path, "--quiet")
		if code != 2 || !strings.Contains(e, "--out") || !strings.Contains(e, tc.says) {
			t.Errorf("--out %s: exit %d, %q; want exit 2 saying %q", tc.path, code, e, tc.says)
		}
	}
}
