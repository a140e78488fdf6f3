//go:build !unix

package transforms

import (
	"errors"
	"os"
)

// dupFD is for Unix systems only.
func dupFD(int, string) (*os.File, error) {
	return nil, errors.New("fd:N paths need a Unix system")
}
