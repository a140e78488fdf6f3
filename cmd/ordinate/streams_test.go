package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/ordinate/ordinate/arrowio"
)

// streamOf reads the table at path and writes it as an Arrow IPC stream of
// batches of batch rows; ends[k] is the length of the stream after batch k,
// the last being the whole stream with its end-of-stream marker.
func streamOf(t *testing.T, path string, batch int) (stream []byte, ends []int) {
	t.Helper()
	r, err := arrowio.Open(context.Background(), path, arrowio.WithBatchSize(batch))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(r.Schema()))
	for r.Next() {
		if err := w.Write(r.RecordBatch()); err != nil {
			t.Fatal(err)
		}
		ends = append(ends, buf.Len())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(ends) < 3 || !bytes.HasSuffix(buf.Bytes(), []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}) {
		t.Fatalf("%s: a stream of %d batches, want 3 or more and the end-of-stream marker", path, len(ends))
	}
	return buf.Bytes(), ends
}

// streamCut is a stream cut short: bytes kept and the complete rows before
// the cut.
type streamCut struct {
	name string
	keep int
	rows int
}

// cutsOf gives the cuts of a stream of batches of batch rows that every
// reader must refuse: inside the second batch, after the second batch (a
// message boundary, which arrow-go takes for the end), and just before the
// end-of-stream marker (every row there, the marker missing).
func cutsOf(stream []byte, ends []int, batch int) []streamCut {
	return []streamCut{
		{"inside a batch", (ends[0] + ends[1]) / 2, batch},
		{"after a batch", ends[1], 2 * batch},
		{"before the marker", len(stream) - 8, -1}, // every row
	}
}

// TestTruncatedStreams: every stage that reads a table refuses it when it
// comes as an Arrow IPC stream cut short, on standard input (--in -) and as
// a .arrows file: exit 2, a message that names the truncation and the rows
// read, and no output file. A stream cut at a message boundary reads in
// arrow-go like a complete one, so a stage that skipped the check would fit
// (or place) the rows it got.
func TestTruncatedStreams(t *testing.T) {
	dir := t.TempDir()
	features := featureTable(t, dir, true) // 60 rows: id, x1…x3, constant, target, cx, cy
	const batch = 20

	// Tables made from the full inputs, for the roles not under test.
	model := filepath.Join(dir, "bvp.model.parquet")
	emb := filepath.Join(dir, "emb.parquet")
	if code, _, e := runCmd(t, nil, "bvp", "--in", features, "--id", "id", "--label", "target", "--features", "x*", "--out", emb, "--model-out", model, "--quiet"); code != 0 {
		t.Fatalf("bvp: exit %d: %s", code, e)
	}
	triplets := filepath.Join(dir, "triplets.parquet")
	if code, _, e := runCmd(t, nil, "triplets", "--in", "../../testdata/zoo/zoo.csv", "--aspects", "hair,eggs",
		"--per-aspect", "200", "--out", triplets, "--quiet"); code != 0 {
		t.Fatalf("triplets: exit %d: %s", code, e)
	}

	// Each case reads one table from "IN", which the test replaces by a
	// cut stream of the table source.
	cases := []struct {
		stage  string
		source string // the table whose stream is cut
		args   []string
	}{
		{"apply", features, []string{"--model", model, "--in", "IN", "--id", "id"}},
		{"bvp", features, []string{"--in", "IN", "--id", "id", "--label", "target", "--features", "x*"}},
		{"pca", features, []string{"--in", "IN", "--id", "id", "--label", "target", "--features", "x*"}},
		{"lda", features, []string{"--in", "IN", "--id", "id", "--label", "target", "--features", "x*"}},
		{"tsne", features, []string{"--in", "IN", "--id", "id", "--label", "target", "--features", "x*", "--perplexity", "5", "--iterations", "50"}},
		{"nerv", features, []string{"--in", "IN", "--id", "id", "--label", "target", "--features", "x*", "--perplexity", "5"}},
		{"ckpca", features, []string{"--in", "IN", "--id", "id", "--label", "target", "--control", "cx,cy", "--scale", "auto"}},
		{"lsp", features, []string{"--in", "IN", "--id", "id", "--label", "target", "--control", "cx,cy"}},
		{"fisher", features, []string{"--in", "IN", "--id", "id", "--label", "target", "--features", "x*", "--kernel", "rbf"}},
		{"fisher", "../../testdata/similarity/aural_sonar.parquet", []string{"--similarity", "IN", "--id", "id", "--label", "label"}},
		{"evaluate", emb, []string{"--embedding", "IN", "--in", features, "--id", "id", "--label", "target", "-k", "5"}},
		{"evaluate", features, []string{"--embedding", emb, "--in", "IN", "--id", "id", "--label", "target", "-k", "5"}},
		{"plot", emb, []string{"--in", "IN", "--color", "target"}},
		{"triplets", "../../testdata/zoo/zoo.csv", []string{"--in", "IN", "--aspects", "hair,eggs"}},
		{"score", triplets, []string{"--in", "IN", "--epochs", "5"}},
		{"tste", triplets, []string{"--in", "IN", "--max-iter", "5"}},
		{"soe", triplets, []string{"--in", "IN"}},
	}
	streams := map[string][]streamCut{}
	data := map[string][]byte{}
	for _, c := range cases {
		if _, ok := streams[c.source]; !ok {
			s, ends := streamOf(t, c.source, batch)
			data[c.source], streams[c.source] = s, cutsOf(s, ends, batch)
		}
	}
	for _, c := range cases {
		inRole := c.args[indexOf(c.args, "IN")-1]
		for _, cut := range streams[c.source] {
			rows := cut.rows
			if rows < 0 {
				in, err := arrowio.Inspect(context.Background(), c.source)
				if err != nil {
					t.Fatal(err)
				}
				rows = int(in.Rows)
			}
			cutData := data[c.source][:cut.keep]
			for _, from := range []string{"stdin", "file"} {
				name := fmt.Sprintf("%s %s from %s cut %s", c.stage, inRole, from, cut.name)
				outDir := t.TempDir()
				out := filepath.Join(outDir, "out.parquet")
				if c.stage == "plot" {
					out = filepath.Join(outDir, "out.svg")
				}
				in, stdin := "-", cutData
				if from == "file" {
					in, stdin = filepath.Join(dir, "cut.arrows"), nil
					write(t, in, string(cutData))
				}
				args := append([]string{c.stage}, c.args...)
				args[1+indexOf(c.args, "IN")] = in
				args = append(args, "--out", out, "--quiet")
				code, _, stderr := runCmd(t, stdin, args...)
				if code != 2 {
					t.Errorf("%s: exit %d, want 2: %s", name, code, stderr)
				}
				for _, want := range []string{"truncated stream", fmt.Sprintf("after %d rows", rows), in + ": "} {
					if !strings.Contains(stderr, want) {
						t.Errorf("%s: the message does not say %q: %s", name, want, stderr)
					}
				}
				noLeftovers(t, outDir)
			}
		}
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	panic("no " + v)
}

// TestCompleteStreams: the same streams, whole, are read as before, and an
// Arrow IPC file piped to standard input is named for what it is.
func TestCompleteStreams(t *testing.T) {
	dir := t.TempDir()
	features := featureTable(t, dir, false)
	stream, _ := streamOf(t, features, 20)
	out := filepath.Join(dir, "pca.parquet")
	if code, _, e := runCmd(t, stream, "pca", "--in", "-", "--id", "id", "--label", "target", "--out", out, "--quiet"); code != 0 {
		t.Fatalf("pca on a complete stream: exit %d: %s", code, e)
	}
	if info, err := arrowio.Inspect(context.Background(), out); err != nil || info.Rows != 60 {
		t.Fatalf("pca on a complete stream: %v", err)
	}
	// The legacy end-of-stream marker (a 4-byte 0) ends a stream too.
	legacy := append(bytes.Clone(stream[:len(stream)-8]), 0, 0, 0, 0)
	if code, _, e := runCmd(t, legacy, "pca", "--in", "-", "--id", "id", "--label", "target", "--out", out, "--quiet"); code != 0 {
		t.Fatalf("pca on a stream with the legacy marker: exit %d: %s", code, e)
	}

	// Stages that look at a table's schema before reading it read a stream
	// on stdin once.
	for _, c := range []struct {
		source string
		args   []string
	}{
		{"../../testdata/similarity/aural_sonar.parquet", []string{"fisher", "--similarity", "-", "--id", "id", "--label", "label"}},
		{"../../testdata/zoo/zoo.csv", []string{"triplets", "--in", "-", "--aspects", "hair,eggs", "--per-aspect", "100"}},
	} {
		s, _ := streamOf(t, c.source, 16)
		args := append(c.args, "--out", filepath.Join(dir, c.args[0]+".parquet"), "--quiet")
		if code, _, e := runCmd(t, s, args...); code != 0 {
			t.Errorf("%s on a complete stream on stdin: exit %d: %s", c.args[0], code, e)
		}
	}

	file := filepath.Join(dir, "f.arrow")
	if code, _, e := runCmd(t, nil, "pca", "--in", features, "--id", "id", "--label", "target", "--out", file, "--quiet"); code != 0 {
		t.Fatalf("pca --out .arrow: exit %d: %s", code, e)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, b, "plot", "--in", "-", "--out", filepath.Join(dir, "p.svg"), "--quiet")
	if code != 2 || !strings.Contains(stderr, "standard input holds an Arrow IPC file, not a stream") {
		t.Errorf("an IPC file on stdin: exit %d: %s", code, stderr)
	}
}
