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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	watched, gone, err := exitWithParent()
	if err != nil || gone {
		if err == nil {
			err = fmt.Errorf("%s: the parent process has exited", envExitWithParent)
		}
		fmt.Fprintf(os.Stderr, "ordinate: %v\n", err)
		os.Exit(exitRuntime)
	}
	// After the first signal the run winds down and removes its temporary
	// files; restoring the default handlers lets a second signal end a run
	// that is blocked, e.g. on a silent stdin.
	go func() {
		<-ctx.Done()
		stop()
		if watched {
			time.Sleep(parentGrace)
			fmt.Fprintf(os.Stderr, "ordinate: stopped by a signal (%s is set) and still running after %v: exiting\n", envExitWithParent, parentGrace)
			os.Exit(exitRuntime)
		}
	}()
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
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
