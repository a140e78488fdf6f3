package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
)

// numericOptions returns the declared numeric options (int, float64 and
// lists of them) of opts, by name, with their usage (the help with the
// range the declaration's tag gives). A uint64 (a seed) states its range
// by its type: any whole number ≥ 0.
func numericOptions(opts transforms.Options, out map[string]string) {
	for _, o := range transforms.Declare(opts) {
		switch o.Type() {
		case "int", "float", "list of int", "list of float":
			out[o.Name] = o.Usage()
		}
	}
}

// rangeWords are what a numeric option's help says its range or unit with.
var rangeWords = []string{"≥", "≤", ">", "<", "at least", "at most", "between", "in [", "in (", "positive", "0:", "below", "fraction", " cm", "radians", "any "}

// Every numeric option of every stage states its range (or its unit) in
// its help, so that --help shows what Validate accepts.
func TestNumericOptionsStateRange(t *testing.T) {
	var offenders []string
	for _, s := range transforms.Stages() {
		opts := map[string]string{}
		numericOptions(s.NewOptions(), opts)
		for name, help := range opts {
			ok := false
			for _, w := range rangeWords {
				if strings.Contains(help, w) {
					ok = true
					break
				}
			}
			if !ok {
				offenders = append(offenders, s.Info().Name+" --"+name+": "+help)
			}
		}
	}
	if len(offenders) > 0 {
		t.Errorf("numeric options whose help states no range or unit:\n%s", strings.Join(offenders, "\n"))
	}
}

// badTable writes a feature table (id, a, b, c, label, control columns cx
// and cy on the first three rows) of n rows, spoilt as kind says: "big"
// puts ±1e308 in column a ("huge" ±1.7e308, whose standard deviation
// overflows), "inf" puts +Inf in a on row 3, "dup" gives row
// 5 the id of row 2; "" leaves it clean.
func badTable(t *testing.T, dir, kind string, n int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, uint64(n)))
	var b strings.Builder
	b.WriteString("id,a,b,c,label,cx,cy\n")
	for i := range n {
		id := 100 + i
		if kind == "dup" && i == 5 {
			id = 102
		}
		a := float64(i%3) + rng.NormFloat64()
		switch {
		case kind == "big" && i%2 == 0:
			a = 1e308
		case kind == "big":
			a = -1e308
		case kind == "large" && i%2 == 0:
			a = 1e70
		case kind == "large":
			a = -1e70
		case kind == "huge" && i%2 == 0:
			a = 1.7e308
		case kind == "huge":
			a = -1.7e308
		case kind == "inf" && i == 3:
			a = math.Inf(1)
		}
		fmt.Fprintf(&b, "%d,%s,%g,%g,%d", id, strconv.FormatFloat(a, 'g', -1, 64), rng.NormFloat64(), float64(i%3)*0.5+rng.NormFloat64(), i%3)
		if i < 3 {
			fmt.Fprintf(&b, ",%g,%g\n", float64(i), float64(i%2))
		} else {
			b.WriteString(",,\n")
		}
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.csv", kind, n))
	write(t, path, b.String())
	return path
}

// allFinite fails when a float column of the table at path holds NaN or ±Inf.
func allFinite(t *testing.T, path string) {
	t.Helper()
	r, err := arrowio.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer r.Release()
	rows := 0
	for r.Next() {
		rec := r.RecordBatch()
		rows += int(rec.NumRows())
		for c, col := range rec.Columns() {
			fa, ok := col.(*array.Float64)
			if !ok {
				continue
			}
			for i := range fa.Len() {
				if v := fa.Value(i); fa.IsValid(i) && (math.IsNaN(v) || math.IsInf(v, 0)) {
					t.Errorf("%s: column %s, row %d holds %v", path, rec.ColumnName(c), i, v)
					return
				}
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if rows == 0 {
		t.Errorf("%s: no rows", path)
	}
}

// Every stage that reads features, on bad values: ±1e308 in a column (with
// and without standardisation), ±1.7e308 (too large to standardise), a column with +Inf, duplicate ids, one row,
// two rows. A stage either succeeds with finite outputs (a model too) or
// exits 2 naming the column at fault; it never panics, never exits 1 for bad
// data, and never leaves an output behind when it fails.
func TestBadValuesEveryFeatureStage(t *testing.T) {
	dir := t.TempDir()
	clean := badTable(t, dir, "", 60)
	// evaluate scores an embedding of the clean table's ids.
	fitted := filepath.Join(dir, "fitted.parquet")
	if code, _, stderr := runCmd(t, nil, "pca", "--in", clean, "--id", "id", "--features", "a,b,c", "--out", fitted); code != 0 {
		t.Fatalf("pca on the clean table: exit %d: %s", code, stderr)
	}
	type stage struct {
		name  string
		args  []string
		model bool // writes --model-out
	}
	feats := []string{"--id", "id", "--features", "a,b,c"}
	stages := []stage{
		{"bvp", []string{"bvp", "--label", "label"}, true},
		{"pca", []string{"pca"}, true},
		{"lda", []string{"lda", "--label", "label"}, true},
		{"ckpca", []string{"ckpca", "--kernel", "rbf"}, true},
		{"lsp", []string{"lsp", "--control", "cx,cy"}, true},
		{"tsne", []string{"tsne", "--perplexity", "5"}, false},
		{"nerv", []string{"nerv", "--label", "label", "--perplexity", "5", "--multiscale=false", "--max-iter", "20"}, false},
		{"fisher", []string{"fisher", "--kernel", "rbf", "--label", "label", "--sigma", "1"}, false},
		{"evaluate", []string{"evaluate", "--embedding", fitted, "--label", "label", "--k", "1", "--quiet"}, false},
	}
	type input struct {
		name   string
		path   string
		column string // the column the error must name, "" when success is fine
		std    string // --standardize value, "" for the stage's default
	}
	inputs := []input{
		{"big standardised", badTable(t, dir, "big", 60), "", "true"},
		{"big raw", badTable(t, dir, "big", 60), `"a"`, "false"},
		{"large raw", badTable(t, dir, "large", 60), "", "false"}, // ±1e70: just below the limit
		{"huge standardised", badTable(t, dir, "huge", 4), `"a"`, "true"},
		{"inf", badTable(t, dir, "inf", 60), `"a"`, ""},
		{"duplicate ids", badTable(t, dir, "dup", 60), `"id"`, ""},
		{"one row", badTable(t, dir, "", 1), "", ""},
		{"two rows", badTable(t, dir, "", 2), "", ""},
	}
	for _, s := range stages {
		for _, in := range inputs {
			t.Run(s.name+"/"+in.name, func(t *testing.T) {
				out := t.TempDir()
				args := append(append([]string{}, s.args...), feats...)
				args = append(args, "--in", in.path, "--out", filepath.Join(out, "out.parquet"))
				if s.model {
					args = append(args, "--model-out", filepath.Join(out, "model.parquet"))
				}
				if in.std != "" {
					args = append(args, "--standardize="+in.std)
				}
				code, _, stderr := runCmd(t, nil, args...)
				switch code {
				case 0:
					if in.column != "" {
						t.Fatalf("exit 0 on bad data %s, want exit 2 naming %s", in.name, in.column)
					}
					allFinite(t, filepath.Join(out, "out.parquet"))
					if s.model {
						// The model written holds finite values only, and
						// apply places the same rows with it.
						model := filepath.Join(out, "model.parquet")
						allFinite(t, model)
						placed := filepath.Join(out, "applied.parquet")
						if code, _, stderr := runCmd(t, nil, "apply", "--model", model, "--in", in.path, "--id", "id", "--out", placed); code != 0 {
							t.Fatalf("apply of the model: exit %d: %s", code, stderr)
						}
						allFinite(t, placed)
					}
				case 2:
					if in.column != "" && !strings.Contains(stderr, "column "+in.column) {
						t.Errorf("exit 2 without naming column %s: %s", in.column, stderr)
					}
					noLeftovers(t, out)
				default:
					t.Fatalf("exit %d (want 0, or 2 for bad data): %s", code, stderr)
				}
				t.Logf("exit %d: %s", code, lastLine(stderr))
				if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") {
					t.Errorf("stderr shows a panic: %s", stderr)
				}
			})
		}
	}
}

// triplets that finds no triplet at all says so (exit 2), with no output.
func TestTripletsNone(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "one.csv")
	write(t, in, "id,a,b\n0,x,y\n")
	out := t.TempDir()
	code, _, stderr := runCmd(t, nil, "triplets", "--in", in, "--id", "id", "--out", filepath.Join(out, "t.parquet"))
	if code != 2 || !strings.Contains(stderr, "no triplets") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	noLeftovers(t, out)
}

// An unknown command is a usage error (exit 2) that says what to do.
func TestUnknownCommand(t *testing.T) {
	code, _, stderr := runCmd(t, nil, "bogus")
	if code != 2 || !strings.Contains(stderr, "unknown command bogus; see ordinate --help") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if code, stdout, _ := runCmd(t, nil, "help", "bvp"); code != 0 || !strings.Contains(stdout, "ordinate bvp") {
		t.Errorf("help bvp: exit %d: %.200s", code, stdout)
	}
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
