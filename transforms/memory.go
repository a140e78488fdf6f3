package transforms

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// The memory guard: one mechanism by which every stage refuses, before it
// allocates, a plan that would not fit in the memory the run may use.
//
// The memory a run may use is Env.MemoryLimit when set (the CLI's
// --memory-limit), else what the system allows the process: the smallest
// of the cgroup limits that apply to it (cgroup v2 memory.max, v1
// memory.limit_in_bytes) and the machine's physical memory
// (/proc/meminfo); on a system that says neither, no limit but the
// address space. Run puts it in the context it gives the stage, so that
// code below the stage that has a context and no Env (a method's core, a
// model's placer) checks against the same figure (Reserve).
//
// A stage estimates the peak of whatever grows faster than its rows (an
// N×N matrix, a D×D scatter matrix) or takes its size from an option or a
// file (output dimensions, a model header, a grid), and calls Reserve (or
// Env.Reserve) before allocating it: a plan that does not fit is a
// *MemoryError, which wraps ErrMemory (bad data: exit code 2 in the CLI),
// or an *OptionError naming the option that drives it (ReserveOption).
// The check is of one plan against the whole limit, not an account of
// every allocation: it turns the sizes that cannot work into a clear
// error before the Go runtime dies of them.

// ErrMemory is the sentinel of a plan that needs more memory than the run
// may use. It matches ErrInvalidData: retrying the same run will not help.
var ErrMemory = NewSentinel(ErrInvalidData, "not enough memory")

// MemoryError is a plan refused by the memory guard: what would be held,
// its size, the memory the run may use and where that figure comes from,
// and what would fit.
type MemoryError struct {
	What   string  // what the plan holds: "the exact method's three N×N matrices at N = 50,000"
	Need   float64 // its size in bytes
	Limit  int64   // the memory the run may use, in bytes
	Source string  // where Limit comes from: "the machine's memory; --memory-limit to change it"
	Fix    string  // what would fit: "use --method bh or cutoff, or fewer rows"; may be ""
}

func (e *MemoryError) Error() string {
	msg := fmt.Sprintf("%v: %s (%s); this run may use %s (%s)", ErrMemory, e.What, FormatBytes(e.Need), FormatBytes(float64(e.Limit)), e.Source)
	if e.Fix != "" {
		msg += "; " + e.Fix
	}
	return msg
}

func (e *MemoryError) Unwrap() error { return ErrMemory }

// Sources of the memory limit, as a MemoryError names them.
const (
	memorySet     = "--memory-limit"
	memoryCgroup  = "the cgroup's memory limit; --memory-limit to change it"
	memoryMachine = "the machine's memory; --memory-limit to change it"
	memoryNone    = "the address space; --memory-limit to set a limit"
)

// AddressSpace is the most memory a plan may take when the run has no
// limit: 2⁴⁷ bytes (128 TiB), the user address space of a 64-bit process.
// A plan above it cannot be allocated at all.
const AddressSpace = 1 << 47

// memoryBudget is the memory a run may use and where the figure comes
// from.
type memoryBudget struct {
	limit  int64
	source string
}

// memoryBudget resolves MemoryLimit: set, none (negative), or the
// system's figure (0).
func (env *Env) memoryBudget() memoryBudget {
	switch {
	case env.MemoryLimit > 0:
		return memoryBudget{env.MemoryLimit, memorySet}
	case env.MemoryLimit < 0:
		return memoryBudget{AddressSpace, memoryNone}
	}
	return systemBudget()
}

// Memory returns the memory the run may use, in bytes, and where the
// figure comes from (as a MemoryError says it).
func (env *Env) Memory() (int64, string) {
	b := env.memoryBudget()
	return b.limit, b.source
}

type memoryKey struct{}

// WithMemoryLimit returns a copy of ctx that carries the memory a run may
// use: limit bytes; 0 for what the system allows (SystemMemory), a
// negative limit for none. Run gives every stage such a context, built
// from Env.MemoryLimit; a Go program calling a method's core directly may
// set its own.
func WithMemoryLimit(ctx context.Context, limit int64) context.Context {
	env := &Env{MemoryLimit: limit}
	return context.WithValue(ctx, memoryKey{}, env.memoryBudget())
}

// MemoryLimit returns the memory the run of ctx may use, in bytes, and
// where the figure comes from: the limit WithMemoryLimit set, or
// SystemMemory's.
func MemoryLimit(ctx context.Context) (int64, string) {
	b := budgetOf(ctx)
	return b.limit, b.source
}

func budgetOf(ctx context.Context) memoryBudget {
	if ctx != nil {
		if b, ok := ctx.Value(memoryKey{}).(memoryBudget); ok {
			return b
		}
	}
	return systemBudget()
}

// Reserve checks, before allocating, that a plan of need bytes fits in the
// memory the run of ctx may use (MemoryLimit). what says what the plan
// holds, with the figures it depends on ("the exact method's three N×N
// matrices at N = 50,000"), fix what would fit ("use method bh, or fewer
// rows"). It returns a *MemoryError, or nil. A need that is NaN or
// infinite (a size that overflowed) never fits.
func Reserve(ctx context.Context, need float64, what, fix string) error {
	return budgetOf(ctx).reserve(need, what, fix)
}

// ReserveOption is Reserve for a plan whose size an option drives (output
// dimensions, a step count): the refusal is an *OptionError naming the
// option, wrapping the *MemoryError.
func ReserveOption(ctx context.Context, option string, need float64, what, fix string) error {
	if err := Reserve(ctx, need, what, fix); err != nil {
		return &OptionError{Option: option, Err: err}
	}
	return nil
}

// Reserve is the package's Reserve against the memory of env's run
// (Env.MemoryLimit), for a stage that has its Env at hand.
func (env *Env) Reserve(need float64, what, fix string) error {
	return env.memoryBudget().reserve(need, what, fix)
}

// ReserveOption is the package's ReserveOption against the memory of
// env's run.
func (env *Env) ReserveOption(option string, need float64, what, fix string) error {
	if err := env.Reserve(need, what, fix); err != nil {
		return &OptionError{Option: option, Err: err}
	}
	return nil
}

func (b memoryBudget) reserve(need float64, what, fix string) error {
	limit := b.limit
	if limit <= 0 || limit > AddressSpace {
		limit = AddressSpace
	}
	if need <= float64(limit) { // false for NaN
		return nil
	}
	return &MemoryError{What: what, Need: need, Limit: limit, Source: b.source, Fix: fix}
}

// ReserveSquare is Env.Reserve for a stage that forms copies D×D matrices
// over its d features (what says which: "lda's scatter matrix, its
// Cholesky factor and its inverse"), beside n×d copies of the features: a
// wide table (a list column of 100,000 elements is 100,000 features) makes
// them the run's largest plan by far.
func (env *Env) ReserveSquare(n, d, copies int, what string) error {
	return env.Reserve(float64(copies)*Float64Bytes(d, d)+2*Float64Bytes(n, d),
		fmt.Sprintf("%s, %d D×D matrices over %s features", what, copies, Thousands(int64(d))),
		"use fewer features (each element of a list column is one)")
}

// ReserveMatrix is Env.Reserve for copies n×n float64 matrices (what
// names them: "the distance matrix"), as a stage builds from a long table
// of pairs or for all pairs of its rows: n comes from a table, and a few
// megabytes of ids make terabytes of pairs.
func (env *Env) ReserveMatrix(n int, copies float64, what, fix string) error {
	return env.Reserve(copies*Float64Bytes(n, n), fmt.Sprintf("%s, N×N at N = %s", what, Thousands(int64(n))), fix)
}

// Float64Bytes is the size of a float64 array with the product of counts
// as its length, in float64 arithmetic (so that it cannot overflow): the
// argument of Reserve for an n×n matrix is Float64Bytes(n, n).
func Float64Bytes(counts ...int) float64 {
	b := 8.0
	for _, c := range counts {
		b *= float64(c)
	}
	return b
}

// FormatBytes writes a size in bytes as people read it, in decimal units
// with one decimal: "60.0 GB", "512.0 MB", "900 bytes".
func FormatBytes(b float64) string {
	switch {
	case math.IsNaN(b) || math.IsInf(b, 0):
		return "an unbounded size"
	case b < 1000:
		return fmt.Sprintf("%.0f bytes", b)
	}
	units := []string{"kB", "MB", "GB", "TB", "PB", "EB"}
	u := -1
	for b >= 999.95 && u < len(units)-1 {
		b /= 1000
		u++
	}
	if b >= 999.95 {
		return fmt.Sprintf("%.3g %s", b, units[u])
	}
	return fmt.Sprintf("%.1f %s", b, units[u])
}

// Thousands writes n with commas between groups of three digits:
// "50,000".
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ParseBytes reads a memory size: a whole or decimal number with an
// optional unit, decimal (kB, MB, GB, TB, or K, M, G, T) or binary (KiB,
// MiB, GiB, TiB), case-insensitive, with or without a space: "8GB",
// "1.5 GiB", "500000000". "none" (or "off") is no limit, returned as −1;
// "auto" or "" is the system's figure, returned as 0 (the meanings of
// Env.MemoryLimit).
func ParseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "", "auto":
		return 0, nil
	case "none", "off":
		return -1, nil
	}
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	v, err := strconv.ParseFloat(num, 64)
	if num == "" || err != nil {
		return 0, fmt.Errorf("%q: want a size such as 8GB, 512MiB or 1000000 (bytes), or none", s)
	}
	mult, ok := map[string]float64{
		"": 1, "b": 1, "byte": 1, "bytes": 1,
		"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12, "p": 1e15, "pb": 1e15,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40, "pib": 1 << 50,
	}[unit]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q; use B, kB, MB, GB, TB or KiB, MiB, GiB, TiB", s, unit)
	}
	b := v * mult
	if !(b >= 1) || b > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q: want a size of at least 1 byte and at most 4 EB, or none", s)
	}
	return int64(b), nil
}

// SystemMemory returns the memory the system allows this process, in bytes,
// and where the figure comes from: the smallest cgroup memory limit that
// applies to the process (v2 memory.max, v1 memory.limit_in_bytes, along
// its cgroup path and at the root of the hierarchy) and the physical
// memory (MemTotal in /proc/meminfo). It returns 0 when the system says
// neither (not Linux). It is read once per process.
func SystemMemory() (int64, string) {
	b := systemBudget()
	if b.source == memoryNone {
		return 0, b.source
	}
	return b.limit, b.source
}

var system struct {
	once   sync.Once
	budget memoryBudget
}

func systemBudget() memoryBudget {
	system.once.Do(func() { system.budget = readSystemBudget(os.ReadFile) })
	return system.budget
}

// readSystemBudget is SystemMemory reading its files with read.
func readSystemBudget(read func(string) ([]byte, error)) memoryBudget {
	b := memoryBudget{AddressSpace, memoryNone}
	if data, err := read("/proc/meminfo"); err == nil {
		if v := memTotal(data); v > 0 && v < b.limit {
			b = memoryBudget{v, memoryMachine}
		}
	}
	for _, p := range cgroupFiles(read) {
		data, err := read(p)
		if err != nil {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		if err != nil || v <= 0 { // "max": no limit
			continue
		}
		if v < b.limit {
			b = memoryBudget{v, memoryCgroup}
		}
	}
	return b
}

// memTotal is MemTotal of /proc/meminfo, in bytes, or 0.
func memTotal(data []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			v, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || v <= 0 {
				return 0
			}
			if len(f) >= 3 && strings.EqualFold(f[2], "kB") {
				v *= 1024
			}
			return v
		}
	}
	return 0
}

// cgroupFiles lists the files that may hold a memory limit of this
// process: for each hierarchy of /proc/self/cgroup with the memory
// controller (v1) or the unified one (v2), the limit file of its cgroup
// and of every ancestor, under the usual mount points; and the files at
// the roots of the mounts, which are the process's own cgroup in a
// container with a cgroup namespace.
func cgroupFiles(read func(string) ([]byte, error)) []string {
	files := []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}
	data, err := read("/proc/self/cgroup")
	if err != nil {
		return files
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[2], "/") {
			continue
		}
		var root, file string
		switch {
		case parts[0] == "0" && parts[1] == "":
			root, file = "/sys/fs/cgroup", "memory.max"
		case hasController(parts[1], "memory"):
			root, file = "/sys/fs/cgroup/memory", "memory.limit_in_bytes"
		default:
			continue
		}
		for p := path.Clean(parts[2]); p != "/" && p != "."; p = path.Dir(p) {
			files = append(files, path.Join(root, p, file))
		}
	}
	return files
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// Model files: a loader takes counts from the header (dims, features, the
// graph degree) and allocates by them, so it checks each one against the
// table itself first: CheckColumns before allocating per column, and
// CheckFeatures for the feature names it will apply.

// CheckColumns refuses a model table whose schema does not have exactly
// the columns prefix0 … prefix{n−1} for a count n taken from the header
// (what names the count in the message: "dims"): a column missing, or one
// more (prefix followed by a number ≥ n). A loader calls it before it
// allocates by n, so that no header can make it allocate more than the
// table holds.
func (f ModelFile) CheckColumns(schema *arrow.Schema, prefix string, n int, what string) error {
	if n < 0 {
		return f.Errorf("header says %s %d", what, n)
	}
	have := 0
	for _, fl := range schema.Fields() {
		rest, ok := strings.CutPrefix(fl.Name, prefix)
		if !ok || rest == "" || strings.TrimLeft(rest, "0123456789") != "" {
			continue
		}
		j, err := strconv.Atoi(rest)
		if err != nil || j >= n || rest != strconv.Itoa(j) {
			return f.Errorf("header says %s %d, but the table has a column %q", what, n, fl.Name)
		}
		have++
	}
	if have != n {
		return f.Errorf("header says %s %d, but the table has %d columns %s0 … (each once)", what, n, have, prefix)
	}
	return nil
}

// CheckFeatures refuses the feature names of a model that are not unique,
// or that differ from the features its own provenance (in schema's
// metadata) records the fit used, in order: a model whose names were
// swapped after it was written would apply each weight to the wrong
// column. A model without that record (one a program wrote with
// WriteModelFile and its own provenance) is taken as it is.
func (f ModelFile) CheckFeatures(schema *arrow.Schema, names []string) error {
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if seen[n] {
			return f.Errorf("feature %q is named twice", n)
		}
		seen[n] = true
	}
	prov := TableProvenance(schema)
	if prov == nil || len(names) == 0 {
		return nil
	}
	rec, ok := prov.Figures["features"].([]any)
	if !ok {
		return nil
	}
	fitted := make([]string, len(rec))
	for i, v := range rec {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		fitted[i] = s
	}
	if !slices.Equal(fitted, names) {
		return f.Errorf("the model's features are %s, but the run that fitted it used %s: the file was changed after it was written (fit the model again)",
			quoteList(names), quoteList(fitted))
	}
	return nil
}

// quoteList writes up to 8 names, quoted, then how many more.
func quoteList(names []string) string {
	const most = 8
	var q []string
	for i, n := range names {
		if i == most {
			q = append(q, fmt.Sprintf("and %d more", len(names)-most))
			break
		}
		q = append(q, strconv.Quote(n))
	}
	return "[" + strings.Join(q, " ") + "]"
}

// CheckDims refuses a dims option above the number of objects n: n points
// fit exactly in n − 1 dimensions (on a sphere, n), so more only adds
// work, which at --dims 1000000 runs for hours instead of failing.
func CheckDims(dims, n int) error {
	if dims > n {
		return Optionf("dims", "%s dimensions for %s objects: more dimensions than objects add nothing but work; use at most %d",
			Thousands(int64(dims)), Thousands(int64(n)), n)
	}
	return nil
}
