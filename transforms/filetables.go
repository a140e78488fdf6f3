package transforms

import (
	"context"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/arrowio"
)

// FileTables keeps a run's tables in files: Paths maps a role to a path as
// arrowio.Open and arrowio.Create take it ("-" is the process's stdin for
// an input and stdout for an output), or "fd:N", an Arrow IPC stream on
// inherited descriptor N (FDPrefix). Outputs are written atomically, and
// Run publishes them as a group. Before any work Run calls Check, which
// refuses outputs that would overwrite an input or each other.
type FileTables struct {
	Paths  map[string]string
	Stdin  io.Reader // for "-" inputs; nil: os.Stdin (a read blocked on it ends when the run is cancelled)
	Stdout io.Writer // for "-" outputs; nil: os.Stdout
	// Threads decode the columns of Parquet inputs side by side
	// (arrowio.WithReadThreads); 0: all cores.
	Threads int
	// Shown are the outputs the host gave a place itself (Role.Show
	// outputs on its standard output), not the caller.
	Shown map[string]bool
}

func (t *FileTables) Has(role string) bool { return t.Paths[role] != "" }

// Asked reports whether the caller asked for the output of role, rather
// than the host showing it unasked (Shown).
func (t *FileTables) Asked(role string) bool { return t.Has(role) && !t.Shown[role] }

// WriteFile writes the file output of role atomically.
func (t *FileTables) WriteFile(role string, data []byte) error {
	p := t.Paths[role]
	if f, ok, err := fdFile(role, p); ok {
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		return err
	}
	if p == "-" {
		out := t.Stdout
		if out == nil {
			out = os.Stdout
		}
		_, err := out.Write(data)
		return err
	}
	return arrowio.WriteFileAtomic(p, data)
}

// Path returns the path given for role.
func (t *FileTables) Path(role string) string { return t.Paths[role] }

func (t *FileTables) Open(ctx context.Context, role string, mem memory.Allocator) (arrowio.Reader, error) {
	return t.OpenShard(ctx, role, mem, arrowio.Shard{})
}

// OpenShard opens shard s of the Parquet input of role (arrowio.Shard;
// the zero Shard is all of it).
func (t *FileTables) OpenShard(ctx context.Context, role string, mem memory.Allocator, s arrowio.Shard) (arrowio.Reader, error) {
	opts := []arrowio.ReadOption{arrowio.WithReadAllocator(mem), arrowio.WithShard(s), arrowio.WithReadThreads(t.Threads)}
	p := t.Paths[role]
	if f, ok, err := fdFile(role, p); ok {
		if err != nil {
			return nil, err
		}
		// An inherited descriptor is read as stdin is.
		opts = append(opts, arrowio.WithStdin(newCtxReader(ctx, f)))
		p = "-"
	} else if p == "-" {
		// A silent stdin must not hold a cancelled run (see ctxReader).
		stdin := t.Stdin
		if stdin == nil {
			stdin = os.Stdin
		}
		opts = append(opts, arrowio.WithStdin(newCtxReader(ctx, stdin)))
	}
	return arrowio.Open(ctx, p, opts...)
}

// streamOutput gives the arrowio path and write options of the output of
// role: an inherited descriptor is written as standard output is.
func (t *FileTables) streamOutput(role string, opts []arrowio.WriteOption) (string, []arrowio.WriteOption, error) {
	p := t.Paths[role]
	if f, ok, err := fdFile(role, p); ok {
		if err != nil {
			return "", nil, err
		}
		return "-", append(opts, arrowio.WithStdout(f)), nil
	}
	if t.Stdout != nil {
		opts = append(opts, arrowio.WithStdout(t.Stdout))
	}
	return p, opts, nil
}

func (t *FileTables) Create(ctx context.Context, role string, schema *arrow.Schema, mem memory.Allocator) (arrowio.Writer, error) {
	p, opts, err := t.streamOutput(role, []arrowio.WriteOption{arrowio.WithWriteAllocator(mem)})
	if err != nil {
		return nil, err
	}
	return arrowio.Create(ctx, p, schema, opts...)
}

// CreateFile opens the file output of role (a figure, a report), for Run
// to publish with the run's other outputs.
func (t *FileTables) CreateFile(ctx context.Context, role string) (arrowio.FileWriter, error) {
	p, opts, err := t.streamOutput(role, nil)
	if err != nil {
		return nil, err
	}
	return arrowio.CreateFile(ctx, p, opts...)
}

// Check refuses, before any work, tables that would make the run destroy
// its own data: an output that is one of the inputs, lies inside an input
// folder or matches an input glob, and two outputs that are one file (or
// both standard output); and outputs whose path holds something other
// than a regular file (a folder, a named pipe, a device such as /dev/null,
// a socket), which publishing would replace (arrowio.ErrNotRegular). Places are compared as resolved files, not as
// strings: an existing file by identity (os.SameFile, so a symbolic or hard
// link to an input counts), an output not yet there by its folder with
// symbolic links resolved and its name. Variadic inputs (role#0, role#1, …)
// are inputs like any other. The error is an *OptionError on the output
// naming the input or output it collides with.
func (t *FileTables) Check(info Info) error {
	isInput := map[string]bool{}
	for _, r := range info.Inputs {
		isInput[r.Name] = true
	}
	isOutput := map[string]bool{}
	for _, r := range info.Outputs {
		isOutput[r.Name] = true
	}
	var ins []inputPlace
	var outs []outputPlace
	for _, role := range slices.Sorted(maps.Keys(t.Paths)) {
		p := t.Paths[role]
		if p == "" || IsStream(p) && !isOutput[role] {
			continue
		}
		base, _, _ := strings.Cut(role, "#")
		switch {
		case isOutput[role]:
			outs = append(outs, placeOutput(role, p))
		case isInput[base]:
			if in, ok := placeInput(role, p); ok {
				ins = append(ins, in)
			}
		}
	}
	// Outputs in the order the stage declares them, so that the later one
	// is named.
	slices.SortStableFunc(outs, func(a, b outputPlace) int {
		return roleIndex(info.Outputs, a.role) - roleIndex(info.Outputs, b.role)
	})
	for i, o := range outs {
		if o.fi != nil && !o.fi.Mode().IsRegular() {
			return Optionf(o.role, "%q is %s, not a regular file: an output is written to a temporary file "+
				"renamed over its path, which would replace it; choose the path of a file, or - for standard output",
				o.path, fileKind(o.fi.Mode()))
		}
		for _, in := range ins {
			if why := in.holds(o); why != "" {
				return Optionf(o.role, "%q %s the input %q (%s); choose another path", o.path, why, in.role, in.path)
			}
		}
		for _, e := range outs[:i] {
			if o.same(e) {
				return Optionf(o.role, "%q is also the output %q (%s); choose another path", o.path, e.role, e.path)
			}
		}
	}
	return nil
}

// fileKind names what a path that is not a regular file holds.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "an irregular file"
}

func roleIndex(roles []Role, name string) int {
	for i, r := range roles {
		if r.Name == name {
			return i
		}
	}
	return len(roles)
}

// inputPlace is where an input is: files (with their identity), a folder
// read recursively, or a glob pattern in a resolved folder.
type inputPlace struct {
	role, path string
	files      []resolvedFile
	dir        string // resolved folder, for a folder input
	pattern    string // resolved glob, for a glob input
}

type resolvedFile struct {
	path string // resolved
	fi   os.FileInfo
}

// outputPlace is where an output goes: its resolved path (its folder
// resolved, for a file not yet there) and the existing file, if any.
type outputPlace struct {
	role, path string
	resolved   string
	fi         os.FileInfo
}

// resolve returns p absolute with its symbolic links resolved, or as far
// as it can be: the folder resolved and the name kept, when p does not
// exist.
func resolve(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(d, filepath.Base(abs))
	}
	return abs
}

func placeInput(role, p string) (inputPlace, bool) {
	in := inputPlace{role: role, path: p}
	if strings.ContainsAny(p, "*?[") {
		in.pattern = filepath.Join(resolve(filepath.Dir(p)), filepath.Base(p))
		matches, _ := filepath.Glob(p)
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() {
				in.files = append(in.files, resolvedFile{resolve(m), fi})
			}
		}
		return in, true
	}
	fi, err := os.Stat(p)
	if err != nil {
		return in, false // Open will say so
	}
	if fi.IsDir() {
		in.dir = resolve(p)
		return in, true
	}
	in.files = []resolvedFile{{resolve(p), fi}}
	return in, true
}

func placeOutput(role, p string) outputPlace {
	o := outputPlace{role: role, path: p}
	if IsStream(p) {
		return o
	}
	o.resolved = resolve(p)
	if fi, err := os.Stat(p); err == nil {
		o.fi = fi
	}
	return o
}

// holds says how the input would be overwritten by o ("is also", "is
// inside the folder of", "matches the glob of"), or "".
func (in inputPlace) holds(o outputPlace) string {
	if IsStream(o.path) {
		return ""
	}
	for _, f := range in.files {
		if f.path == o.resolved || o.fi != nil && os.SameFile(f.fi, o.fi) {
			return "is also"
		}
	}
	if in.dir != "" && (o.resolved == in.dir || strings.HasPrefix(o.resolved, in.dir+string(filepath.Separator))) {
		return "is inside the folder of"
	}
	if in.pattern != "" {
		if ok, _ := filepath.Match(in.pattern, o.resolved); ok {
			return "matches the glob of"
		}
	}
	return ""
}

// same reports whether two outputs are one place.
func (o outputPlace) same(e outputPlace) bool {
	if IsStream(o.path) || IsStream(e.path) {
		return o.path == e.path
	}
	return o.resolved == e.resolved || o.fi != nil && e.fi != nil && os.SameFile(o.fi, e.fi)
}
