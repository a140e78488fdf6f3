//go:build unix

package transforms

import (
	"os"
	"syscall"
)

// dupFD returns a file of its own on a duplicate of descriptor n: closing
// it, or its finaliser, leaves n open for the process that passed it.
func dupFD(n int, name string) (*os.File, error) {
	d, err := syscall.Dup(n)
	if err != nil {
		return nil, err
	}
	syscall.CloseOnExec(d)
	return os.NewFile(uintptr(d), name), nil
}
