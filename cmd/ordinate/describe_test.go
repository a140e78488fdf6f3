package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/ordinate/ordinate/arrowio"
	"github.com/ordinate/ordinate/transforms"
	"github.com/ordinate/ordinate/transforms/table"
)

// describeJSON runs `ordinate describe --json ARGS…` and decodes it.
func describeJSON(t *testing.T, args ...string) transforms.Description {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append([]string{"ordinate", "describe", "--json"}, args...), nil, &stdout, &stderr); code != 0 {
		t.Fatalf("describe: exit %d: %s", code, stderr.String())
	}
	var d transforms.Description
	if err := json.Unmarshal(stdout.Bytes(), &d); err != nil {
		t.Fatalf("describe --json is not JSON: %v", err)
	}
	return d
}

// commandFlags are the names (and aliases) of a command's flags, hidden ones
// included, without --help.
func commandFlags(cmd *cli.Command) []string {
	var out []string
	for _, f := range cmd.Flags {
		out = append(out, f.Names()...)
	}
	slices.Sort(out)
	return slices.DeleteFunc(out, func(n string) bool { return n == "help" || n == "h" })
}

// The description lists every stage with every flag its command accepts:
// options (and their earlier names), input and output roles, and the
// host's options; nothing more, nothing less.
func TestDescribeMatchesFlags(t *testing.T) {
	d := describeJSON(t)
	if d.SchemaVersion != transforms.DescriptionVersion || d.Tool != "ordinate" || d.Version == "" {
		t.Errorf("header: schema_version %d, tool %q, version %q", d.SchemaVersion, d.Tool, d.Version)
	}
	app := newApp(nil, nil, nil)
	var stageNames []string
	for _, s := range d.Stages {
		stageNames = append(stageNames, s.Name)
		cmd := app.Command(s.Name)
		if cmd == nil {
			t.Errorf("%s: described but no command", s.Name)
			continue
		}
		var want []string
		for _, o := range s.Options {
			want = append(want, o.Name)
			want = append(want, o.Aliases...)
		}
		for _, r := range append(slices.Clone(s.Inputs), s.Outputs...) {
			if !r.Variadic {
				want = append(want, r.Name)
			}
		}
		for _, o := range d.HostOptions {
			want = append(want, o.Name)
		}
		if !slices.ContainsFunc(s.Options, func(o transforms.OptionDescription) bool { return o.Name == "seed" }) {
			want = append(want, "seed") // every stage accepts --seed (flagNoSeed)
		}
		slices.Sort(want)
		if got := commandFlags(cmd); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the command's flags\n  %v\nthe description's\n  %v", s.Name, got, want)
		}
		for _, r := range append(slices.Clone(s.Inputs), s.Outputs...) {
			if r.Kind != table.Model && r.Name != "model" {
				continue
			}
			if len(r.Models) == 0 {
				t.Errorf("%s --%s: a model role that names no model kind", s.Name, r.Name)
			}
			for _, k := range r.Models {
				if !slices.ContainsFunc(d.ModelKinds, func(m transforms.ModelDescription) bool { return m.Kind == k }) {
					t.Errorf("%s --%s: model kind %q is not registered", s.Name, r.Name, k)
				}
			}
		}
		if cmd.Category != s.Category || cmd.Usage != s.Summary {
			t.Errorf("%s: command category %q and usage %q, described %q and %q", s.Name, cmd.Category, cmd.Usage, s.Category, s.Summary)
		}
	}
	var registered []string
	for _, s := range transforms.Stages() {
		registered = append(registered, s.Info().Name)
	}
	if !reflect.DeepEqual(stageNames, registered) {
		t.Errorf("described stages %v, registered %v", stageNames, registered)
	}
	for _, k := range []string{"affine", "kernel", "placement"} {
		if !slices.ContainsFunc(d.ModelKinds, func(m transforms.ModelDescription) bool { return m.Kind == k }) {
			t.Errorf("model kind %q not described", k)
		}
	}
}

// An option's described default is its declared default, in the JSON
// type of the option (a number for a number, a list for a list), and its
// usage carries the range.
func TestDescribeOptionDefaults(t *testing.T) {
	d := describeJSON(t, "tsne", "evaluate")
	if len(d.Stages) != 2 || d.Stages[0].Name != "tsne" || d.Stages[1].Name != "evaluate" {
		t.Fatalf("describe tsne evaluate gave %d stages", len(d.Stages))
	}
	opt := func(s transforms.StageDescription, name string) transforms.OptionDescription {
		for _, o := range s.Options {
			if o.Name == name {
				return o
			}
		}
		t.Fatalf("%s: no option %s", s.Name, name)
		return transforms.OptionDescription{}
	}
	p := opt(d.Stages[0], "perplexity")
	if p.Default != 30.0 || p.Type != "float" || p.Key != "perplexity" || p.Range == nil || p.Range.Min != 1 || !strings.Contains(p.Usage, "≥ 1") {
		t.Errorf("tsne perplexity described as %+v", p)
	}
	m := opt(d.Stages[0], "max-iter")
	if !slices.Contains(m.Aliases, "iterations") || m.Key != "max_iter" || m.Default != 1000.0 {
		t.Errorf("tsne max-iter described as %+v", m)
	}
	meth := opt(d.Stages[0], "method")
	if meth.Type != "enum" || !reflect.DeepEqual(meth.Values, []string{"auto", "exact", "bh", "fft"}) || meth.Default != "auto" {
		t.Errorf("tsne method described as %+v", meth)
	}
	k := opt(d.Stages[1], "k")
	if k.Type != "list of int" || !reflect.DeepEqual(k.Default, []any{5.0, 10.0, 30.0}) {
		t.Errorf("evaluate k described as %+v", k)
	}
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"ordinate", "describe", "nope"}, nil, &bytes.Buffer{}, &stderr); code != exitInput || !strings.Contains(stderr.String(), "no stage") {
		t.Errorf("describe nope: exit %d, %s", code, stderr.String())
	}
}

// Every flag of every command of the release before the options were
// redesigned (testdata/flags-1fda075.txt) is still accepted, so no user
// script breaks: renamed options keep their old names as hidden aliases.
func TestOldFlagsStillWork(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "flags-1fda075.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	app := newApp(nil, nil, nil)
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		command, flag, _ := strings.Cut(line, " ")
		cmd := app.Command(command)
		if cmd == nil {
			t.Errorf("command %s is gone", command)
			continue
		}
		if !hasFlag(cmd, flag) {
			t.Errorf("%s --%s is no longer accepted", command, flag)
		}
		n++
	}
	if n < 300 {
		t.Errorf("only %d old flags checked", n)
	}
}

// An earlier name sets the same option as the new one (the provenance
// records it under the new key), and giving both is a usage error.
func TestOptionAliases(t *testing.T) {
	dir := t.TempDir()
	thyroid := filepath.Join("..", "..", "testdata", "ordinal", "newthyroid.csv")
	for _, tc := range []struct {
		name string
		args []string
		key  string
		want float64
	}{
		{"tsne --iterations", []string{"tsne", "--in", thyroid, "--iterations", "30", "--method", "exact"}, "max_iter", 30},
		{"tsne --max-iter", []string{"tsne", "--in", thyroid, "--max-iter", "40", "--method", "exact"}, "max_iter", 40},
	} {
		out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "")+".parquet")
		args := append([]string{"ordinate"}, append(tc.args, "--out", out, "--quiet")...)
		var stderr bytes.Buffer
		if code := run(context.Background(), args, nil, &bytes.Buffer{}, &stderr); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, stderr.String())
		}
		p := provenanceOf(t, out)
		if p.Params[tc.key] != tc.want || p.Figures["iterations"] != tc.want {
			t.Errorf("%s: params %s = %v, iterations run %v; want %v", tc.name, tc.key, p.Params[tc.key], p.Figures["iterations"], tc.want)
		}
		if _, ok := p.Params["iterations"]; ok {
			t.Errorf("%s: the provenance also records the old name", tc.name)
		}
	}
	var stderr bytes.Buffer
	args := []string{"ordinate", "tsne", "--in", thyroid, "--iterations", "30", "--max-iter", "40", "--out", filepath.Join(dir, "both.parquet")}
	if code := run(context.Background(), args, nil, &bytes.Buffer{}, &stderr); code != exitInput || !strings.Contains(stderr.String(), "same option") {
		t.Errorf("both names: exit %d, %s", code, stderr.String())
	}
}

// provenanceOf is the provenance of the table at path.
func provenanceOf(t *testing.T, path string) *arrowio.Provenance {
	t.Helper()
	info, err := arrowio.Inspect(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Provenance == nil {
		t.Fatalf("%s has no provenance", path)
	}
	return info.Provenance
}
