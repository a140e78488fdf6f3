package arrowio

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// streamLayout returns the offsets at which the messages of the IPC stream
// b start, each with the end of its metadata and of its body, up to the
// end-of-stream marker, whose offset it returns too.
func streamLayout(t *testing.T, b []byte) (msgs [][3]int, marker int) {
	t.Helper()
	p := 0
	for {
		if binary.LittleEndian.Uint32(b[p:]) != 0xffffffff {
			t.Fatalf("no continuation marker at %d", p)
		}
		n := int(binary.LittleEndian.Uint32(b[p+4:]))
		if n == 0 {
			return msgs, p
		}
		m, err := metaRoot(b[p+8 : p+8+n])
		if err != nil {
			t.Fatal(err)
		}
		body, err := bodyLenField(m)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, [3]int{p, p + 8 + n, p + 8 + n + int(body)})
		p += 8 + n + int(body)
	}
}

// truncationCases cuts a stream of three batches (20, 15 and 15 rows, with
// a dictionary column, so that a dictionary message follows the schema) at
// every kind of place: each cut must be an error that says the stream is
// truncated and how many rows came before.
func truncationCases(t *testing.T) (stream []byte, cases []truncation) {
	rec := makeTestRecord(memory.NewGoAllocator(), 50, 10)
	defer rec.Release()
	a, b, c := rec.NewSlice(0, 20), rec.NewSlice(20, 35), rec.NewSlice(35, 50)
	defer a.Release()
	defer b.Release()
	defer c.Release()
	stream = ipcStreamBytes(t, a, b, c)
	msgs, marker := streamLayout(t, stream)
	if len(msgs) < 5 || marker+8 != len(stream) {
		t.Fatalf("stream of %d bytes has %d messages and its marker at %d", len(stream), len(msgs), marker)
	}
	schema, batch1, batch2 := msgs[0], msgs[len(msgs)-3], msgs[len(msgs)-2]
	cases = []truncation{
		{"inside the schema's continuation marker", 2, 0},
		{"after the schema's continuation marker", 4, 0},
		{"inside the schema's length", 6, 0},
		{"inside the schema metadata", schema[0] + 20, 0},
		{"after the schema", schema[2], 0},
		{"after the dictionaries", batch1[0], 0},
		{"inside the first batch's metadata", batch1[0] + 12, 0},
		{"after the first batch's metadata", batch1[1], 0},
		{"inside the first batch's body", (batch1[1] + batch1[2]) / 2, 0},
		{"after the first batch", batch1[2], 20},
		{"inside the second batch's body", batch2[2] - 1, 20},
		{"after the second batch", batch2[2], 35},
		{"just before the marker", marker, 50},
		{"after half the marker", marker + 4, 50},
		{"after 6 bytes of the marker", marker + 6, 50},
	}
	return stream, cases
}

type truncation struct {
	name string
	cut  int   // bytes kept
	rows int64 // rows before the cut
}

// checkTruncated fails unless err says that the stream in file was cut
// after rows rows.
func checkTruncated(t *testing.T, what, file string, rows int64, err error) {
	t.Helper()
	var e *Error
	switch {
	case err == nil:
		t.Errorf("%s: no error", what)
	case !errors.Is(err, ErrCorrupt) || !errors.Is(err, ErrInvalidData) || !errors.As(err, &e):
		t.Errorf("%s: %v is not an *Error wrapping ErrCorrupt", what, err)
	case e.File != file:
		t.Errorf("%s: error names %q, want %q: %v", what, e.File, file, err)
	case !strings.Contains(err.Error(), "truncated stream"),
		!strings.Contains(err.Error(), fmt.Sprintf("after %d rows", rows)):
		t.Errorf("%s: %q does not say the stream was truncated after %d rows", what, err, rows)
	}
}

// TestIPCStreamTruncated reads a stream cut at every interesting place, on
// standard input, as a .arrows file, as a stream named .arrow, and with
// Inspect: none may pass for a complete stream.
func TestIPCStreamTruncated(t *testing.T) {
	stream, cases := truncationCases(t)
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := stream[:c.cut]
			for _, path := range []string{"-", filepath.Join(dir, "t.arrows"), filepath.Join(dir, "t.arrow")} {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				if path != "-" {
					writeFile(t, path, data)
				}
				res, err := readAll(t, path, testCols, WithReadAllocator(mem), WithStdin(bytes.NewReader(data)), WithBatchSize(16))
				checkTruncated(t, path, path, c.rows, err)
				if got := int64(len(res.rows)); got > c.rows {
					t.Errorf("%s: %d rows read before the error, only %d are complete", path, got, c.rows)
				}
				mem.AssertSize(t, 0)
				if path == "-" {
					continue
				}
				fi, err := Inspect(context.Background(), path)
				checkTruncated(t, "inspect "+path, path, c.rows, err)
				if fi != nil {
					t.Errorf("inspect %s: a FileInfo of %d rows for a truncated stream", path, fi.Rows)
				}
			}
		})
	}
}

// TestIPCStreamComplete reads the whole stream, with its marker or with
// the 4-byte marker of the format before Arrow 0.15, as before; data after
// the marker of a file is refused (two streams one after the other would
// otherwise lose the second).
func TestIPCStreamComplete(t *testing.T) {
	rec := makeTestRecord(memory.NewGoAllocator(), 50, 10)
	defer rec.Release()
	want := rowsOf(rec, testCols)
	stream, _ := truncationCases(t)
	legacy := append(bytes.Clone(stream[:len(stream)-8]), 0, 0, 0, 0)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data []byte
	}{{"marker", stream}, {"legacy marker", legacy}} {
		for _, path := range []string{"-", filepath.Join(dir, "c.arrows")} {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			if path != "-" {
				writeFile(t, path, c.data)
			}
			res, err := readAll(t, path, testCols, WithReadAllocator(mem), WithStdin(bytes.NewReader(c.data)))
			if err != nil {
				t.Fatalf("%s, %s: %v", c.name, path, err)
			}
			compareRows(t, c.name+" "+path, res.rows, want)
			mem.AssertSize(t, 0)
			if path == "-" {
				continue
			}
			if fi, err := Inspect(context.Background(), path); err != nil || fi.Rows != 50 {
				t.Errorf("inspect %s, %s: %v", c.name, path, err)
			}
		}
	}

	// Two streams in one file.
	path := filepath.Join(dir, "two.arrows")
	writeFile(t, path, append(bytes.Clone(stream), stream...))
	_, err := readAll(t, path, testCols)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("%d bytes follow the end-of-stream marker, after 50 rows", len(stream))) {
		t.Errorf("two streams in one file: %v", err)
	}
}

// TestIPCFileOnStdin: an IPC file piped to standard input is named as
// such, not taken for damaged stream metadata; an IPC file named .arrows
// is read as the file it is.
func TestIPCFileOnStdin(t *testing.T) {
	rec := floatRecord(10)
	defer rec.Release()
	file := ipcFileBytes(t, rec)
	_, err := Open(context.Background(), "-", WithStdin(bytes.NewReader(file)))
	var e *Error
	if !errors.As(err, &e) || e.File != "-" || !errors.Is(err, ErrInvalidData) ||
		!strings.Contains(err.Error(), "standard input holds an Arrow IPC file, not a stream") {
		t.Errorf("IPC file on stdin: %v", err)
	}
	path := filepath.Join(t.TempDir(), "f.arrows")
	writeFile(t, path, file)
	res, err := readAll(t, path, []string{"x"})
	if err != nil || len(res.rows) != 10 {
		t.Errorf("IPC file named .arrows: %d rows, %v", len(res.rows), err)
	}
}
