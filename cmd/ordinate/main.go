// Command ordinate runs supervised dimensionality reduction stages over
// Arrow, Parquet and CSV tables. Run `ordinate --help` for the commands, and
// `ordinate demo` for a tour on bundled data.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
)

// Exit codes.
const (
	exitOK      = 0
	exitRuntime = 1 // runtime failure: I/O, interrupt, internal error
	exitInput   = 2 // usage error or bad input data: retrying will not help
)

// envExitWithParent names the environment variable by which a host asks
// ordinate to stop when the host exits (Linux; see exitWithParent).
const envExitWithParent = "ORDINATE_EXIT_WITH_PARENT"

// parentGrace is how long a run whose parent died (exitWithParent) may take
// to wind down before the process exits anyway: no second signal will come
// to end a run blocked in a system call (opening a FIFO no one writes).
const parentGrace = 5 * time.Second

func main() {
	// Signals are caught for the whole run, so that a second one can remove
	// the temporary outputs before the process ends (a default handler
	// would end it at once and leave them).
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	watched, gone, err := exitWithParent()
	if err != nil || gone {
		if err == nil {
			err = fmt.Errorf("%s: the parent process has exited", envExitWithParent)
		}
		fmt.Fprintf(os.Stderr, "ordinate: %v\n", err)
		os.Exit(exitRuntime)
	}
	go stopOnSignals(sigs, cancel, watched)
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	cancel()
	os.Exit(code)
}

// stopOnSignals cancels the run at the first signal: every stage stops at
// its next check of the context (a read of a silent stdin included, see
// transforms.FileTables) and removes its temporary outputs. A second
// signal, or parentGrace after the first when the parent is watched, ends
// a run that has not stopped: the temporary outputs of this process are
// removed (removeOwnTemporaries) and it exits with code 1.
func stopOnSignals(sigs <-chan os.Signal, cancel context.CancelFunc, watched bool) {
	<-sigs
	cancel()
	var grace <-chan time.Time
	if watched {
		grace = time.After(parentGrace)
	}
	select {
	case sig := <-sigs:
		fmt.Fprintf(os.Stderr, "ordinate: %v again: stopping now; no output was written\n", sig)
	case <-grace:
		fmt.Fprintf(os.Stderr, "ordinate: stopped by a signal (%s is set) and still running after %v: exiting; no output was written\n", envExitWithParent, parentGrace)
	}
	removeOwnTemporaries()
	os.Exit(exitRuntime)
}

// removeOwnTemporaries removes the temporary outputs of this process and
// returns their paths: the files it has open (on Linux, as /proc/self/fd
// lists them) named as arrowio names a temporary output,
// ".NAME.tmp-PID-HOST-RANDOM" with this process's id, and the other files
// of that name in their folders (outputs complete but not yet published).
// Elsewhere it removes nothing; the next run writing to the folder removes
// them (arrowio.RemoveStale).
func removeOwnTemporaries() []string {
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	own := regexp.MustCompile(`^\..+\.tmp-` + strconv.Itoa(os.Getpid()) + `-[0-9a-f]{8}-[0-9a-z]+$`)
	var dirs []string
	for _, fd := range fds {
		p, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && filepath.IsAbs(p) && own.MatchString(filepath.Base(p)) {
			dirs = append(dirs, filepath.Dir(p))
		}
	}
	slices.Sort(dirs)
	var removed []string
	for _, dir := range slices.Compact(dirs) {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if !e.Type().IsRegular() || !own.MatchString(e.Name()) {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if os.Remove(p) == nil {
				removed = append(removed, p)
			}
		}
	}
	return removed
}

// run executes the command line and returns the exit code. It is main
// without the process: tests call it directly.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr)
	err := app.RunContext(ctx, args)
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	if os.Getenv(envErrorJSON) != "" {
		writeErrorJSON(stderr, ctx, err, code)
		return code
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		// The cancellation itself, however deep it surfaced, is no news.
		fmt.Fprintln(stderr, "ordinate: interrupted; no output was written")
		return code
	}
	fmt.Fprintf(stderr, "ordinate: %v\n", err)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "ordinate: interrupted; no output was written")
	}
	return code
}

// inputError marks errors caused by the command line or the input data.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

// badInput wraps err (if not nil) as a usage / bad-input error: exit code 2.
func badInput(err error) error {
	if err == nil {
		return nil
	}
	var ie inputError
	if errors.As(err, &ie) {
		return err
	}
	return inputError{err}
}

func usagef(format string, a ...any) error { return inputError{fmt.Errorf(format, a...)} }

// exitCode maps an error to the exit code. Actions classify their errors
// (see action); errors that urfave/cli raises itself (unknown command or flag,
// missing required flag) are usage errors.
func exitCode(err error) int {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return exitRuntime
	}
	var ie inputError
	if errors.As(err, &ie) {
		return exitInput
	}
	var re runtimeError
	if errors.As(err, &re) {
		return exitRuntime
	}
	// urfave's own exit codes (3 for "No help topic") are not ours: a
	// command line it refuses is a usage error.
	var ec cli.ExitCoder
	if errors.As(err, &ec) && ec.ExitCode() == exitRuntime {
		return exitRuntime
	}
	return exitInput
}
