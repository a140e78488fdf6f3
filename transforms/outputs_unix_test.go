//go:build unix

package transforms

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFileTablesCheckNotRegular gives outputs paths that hold a named
// pipe, a device (through a symbolic link, as /dev/null) or a folder: Run
// refuses them before the stage runs, as options (exit 2 in the CLI), and
// leaves them as they were; the pipe and the device were once replaced by
// regular files.
func TestFileTablesCheckNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.parquet")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("this file system refuses a named pipe (%v): the /dev/null and directory cases of the same check run without one", err)
	}
	null := filepath.Join(dir, "null.parquet")
	if err := os.Symlink(os.DevNull, null); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder.parquet")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	o := filepath.Join(dir, "o.parquet")
	for _, tc := range []struct {
		name  string
		paths map[string]string
		want  string
		mode  fs.FileMode // what the path must still be
		path  string
	}{
		{"out is a named pipe", map[string]string{"out": fifo}, `option "out": "` + fifo + `" is a named pipe (FIFO)`, fs.ModeNamedPipe, fifo},
		{"out is a device", map[string]string{"out": null}, `option "out": "` + null + `" is a character device`, fs.ModeDevice | fs.ModeCharDevice, null},
		{"second is a named pipe", map[string]string{"out": o, "second": fifo}, `option "second": "` + fifo + `" is a named pipe`, fs.ModeNamedPipe, fifo},
		{"out is a folder", map[string]string{"out": folder}, `option "out": "` + folder + `" is a folder`, fs.ModeDir, folder},
	} {
		ran := false
		err := Run(context.Background(), stageFunc{twoOutStage{}, func() { ran = true }}, &noOptions{}, &Env{Tables: &FileTables{Paths: tc.paths}})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalidOption) {
			t.Errorf("%s: error %v, want an option error containing %q", tc.name, err, tc.want)
		}
		if ran {
			t.Errorf("%s: the stage ran", tc.name)
		}
		if fi, err := os.Stat(tc.path); err != nil || fi.Mode().Type() != tc.mode {
			t.Errorf("%s: %s is now %v (%v), want %v", tc.name, tc.path, fi.Mode().Type(), err, tc.mode)
		}
	}
	if got := files(t, dir); got != "fifo.parquet,folder.parquet,null.parquet" {
		t.Errorf("folder holds %q", got)
	}
}

// stageFunc is a stage that calls ran when it runs.
type stageFunc struct {
	twoOutStage
	ran func()
}

func (s stageFunc) Run(ctx context.Context, env *Env, opts Options) error {
	s.ran()
	return s.twoOutStage.Run(ctx, env, opts)
}

// TestInputPathIsInputError opens inputs whose path cannot name a file: a
// loop of symbolic links once exited 1 (a runtime failure) where a missing
// file exits 2; both are the caller's fault (IsInputError).
func TestInputPathIsInputError(t *testing.T) {
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop.parquet")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.csv")
	if err := os.WriteFile(plain, []byte("x\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path string }{
		{"symbolic link loop", loop},
		{"file as a folder", filepath.Join(plain, "x.parquet")},
	} {
		r, err := (&FileTables{Paths: map[string]string{"in": tc.path}}).Open(context.Background(), "in", nil)
		if err == nil {
			r.Release()
			t.Fatalf("%s: Open succeeded", tc.name)
		}
		if !IsInputError(err) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("%s: %v is not an input error naming %s", tc.name, err, tc.path)
		}
	}
}
