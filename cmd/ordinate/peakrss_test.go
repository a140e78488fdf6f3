package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// launcherEnv makes the test binary a launcher (see TestMain): it runs the
// command of its arguments and prints the command's peak resident memory.
const launcherEnv = "ORDINATE_TEST_LAUNCHER"

// touchArg makes the test binary touch the megabytes of the next argument
// and exit: a command of known peak for TestPeakRSS.
const touchArg = "-touch-mb"

// TestMain turns the test binary into a launcher, or a command that
// touches memory, before any test runs.
func TestMain(m *testing.M) {
	switch {
	case os.Getenv(launcherEnv) == "1":
		os.Exit(launch(os.Args[1:]))
	case len(os.Args) == 3 && os.Args[1] == touchArg:
		mb, err := strconv.Atoi(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		b := make([]byte, mb<<20)
		for i := range b {
			b[i] = byte(i)
		}
		os.Exit(int(b[len(b)/3] & 0)) // keeps b alive to here
	}
	os.Exit(m.Run())
}

// launch runs args[0] with args[1:] (without launcherEnv), its output on
// the launcher's standard error, then prints "maxrss <kB>" on standard
// output and exits with the command's code.
func launch(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, launcherEnv+"=") })
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		return 127
	}
	fmt.Printf("maxrss %d\n", cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	return cmd.ProcessState.ExitCode()
}

// peakRSS runs bin with args and returns its peak resident memory in
// bytes, its combined output and its error. A child's ru_maxrss starts at
// its parent's high-water mark (Linux keeps the old address space's peak
// at exec, and Go starts a child on its parent's address space), so a test
// process grown by earlier tests would be charged to the command; the
// command is therefore started by a fresh copy of the test binary, whose
// own peak is a few MB.
func peakRSS(t *testing.T, bin string, args ...string) (peak int64, out string, err error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{bin}, args...)...)
	cmd.Env = append(os.Environ(), launcherEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	kb, perr := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(stdout.String()), "maxrss "), 10, 64)
	if perr != nil {
		t.Fatalf("launcher printed %q: %v\n%s", stdout.String(), perr, stderr.String())
	}
	return kb << 10, stderr.String(), err // kB on Linux
}

// TestPeakRSS: with this process's own peak raised past 300 MB first, a
// command that touches 150 MB is measured at 150–250 MB and one that
// touches 1 MB under 100 MB (without the launcher both read above 300).
func TestPeakRSS(t *testing.T) {
	ballast := make([]byte, 320<<20)
	for i := range ballast {
		ballast[i] = 1
	}
	cases := []struct {
		mb       string
		min, max int64
	}{
		{"1", 0, 100 << 20},
		{"150", 150 << 20, 250 << 20},
	}
	for _, c := range cases {
		peak, out, err := peakRSS(t, os.Args[0], touchArg, c.mb)
		if err != nil {
			t.Fatalf("touch %s MB: %v\n%s", c.mb, err, out)
		}
		if peak < c.min || peak > c.max {
			t.Errorf("touch %s MB: peak %d MB, want %d–%d MB", c.mb, peak>>20, c.min>>20, c.max>>20)
		}
	}
	if ballast[len(ballast)-1] != 1 {
		t.Fatal("ballast lost")
	}
}
