package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// binaryAndModel builds the real binary and fits a PCA model for it to
// apply, for the tests that need a process of their own.
func binaryAndModel(t *testing.T) (bin, model string) {
	t.Helper()
	bin = filepath.Join(t.TempDir(), "ordinate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	model = filepath.Join(t.TempDir(), "m.parquet")
	if code, _, e := runCmd(t, nil, "pca", "--in", thyroid, "--label", "label", "--out", filepath.Join(t.TempDir(), "e.parquet"), "--model-out", model, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	return bin, model
}

// TestInterruptLeavesNothing runs the real binary on an endless Arrow stream
// on stdin, interrupts it once its temporary output exists, and checks that
// it exits with code 1 and leaves neither output nor temporary file.
func TestInterruptLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the ordinate binary (about 4 s) to interrupt it with SIGINT and SIGTERM; go test without -short (as CI does) runs it")
	}
	bin, model := binaryAndModel(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bin, "apply", "--model", model, "--in", "-", "--out", filepath.Join(dir, "out.parquet"))
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stop := make(chan struct{})
			fed := make(chan struct{})
			go func() { defer close(fed); feedBatches(stdin, stop, 0) }()

			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			if !waitFor(func() bool { return hasTempFile(dir) }, done, 30*time.Second) {
				close(stop)
				cmd.Process.Kill()
				t.Fatalf("no temporary output appeared; stderr: %s", stderr.String())
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			var werr error
			select {
			case werr = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("ordinate did not stop after %v", sig)
			}
			close(stop)
			<-fed
			var ee *exec.ExitError
			if !errors.As(werr, &ee) || ee.ExitCode() != exitRuntime {
				t.Errorf("exit: %v, want code %d; stderr: %s", werr, exitRuntime, stderr.String())
			}
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("stderr does not say it was interrupted: %s", stderr.String())
			}
			noLeftovers(t, dir)
		})
	}
}

// feedBatches writes an Arrow IPC stream of the model's five features until
// stop is closed or the reader goes away; with batches > 0 it writes that
// many batches and then waits for stop, holding the stream open: a stream
// gone silent.
func feedBatches(w interface {
	Write([]byte) (int, error)
	Close() error
}, stop <-chan struct{}, batches int) {
	defer w.Close()
	fields := []arrow.Field{}
	for _, n := range []string{"x1", "x2", "x3", "x4", "x5"} {
		fields = append(fields, arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Float64})
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	vals := make([]float64, 10000)
	for i := range vals {
		vals[i] = float64(i%97) / 7
	}
	for j := range fields {
		b.Field(j).(*array.Float64Builder).AppendValues(vals, nil)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	iw := ipc.NewWriter(w, ipc.WithSchema(schema))
	for q := 0; ; q++ {
		if batches > 0 && q == batches {
			<-stop
			return
		}
		select {
		case <-stop:
			return
		default:
		}
		if err := iw.Write(rec); err != nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func hasTempFile(dir string) bool {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			return true
		}
	}
	return false
}

// waitFor polls cond until it holds, the process ends (done receives; the
// value is put back for the caller), or the time limit passes.
func waitFor(cond func() bool, done chan error, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		select {
		case err := <-done:
			done <- err
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return false
}

// tolZeroModel fits a t-SNE map of newthyroid and returns its model file
// with the placement tolerance set to 0 (the same number of bytes in the
// footer's JSON), so that every placed row runs all its iterations: what a
// Go program may save, or a damaged model file say.
func tolZeroModel(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	model := filepath.Join(dir, "tsne.model.parquet")
	if code, _, e := runCmd(t, nil, "tsne", "--in", thyroid, "--label", "label", "--out", filepath.Join(dir, "e.parquet"), "--model-out", model, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	b, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	from, to := []byte(`"tol":0.0001}`), []byte(`"tol":0e-999}`)
	if n := bytes.Count(b, from); n != 1 {
		t.Fatalf("the model file holds %q %d times, want once (has the placement settings' JSON changed?)", from, n)
	}
	if err := os.WriteFile(model, bytes.ReplaceAll(b, from, to), 0o644); err != nil {
		t.Fatal(err)
	}
	return model
}

// manyRows writes newthyroid's rows repeated to n rows, as a CSV file.
func manyRows(t *testing.T, n int) string {
	t.Helper()
	b, err := os.ReadFile(thyroid)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var out strings.Builder
	out.WriteString(lines[0] + "\n")
	for i := range n {
		out.WriteString(lines[1+i%(len(lines)-1)] + "\n")
	}
	p := filepath.Join(t.TempDir(), "many.csv")
	if err := os.WriteFile(p, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSignalStopsBlockedRun sends one SIGINT or SIGTERM to runs that used
// to ignore it: apply reading a standard input that stays silent (before
// its schema arrives, and after its first batches, once the temporary
// output exists), and apply placing many rows that each run their full
// iteration budget. Each run must stop after that one signal, with exit
// code 1, say it was interrupted, and leave nothing in its output folder.
func TestSignalStopsBlockedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the ordinate binary (about 4 s) to interrupt it; go test without -short (as CI does) runs it")
	}
	bin, model := binaryAndModel(t)
	slow := tolZeroModel(t)
	many := manyRows(t, 20000)
	cases := []struct {
		name     string
		args     func(out string) []string
		batches  int  // batches fed on stdin before it goes silent; -1: stdin not read
		waitTemp bool // signal once the temporary output exists
	}{
		{"apply on a silent stdin", func(out string) []string {
			return []string{"apply", "--model", model, "--in", "-", "--out", out}
		}, 0, false},
		{"apply on a stdin gone silent after two batches", func(out string) []string {
			return []string{"apply", "--model", model, "--in", "-", "--out", out}
		}, 2, true},
		{"apply placing rows at the iteration bound", func(out string) []string {
			return []string{"apply", "--model", slow, "--in", many, "--max-iter", "10000", "--threads", "1", "--out", out}
		}, -1, false},
	}
	for _, tc := range cases {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			name := tc.name + " " + sig.String()
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				cmd := exec.Command(bin, tc.args(filepath.Join(dir, "out.parquet"))...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				stop := make(chan struct{})
				fed := make(chan struct{})
				var stdin io.WriteCloser
				if tc.batches >= 0 {
					var err error
					if stdin, err = cmd.StdinPipe(); err != nil {
						t.Fatal(err)
					}
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				if stdin != nil {
					go func() {
						defer close(fed)
						if tc.batches == 0 {
							<-stop // the stream stays silent: not even its schema
							stdin.Close()
							return
						}
						feedBatches(stdin, stop, tc.batches)
					}()
				} else {
					close(fed)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				ready := func() bool { return !tc.waitTemp || hasTempFile(dir) }
				if !waitFor(ready, done, 30*time.Second) {
					close(stop)
					cmd.Process.Kill()
					t.Fatalf("%s: no temporary output appeared; stderr: %s", name, stderr.String())
				}
				// Let the run reach its blocking read or its placement loop.
				time.Sleep(500 * time.Millisecond)
				if err := cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				var werr error
				select {
				case werr = <-done:
				case <-time.After(15 * time.Second):
					cmd.Process.Kill()
					<-done
					close(stop)
					<-fed
					t.Fatalf("%s: ordinate did not stop within 15 s of one %v; stderr: %s", name, sig, stderr.String())
				}
				close(stop)
				<-fed
				var ee *exec.ExitError
				if !errors.As(werr, &ee) || ee.ExitCode() != exitRuntime {
					t.Errorf("%s: exit %v, want code %d; stderr: %s", name, werr, exitRuntime, stderr.String())
				}
				if !strings.Contains(stderr.String(), "interrupted") {
					t.Errorf("%s: stderr does not say it was interrupted: %s", name, stderr.String())
				}
				noLeftovers(t, dir)
			})
		}
	}
}

// TestPlaceIterationsBounded: an iteration budget no row could finish
// (10¹² steps, with a model that never stops a row early) is refused before
// any work, exit 2, naming the budget, instead of running for ever.
func TestPlaceIterationsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the ordinate binary (about 4 s), since the unbounded run would not return; go test without -short (as CI does) runs it")
	}
	bin, _ := binaryAndModel(t)
	dir := t.TempDir()
	nervModel := filepath.Join(dir, "nerv.model.parquet")
	if code, _, e := runCmd(t, nil, "nerv", "--in", thyroid, "--label", "label", "--out", filepath.Join(dir, "n.parquet"), "--model-out", nervModel, "--quiet"); code != 0 {
		t.Fatal(e)
	}
	for _, tc := range []struct {
		name, model string
	}{{"tsne", tolZeroModel(t)}, {"nerv", nervModel}} {
		out := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, bin, "apply", "--model", tc.model, "--in", thyroid, "--max-iter", "1000000000000", "--out", filepath.Join(out, "placed.parquet"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		timedOut := ctx.Err() != nil
		cancel()
		var ee *exec.ExitError
		switch {
		case timedOut:
			t.Errorf("%s: --max-iter 10¹² still running after 30 s", tc.name)
		case !errors.As(err, &ee) || ee.ExitCode() != exitInput || !strings.Contains(stderr.String(), "iterations"):
			t.Errorf("%s: exit %v, stderr %q; want exit %d naming the iterations", tc.name, err, stderr.String(), exitInput)
		}
		noLeftovers(t, out)
	}
}

// TestFisherTileCountBound: the tile count of --tile is at most 2³¹−1 (more
// blocks than that only adds empty tiles); a count near 2⁶², whose b·n
// overflowed int64 and wrote an empty tile, is refused, exit 2.
func TestFisherTileCountBound(t *testing.T) {
	sim := "../../testdata/similarity/aural_sonar.parquet"
	for _, tc := range []struct {
		tile string
		code int
	}{
		{"2147483646,2126008810/2147483647", exitOK},
		{"0,0/4611686018427387904", exitInput},
		{"999999999999,989999999999/1000000000000", exitInput},
	} {
		dir := t.TempDir()
		out := filepath.Join(dir, "tile.parquet")
		code, _, e := runCmd(t, nil, "fisher", "--similarity", sim, "--id", "id", "--label", "label", "--tile", tc.tile, "--out", out, "--quiet")
		if code != tc.code || code == exitInput && !strings.Contains(e, "--tile") {
			t.Errorf("--tile %s: exit %d, stderr %q; want exit %d", tc.tile, code, e, tc.code)
			continue
		}
		if code != exitOK {
			noLeftovers(t, dir)
			continue
		}
		// Block 2147483646 of 100 rows is row 99, block 2126008810 row 98:
		// the tile holds the one pair (99, 98).
		ids := readColumn(t, sim, "id")
		want := [][2]string{{ids[99], ids[98]}}
		if got := readColumns2(t, out, "i", "j"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("--tile %s: pairs %v, want %v", tc.tile, got, want)
		}
	}
}

// readColumn returns the values of one column of a table, as text.
func readColumn(t *testing.T, path, col string) []string {
	t.Helper()
	var out []string
	for _, row := range readColumnsN(t, path, col) {
		out = append(out, row[0])
	}
	return out
}

// readColumns2 returns the values of two columns of a table, as text.
func readColumns2(t *testing.T, path, a, b string) [][2]string {
	t.Helper()
	var out [][2]string
	for _, row := range readColumnsN(t, path, a, b) {
		out = append(out, [2]string{row[0], row[1]})
	}
	return out
}

func readColumnsN(t *testing.T, path string, cols ...string) [][]string {
	t.Helper()
	r, err := arrowio.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	idx := make([]int, len(cols))
	for q, c := range cols {
		is := r.Schema().FieldIndices(c)
		if len(is) != 1 {
			t.Fatalf("%s: no column %q", path, c)
		}
		idx[q] = is[0]
	}
	var out [][]string
	for r.Next() {
		rec := r.RecordBatch()
		for i := range int(rec.NumRows()) {
			row := make([]string, len(cols))
			for q, c := range idx {
				row[q] = rec.Column(c).ValueStr(i)
			}
			out = append(out, row)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRemoveOwnTemporaries: what a second signal removes before the
// process exits: the temporary outputs this process is writing and those
// it has completed but not yet published, in their folders; not the
// temporary files of other processes.
func TestRemoveOwnTemporaries(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the open files of a process are listed in /proc/self/fd on Linux only")
	}
	dir := t.TempDir()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64}}, nil)
	open, err := arrowio.Create(context.Background(), filepath.Join(dir, "open.parquet"), schema)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Abort()
	closed, err := arrowio.Create(context.Background(), filepath.Join(dir, "closed.parquet"), schema)
	if err != nil {
		t.Fatal(err)
	}
	closed.(arrowio.Committer).DeferCommit()
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	defer closed.(arrowio.Committer).Rollback()
	// Another live process's temporary file (the test's parent, whose id
	// is not this one's).
	other := fmt.Sprintf(".x.parquet.tmp-%d-0123abcd-99", os.Getppid())
	write(t, filepath.Join(dir, other), "")
	if got := len(tempFiles(t, dir)); got != 3 {
		t.Fatalf("%d temporary files before, want 3", got)
	}
	removed := removeOwnTemporaries()
	if len(removed) != 2 {
		t.Errorf("removed %v, want the two temporary outputs of this process", removed)
	}
	if got := tempFiles(t, dir); len(got) != 1 || got[0] != other {
		t.Errorf("left %v, want only %s", got, other)
	}
}

func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			out = append(out, e.Name())
		}
	}
	return out
}
