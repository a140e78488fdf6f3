package main

import (
	"errors"
	"os"
	"runtime/debug"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/transforms"
)

// version is the tool version recorded in every output.
const version = "0.1.0"

func toolVersion() string {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += "+" + s.Value[:12]
			}
		}
	}
	return v
}

// runtimeError marks failures that are not the input's fault: exit code 1.
type runtimeError struct{ err error }

func (e runtimeError) Error() string { return e.err.Error() }
func (e runtimeError) Unwrap() error { return e.err }

// action wraps the action of a command that is not a stage (demo,
// inspect) so that its errors are classified as the stages' are.
func action(fn func(c *cli.Context) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		err := fn(c)
		var ie inputError
		if err == nil || errors.As(err, &ie) {
			return err
		}
		return classify(c.Context, err)
	}
}

// Flags every stage command has besides its own.
var (
	flagThreads   = &cli.IntFlag{Name: "threads", Value: 0, Usage: "worker threads (0: all cores)"}
	flagQuiet     = &cli.BoolFlag{Name: "quiet", Usage: "only warnings and errors on stderr, no progress"}
	flagLogFormat = &cli.StringFlag{Name: "log-format", Value: "text", Usage: "log format on stderr: text or json"}
	flagNoSeed    = &cli.Uint64Flag{Name: "seed", Value: 1, Usage: "accepted by every stage; this one uses no randomness, so the seed changes nothing"}
	flagMemory    = &cli.StringFlag{Name: "memory-limit", Value: "auto", Usage: "memory the run may use, e.g. 8GB or 512MiB: a plan that needs more is refused before it starts (auto: the cgroup limit or the machine's memory; none: no limit)"}
)

// memoryLimit is --memory-limit as Env.MemoryLimit: bytes, 0 for the
// system's figure, −1 for none. The limit is also the Go runtime's soft
// memory limit (runtimeLimit), unless GOMEMLIMIT sets one.
func memoryLimit(c *cli.Context) (int64, error) {
	v, err := transforms.ParseBytes(c.String(flagMemory.Name))
	if err != nil {
		return 0, usagef("--%s %v", flagMemory.Name, err)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		if r := runtimeLimit(v); r > 0 {
			debug.SetMemoryLimit(r)
		}
	}
	return v, nil
}

// runtimeLimit is the Go runtime's soft memory limit for --memory-limit v
// (as memoryLimit returns it), or 0 to leave the runtime's own: v, or for
// auto the system's figure (the cgroup's limit or the machine's memory),
// so that near the bound the plans were checked against the collector
// works to keep the heap under it rather than letting it grow to twice
// what is live (the plans count live bytes: a 10⁶-row nerv fit planned at
// 5.8 GB peaked at 7.0 GB on a 24 GB machine).
func runtimeLimit(v int64) int64 {
	if v == 0 {
		v, _ = transforms.SystemMemory()
	}
	return max(v, 0)
}
