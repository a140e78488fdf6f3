package transforms

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "8GB", want: 8e9},
		{in: "8 gb", want: 8e9},
		{in: "8G", want: 8e9},
		{in: "1.5GiB", want: 3 << 29},
		{in: "512MiB", want: 512 << 20},
		{in: "1000000", want: 1e6},
		{in: "2TB", want: 2e12},
		{in: "100kB", want: 1e5},
		{in: "none", want: -1},
		{in: "auto", want: 0},
		{in: "", want: 0},
		{in: "0", bad: true},
		{in: "-5GB", bad: true},
		{in: "8XB", bad: true},
		{in: "GB", bad: true},
		{in: "1e400", bad: true},
		{in: "9000PB", bad: true},
	} {
		got, err := ParseBytes(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("%q: got %d, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{{900, "900 bytes"}, {60e9, "60.0 GB"}, {22.9e9, "22.9 GB"}, {8e12, "8.0 TB"}, {999.99e6, "1.0 GB"}, {1e21, "1e+03 EB"}} {
		if got := FormatBytes(c.in); got != c.want {
			t.Errorf("%g: got %q, want %q", c.in, got, c.want)
		}
	}
	if got := Thousands(50000); got != "50,000" {
		t.Errorf("Thousands(50000) = %q", got)
	}
	if got := Thousands(-1234567); got != "-1,234,567" {
		t.Errorf("Thousands(-1234567) = %q", got)
	}
}

// TestSystemMemory reads the limit from made-up system files: the smallest
// of MemTotal and the cgroup limits along the process's cgroup path.
func TestSystemMemory(t *testing.T) {
	meminfo := "MemTotal:       24731708 kB\nMemFree:        19138388 kB\n"
	for _, c := range []struct {
		name       string
		files      map[string]string
		limit      int64
		sourceWord string
	}{
		{name: "machine", files: map[string]string{"/proc/meminfo": meminfo}, limit: 24731708 * 1024, sourceWord: "machine"},
		{name: "nothing", files: map[string]string{}, limit: AddressSpace, sourceWord: "address space"},
		{name: "v2 root", files: map[string]string{"/proc/meminfo": meminfo, "/sys/fs/cgroup/memory.max": "4294967296\n"}, limit: 4 << 30, sourceWord: "cgroup"},
		{name: "v2 max", files: map[string]string{"/proc/meminfo": meminfo, "/sys/fs/cgroup/memory.max": "max\n"}, limit: 24731708 * 1024, sourceWord: "machine"},
		{name: "v2 path", files: map[string]string{
			"/proc/meminfo": meminfo, "/proc/self/cgroup": "0::/user.slice/job\n",
			"/sys/fs/cgroup/memory.max": "max", "/sys/fs/cgroup/user.slice/memory.max": "2000000000", "/sys/fs/cgroup/user.slice/job/memory.max": "3000000000",
		}, limit: 2e9, sourceWord: "cgroup"},
		{name: "v1 path", files: map[string]string{
			"/proc/meminfo": meminfo, "/proc/self/cgroup": "5:cpu:/\n4:memory:/process_api/abc\n",
			"/sys/fs/cgroup/memory/memory.limit_in_bytes":                 "9223372036854771712",
			"/sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes": "1073741824",
		}, limit: 1 << 30, sourceWord: "cgroup"},
	} {
		read := func(p string) ([]byte, error) {
			if s, ok := c.files[p]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		}
		b := readSystemBudget(read)
		if b.limit != c.limit || !strings.Contains(b.source, c.sourceWord) {
			t.Errorf("%s: got %d (%s), want %d (%s)", c.name, b.limit, b.source, c.limit, c.sourceWord)
		}
	}
}

// TestReserve: a plan above the limit is a MemoryError (ErrInvalidData)
// naming the size, the limit and its source; an option-driven one an
// OptionError; the context carries the limit Run gives the stage.
func TestReserve(t *testing.T) {
	ctx := WithMemoryLimit(context.Background(), 1e9)
	if err := Reserve(ctx, 9e8, "a matrix", ""); err != nil {
		t.Fatalf("900 MB under a 1 GB limit: %v", err)
	}
	err := Reserve(ctx, Float64Bytes(50000, 50000)*3, "the exact method's three N×N matrices at N = 50,000", "use method bh")
	var me *MemoryError
	if !errors.As(err, &me) || !errors.Is(err, ErrMemory) || !errors.Is(err, ErrInvalidData) {
		t.Fatalf("got %v, want a MemoryError", err)
	}
	for _, w := range []string{"60.0 GB", "1.0 GB", "--memory-limit", "use method bh", "N = 50,000"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q does not say %q", err, w)
		}
	}
	err = ReserveOption(ctx, "dims", Float64Bytes(1000, 1000000), "the map", "")
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Option != "dims" || !errors.Is(err, ErrMemory) || !errors.Is(err, ErrInvalidOption) {
		t.Errorf("got %v, want an OptionError for dims", err)
	}
	none := WithMemoryLimit(context.Background(), -1)
	if err := Reserve(none, 1e14, "a big plan", ""); err != nil {
		t.Errorf("no limit, 100 TB: %v", err)
	}
	for _, need := range []float64{1e15, Float64Bytes(1<<40, 1<<40)} {
		if err := Reserve(none, need, "an impossible plan", ""); err == nil {
			t.Errorf("no limit, %g bytes: accepted beyond the address space", need)
		}
	}
	env := &Env{MemoryLimit: 1 << 20}
	if err := env.Reserve(2<<20, "two MiB", ""); err == nil || !strings.Contains(err.Error(), "(--memory-limit)") {
		t.Errorf("Env.Reserve: %v", err)
	}
	if lim, src := env.Memory(); lim != 1<<20 || src != memorySet {
		t.Errorf("Env.Memory = %d, %q", lim, src)
	}
}

// TestCheckColumns: a header count must be exactly the table's columns
// prefix0 … prefix{n−1}, before a loader allocates by it.
func TestCheckColumns(t *testing.T) {
	f := ModelFile{Path: "m.parquet"}
	schema := func(names ...string) *arrow.Schema {
		var fs []arrow.Field
		for _, n := range names {
			fs = append(fs, arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Float64})
		}
		return arrow.NewSchema(fs, nil)
	}
	s := schema("feature", "axis_0", "axis_1", "axis_x", "axes_2")
	for _, c := range []struct {
		n  int
		ok bool
	}{{2, true}, {1, false}, {3, false}, {-5, false}, {1 << 40, false}, {0, false}} {
		err := f.CheckColumns(s, "axis_", c.n, "dims")
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrModel)) {
			t.Errorf("dims %d: %v", c.n, err)
		}
	}
	if err := f.CheckColumns(schema("axis_0", "axis_01"), "axis_", 2, "dims"); err == nil {
		t.Error("axis_01 taken for axis_1")
	}
	if err := f.CheckColumns(schema("feature"), "axis_", 0, "dims"); err != nil {
		t.Errorf("no columns for a count of 0: %v", err)
	}
}

// TestCheckFeatures: a model's feature names must be unique and, when its
// provenance records the fit's features, those in that order.
func TestCheckFeatures(t *testing.T) {
	f := ModelFile{Path: "m.parquet"}
	prov := `{"tool":"ordinate","figures":{"features":["a","b","c"]}}`
	with := arrow.NewSchema(nil, &[]arrow.Metadata{arrow.NewMetadata([]string{"ordinate"}, []string{prov})}[0])
	without := arrow.NewSchema(nil, nil)
	for _, c := range []struct {
		name   string
		schema *arrow.Schema
		names  []string
		ok     bool
	}{
		{"as fitted", with, []string{"a", "b", "c"}, true},
		{"swapped", with, []string{"b", "a", "c"}, false},
		{"one missing", with, []string{"a", "b"}, false},
		{"no record", without, []string{"b", "a", "c"}, true},
		{"twice", without, []string{"a", "a"}, false},
	} {
		if err := f.CheckFeatures(c.schema, c.names); (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
