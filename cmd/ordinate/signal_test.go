package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
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
			go func() { defer close(fed); feedBatches(stdin, stop) }()

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
// stop is closed or the reader goes away.
func feedBatches(w interface {
	Write([]byte) (int, error)
	Close() error
}, stop <-chan struct{}) {
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
	for {
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
