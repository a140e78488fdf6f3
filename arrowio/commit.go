package arrowio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
)

// Committer is an output that can be published in a group: the writers of
// Create and CreateFile implement it (and so do the in-memory writers of
// package transforms).
//
// DeferCommit, called before Close, makes Close finish the output (every
// byte on disk in the temporary file, synced) without publishing it;
// Commit then publishes it (renames it into place) and Rollback withdraws
// it. Abort still discards an output that is not closed, and does nothing
// after Close, so `defer w.Abort()` stays the idiom: a closed, uncommitted
// output is withdrawn by Rollback alone. CommitAll publishes a group.
type Committer interface {
	DeferCommit()
	// Commit publishes an output closed after DeferCommit; it does nothing
	// for one already published. If it fails, the output is removed.
	Commit() error
	// Rollback withdraws an output closed after DeferCommit: before Commit
	// it removes the temporary file; after Commit it removes the output
	// (under CommitAll, puts back the file it replaced, when there was one
	// and the file system allows a hard link).
	Rollback() error
}

// CommitAll publishes a group of outputs closed after DeferCommit, all or
// none: if one fails to commit, those already committed are rolled back
// (the files they replaced put back) and the rest removed, and the first
// error is returned. Standard output is committed last, since what it
// wrote cannot be taken back; its end (the end-of-stream marker of an IPC
// stream) is written only then, so a stream whose run failed has none.
//
// On Unix, CommitAll holds an exclusive lock (flock) on every folder of the
// group while it renames, so that two runs committing to the same paths at
// once leave all the outputs of one of them, never a mix. The lock is
// advisory and local: it binds ordinate processes on file systems that
// support flock.
//
// What holds: a crash (power loss, SIGKILL) in the middle of the renames can
// still leave a mix, and the copies kept for rollback are then temporary
// files of a dead process, removed by the next run writing to that folder.
func CommitAll(ws ...Committer) error {
	ws = slices.Clone(ws)
	// Revocable outputs first, standard output last.
	slices.SortStableFunc(ws, func(a, b Committer) int {
		return boolInt(isIrrevocable(a)) - boolInt(isIrrevocable(b))
	})
	unlock := lockFolders(ws)
	defer unlock()
	for i, w := range ws {
		var err error
		if aw, ok := w.(interface{ commit(backup bool) error }); ok {
			err = aw.commit(len(ws) > 1)
		} else {
			err = w.Commit()
		}
		if err == nil {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if rerr := ws[j].Rollback(); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}
		for _, r := range ws[i+1:] {
			_ = r.Rollback()
		}
		return err
	}
	for _, w := range ws {
		if f, ok := w.(interface{ forget() }); ok {
			f.forget()
		}
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func isIrrevocable(w Committer) bool {
	i, ok := w.(interface{ irrevocable() bool })
	return ok && i.irrevocable()
}

// lockFolders locks the folders of the file outputs in ws, in sorted order
// (so that two groups cannot deadlock), and returns the unlock.
func lockFolders(ws []Committer) func() {
	var dirs []string
	for _, w := range ws {
		if p, ok := w.(interface{ Path() string }); ok && !isIrrevocable(w) {
			if d, err := filepath.Abs(filepath.Dir(p.Path())); err == nil {
				dirs = append(dirs, d)
			}
		}
	}
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	var unlocks []func()
	for _, d := range dirs {
		unlocks = append(unlocks, lockFolder(d))
	}
	return func() {
		for i := len(unlocks) - 1; i >= 0; i-- {
			unlocks[i]()
		}
	}
}

// output is where the bytes go: a temporary file renamed at publish, or
// standard output.
type output struct {
	final   string
	tmp     *os.File // nil for standard output
	tmpName string
	buf     *bufio.Writer
	sink    *sink
	stale   []string // temporary files of dead runs removed from the folder

	hold    bool         // standard output: finish writes to tail
	tail    bytes.Buffer // standard output: the end, held until publish
	closed  bool         // the temporary file is complete and closed
	renamed bool         // the temporary file is at final
	removed bool         // the temporary file is gone
	backup  string       // a hard link to what final held before publish
	hadOld  bool         // final existed before publish
}

// sink is what the encoders write to. Once discard is set it swallows
// everything, so that encoders can be finished only to free their memory;
// it is atomic because a Parquet row group may be going out on the
// encoder's goroutine when the writer is dropped. The sink keeps the first
// error of the file system, so that the error an encoder returns (arrow-go's
// Parquet writer buries it in "unknown error type") can be reported as it is.
type sink struct {
	w       io.Writer
	discard atomic.Bool
	err     error
}

func (s *sink) Write(p []byte) (int, error) {
	if s.discard.Load() {
		return len(p), nil
	}
	n, err := s.w.Write(p)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

const outputBufferSize = 1 << 20

func openOutput(path string, stdout io.Writer) (*output, error) {
	if path == "-" {
		buf := bufio.NewWriterSize(stdout, outputBufferSize)
		return &output{final: path, buf: buf, sink: &sink{w: buf}}, nil
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return nil, fmt.Errorf("arrowio: cannot create %q: not a file name", path)
	}
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return nil, fmt.Errorf("arrowio: cannot create %s: output folder %s: %w", path, dir, plainError(err))
	case !fi.IsDir():
		return nil, fmt.Errorf("arrowio: cannot create %s: %s is not a folder", path, dir)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("arrowio: cannot create %s: it is a folder", path)
	} else if err == nil && !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi)
	}
	stale := RemoveStale(dir)
	tmp, err := os.CreateTemp(dir, tempPattern(base))
	if err != nil {
		return nil, fmt.Errorf("arrowio: cannot create %s: %w", path, plainError(err))
	}
	buf := bufio.NewWriterSize(tmp, outputBufferSize)
	return &output{final: path, tmp: tmp, tmpName: tmp.Name(), buf: buf, sink: &sink{w: buf}, stale: stale}, nil
}

// notRegular is the error of an output path that holds fi, which is not a
// regular file. The path is left alone: renaming the output over it would
// replace a named pipe or a device (os.DevNull among them) by a regular
// file, and writing into it instead would give up atomic outputs (a reader
// of a pipe would see the rows of a failed run).
func notRegular(path string, fi os.FileInfo) error {
	kind := "an irregular file"
	switch m := fi.Mode(); {
	case m.IsDir():
		kind = "a folder"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeCharDevice != 0:
		kind = "a character device"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	}
	return fmt.Errorf("arrowio: cannot write %s: %w: it is %s, which an output would replace "+
		"(outputs are written to a temporary file renamed over their path); "+
		"give the path of a file, or - for standard output", path, ErrNotRegular, kind)
}

// plainError strips the *fs.PathError of a file system error, whose path is
// the temporary file's, so that a message can name the output instead and
// still match the OS error (errors.Is(err, syscall.ENOSPC)).
func plainError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// writeError is the error of a failed write to o: the file system's own
// error when there was one, naming the output.
func (o *output) writeError(err error) error {
	if o.sink.err != nil {
		err = o.sink.err
	}
	return fmt.Errorf("arrowio: writing %s: %w", o.final, plainError(err))
}

// holdTail makes what is written from now on wait for publish, for
// standard output: the end of a stream is written only when it is
// published.
func (o *output) holdTail() {
	if o.tmp == nil {
		o.hold = true
		o.sink.w = &o.tail
	}
}

// finish completes the temporary file: flush, fsync, mode 0644, close.
func (o *output) finish() error {
	if o.tmp == nil {
		if o.hold {
			return nil
		}
		if err := o.buf.Flush(); err != nil {
			return o.writeError(err)
		}
		return nil
	}
	if err := o.buf.Flush(); err != nil {
		return o.writeError(err)
	}
	if err := o.tmp.Sync(); err != nil {
		return o.writeError(err)
	}
	if err := o.tmp.Chmod(0o644); err != nil {
		return o.writeError(err)
	}
	o.closed = true
	if err := o.tmp.Close(); err != nil {
		return o.writeError(err)
	}
	return nil
}

// publish renames the finished temporary file into place and fsyncs the
// folder so that the rename survives a crash; for standard output it
// writes the held end and flushes. With backup, a hard link to the file
// that final held is kept for rollback.
func (o *output) publish(backup bool) error {
	if o.tmp == nil {
		if o.hold {
			o.sink.w = o.buf
			if _, err := o.buf.Write(o.tail.Bytes()); err != nil {
				return o.writeError(err)
			}
			o.tail.Reset()
		}
		if err := o.buf.Flush(); err != nil {
			return o.writeError(err)
		}
		o.renamed = true
		return nil
	}
	// The path may have changed since Create looked.
	if fi, err := os.Stat(o.final); err == nil && !fi.Mode().IsRegular() {
		return notRegular(o.final, fi)
	}
	if fi, err := os.Lstat(o.final); err == nil {
		o.hadOld = true
		if backup && fi.Mode().IsRegular() {
			name := filepath.Join(filepath.Dir(o.final), tempName(filepath.Base(o.final)))
			if os.Link(o.final, name) == nil {
				o.backup = name
			}
		}
	}
	if err := os.Rename(o.tmpName, o.final); err != nil {
		o.forget()
		return fmt.Errorf("arrowio: writing %s: moving it into place: %w", o.final, plainError(err))
	}
	o.renamed = true
	if d, err := os.Open(filepath.Dir(o.final)); err == nil {
		_ = d.Sync() // best effort: not every system can sync a folder
		_ = d.Close()
	}
	return nil
}

// rollback undoes publish: the file final held before comes back from its
// backup, or the output is removed.
func (o *output) rollback() error {
	if o.tmp == nil || !o.renamed {
		return nil
	}
	o.renamed = false
	if o.backup != "" {
		err := os.Rename(o.backup, o.final)
		o.backup = ""
		if err == nil {
			return nil
		}
	}
	if err := os.Remove(o.final); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("arrowio: withdrawing %s: %w", o.final, plainError(err))
	}
	if o.hadOld {
		return fmt.Errorf("arrowio: withdrew %s, and could not put back the file it had replaced", o.final)
	}
	return nil
}

// forget removes the backup kept for rollback.
func (o *output) forget() {
	if o.backup != "" {
		_ = os.Remove(o.backup)
		o.backup = ""
	}
}

// discard removes the temporary file (if any); bytes meant for standard
// output that are still buffered (and a held end) are dropped.
func (o *output) discard() error {
	o.sink.discard.Store(true)
	o.tail.Reset()
	if o.tmp == nil || o.renamed || o.removed {
		return nil
	}
	o.removed = true
	if !o.closed {
		_ = o.tmp.Close()
	}
	if err := os.Remove(o.tmpName); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("arrowio: removing temporary file of %s: %w", o.final, plainError(err))
	}
	return nil
}

// FileWriter writes the bytes of a file output (a figure, a report) the
// way Create writes tables: to a temporary file renamed into place by
// Close (or, after DeferCommit, by Commit); Abort removes it. It
// implements Committer.
type FileWriter interface {
	io.Writer
	Close() error
	Abort() error
	Path() string
	// StaleRemoved lists the temporary files of dead runs that creating the
	// writer removed from the output folder (see RemoveStale).
	StaleRemoved() []string
	Committer
}

// CreateFile returns a FileWriter for path; "-" writes to standard output
// (WithStdout) at Close, or at Commit after DeferCommit.
func CreateFile(ctx context.Context, path string, opts ...WriteOption) (FileWriter, error) {
	cfg := writeConfig{stdout: os.Stdout}
	for _, o := range opts {
		o(&cfg)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out, err := openOutput(path, cfg.stdout)
	if err != nil {
		return nil, err
	}
	if path == "-" {
		out.holdTail() // everything is held: a failed run writes nothing
	}
	return &fileWriter{writer{ctx: ctx, path: path, out: out}}, nil
}

// fileWriter is a writer without an encoder: the bytes go to the sink;
// Close, Abort, Commit and Rollback are the writer's.
type fileWriter struct{ writer }

func (f *fileWriter) Write(p []byte) (int, error) {
	switch {
	case f.state != stateOpen:
		return 0, fmt.Errorf("arrowio: %s: Write after Close or Abort", f.path)
	case f.err != nil:
		return 0, f.err
	}
	if err := f.ctx.Err(); err != nil {
		f.err = err
		return 0, err
	}
	n, err := f.out.sink.Write(p)
	if err != nil {
		f.err = f.out.writeError(err)
		return n, f.err
	}
	return n, nil
}

// WriteFileAtomic writes data to path the way table outputs are written: to
// a temporary file in the same folder, synced, then renamed, so that a
// failed or interrupted write leaves neither a partial file nor the
// temporary one. It is for the byte outputs of the tool (figures, reports).
func WriteFileAtomic(path string, data []byte) error {
	w, err := CreateFile(context.Background(), path)
	if err != nil {
		return err
	}
	defer w.Abort()
	if _, err := w.Write(data); err != nil {
		return err
	}
	return w.Close()
}
