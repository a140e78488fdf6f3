//go:build unix

package arrowio

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestCreateNonRegular writes onto paths that hold something other than a
// regular file: a named pipe, a device, a socket. Outputs are published by
// renaming a temporary file over the path, which once replaced the pipe or
// device by a regular file (a reader on the pipe then waited forever); now
// Create and CreateFile refuse them, without opening them (opening a pipe
// blocks until a reader comes), and leave them as they were.
func TestCreateNonRegular(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.parquet")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("this file system refuses a named pipe (%v), so the pipe case cannot be made here; the regular-file cases beside it run", err)
	}
	null := filepath.Join(dir, "null.parquet")
	if err := os.Symlink(os.DevNull, null); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock.arrow")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cases := []struct {
		name, path, says string
		mode             fs.FileMode // the type the path must keep
	}{
		{"named pipe", fifo, "named pipe", fs.ModeNamedPipe},
		{"device through a symbolic link", null, "device", fs.ModeDevice | fs.ModeCharDevice},
		{"device", os.DevNull, "device", fs.ModeDevice | fs.ModeCharDevice},
		{"socket", sock, "socket", fs.ModeSocket},
	}
	for _, tc := range cases {
		for _, file := range []bool{false, true} {
			var err error
			if file {
				var w FileWriter
				if w, err = CreateFile(ctx, tc.path); err == nil {
					w.Abort()
				}
			} else {
				var w Writer
				if w, err = Create(ctx, tc.path, wtSchema(), WithFormat(FormatParquet)); err == nil {
					w.Abort()
				}
			}
			switch {
			case err == nil:
				t.Errorf("%s (file %v): writing to %s succeeded", tc.name, file, tc.path)
			case !errors.Is(err, ErrInvalidOption) || !errors.Is(err, ErrNotRegular):
				t.Errorf("%s (file %v): error %v does not match ErrInvalidOption and ErrNotRegular", tc.name, file, err)
			case !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.says):
				t.Errorf("%s (file %v): error %q does not name %s and say %q", tc.name, file, err, tc.path, tc.says)
			}
			if fi, err := os.Stat(tc.path); err != nil || fi.Mode().Type() != tc.mode {
				t.Errorf("%s (file %v): %s is now %v (%v), want %v", tc.name, file, tc.path, fi.Mode().Type(), err, tc.mode)
			}
		}
	}
	if fi, err := os.Lstat(null); err != nil || fi.Mode().Type() != fs.ModeSymlink {
		t.Errorf("the symbolic link to %s is now %v (%v)", os.DevNull, fi.Mode().Type(), err)
	}
	wtCheckOnly(t, "non-regular", dir, "fifo.parquet", "null.parquet", "sock.arrow")
}

// TestPublishNonRegular makes the target a named pipe while the output is
// being written: publishing refuses it too, and removes the temporary
// file.
func TestPublishNonRegular(t *testing.T) {
	ctx := context.Background()
	for _, deferred := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.parquet")
		w, err := Create(ctx, path, wtSchema())
		if err != nil {
			t.Fatal(err)
		}
		d := wtMake(10, 1)
		rec := d.batch(memory.DefaultAllocator, 0, 10)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skipf("this file system refuses a named pipe (%v), so the pipe case cannot be made here; the regular-file cases beside it run", err)
		}
		if deferred {
			w.(Committer).DeferCommit()
			if err := w.Close(); err != nil {
				t.Fatalf("deferred: Close: %v", err)
			}
			err = CommitAll(w.(Committer))
		} else {
			err = w.Close()
		}
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), path) {
			t.Errorf("deferred %v: publishing over a named pipe: %v, want ErrNotRegular naming %s", deferred, err, path)
		}
		if fi, err := os.Lstat(path); err != nil || fi.Mode().Type() != fs.ModeNamedPipe {
			t.Errorf("deferred %v: %s is now %v (%v), want a named pipe", deferred, path, fi.Mode().Type(), err)
		}
		wtCheckOnly(t, "publish", dir, "out.parquet")
	}
}

// TestInspectNamedPipe inspects a named pipe that no one writes to: an
// error at once, where opening it waited forever.
func TestInspectNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.parquet")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("this file system refuses a named pipe (%v), so the pipe case cannot be made here; the regular-file cases beside it run", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Inspect(context.Background(), fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), fifo) {
			t.Errorf("Inspect of a named pipe: %v, want ErrFormat naming it", err)
		}
	case <-time.After(10 * time.Second):
		// Unblock the open so that the goroutine ends.
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("Inspect of a named pipe is still waiting after 10 s")
	}
}
