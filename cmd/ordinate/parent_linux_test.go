//go:build linux

package main

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExitWithParent starts ordinate from a shell that then exits, with
// ordinate blocked on a silent stdin: with ORDINATE_EXIT_WITH_PARENT set to
// the shell's pid it stops (leaving no output); without it, it is orphaned
// and keeps waiting — the case the variable is for.
func TestExitWithParent(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the ordinate binary (about 4 s); go test without -short (as CI does) runs it")
	}
	bin, model := binaryAndModel(t)
	for _, tc := range []struct {
		name  string
		set   bool
		stops bool
	}{{"set", true, true}, {"unset", false, false}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			env := ""
			if tc.set {
				env = envExitWithParent + "=$$ "
			}
			// The shell starts ordinate on a stdin that stays open (the
			// test holds the pipe), prints its pid and exits.
			script := env + "exec 3<&0; " + strconv.Quote(bin) + " apply --model " + strconv.Quote(model) +
				" --in - --out " + strconv.Quote(filepath.Join(dir, "out.parquet")) + " <&3 2>/dev/null & echo $!"
			sh := exec.Command("sh", "-c", script)
			stdin, err := sh.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			out, err := sh.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := sh.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil {
				t.Fatal(err)
			}
			defer syscall.Kill(pid, syscall.SIGKILL)
			if err := sh.Wait(); err != nil {
				t.Fatal(err)
			}
			gone := func() bool { return syscall.Kill(pid, 0) != nil }
			deadline := time.Now().Add(parentGrace + 5*time.Second)
			for !gone() && time.Now().Before(deadline) && tc.stops {
				time.Sleep(20 * time.Millisecond)
			}
			if !tc.stops {
				time.Sleep(500 * time.Millisecond)
			}
			if gone() != tc.stops {
				t.Errorf("ordinate (pid %d) gone %v after its parent exited, want %v", pid, gone(), tc.stops)
			}
			if tc.stops && hasTempFile(dir) {
				t.Errorf("a temporary output was left in %s", dir)
			}
		})
	}
}
