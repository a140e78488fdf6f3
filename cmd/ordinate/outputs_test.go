package main

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The output guarantees, for every stage that writes several outputs: no
// output may overwrite an input or another output (exit 2, nothing
// touched), a run's outputs appear all together or not at all, stale
// temporary files of dead runs are removed with a warning, and a stream on
// stdout cut by an error carries no end-of-stream marker.

// ioStage is a stage's command line for the output tests: the tables it
// reads and writes by flag (paths relative to the test folder) and its
// other arguments.
type ioStage struct {
	name  string
	ins   [][2]string // flag, file in the folder
	outs  []string    // output flags, in the stage's order
	extra []string
}

func (s ioStage) args(dir string, ins map[string]string, outs map[string]string) []string {
	args := []string{s.name, "--quiet"}
	args = append(args, s.extra...)
	for _, in := range s.ins {
		args = append(args, "--"+in[0], ins[in[0]])
	}
	for _, o := range s.outs {
		args = append(args, "--"+o, outs[o])
	}
	return args
}

// copyFile copies src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dst, string(b))
}

// outputsFixture makes a folder with the inputs every stage below reads:
// features, features with controls, attributes, triplets, an embedding and
// a model.
func outputsFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	copyFile(t, thyroid, filepath.Join(dir, "thyroid.csv"))
	copyFile(t, "../../testdata/ckpca/thyroid-control.csv", filepath.Join(dir, "control.csv"))
	copyFile(t, "../../testdata/zoo/zoo.csv", filepath.Join(dir, "zoo.csv"))
	copyFile(t, "../../testdata/similarity/aural_sonar.parquet", filepath.Join(dir, "sonar.parquet"))
	for _, args := range [][]string{
		{"bvp", "--in", filepath.Join(dir, "thyroid.csv"), "--label", "label", "--out", filepath.Join(dir, "emb.parquet"), "--model-out", filepath.Join(dir, "model.parquet")},
		{"triplets", "--in", filepath.Join(dir, "zoo.csv"), "--exclude", "animal_name,type_name", "--per-aspect", "200", "--out", filepath.Join(dir, "triplets.parquet")},
	} {
		if code, _, errOut := runCmd(t, nil, append(args, "--quiet")...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
	}
	return dir
}

// ioStages are the stages that write tables, with all their outputs.
var ioStages = []ioStage{
	{name: "bvp", ins: [][2]string{{"in", "thyroid.csv"}}, outs: []string{"out", "model-out"}, extra: []string{"--label", "label"}},
	{name: "pca", ins: [][2]string{{"in", "thyroid.csv"}}, outs: []string{"out", "model-out"}},
	{name: "lda", ins: [][2]string{{"in", "thyroid.csv"}}, outs: []string{"out", "model-out"}, extra: []string{"--label", "label"}},
	{name: "ckpca", ins: [][2]string{{"in", "control.csv"}}, outs: []string{"out", "model-out"}, extra: []string{"--label", "label", "--control", "cx,cy", "--scale", "auto"}},
	{name: "lsp", ins: [][2]string{{"in", "control.csv"}}, outs: []string{"out", "model-out"}, extra: []string{"--label", "label", "--control", "cx,cy"}},
	{name: "score", ins: [][2]string{{"in", "triplets.parquet"}}, outs: []string{"out", "aspects-out", "sphere-out"}},
	{name: "triplets", ins: [][2]string{{"in", "zoo.csv"}}, outs: []string{"out", "split-out"}, extra: []string{"--exclude", "animal_name,type_name", "--per-aspect", "200", "--split-objects", "0.5"}},
	{name: "evaluate", ins: [][2]string{{"embedding", "emb.parquet"}, {"in", "thyroid.csv"}}, outs: []string{"out", "summary"}, extra: []string{"--label", "label"}},
	{name: "apply", ins: [][2]string{{"model", "model.parquet"}, {"in", "thyroid.csv"}}, outs: []string{"out"}},
	{name: "fisher", ins: [][2]string{{"similarity", "sonar.parquet"}, {"labels", "sonar.parquet"}}, outs: []string{"out"}, extra: []string{"--id", "id", "--label", "label"}},
}

// fileState is what a folder holds: every file's bytes and modification
// time, and every symbolic link's target.
func fileState(t *testing.T, dir string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			state[rel] = "-> " + target
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		state[rel] = fmt.Sprintf("%x %s", fnvSum(b), fi.ModTime().Format(time.RFC3339Nano))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

func fnvSum(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

func TestOutputsNeverOverwrite(t *testing.T) {
	dir := outputsFixture(t)
	// A folder of part files and a symbolic link to an input, per input.
	if err := os.Mkdir(filepath.Join(dir, "parts"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range ioStages {
		for _, in := range s.ins {
			link := filepath.Join(dir, "link-"+in[1])
			if _, err := os.Lstat(link); err != nil {
				if err := os.Symlink(in[1], link); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	copyFile(t, filepath.Join(dir, "thyroid.csv"), filepath.Join(dir, "parts", "part-0.csv"))
	before := fileState(t, dir)
	ext := func(flag string) string {
		if flag == "summary" {
			return ".txt"
		}
		return ".parquet"
	}

	type conflict struct {
		name string
		ins  map[string]string
		outs map[string]string
	}
	for _, s := range ioStages {
		ins, outs := map[string]string{}, map[string]string{}
		for _, in := range s.ins {
			ins[in[0]] = filepath.Join(dir, in[1])
		}
		for _, o := range s.outs {
			outs[o] = filepath.Join(dir, "new-"+o+ext(o))
		}
		with := func(m map[string]string, k, v string) map[string]string {
			c := maps(m)
			c[k] = v
			return c
		}
		var cases []conflict
		for _, o := range s.outs {
			for _, in := range s.ins {
				cases = append(cases,
					conflict{fmt.Sprintf("%s = %s", o, in[0]), ins, with(outs, o, ins[in[0]])},
					conflict{fmt.Sprintf("%s = %s through a symbolic link", o, in[0]), ins, with(outs, o, filepath.Join(dir, "link-"+in[1]))},
					conflict{fmt.Sprintf("%s = %s by another spelling", o, in[0]), ins, with(outs, o, filepath.Join(dir, "parts", "..", in[1]))})
			}
			if slices.ContainsFunc(s.ins, func(in [2]string) bool { return in[0] == "in" && strings.HasSuffix(in[1], ".csv") }) {
				cases = append(cases,
					conflict{o + " inside the input folder", with(ins, "in", filepath.Join(dir, "parts")), with(outs, o, filepath.Join(dir, "parts", "o"+ext(o)))},
					conflict{o + " matching the input glob", with(ins, "in", filepath.Join(dir, "parts", "*.csv")), with(outs, o, filepath.Join(dir, "parts", "o.csv"))})
			}
		}
		for i, o := range s.outs {
			for _, e := range s.outs[:i] {
				if ext(o) == ext(e) {
					cases = append(cases, conflict{o + " = " + e, ins, with(outs, o, outs[e])})
				}
			}
		}
		if len(cases) == 0 {
			t.Fatalf("%s: no conflict to try", s.name)
		}
		for _, c := range cases {
			args := s.args(dir, c.ins, c.outs)
			code, _, errOut := runCmd(t, nil, args...)
			if code != exitInput || !strings.Contains(errOut, "choose another path") {
				t.Errorf("%s, %s: exit %d, want %d with the collision named; stderr: %s", s.name, c.name, code, exitInput, errOut)
			}
			if after := fileState(t, dir); !mapsEqual(before, after) {
				t.Fatalf("%s, %s: the folder changed:\nbefore %v\nafter  %v", s.name, c.name, before, after)
			}
		}
	}
}

func maps(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// unwritableFolder returns a folder that cannot take a file: read-only by
// its mode, or, for root (whom modes do not stop), a read-only or a full
// tmpfs. It skips the test when it cannot make one.
func unwritableFolder(t *testing.T, kind string) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		if kind == "full" {
			t.Skip("a full file system needs a tmpfs, which only root can mount (CI runs as root); the read-only case runs here")
		}
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return dir
	}
	var flags uintptr
	if kind == "read-only" {
		flags = syscall.MS_RDONLY
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", flags, "size=64k"); err != nil {
		t.Skip("root, but the kernel refused a tmpfs mount (a container without CAP_SYS_ADMIN?), so no unwritable folder can be made:", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	if kind == "full" {
		f, err := os.Create(filepath.Join(dir, "filler"))
		if err != nil {
			t.Fatal(err)
		}
		block := make([]byte, 4096)
		for {
			if _, err := f.Write(block); err != nil {
				break
			}
		}
		f.Close()
	}
	return dir
}

// A second output that cannot be written leaves neither output, and no
// temporary file.
func TestOutputsAllOrNothing(t *testing.T) {
	dir := outputsFixture(t)
	in := filepath.Join(dir, "thyroid.csv")
	for _, kind := range []string{"read-only", "full"} {
		t.Run(kind, func(t *testing.T) {
			bad := unwritableFolder(t, kind)
			badState := fileState(t, bad)
			for _, tc := range []struct {
				name string
				args func(w string) []string
				outs []string // names in w the run would write
			}{
				{"bvp model", func(w string) []string {
					return []string{"bvp", "--in", in, "--label", "label", "--out", filepath.Join(w, "o.parquet"), "--model-out", filepath.Join(bad, "m.parquet")}
				}, []string{"o.parquet"}},
				{"score sphere", func(w string) []string {
					return []string{"score", "--in", filepath.Join(dir, "triplets.parquet"), "--out", filepath.Join(w, "o.parquet"), "--aspects-out", filepath.Join(w, "a.parquet"), "--sphere-out", filepath.Join(bad, "s.parquet")}
				}, []string{"a.parquet", "o.parquet"}},
				{"evaluate summary", func(w string) []string {
					return []string{"evaluate", "--embedding", filepath.Join(dir, "emb.parquet"), "--in", in, "--label", "label", "--out", filepath.Join(w, "o.parquet"), "--summary", filepath.Join(bad, "s.txt")}
				}, []string{"o.parquet"}},
			} {
				w := t.TempDir()
				code, _, errOut := runCmd(t, nil, append(tc.args(w), "--quiet")...)
				if code != exitRuntime {
					t.Errorf("%s: exit %d, want %d; stderr: %s", tc.name, code, exitRuntime, errOut)
				}
				if kind == "full" && !strings.Contains(errOut, "no space left on device") {
					t.Errorf("%s: stderr does not say the disk is full: %s", tc.name, errOut)
				}
				noLeftovers(t, w)
				if after := fileState(t, bad); !mapsEqual(badState, after) {
					t.Errorf("%s: the unwritable folder changed: %v", tc.name, after)
				}
			}
			// A stream on stdout whose run then fails has no end marker.
			code, out, errOut := runCmd(t, nil, "bvp", "--quiet", "--in", in, "--label", "label", "--out", "-", "--model-out", filepath.Join(bad, "m.parquet"))
			if code != exitRuntime || bytes.HasSuffix([]byte(out), endOfStream) {
				t.Errorf("stdout beside a failed model: exit %d, %d bytes ending with the end marker: %v; stderr: %s", code, len(out), bytes.HasSuffix([]byte(out), endOfStream), errOut)
			}
		})
	}
}

var endOfStream = []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}

// hostTag is arrowio's tag of this machine in temporary file names.
func hostTag() string {
	h := fnv.New32a()
	name, _ := os.Hostname()
	h.Write([]byte(name))
	return fmt.Sprintf("%08x", h.Sum32())
}

func TestStaleTemporaryFilesRemoved(t *testing.T) {
	// An id above the largest a kernel hands out (PID_MAX_LIMIT, 2^22 on
	// Linux) belongs to no live process, now or later.
	const dead = 1<<22 + 1
	if syscall.Kill(dead, 0) != syscall.ESRCH {
		t.Fatalf("process %d reported alive", dead)
	}
	dir := t.TempDir()
	stale := fmt.Sprintf(".e.parquet.tmp-%d-%s-1234", dead, hostTag())
	live := fmt.Sprintf(".e.parquet.tmp-%d-%s-5678", os.Getppid(), hostTag())
	for _, name := range []string{stale, live} {
		write(t, filepath.Join(dir, name), "partial")
	}
	code, _, errOut := runCmd(t, nil, "pca", "--quiet", "--in", thyroid, "--out", filepath.Join(dir, "e.parquet"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "removed "+filepath.Join(dir, stale)) || strings.Contains(errOut, live) {
		t.Errorf("stderr does not warn of the stale file alone: %s", errOut)
	}
	names := []string{live, "e.parquet"}
	slices.Sort(names)
	noLeftovers(t, dir, names...)
	// The warning is in the output's provenance too.
	code, info, _ := runCmd(t, nil, "inspect", "--json", filepath.Join(dir, "e.parquet"))
	if code != 0 || !strings.Contains(info, stale) {
		t.Errorf("provenance does not record the removal: %s", info)
	}
}

// An Arrow stream on stdout cut by bad data mid-stream does not end with the
// end-of-stream marker: downstream sees a broken stream, not a short one.
func TestStdoutStreamCutHasNoEnd(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("x1,x2,x3\n")
	for i := range 300 {
		fmt.Fprintf(&b, "%d,%d,%d\n", i%7, i%11, i%13)
	}
	small := filepath.Join(dir, "small.csv")
	write(t, small, b.String())
	model := filepath.Join(dir, "m.parquet")
	if code, _, errOut := runCmd(t, nil, "pca", "--quiet", "--in", small, "--out", filepath.Join(dir, "e.parquet"), "--model-out", model); code != 0 {
		t.Fatalf("pca: exit %d: %s", code, errOut)
	}
	b.Reset()
	b.WriteString("x1,x2,x3\n")
	const n, bad = 200_000, 190_000
	for i := range n {
		if i == bad {
			b.WriteString("1,NaN,2\n")
			continue
		}
		fmt.Fprintf(&b, "%d.5,%d.25,%d\n", i%7, i%11, i%13)
	}
	big := filepath.Join(dir, "big.csv")
	write(t, big, b.String())
	code, out, errOut := runCmd(t, nil, "apply", "--quiet", "--model", model, "--in", big, "--on-invalid", "error", "--out", "-")
	if code != exitInput || !strings.Contains(errOut, "NaN") {
		t.Fatalf("exit %d, want %d naming the NaN: %s", code, exitInput, errOut)
	}
	if len(out) < 1<<20 {
		t.Logf("only %d bytes reached stdout before the error", len(out))
	}
	if bytes.HasSuffix([]byte(out), endOfStream) {
		t.Errorf("the cut stream (%d bytes) ends with the end-of-stream marker", len(out))
	}
	// The same input without the bad row is a complete stream.
	code, out, errOut = runCmd(t, nil, "apply", "--quiet", "--model", model, "--in", big, "--on-invalid", "drop", "--out", "-")
	if code != 0 || !bytes.HasSuffix([]byte(out), endOfStream) {
		t.Errorf("complete stream: exit %d, ends with the marker: %v; stderr: %s", code, bytes.HasSuffix([]byte(out), endOfStream), errOut)
	}
}
