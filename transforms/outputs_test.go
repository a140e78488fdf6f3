package transforms

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/ordinate/ordinate/transforms/table"
)

// twoOutStage writes "out", then "second" (a table, or a file when
// fileSecond), then fails when fail is set: the group commit must publish
// both or neither.
type twoOutStage struct {
	fail       bool
	fileSecond bool
}

type noOptions struct{}

func (noOptions) Validate() error { return nil }

func (s twoOutStage) Info() Info {
	second := Role{Name: "second", Help: "second table", Kind: table.Model}
	if s.fileSecond {
		second.Kind = File
	}
	return Info{Name: "two", Summary: "two outputs",
		Inputs:  []Role{{Name: "in", Help: "table"}, {Name: "tables", Help: "tables", Variadic: true}},
		Outputs: []Role{{Name: "out", Help: "first", Kind: table.Embedding, Required: true}, second}}
}

func (twoOutStage) NewOptions() Options { return &noOptions{} }

func (s twoOutStage) Run(ctx context.Context, env *Env, _ Options) error {
	rec := oneColumn(env.Mem, 3)
	defer rec.Release()
	if err := env.WriteRecord(ctx, "out", rec); err != nil {
		return err
	}
	if env.Has("second") {
		var err error
		if s.fileSecond {
			err = env.WriteFile("second", []byte("summary"))
		} else {
			err = env.WriteRecord(ctx, "second", rec)
		}
		if err != nil {
			return err
		}
	}
	if s.fail {
		return errors.New("the stage failed after writing")
	}
	return nil
}

func oneColumn(mem memory.Allocator, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64}}, nil))
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Float64Builder).Append(float64(i))
	}
	return b.NewRecordBatch()
}

func TestGroupCommitMemory(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, fileSecond := range []bool{false, true} {
		for _, fail := range []bool{false, true} {
			tabs := NewMemTables(nil, "out", "second")
			err := Run(context.Background(), twoOutStage{fail: fail, fileSecond: fileSecond}, &noOptions{}, &Env{Tables: tabs, Mem: mem})
			got := len(tabs.Outputs())
			if tabs.File("second") != nil {
				got++
			}
			want := 2
			if fail {
				want = 0
			}
			if (err != nil) != fail || got != want {
				t.Errorf("file %v, fail %v: err %v, %d outputs, want %d", fileSecond, fail, err, got, want)
			}
			if !fail && tabs.Out("out").Provenance().RunID == "" {
				t.Error("no run id in the provenance")
			}
			tabs.Release()
		}
	}
}

// files lists the names in dir.
func files(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return strings.Join(names, ",")
}

func TestGroupCommitFiles(t *testing.T) {
	for _, fileSecond := range []bool{false, true} {
		// The stage fails after writing both: neither appears.
		dir := t.TempDir()
		paths := map[string]string{"out": filepath.Join(dir, "o.parquet"), "second": filepath.Join(dir, "m.parquet")}
		err := Run(context.Background(), twoOutStage{fail: true, fileSecond: fileSecond}, &noOptions{}, &Env{Tables: &FileTables{Paths: paths}})
		if err == nil || files(t, dir) != "" {
			t.Errorf("file %v: failed run: err %v, folder holds %q", fileSecond, err, files(t, dir))
		}
		// The second cannot be created (its folder is gone): the first
		// does not appear either.
		paths["second"] = filepath.Join(dir, "gone", "m.parquet")
		err = Run(context.Background(), twoOutStage{fileSecond: fileSecond}, &noOptions{}, &Env{Tables: &FileTables{Paths: paths}})
		if err == nil || files(t, dir) != "" {
			t.Errorf("file %v: second output impossible: err %v, folder holds %q", fileSecond, err, files(t, dir))
		}
		paths["second"] = filepath.Join(dir, "m.parquet")
		if err := Run(context.Background(), twoOutStage{fileSecond: fileSecond}, &noOptions{}, &Env{Tables: &FileTables{Paths: paths}}); err != nil {
			t.Fatal(err)
		}
		if got := files(t, dir); got != "m.parquet,o.parquet" {
			t.Errorf("file %v: folder holds %q", fileSecond, got)
		}
	}
}

func TestFileTablesCheck(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.parquet")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	parts := filepath.Join(dir, "parts")
	if err := os.Mkdir(parts, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.parquet")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.parquet")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	linkDir := filepath.Join(dir, "linkdir")
	if err := os.Symlink(dir, linkDir); err != nil {
		t.Fatal(err)
	}
	o := filepath.Join(dir, "o.parquet")
	for _, tc := range []struct {
		name  string
		paths map[string]string
		want  string // "" when the tables are fine
	}{
		{"distinct", map[string]string{"in": in, "out": o, "second": filepath.Join(dir, "m.parquet")}, ""},
		{"stdin and stdout", map[string]string{"in": "-", "out": "-"}, ""},
		{"out is the input", map[string]string{"in": in, "out": in}, `option "out": "` + in + `" is also the input "in"`},
		{"out is a variadic input", map[string]string{"tables#0": o + "x", "tables#1": in, "out": in}, `is also the input "tables#1"`},
		{"through a symbolic link", map[string]string{"in": in, "out": link}, `is also the input "in"`},
		{"through a hard link", map[string]string{"in": in, "out": hard}, `is also the input "in"`},
		{"through a linked folder", map[string]string{"in": in, "out": filepath.Join(linkDir, "in.parquet")}, `is also the input "in"`},
		{"relative and absolute", map[string]string{"in": in, "out": filepath.Join(dir, ".", "parts", "..", "in.parquet")}, `is also the input "in"`},
		{"inside an input folder", map[string]string{"in": parts, "out": filepath.Join(parts, "p.parquet")}, `is inside the folder of the input "in"`},
		{"inside an input subfolder", map[string]string{"in": dir, "out": filepath.Join(parts, "p.parquet")}, `is inside the folder of the input "in"`},
		{"matching an input glob", map[string]string{"in": filepath.Join(parts, "*.parquet"), "out": filepath.Join(parts, "p.parquet")}, `matches the glob of the input "in"`},
		{"outputs the same", map[string]string{"out": o, "second": o}, `option "second": "` + o + `" is also the output "out"`},
		{"outputs the same through a link", map[string]string{"out": o, "second": filepath.Join(linkDir, "o.parquet")}, `is also the output "out"`},
		{"outputs both stdout", map[string]string{"out": "-", "second": "-"}, `is also the output "out"`},
	} {
		err := (&FileTables{Paths: tc.paths}).Check(twoOutStage{}.Info())
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalidOption)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
