package transforms

import (
	"os"
	"strconv"
	"strings"
)

// FDPrefix begins a table path that names an inherited file descriptor:
// "fd:3" is an Arrow IPC stream on descriptor 3, as "-" is on standard
// input or output. A host that runs ordinate as a child (the Python
// package) passes tables through pipes this way, besides stdin and stdout,
// so that no table touches the disk. An output on a descriptor follows
// standard output's rules: its end-of-stream marker is written only when
// the whole run has succeeded.
const FDPrefix = "fd:"

// IsStream reports whether path is a stream rather than a file: "-" or an
// inherited descriptor ("fd:N"). A stream cannot be read twice.
func IsStream(path string) bool { return path == "-" || strings.HasPrefix(path, FDPrefix) }

// fdFile returns the open file of an "fd:N" path; ok is false for any
// other path. Descriptors 0 to 2 are refused (use -), and so is one that
// is not open.
func fdFile(role, path string) (f *os.File, ok bool, err error) {
	rest, found := strings.CutPrefix(path, FDPrefix)
	if !found {
		return nil, false, nil
	}
	n, perr := strconv.ParseUint(rest, 10, 31)
	switch {
	case perr != nil:
		return nil, true, Optionf(role, "%q: want fd:N, N the number of an inherited file descriptor", path)
	case n <= 2:
		return nil, true, Optionf(role, "%q is standard input, output or error: use - for them", path)
	}
	if f, err = dupFD(int(n), path); err != nil {
		return nil, true, Optionf(role, "%q: descriptor %d is not open in this process: %v", path, n, err)
	}
	return f, true, nil
}
