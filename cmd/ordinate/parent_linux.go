//go:build linux

package main

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// exitWithParent honours ORDINATE_EXIT_WITH_PARENT=<pid>: a host that runs
// ordinate as its child and may be killed without warning (a Spark task's
// Python worker) sets it to its own process id, and the kernel sends this
// process SIGTERM when that parent (the thread that started it) exits, so
// that no ordinate keeps computing for nobody. The run then stops as on any
// SIGTERM, removing its temporary output (main exits anyway after a grace
// period). It reports whether the variable is set (watched) and whether
// the parent was already gone when the request was made.
func exitWithParent() (watched, gone bool, err error) {
	v := os.Getenv(envExitWithParent)
	if v == "" {
		return false, false, nil
	}
	pid, err := strconv.Atoi(v)
	if err != nil || pid <= 1 {
		return false, false, fmt.Errorf("%s=%q: want the parent's process id", envExitWithParent, v)
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGTERM), 0, 0, 0); err != nil {
		return false, false, fmt.Errorf("%s: %w", envExitWithParent, err)
	}
	// The parent may have exited before the request: then no signal comes,
	// and this process has a new parent.
	return true, os.Getppid() != pid, nil
}
