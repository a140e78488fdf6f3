//go:build unix

package arrowio

import (
	"errors"
	"os"
	"syscall"
)

// processAlive reports whether a process of that id exists: signal 0
// checks without sending anything; only ESRCH says there is none (EPERM is
// a live process of another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return !errors.Is(err, syscall.ESRCH)
}

// lockFolder takes an exclusive advisory lock on the folder dir and
// returns its release; when the folder cannot be locked it does nothing.
func lockFolder(dir string) func() {
	f, err := os.Open(dir)
	if err != nil {
		return func() {}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return func() {}
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}
