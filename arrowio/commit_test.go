package arrowio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// endOfStream is the end-of-stream marker of an Arrow IPC stream: a
// continuation marker and a zero length.
var endOfStream = []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}

// ctWrite creates path, writes d and closes it after DeferCommit.
func ctWrite(t *testing.T, mem memory.Allocator, path string, d *wtData, opts ...WriteOption) Writer {
	t.Helper()
	w, err := Create(context.Background(), path, wtSchema(), append(opts, WithWriteAllocator(mem))...)
	if err != nil {
		t.Fatal(err)
	}
	w.(Committer).DeferCommit()
	if err := wtWrite(t, mem, w, d); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil { // the idiom: nothing after Close
		t.Fatal(err)
	}
	return w
}

func TestDeferredCommit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	d := wtMake(100, 7)
	for _, base := range []string{"o.parquet", "o.arrow", "o.csv"} {
		dir := t.TempDir()
		path := filepath.Join(dir, base)
		w := ctWrite(t, mem, path, d)
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: published before Commit", base)
		}
		if err := w.(Committer).Commit(); err != nil {
			t.Fatal(err)
		}
		wtCheckOnly(t, base, dir, base)
		if err := w.(Committer).Rollback(); err != nil {
			t.Fatal(err)
		}
		wtCheckOnly(t, base+" rolled back", dir)

		// Rollback before Commit removes the temporary file.
		w = ctWrite(t, mem, path, d)
		if err := w.(Committer).Rollback(); err != nil {
			t.Fatal(err)
		}
		wtCheckOnly(t, base+" withdrawn", dir)
	}
}

func TestCommitAll(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	d := wtMake(50, 8)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.arrow")
	old := []byte("the file a.parquet held before")
	if err := os.WriteFile(a, old, 0o644); err != nil {
		t.Fatal(err)
	}

	// b cannot be moved into place: a folder is in the way. a, already
	// renamed, gets its old content back.
	wa, wb := ctWrite(t, mem, a, d), ctWrite(t, mem, b, d)
	if err := os.MkdirAll(filepath.Join(b, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := CommitAll(wa.(Committer), wb.(Committer))
	if err == nil || !strings.Contains(err.Error(), b) {
		t.Fatalf("CommitAll = %v, want an error naming %s", err, b)
	}
	if got, _ := os.ReadFile(a); !bytes.Equal(got, old) {
		t.Errorf("a.parquet was not put back: %q", got)
	}
	wtCheckOnly(t, "failed group", dir, "a.parquet", "b.arrow")
	if err := os.RemoveAll(b); err != nil {
		t.Fatal(err)
	}

	// Both appear, and no copy kept for rollback stays.
	wa, wb = ctWrite(t, mem, a, d), ctWrite(t, mem, b, d)
	if err := CommitAll(wa.(Committer), wb.(Committer)); err != nil {
		t.Fatal(err)
	}
	wtCheckOnly(t, "group", dir, "a.parquet", "b.arrow")
	if got, _ := os.ReadFile(a); bytes.Equal(got, old) {
		t.Error("a.parquet still holds its old content")
	}
}

// A stream on standard output gets its end-of-stream marker only when it is
// committed: a run that fails after closing it leaves a broken stream.
func TestStdoutStreamEnd(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, n := range []int{20, 30_000} { // within a buffer, and beyond
		for _, how := range []string{"commit", "rollback", "abort", "close"} {
			var out bytes.Buffer
			w, err := Create(context.Background(), "-", wtSchema(), WithStdout(&out), WithWriteAllocator(mem))
			if err != nil {
				t.Fatal(err)
			}
			if how != "close" {
				w.(Committer).DeferCommit()
			}
			if err := wtWrite(t, mem, w, wtMake(n, 3)); err != nil {
				t.Fatal(err)
			}
			switch how {
			case "abort":
				err = w.Abort()
			case "close":
				err = w.Close()
			default:
				if err = w.Close(); err == nil {
					if how == "commit" {
						err = CommitAll(w.(Committer))
					} else {
						err = w.(Committer).Rollback()
					}
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			ended := bytes.HasSuffix(out.Bytes(), endOfStream)
			if want := how == "commit" || how == "close"; ended != want {
				t.Errorf("%d rows, %s: stream of %d bytes ends with the marker: %v, want %v", n, how, out.Len(), ended, want)
			}
		}
	}
}

// deadPID returns a process id that no live process can have: one above
// the largest id a kernel hands out (PID_MAX_LIMIT, 2^22 on 64-bit Linux;
// other Unixes stop lower), so no skip for a reused id is needed.
func deadPID(t *testing.T) int {
	t.Helper()
	const pid = 1<<22 + 1
	if processAlive(pid) {
		t.Fatalf("process %d reported alive: it is above every kernel's largest id", pid)
	}
	return pid
}

func TestStaleTemporaryFiles(t *testing.T) {
	if !processAlive(os.Getpid()) {
		t.Skip("stale temporary files are recognised on Unix only; here every file counts as a live run's and is kept (stale_other.go)")
	}
	dir := t.TempDir()
	dead := deadPID(t)
	live := os.Getppid()
	files := map[string]bool{ // name → removed
		fmt.Sprintf(".e.parquet.tmp-%d-%s-123", dead, hostTag):        true,
		fmt.Sprintf(".m.parquet.tmp-%d-%s-abc", dead, hostTag):        true,
		fmt.Sprintf(".e.parquet.tmp-%d-%s-456", live, hostTag):        false,
		fmt.Sprintf(".e.parquet.tmp-%d-%s-789", os.Getpid(), hostTag): false,
		fmt.Sprintf(".e.parquet.tmp-%d-0badc0de-1", dead):             false, // another machine
		".e.parquet.tmp-123456":                                       false, // an older version's
		"e.parquet":                                                   false,
	}
	for name := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := Create(context.Background(), filepath.Join(dir, "e.parquet"), wtSchema())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	got := w.(interface{ StaleRemoved() []string }).StaleRemoved()
	var want []string
	for name, gone := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone != errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: removed %v, want %v", name, !gone, gone)
		}
		if gone {
			want = append(want, filepath.Join(dir, name))
		}
	}
	if len(got) != len(want) {
		t.Errorf("StaleRemoved = %v, want %v", got, want)
	}
	// The writer's own temporary file carries this process's id.
	if m := wtTemps(t, dir, "e.parquet"); !strings.Contains(strings.Join(m, " "), fmt.Sprintf(".tmp-%d-%s-", os.Getpid(), hostTag)) {
		t.Errorf("no temporary file with this process's id among %v", m)
	}
}

// A full disk is reported with the output's name and the system's error,
// whatever the format.
func TestWriteNoSpace(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("this system has no /dev/full (Linux has); cmd/ordinate's TestOutputsAllOrNothing fills a real tmpfs instead:", err)
	}
	defer full.Close()
	d := wtMake(20_000, 9)
	for _, f := range []Format{FormatParquet, FormatIPCFile, FormatIPCStream, FormatCSV} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		w, err := Create(context.Background(), "-", wtSchema(), WithStdout(full), WithFormat(f), WithWriteAllocator(mem), WithRowGroupRows(1000))
		if err != nil {
			t.Fatal(err)
		}
		err = wtWrite(t, mem, w, d)
		if err == nil {
			err = w.Close()
		}
		w.Abort()
		checkNoSpace(t, f.String(), "-", err)
		mem.AssertSize(t, 0)
	}
	// A file output on a tiny file system, when one can be mounted.
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Log("no tmpfs (not root?):", err)
		return
	}
	defer syscall.Unmount(dir, 0)
	path := filepath.Join(dir, "e.parquet")
	w, err := Create(context.Background(), path, wtSchema(), WithRowGroupRows(1000))
	if err != nil {
		t.Fatal(err)
	}
	err = wtWrite(t, memory.DefaultAllocator, w, d)
	if err == nil {
		err = w.Close()
	}
	w.Abort()
	checkNoSpace(t, "tmpfs", path, err)
	wtCheckOnly(t, "tmpfs", dir)
}

func checkNoSpace(t *testing.T, name, path string, err error) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s: no error on a full disk", name)
	case !errors.Is(err, syscall.ENOSPC):
		t.Errorf("%s: %v is not ENOSPC", name, err)
	case err.Error() != fmt.Sprintf("arrowio: writing %s: no space left on device", path):
		t.Errorf("%s: message %q", name, err)
	}
}

// A FileWriter on standard output writes nothing until it is published.
func TestCreateFileStdout(t *testing.T) {
	var out bytes.Buffer
	w, err := CreateFile(context.Background(), "-", WithStdout(&out))
	if err != nil {
		t.Fatal(err)
	}
	w.DeferCommit()
	fmt.Fprint(w, "hello")
	if err := w.Close(); err != nil || out.Len() != 0 {
		t.Fatalf("Close: %v, %q written", err, out.String())
	}
	if err := w.Commit(); err != nil || out.String() != "hello" {
		t.Fatalf("Commit: %v, %q written", err, out.String())
	}
}
